package u64

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

// TestAllocPack: 64 bits and one packed input cost 65 constraints; the input is the value and
// its row is (Σ 2^i·b_i)·1 = input.
func TestAllocPack(t *testing.T) {
	const v = uint64(0xfedcba9876543210)
	shape, asg := gadgettest.Run(t, gadgettest.Func(func(cs *synth.CS) error {
		u := Alloc(cs, v)
		u.PackIntoInput(cs)
		return nil
	}))
	require.Equal(t, 65, shape.NumConstraints)
	require.Equal(t, 2, shape.NumInputs)
	want := fr.NewElement(v)
	require.True(t, want.Equal(&asg.Inputs[1]))
	lc := synth.NewLC()
	var c fr.Element
	c.SetOne()
	for i := 0; i < 64; i++ {
		lc = lc.AddTerm(c, synth.AuxVariable(i))
		c.Double(&c)
	}
	gadgettest.RequireRow(t, shape, 64, lc, synth.V(synth.One), synth.V(synth.InputVariable(1)))
}
