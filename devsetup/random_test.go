package devsetup

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
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

// TestRandomFold: random points stand for the fold (the inputs' share on the curve, H on the
// coset's m points, the shape's digest), the parameters passed in stay unfolded, parameters
// mapped from a file stay mapped, and a partition proves with them (the proof does not verify,
// so the self-check is off).
func TestRandomFold(t *testing.T) {
	c := &circuits.Scalable{Constraints: 300, Inputs: 3}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	p := RandomParameters(shape, 7)
	path := filepath.Join(t.TempDir(), "p.params")
	require.NoError(t, p.WriteParametersFile(path))
	mp, err := prover.OpenParametersFile(path, prover.Unchecked)
	require.NoError(t, err)
	defer mp.Close()
	mapped, err := mp.Parameters()
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	for name, params := range map[string]*prover.Parameters{"heap": p, "mapped": mapped} {
		f, err := RandomFold(params, shape, 7)
		require.NoError(t, err, name)
		require.Nil(t, params.CFold, name)
		require.Equal(t, shape.DomainSize()-1, params.Len(primitive.SectionH), name)
		require.NoError(t, prover.CheckParameters(f, shape), name)
		require.Equal(t, shape.DomainSize(), f.Len(primitive.SectionH), name)
		require.Equal(t, params.Mapped() != nil, f.Mapped() != nil, name)
		require.Len(t, f.CFold.Inputs, shape.NumInputs, name)
		for i := range f.CFold.Inputs {
			require.True(t, f.CFold.Inputs[i].IsOnCurve() && f.CFold.Inputs[i].IsInSubGroup(), "%s: input %d", name, i)
		}
		_, err = prover.ProvePartition(context.Background(), f, asg, prover.WithoutSelfCheck())
		require.NoError(t, err, name)
	}
}
