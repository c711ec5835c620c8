package merkle

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
	"github.com/cuzk-go/cuzk/synth/gadgets/sha256"
)

// Insert returns the len(siblings)+1 children with x inserted at the position given by bits
// (least significant first, allocated and not negated), as storage-proofs-core
// gadgets/insertion.rs insert: insert_2 (2 picks), insert_4 (8 picks), insert_8 (nor, and and
// 20 picks), and for other powers of two one Select per position (size·(size−1) picks).
func Insert(cs *synth.CS, x num.Num, bits []boolean.Bit, siblings []num.Num, dst []num.Num) ([]num.Num, error) {
	size := len(siblings) + 1
	if size < 2 || size&(size-1) != 0 || 1<<len(bits) != size {
		return nil, fmt.Errorf("merkle: insert into %d elements with %d index bits", size, len(bits))
	}
	pick := func(name string, cond boolean.Bit, x, y num.Num) num.Num {
		cs.Push(name)
		r := num.Pick(cs, cond, x, y)
		cs.Pop()
		return r
	}
	switch size {
	case 2:
		return append(dst,
			pick("binary insert 0", bits[0], siblings[0], x),
			pick("binary insert 1", bits[0], x, siblings[0])), nil
	case 4:
		b0, b1 := bits[0], bits[1]
		a, b, c, d := x, siblings[0], siblings[1], siblings[2]
		// The table of insertion.rs insert_4.
		p0x0 := pick("p0_x0", b0, b, a)
		p0 := pick("p0", b1, b, p0x0)
		p1x0 := pick("p1_x0", b0, a, b)
		p1 := pick("p1", b1, c, p1x0)
		p2x1 := pick("p2_x1", b0, d, a)
		p2 := pick("p2", b1, p2x1, c)
		p3x1 := pick("p3_x1", b0, a, d)
		p3 := pick("p3", b1, p3x1, d)
		return append(dst, p0, p1, p2, p3), nil
	case 8:
		return insert8(cs, x, bits, siblings, dst, pick), nil
	}
	// The general case: position p takes the p-th element of the list with x inserted at
	// index n, selected by the bits.
	choices := make([]num.Num, size)
	for p := 0; p < size; p++ {
		for n := 0; n < size; n++ {
			switch {
			case p < n:
				choices[n] = siblings[p]
			case p == n:
				choices[n] = x
			default:
				choices[n] = siblings[p-1]
			}
		}
		cs.PushIndex("choice at", p)
		dst = append(dst, Select(cs, choices, bits))
		cs.Pop()
	}
	return dst, nil
}

// insert8 is insertion.rs insert_8 (bits allocated and not negated).
func insert8(cs *synth.CS, x num.Num, bits []boolean.Bit, siblings []num.Num, dst []num.Num, pick func(string, boolean.Bit, num.Num, num.Num) num.Num) []num.Num {
	b0, b1, b2 := bits[0], bits[1], bits[2]
	a := x
	b, c, d, e, f, g, h := siblings[0], siblings[1], siblings[2], siblings[3], siblings[4], siblings[5], siblings[6]
	cs.Push("b0 nor b1")
	nor := boolean.And(cs, b0.Not(), b1.Not())
	cs.Pop()
	cs.Push("b0 and b1")
	and := boolean.And(cs, b0, b1)
	cs.Pop()
	// The table of insertion.rs insert_8.
	p0xx0 := pick("p0_xx0", nor, a, b)
	p0 := pick("p0", b2, b, p0xx0)
	p1x00 := pick("p1_x00", b0, a, b)
	p1xx0 := pick("p1_xx0", b1, c, p1x00)
	p1 := pick("p1", b2, c, p1xx0)
	p2x10 := pick("p2_x10", b0, d, a)
	p2xx0 := pick("p2_xx0", b1, p2x10, c)
	p2 := pick("p2", b2, d, p2xx0)
	p3xx0 := pick("p3_xx0", and, a, d)
	p3 := pick("p3", b2, e, p3xx0)
	p4xx1 := pick("p4_xx1", nor, a, f)
	p4 := pick("p4", b2, p4xx1, e)
	p5x01 := pick("p5_x01", b0, a, f)
	p5xx1 := pick("p5_xx1", b1, g, p5x01)
	p5 := pick("p5", b2, p5xx1, f)
	p6x11 := pick("p6_x11", b0, h, a)
	p6xx1 := pick("p6_xx1", b1, p6x11, g)
	p6 := pick("p6", b2, p6xx1, g)
	p7xx1 := pick("p7_xx1", and, a, h)
	p7 := pick("p7", b2, p7xx1, h)
	return append(dst, p0, p1, p2, p3, p4, p5, p6, p7)
}

