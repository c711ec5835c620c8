package u32

import (
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
)

// UInt32 is a 32-bit word in a circuit: Bits[0] is the least significant bit.
type UInt32 struct {
	Bits  [32]boolean.Bit
	Value uint32
}

// Constant returns the constant word v (no variables).
func Constant(v uint32) UInt32 {
	var u UInt32
	u.Value = v
	for i := range u.Bits {
		u.Bits[i] = boolean.Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// Alloc allocates the 32 bits of v (32 booleanity constraints).
func Alloc(cs *synth.CS, v uint32) UInt32 {
	var u UInt32
	u.Value = v
	for i := range u.Bits {
		u.Bits[i] = boolean.Alloc(cs, v>>uint(i)&1 == 1)
	}
	return u
}

// FromBitsBE returns the word whose bits, most significant first, are bits[:32].
func FromBitsBE(bits []boolean.Bit) UInt32 {
	var u UInt32
	for i := 0; i < 32; i++ {
		b := bits[i]
		u.Bits[31-i] = b
		u.Value <<= 1
		if b.Value() {
			u.Value |= 1
		}
	}
	return u
}

// AppendBitsBE appends u's bits, most significant first, to dst.
func (u *UInt32) AppendBitsBE(dst []boolean.Bit) []boolean.Bit {
	for i := 31; i >= 0; i-- {
		dst = append(dst, u.Bits[i])
	}
	return dst
}

// Rotr returns u rotated right by n bits (free).
func (u *UInt32) Rotr(n int) UInt32 {
	n &= 31
	var r UInt32
	for i := range r.Bits {
		r.Bits[i] = u.Bits[(i+n)&31]
	}
	r.Value = bits.RotateLeft32(u.Value, -n)
	return r
}

// Shr returns u shifted right by n bits, filling with constant zeros (free).
func (u *UInt32) Shr(n int) UInt32 {
	n &= 31
	var r UInt32
	for i := 0; i+n < 32; i++ {
		r.Bits[i] = u.Bits[i+n]
	}
	r.Value = u.Value >> uint(n)
	return r
}

// Xor returns a ⊕ b bitwise.
func Xor(cs *synth.CS, a, b *UInt32) UInt32 {
	var r UInt32
	for i := range r.Bits {
		cs.PushIndex("xor", i)
		r.Bits[i] = boolean.Xor(cs, a.Bits[i], b.Bits[i])
		cs.Pop()
	}
	r.Value = a.Value ^ b.Value
	return r
}

// Ch returns SHA-256's ch(a,b,c) = (a ∧ b) ⊕ (¬a ∧ c) bitwise.
func Ch(cs *synth.CS, a, b, c *UInt32) UInt32 {
	var r UInt32
	for i := range r.Bits {
		cs.PushIndex("ch", i)
		r.Bits[i] = boolean.Ch(cs, a.Bits[i], b.Bits[i], c.Bits[i])
		cs.Pop()
	}
	r.Value = (a.Value & b.Value) ^ (^a.Value & c.Value)
	return r
}

// Maj returns SHA-256's maj(a,b,c) = (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c) bitwise.
func Maj(cs *synth.CS, a, b, c *UInt32) UInt32 {
	var r UInt32
	for i := range r.Bits {
		cs.PushIndex("maj", i)
		r.Bits[i] = boolean.Maj(cs, a.Bits[i], b.Bits[i], c.Bits[i])
		cs.Pop()
	}
	r.Value = (a.Value & b.Value) ^ (a.Value & c.Value) ^ (b.Value & c.Value)
	return r
}

// capacity is Fr's CAPACITY (254 bits): a MultiEq constraint packs equalities while
// bitsUsed + n < capacity.
const capacity = 254

var pow2 = func() (p [capacity + 1]fr.Element) {
	p[0].SetOne()
	for i := 1; i < len(p); i++ {
		p[i].Double(&p[i-1])
	}
	return
}()

// MultiEq packs several equalities lhs_k = rhs_k of small n_k-bit values into one constraint
// (Σ 2^{o_k}·lhs_k)·1 = Σ 2^{o_k}·rhs_k, with offsets o_k, while the total stays below Fr's
// capacity (bellman's MultiEq). Call Flush when done: it emits the pending constraint.
type MultiEq struct {
	cs       *synth.CS
	ops      int
	bitsUsed int
	lhs, rhs synth.LC // only while recording
}

// NewMultiEq returns an empty MultiEq writing to cs.
func NewMultiEq(cs *synth.CS) *MultiEq { return &MultiEq{cs: cs} }

func (m *MultiEq) accumulate() {
	m.cs.PushIndex("multieq", m.ops)
	if m.cs.RecordsLC() {
		m.cs.Enforce("sum", m.lhs, synth.V(synth.One), m.rhs)
		m.lhs, m.rhs = m.lhs[:0], m.rhs[:0]
	} else {
		m.cs.Enforce("sum", nil, nil, nil)
	}
	m.cs.Pop()
	m.bitsUsed = 0
	m.ops++
}

// EnforceEqual adds lhs = rhs, both known to be below 2^numBits. lhs and rhs are only read
// while cs records linear combinations; they may be nil otherwise.
func (m *MultiEq) EnforceEqual(numBits int, lhs, rhs synth.LC) {
	if capacity <= m.bitsUsed+numBits {
		m.accumulate()
	}
	if m.cs.RecordsLC() {
		c := pow2[m.bitsUsed]
		for _, t := range lhs {
			t.Coeff.Mul(&t.Coeff, &c)
			m.lhs = append(m.lhs, t)
		}
		for _, t := range rhs {
			t.Coeff.Mul(&t.Coeff, &c)
			m.rhs = append(m.rhs, t)
		}
	}
	m.bitsUsed += numBits
}

// Flush emits the pending packed equality, if any.
func (m *MultiEq) Flush() {
	if m.bitsUsed > 0 {
		m.accumulate()
	}
}

// AddMany returns Σ ops mod 2^32 for 2 ≤ len(ops) ≤ 10. If every bit is constant the result is
// a constant; otherwise the bits of the full sum are allocated (one booleanity constraint each,
// 32 + ⌈log2 len(ops)⌉ of them) and the equality Σ ops = Σ 2^i·result_i goes to m.
func AddMany(cs *synth.CS, m *MultiEq, ops []UInt32) UInt32 {
	if len(ops) < 2 || len(ops) > 10 {
		panic("u32: AddMany takes 2 to 10 operands")
	}
	var sum uint64
	allConst := true
	for i := range ops {
		sum += uint64(ops[i].Value)
		if allConst {
			for _, b := range ops[i].Bits {
				if !b.IsConstant() {
					allConst = false
					break
				}
			}
		}
	}
	if allConst {
		return Constant(uint32(sum))
	}
	maxValue := uint64(len(ops)) * uint64(^uint32(0))
	n := bits.Len64(maxValue)
	var res [40]boolean.Bit
	for i := 0; i < n; i++ {
		cs.PushIndex("result bit", i)
		res[i] = boolean.Alloc(cs, sum>>uint(i)&1 == 1)
		cs.Pop()
	}
	if cs.RecordsLC() {
		lhs := make(synth.LC, 0, 32*len(ops))
		for i := range ops {
			for j, b := range ops[i].Bits {
				lhs = b.AppendLC(lhs, pow2[j])
			}
		}
		rhs := make(synth.LC, 0, n)
		for i := 0; i < n; i++ {
			rhs = res[i].AppendLC(rhs, pow2[i])
		}
		m.EnforceEqual(n, lhs, rhs)
	} else {
		m.EnforceEqual(n, nil, nil)
	}
	var r UInt32
	copy(r.Bits[:], res[:32])
	r.Value = uint32(sum)
	return r
}
