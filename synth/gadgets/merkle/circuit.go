package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
	"github.com/cuzk-go/cuzk/synth/gadgets/sha256"
)

// Insert returns the arity = len(siblings)+1 children with x inserted at the position given by
// bits (least significant first, allocated and not negated), as Filecoin's insert_2 (2 picks)
// and insert_8 (nor, and and 20 picks). Other arities are not supported.
func Insert(cs *synth.CS, x num.Num, bits []boolean.Bit, siblings []num.Num, dst []num.Num) ([]num.Num, error) {
	switch len(siblings) + 1 {
	case 2:
		if len(bits) != 1 {
			return nil, fmt.Errorf("merkle: insert into 2 needs 1 index bit, got %d", len(bits))
		}
		cs.Push("binary insert 0")
		p0 := num.Pick(cs, bits[0], siblings[0], x)
		cs.Pop()
		cs.Push("binary insert 1")
		p1 := num.Pick(cs, bits[0], x, siblings[0])
		cs.Pop()
		return append(dst, p0, p1), nil
	case 8:
		if len(bits) != 3 {
			return nil, fmt.Errorf("merkle: insert into 8 needs 3 index bits, got %d", len(bits))
		}
	default:
		return nil, fmt.Errorf("merkle: insert into arity %d not supported", len(siblings)+1)
	}
	b0, b1, b2 := bits[0], bits[1], bits[2]
	a := x
	b, c, d, e, f, g, h := siblings[0], siblings[1], siblings[2], siblings[3], siblings[4], siblings[5], siblings[6]
	cs.Push("b0 nor b1")
	nor := boolean.And(cs, b0.Not(), b1.Not())
	cs.Pop()
	cs.Push("b0 and b1")
	and := boolean.And(cs, b0, b1)
	cs.Pop()
	pick := func(name string, cond boolean.Bit, x, y num.Num) num.Num {
		cs.Push(name)
		r := num.Pick(cs, cond, x, y)
		cs.Pop()
		return r
	}
	// The table of rust-fil-proofs insertion.rs insert_8.
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
	return append(dst, p0, p1, p2, p3, p4, p5, p6, p7), nil
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
	if arity&(arity-1) != 0 || arity < 2 {
		return num.Num{}, nil, fmt.Errorf("merkle: arity %d is not a power of two", arity)
	}
	nbits := 0
	for 1<<nbits < arity {
		nbits++
	}
	cur := leaf
	allBits := make([]boolean.Bit, 0, nbits*len(path))
	sib := make([]num.Num, arity-1)
	children := make([]num.Num, 0, arity)
	for lvl, s := range path {
		if len(s) != arity-1 {
			return num.Num{}, nil, fmt.Errorf("merkle: level %d has %d siblings, want %d", lvl, len(s), arity-1)
		}
		cs.PushIndex("merkle tree hash", lvl)
		start := len(allBits)
		for i := 0; i < nbits; i++ {
			cs.PushIndex("index bit", i)
			allBits = append(allBits, boolean.Alloc(cs, index>>uint(i)&1 == 1))
			cs.Pop()
		}
		for i := range sib {
			sib[i] = num.Alloc(cs, s[i])
		}
		var err error
		children, err = Insert(cs, cur, allBits[start:], sib, children[:0])
		if err != nil {
			cs.Pop()
			return num.Num{}, nil, err
		}
		cs.Push("computation of commitment hash")
		cur, err = h(cs, children)
		cs.Pop()
		cs.Pop()
		if err != nil {
			return num.Num{}, nil, err
		}
		index >>= uint(nbits)
	}
	return cur, allBits, nil
}
