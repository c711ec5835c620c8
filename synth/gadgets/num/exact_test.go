package num

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

// TestExactMatrices compares rows term by term with bellpepper-core gadgets/num.rs and
// storage-proofs-core gadgets/constraint.rs, for x = aux 0:
//
//	inputize:   allocates input 1 and enforces input·1 = x (alloc_input, then "enforce input
//	            is correct");
//	to_bits_le: 255 bits b_i = aux 1+i, each (1 − b)·b = 0, then the unpacking row with empty
//	            A and B and C = Σ 2^i·b_i − x (256 rows);
//	add:        (x + y)·1 = r (constraint::add, the encode gadget);
//	pack_bits:  (Σ_{i<254} 2^i·b_i)·1 = p (multipack::pack_bits takes CAPACITY bits).
func TestExactMatrices(t *testing.T) {
	var xv fr.Element
	_, _ = xv.SetRandom()
	shape, _ := gadgettest.Run(t, gadgettest.Func(func(cs *synth.CS) error {
		x := Alloc(cs, xv)
		x.Inputize(cs)
		bits := x.ToBitsLE(cs, nil)
		y := Alloc(cs, fr.NewElement(9))
		Add(cs, x, y)
		PackBits(cs, bits)
		return nil
	}))
	aux := synth.AuxVariable
	x := aux(0)
	gadgettest.RequireRow(t, shape, 0, synth.V(synth.InputVariable(1)), synth.V(synth.One), synth.V(x))
	gadgettest.RequireRow(t, shape, 1, synth.V(synth.One).Sub(aux(1)), synth.V(aux(1)), nil)
	unpack := synth.NewLC()
	for i := 0; i < NumBits; i++ {
		unpack = unpack.AddTerm(Pow2[i], aux(1+i))
	}
	unpack = unpack.Sub(x)
	gadgettest.RequireRow(t, shape, 256, nil, nil, unpack)
	y, r := aux(256), aux(257)
	gadgettest.RequireRow(t, shape, 257, synth.V(x).Add(y), synth.V(synth.One), synth.V(r))
	pack := synth.NewLC()
	for i := 0; i < Capacity; i++ {
		pack = pack.AddTerm(Pow2[i], aux(1+i))
	}
	gadgettest.RequireRow(t, shape, 258, pack, synth.V(synth.One), synth.V(aux(258)))
	require.Equal(t, 259, shape.NumConstraints)
}

// TestPackIntoInputsChunks: 300 bits go to two inputs, 254 and 46 bits, each with weights
// 2^0… from its own first bit (multipack::pack_into_inputs).
func TestPackIntoInputsChunks(t *testing.T) {
	vals := make([]bool, 300)
	for i := range vals {
		vals[i] = i%3 == 0
	}
	shape, asg := gadgettest.Run(t, gadgettest.Func(func(cs *synth.CS) error {
		bits := boolean.AllocBits(cs, nil, vals)
		PackIntoInputs(cs, bits)
		return nil
	}))
	require.Equal(t, 3, shape.NumInputs)
	require.Equal(t, 302, shape.NumConstraints)
	want := ComputeMultipacking(vals)
	require.True(t, want[0].Equal(&asg.Inputs[1]))
	require.True(t, want[1].Equal(&asg.Inputs[2]))
	second := synth.NewLC()
	for i := 0; i < 46; i++ {
		second = second.AddTerm(Pow2[i], synth.AuxVariable(254+i))
	}
	gadgettest.RequireRow(t, shape, 301, second, synth.V(synth.One), synth.V(synth.InputVariable(2)))
}
