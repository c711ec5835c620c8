package num

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
)

// ToBitsLE allocates the 255 bits of n, least significant first, appends them to dst and
// enforces 0·0 = Σ 2^i·b_i − n (255 booleanity constraints and one "unpacking" constraint,
// bellman's AllocatedNum::to_bits_le). It does not force the bits to encode the canonical
// representative: like bellman's to_bits_le, it admits n + r when that fits in 255 bits.
func (n Num) ToBitsLE(cs *synth.CS, dst []boolean.Bit) []boolean.Bit {
	limbs := n.Value.Bits() // canonical, little-endian limbs
	start := len(dst)
	for i := 0; i < NumBits; i++ {
		dst = append(dst, boolean.Alloc(cs, limbs[i/64]>>(uint(i)%64)&1 == 1))
	}
	if cs.RecordsLC() {
		lc := make(synth.LC, 0, NumBits+1)
		for i, b := range dst[start:] {
			lc = b.AppendLC(lc, Pow2[i])
		}
		lc = append(lc, synth.Term{Coeff: frMinus1, Var: n.Var})
		cs.Enforce("unpacking", nil, nil, lc)
	} else {
		cs.Enforce("unpacking", nil, nil, nil)
	}
	return dst
}

// packValue returns Σ 2^i·bits[i].
func packValue(bits []boolean.Bit) fr.Element {
	var limbs [4]uint64
	for i, b := range bits {
		if b.Value() {
			limbs[i/64] |= 1 << (uint(i) % 64)
		}
	}
	return fromLimbs(limbs)
}

// fromLimbs returns the field element with canonical little-endian limbs l (< r).
func fromLimbs(l [4]uint64) fr.Element {
	var b [fr.Bytes]byte
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			b[i*8+j] = byte(l[i] >> (8 * j))
		}
	}
	v, _ := fr.LittleEndian.Element(&b)
	return v
}

// PackBits allocates n = Σ 2^i·bits[i] over the first Capacity bits and enforces
// (Σ 2^i·b_i)·1 = n (one constraint "packing", rust-fil-proofs multipack::pack_bits).
func PackBits(cs *synth.CS, bits []boolean.Bit) Num {
	if len(bits) > Capacity {
		bits = bits[:Capacity]
	}
	v := packValue(bits)
	r := cs.Alloc(v)
	if cs.RecordsLC() {
		lc := make(synth.LC, 0, len(bits)+1)
		for i, b := range bits {
			lc = b.AppendLC(lc, Pow2[i])
		}
		cs.Enforce("packing", lc, synth.V(synth.One), synth.V(r))
	} else {
		cs.Enforce("packing", nil, nil, nil)
	}
	return Num{Var: r, Value: v}
}

// PackIntoInputs exposes bits as public inputs, Capacity bits per input, each with one
// constraint (Σ 2^i·b_i)·1 = input (bellman's multipack::pack_into_inputs). It returns the inputs.
func PackIntoInputs(cs *synth.CS, bits []boolean.Bit) []Num {
	var out []Num
	for i := 0; i < len(bits); i += Capacity {
		chunk := bits[i:min(i+Capacity, len(bits))]
		v := packValue(chunk)
		in := cs.AllocInput(v)
		cs.PushIndex("input", i/Capacity)
		if cs.RecordsLC() {
			lc := make(synth.LC, 0, len(chunk))
			for j, b := range chunk {
				lc = b.AppendLC(lc, Pow2[j])
			}
			cs.Enforce("packing", lc, synth.V(synth.One), synth.V(in))
		} else {
			cs.Enforce("packing", nil, nil, nil)
		}
		cs.Pop()
		out = append(out, Num{Var: in, Value: v})
	}
	return out
}

// ComputeMultipacking returns the public inputs PackIntoInputs allocates for bits: one field
// element per Capacity bits, least significant bit first (bellman's compute_multipacking).
func ComputeMultipacking(bits []bool) []fr.Element {
	var out []fr.Element
	for i := 0; i < len(bits); i += Capacity {
		var limbs [4]uint64
		for j, b := range bits[i:min(i+Capacity, len(bits))] {
			if b {
				limbs[j/64] |= 1 << (uint(j) % 64)
			}
		}
		out = append(out, fromLimbs(limbs))
	}
	return out
}
