package u64

import (
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// UInt64 is a 64-bit number in a circuit: Bits[0] is the least significant bit.
type UInt64 struct {
	Bits  [64]boolean.Bit
	Value uint64
}

// Constant returns v as 64 constant bits (no variables).
func Constant(v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// Alloc allocates the 64 bits of v, least significant first, each with its booleanity
// constraint (64 constraints, UInt64::alloc).
func Alloc(cs *synth.CS, v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		cs.PushIndex("allocated bit", i)
		u.Bits[i] = boolean.Alloc(cs, v>>uint(i)&1 == 1)
		cs.Pop()
	}
	return u
}

// PackIntoInput exposes u as one public input equal to its value, with one constraint
// (UInt64::pack_into_input, multipack::pack_into_inputs).
func (u *UInt64) PackIntoInput(cs *synth.CS) num.Num {
	return num.PackIntoInputs(cs, u.Bits[:])[0]
}

// AppendBitsBE appends u's bits, most significant first, to dst (UInt64::to_bits_be).
func (u *UInt64) AppendBitsBE(dst []boolean.Bit) []boolean.Bit {
	for i := 63; i >= 0; i-- {
		dst = append(dst, u.Bits[i])
	}
	return dst
}
