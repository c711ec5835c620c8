package devsetup

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func TestRandomParametersShapeAndPoints(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 3000, Inputs: 3})
	require.NoError(t, err)
	p := RandomParameters(shape, 7)
	require.NoError(t, prover.CheckParameters(p, shape))
	for i := 0; i < len(p.H); i += 97 {
		require.True(t, p.H[i].IsOnCurve() && p.H[i].IsInSubGroup(), "h[%d]", i)
	}
	for i := 0; i < len(p.BG2); i += 97 {
		require.True(t, p.BG2[i].IsOnCurve() && p.BG2[i].IsInSubGroup(), "b_g2[%d]", i)
	}
	require.False(t, p.L[0].Equal(&p.L[1]))
	q := RandomParameters(shape, 7)
	require.True(t, p.A[5].Equal(&q.A[5]), "same seed, same points")
}

// TestRandomFold: random points stand for the fold (the inputs' share on the curve, the shape's
// digest), the parameters passed in stay unfolded, and a partition proves with them (the proof
// does not verify, so the self-check is off).
func TestRandomFold(t *testing.T) {
	c := &circuits.Scalable{Constraints: 300, Inputs: 3}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	p := RandomParameters(shape, 7)
	f := RandomFold(p, shape, 7)
	require.Nil(t, p.CFold)
	require.NoError(t, prover.CheckParameters(f, shape))
	require.Len(t, f.CFold.Inputs, shape.NumInputs)
	for i := range f.CFold.Inputs {
		require.True(t, f.CFold.Inputs[i].IsOnCurve() && f.CFold.Inputs[i].IsInSubGroup(), "input %d", i)
	}
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	_, err = prover.ProvePartition(context.Background(), f, asg, prover.WithoutSelfCheck())
	require.NoError(t, err)
}
