package gpu

import (
	"context"
	"fmt"
	"slices"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover"
)

// TestG1DFTMatchesDefinition runs Device.G1DFT over g1DFTCases against the definition, and checks
// the refusals of bad sizes.
func TestG1DFTMatchesDefinition(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	for _, c := range g1DFTCases(t) {
		got, err := d.G1DFT(ctx, c.points, c.logN, c.omega, c.twist, c.scale, nil)
		require.NoError(t, err, c.name)
		want := g1DFTDefinition(c.points, 1<<c.logN, c.omega, c.twist, c.scale)
		for j := range want {
			require.True(t, want[j].Equal(&got[j]), "%s: output %d", c.name, j)
		}
	}
	var one fr.Element
	one.SetOne()
	_, err := d.G1DFT(ctx, nil, 0, one, one, one, nil)
	require.ErrorContains(t, err, "outside [1, 27]")
	_, err = d.G1DFT(ctx, nil, MaxLogG1DFT+1, one, one, one, nil)
	require.ErrorContains(t, err, "outside [1, 27]")
	_, err = d.G1DFT(ctx, make([]bls12381.G1Affine, 5), 2, one, one, one, nil)
	require.ErrorContains(t, err, "5 points for a transform of 4")
}

// TestG1DFTProgressAndCancel: a transform of 2^20 random points (over a second) reports its
// stages in increasing order up to all 20; one whose context is cancelled at its first report
// stops before its last stage with the context's error. (Equal points would not do: their
// partial transforms are mostly the point at infinity, and the call ends before a report.)
func TestG1DFTProgressAndCancel(t *testing.T) {
	d := testDevice(t)
	const logN = 20
	_, _, g, _ := bls12381.Generators()
	pts := bls12381.BatchScalarMultiplicationG1(&g, randScalars(logN, 1<<logN))
	omega, err := fft.Generator(1 << logN)
	require.NoError(t, err)
	var one fr.Element
	one.SetOne()
	var stages []int
	_, err = d.G1DFT(t.Context(), pts, logN, omega, one, one, func(s int) { stages = append(stages, s) })
	require.NoError(t, err)
	require.NotEmpty(t, stages)
	require.True(t, slices.IsSorted(stages), "%v", stages)
	require.Equal(t, logN, stages[len(stages)-1])

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stages = nil
	_, err = d.G1DFT(ctx, pts, logN, omega, one, one, func(s int) { stages = append(stages, s); cancel() })
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, stages[len(stages)-1], logN, "stopped before its last stage")
}

// TestFoldCOnDevice folds C into L with the device's transform (prover.FoldWithDFT) and on the
// CPU: the same parameters, point for point; a partition proved with them on the GPU is the
// CPU's proof.
func TestFoldCOnDevice(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	c, shape, params := setupScalable(t, 12, 5)
	onCPU, err := prover.FoldC(ctx, params, shape)
	require.NoError(t, err)
	onGPU, err := prover.FoldC(ctx, params, shape, prover.FoldWithDFT(d.G1DFT))
	require.NoError(t, err)
	require.Equal(t, onCPU.L, onGPU.L)
	require.Equal(t, onCPU.CFold, onGPU.CFold)
	pd := NewProverDevice(d)
	defer pd.Close()
	pvk, err := prover.PrepareVerifyingKey(&onGPU.VK)
	require.NoError(t, err)
	provePartition(t, ctx, pd, c, shape, onGPU, pvk, 0)
}

// BenchmarkG1DFT times Device.G1DFT over 2^logN random points (an inverse transform, scaled, as
// prover.FoldC asks, twisted by the inverse of the coset shift ω_(2n), so that the load's
// multiplications are by scalars of full size) at 2^16 and 2^20, and at 2^24 unless
// CUZK_BENCH_MAXLOG is lower.
func BenchmarkG1DFT(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	sizes := []int{16, 20}
	if m := benchMaxLog(24); m > 20 {
		sizes = append(sizes, m)
	}
	for _, logN := range sizes {
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			n := 1 << logN
			_, _, g, _ := bls12381.Generators()
			pts := bls12381.BatchScalarMultiplicationG1(&g, randScalars(uint64(logN), min(n, 1<<20)))
			for len(pts) < n-1 {
				pts = append(pts, pts[:min(len(pts), n-1-len(pts))]...)
			}
			omega, err := fft.Generator(uint64(n))
			require.NoError(b, err)
			omega.Inverse(&omega)
			twist, err := fft.Generator(uint64(2 * n))
			require.NoError(b, err)
			twist.Inverse(&twist)
			scale := fr.NewElement(uint64(2 * n))
			scale.Inverse(&scale)
			b.ResetTimer()
			for range b.N {
				if _, err := d.G1DFT(ctx, pts, logN, omega, twist, scale, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
