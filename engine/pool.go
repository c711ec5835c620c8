package engine

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// vectorPool keeps the host vectors of proved partitions — A·w, B·w, C·w and w, the bulk of a
// partition's host memory — for the next synthesis of the same lengths, so that they are
// reused instead of being left to the garbage collector while the next partition allocates
// anew. Vectors are kept by capacity, in elements. The engine guards it with its lock, counts
// its bytes in the budget (Stats.Pooled), and keeps no more than the partitions waiting for
// synthesis take.
type vectorPool struct {
	free  map[int][][]fr.Element
	bytes int64
}

// vecBytes is the size of v's backing array in bytes.
func vecBytes(v []fr.Element) int64 { return int64(cap(v)) * fr.Bytes }

// put keeps v (nil is ignored).
func (p *vectorPool) put(v []fr.Element) {
	if cap(v) == 0 {
		return
	}
	if p.free == nil {
		p.free = map[int][][]fr.Element{}
	}
	p.free[cap(v)] = append(p.free[cap(v)], v[:cap(v)])
	p.bytes += vecBytes(v)
}

// get returns a kept vector of capacity n, or nil.
func (p *vectorPool) get(n int) []fr.Element {
	vs := p.free[n]
	if len(vs) == 0 {
		return nil
	}
	v := vs[len(vs)-1]
	vs[len(vs)-1] = nil
	if len(vs) == 1 {
		delete(p.free, n)
	} else {
		p.free[n] = vs[:len(vs)-1]
	}
	p.bytes -= vecBytes(v)
	return v
}

// shapeLengths returns the vector lengths one partition of shape takes: w, then A·w, B·w, C·w.
func shapeLengths(shape *synth.Shape) (w, rows int) {
	return shape.NumInputs + shape.NumAux, shape.NumRows()
}

// usable returns the bytes of kept vectors that one partition of shape would take (w alone
// when witness-only).
func (p *vectorPool) usable(shape *synth.Shape, witness bool) int64 {
	nw, rows := shapeLengths(shape)
	k := map[int]int{nw: 1}
	if !witness {
		k[rows] += 3
	}
	var b int64
	for n, want := range k {
		b += int64(min(want, len(p.free[n]))) * int64(n) * fr.Bytes
	}
	return b
}

// take returns the buffers for one partition of shape, each a kept vector or nil; w alone when
// witness-only.
func (p *vectorPool) take(shape *synth.Shape, witness bool) synth.Buffers {
	nw, rows := shapeLengths(shape)
	if witness {
		return synth.Buffers{W: p.get(nw)}
	}
	return synth.Buffers{W: p.get(nw), A: p.get(rows), B: p.get(rows), C: p.get(rows)}
}

// keepOnly drops the vectors whose length is not in lengths (to the garbage collector) and
// returns the bytes dropped.
func (p *vectorPool) keepOnly(lengths map[int]bool) int64 {
	var dropped int64
	for n, vs := range p.free {
		if !lengths[n] {
			for _, v := range vs {
				dropped += vecBytes(v)
			}
			delete(p.free, n)
		}
	}
	p.bytes -= dropped
	return dropped
}