// Select returns from[n] where n is the number whose bits, least significant first, are bits
// (len(from) = 2^len(bits)): for each bit from the most significant, pairs (j, half + j) are
// reduced by a pick, len(from) − 1 picks in all (insertion.rs select).
func Select(cs *synth.CS, from []num.Num, bits []boolean.Bit) num.Num {
	state := append([]num.Num(nil), from...)
	half := len(from) / 2
	for i := 0; i < len(bits); i++ {
		bit := bits[len(bits)-1-i]
		next := make([]num.Num, half)
		for j := 0; j < half; j++ {
			cs.PushIndex("pick", i*len(from)+j)
			next[j] = num.Pick(cs, bit, state[half+j], state[j])
			cs.Pop()
		}
		state = next
		half /= 2
	}
	return state[0]
}

// HashCircuit hashes allocated children into their parent inside a circuit.
type HashCircuit func(cs *synth.CS, children []num.Num) (num.Num, error)

// Sha256NodeCircuit is Sha256Node as a circuit (rust-fil-proofs Sha256Function
// hash_multi_leaf_circuit): each child to 255 bits (padded with a constant 0 bit to 256),
// bytes of the little-endian encoding fed most significant bit first, digest bits reordered to
// little-endian and the low 254 packed.
func Sha256NodeCircuit(cs *synth.CS, children []num.Num) (num.Num, error) {
	msg := make([]boolean.Bit, 0, 256*len(children))
	var le [256]boolean.Bit
	for i, c := range children {
		cs.PushIndex("num into bits", i)
		bits := c.ToBitsLE(cs, le[:0])
		cs.Pop()
		bits = append(bits, boolean.Constant(false))
		msg = appendByteReversed(msg, bits)
	}
	cs.Push("hash")
	digest := sha256.Hash(cs, msg)
	cs.Pop()
	leBits := appendByteReversed(le[:0], digest)
	cs.Push("pack")
	r := num.PackBits(cs, leBits[:num.Capacity])
	cs.Pop()
	return r, nil
}

// Sha256LeafBitsCircuit is rust-fil-proofs Sha256Function::hash_leaf_bits_circuit: left and right
// (bits least significant first within each byte, each padded with constant zeros to whole
// bytes) are fed to SHA-256 most significant bit first, and the digest is packed as in
// Sha256NodeCircuit.
func Sha256LeafBitsCircuit(cs *synth.CS, left, right []boolean.Bit) num.Num {
	msg := make([]boolean.Bit, 0, len(left)+len(right)+16)
	for _, side := range [][]boolean.Bit{left, right} {
		padded := append([]boolean.Bit(nil), side...)
		for len(padded)%8 != 0 {
			padded = append(padded, boolean.Constant(false))
		}
		msg = appendByteReversed(msg, padded)
	}
	cs.Push("hash")
	digest := sha256.Hash(cs, msg)
	cs.Pop()
	le := appendByteReversed(make([]boolean.Bit, 0, 256), digest)
	cs.Push("pack_le")
	r := num.PackBits(cs, le[:num.Capacity])
	cs.Pop()
	return r
}

// appendByteReversed appends bits with the order of each group of 8 reversed.
func appendByteReversed(dst, bits []boolean.Bit) []boolean.Bit {
	for i := 0; i < len(bits); i += 8 {
		for j := 7; j >= 0; j-- {
			dst = append(dst, bits[i+j])
		}
	}
	return dst
}

