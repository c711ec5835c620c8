package u32

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

// TestMultiEqMatrix compares the packed equality of two additions with bellperson
// gadgets/uint32.rs addmany and multieq.rs, for x = aux 0..31 and y = aux 32..63:
// r = x + 5 allocates 33 result bits (aux 64..96; bit length of 2·(2^32 − 1)), s = y + x another
// 33 (aux 97..129), and the flush emits one row
//
//	(Σ 2^j·x_j + 5·1 + 2^33·(Σ 2^j·y_j + Σ 2^j·x_j))·1 = Σ 2^i·r_i + 2^33·Σ 2^i·s_i
//
// (the constant operand's set bits become multiples of One; the second equality is shifted by
// the 33 bits the first one used).
func TestMultiEqMatrix(t *testing.T) {
	shape, _ := gadgettest.Run(t, gadgettest.Func(func(cs *synth.CS) error {
		x, y := Alloc(cs, 0xdeadbeef), Alloc(cs, 0x12345678)
		me := NewMultiEq(cs)
		AddMany(cs, me, []UInt32{x, Constant(5)})
		AddMany(cs, me, []UInt32{y, x})
		me.Flush()
		return nil
	}))
	require.Equal(t, 64+33+33+1, shape.NumConstraints)
	aux := synth.AuxVariable
	var shift fr.Element
	shift.SetUint64(1 << 33)
	lhs, rhs := synth.NewLC(), synth.NewLC()
	var c, cs fr.Element
	for j := 0; j < 32; j++ {
		c.SetUint64(1 << j)
		cs.Mul(&c, &shift)
		lhs = lhs.AddTerm(c, aux(j)).AddTerm(cs, aux(32+j)).AddTerm(cs, aux(j))
	}
	lhs = lhs.AddTerm(fr.NewElement(5), synth.One)
	for i := 0; i < 33; i++ {
		c.SetUint64(1 << i)
		cs.Mul(&c, &shift)
		rhs = rhs.AddTerm(c, aux(64+i)).AddTerm(cs, aux(97+i))
	}
	gadgettest.RequireRow(t, shape, 130, lhs, synth.V(synth.One), rhs)
}
