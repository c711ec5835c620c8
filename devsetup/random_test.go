package devsetup

import (
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