// PoseidonNodeCircuit returns a HashCircuit hashing with p.
func PoseidonNodeCircuit(p *poseidon.Params) HashCircuit {
	return func(cs *synth.CS, children []num.Num) (num.Num, error) {
		cs.Push("poseidon")
		defer cs.Pop()
		return p.HashCircuit(cs, children)
	}
}

// PathCircuit computes, in cs, the root over leaf at index with the given siblings (as from
// Tree.Path): per level it allocates log2(arity) index bits and the siblings, inserts and
// hashes (rust-fil-proofs por.rs SubPath::synthesize). It returns the computed root and the
// index bits, least significant first, for the caller to expose (num.PackIntoInputs) and to
// compare the root with.
func PathCircuit(cs *synth.CS, arity int, leaf num.Num, index uint64, path [][]fr.Element, h HashCircuit) (num.Num, []boolean.Bit, error) {
	arities := make([]int, len(path))
	for i := range arities {
		arities[i] = arity
	}
	return pathCircuit(cs, arities, leaf, index, path, func(int) (HashCircuit, error) { return h, nil })
}

// pathCircuit is PathCircuit with one arity per level.
func pathCircuit(cs *synth.CS, arities []int, leaf num.Num, index uint64, path [][]fr.Element, hashFor func(arity int) (HashCircuit, error)) (num.Num, []boolean.Bit, error) {
	if len(arities) != len(path) {
		return num.Num{}, nil, fmt.Errorf("merkle: path has %d levels, tree %d", len(path), len(arities))
	}
	cur := leaf
	var allBits []boolean.Bit
	var children []num.Num
	for lvl, s := range path {
		arity := arities[lvl]
		if arity < 2 || arity&(arity-1) != 0 {
			return num.Num{}, nil, fmt.Errorf("merkle: level %d arity %d is not a power of two", lvl, arity)
		}
		if len(s) != arity-1 {
			return num.Num{}, nil, fmt.Errorf("merkle: level %d has %d siblings, want %d", lvl, len(s), arity-1)
		}
		h, err := hashFor(arity)
		if err != nil {
			return num.Num{}, nil, fmt.Errorf("merkle: level %d: %w", lvl, err)
		}
		nbits := bits.TrailingZeros(uint(arity))
		cs.PushIndex("merkle tree hash", lvl)
		start := len(allBits)
		for i := 0; i < nbits; i++ {
			cs.PushIndex("index bit", i)
			allBits = append(allBits, boolean.Alloc(cs, index>>uint(i)&1 == 1))
			cs.Pop()
		}
		sib := make([]num.Num, arity-1)
		for i := range sib {
			sib[i] = num.Alloc(cs, s[i])
		}
		children, err = Insert(cs, cur, allBits[start:], sib, children[:0])
		if err == nil {
			cs.Push("computation of commitment hash")
			cur, err = h(cs, children)
			cs.Pop()
		}
		cs.Pop()
		if err != nil {
			return num.Num{}, nil, fmt.Errorf("merkle: level %d: %w", lvl, err)
		}
		index >>= uint(nbits)
	}
	return cur, allBits, nil
}

// PoR proves in cs that leaf is the leaf at index of the tree whose levels, from the leaves up,
// have the given arities and whose root is root, as storage-proofs-core gadgets/por.rs
// PoRCircuit::synthesize with private = true and the leaf and root already allocated: the
// levels of PathCircuit, then the index bits of all levels packed into public inputs (one
// input equal to index while there are at most 254 bits), then computed root·1 = root.
// hashFor returns the node hash of a level of the given arity. Its cost is the levels' plus 2.
func PoR(cs *synth.CS, leaf num.Num, index uint64, arities []int, path [][]fr.Element, root num.Num, hashFor func(arity int) (HashCircuit, error)) error {
	computed, idxBits, err := pathCircuit(cs, arities, leaf, index, path, hashFor)
	if err != nil {
		return err
	}
	cs.Push("path")
	num.PackIntoInputs(cs, idxBits)
	cs.Pop()
	cs.Push("enforce root is correct")
	num.EnforceEqual(cs, computed, root)
	cs.Pop()
	return nil
}
