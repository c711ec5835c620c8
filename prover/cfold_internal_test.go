package prover

import (
	"fmt"
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"
)

// TestG1DFTMatchesDefinition checks g1DFT against Σ_i ω^(ij)·x_i computed point by point, in
// both directions, with the point at infinity and repeated points among the inputs.
func TestG1DFTMatchesDefinition(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8, 16} {
		for _, inverse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d inverse=%v", n, inverse), func(t *testing.T) {
				omega, err := fft.Generator(uint64(n))
				require.NoError(t, err)
				if inverse {
					omega.Inverse(&omega)
				}
				pts := randG1(uint64(n), n)
				x := make([]bls12381.G1Jac, n)
				for i := range pts {
					x[i].FromAffine(&pts[i])
				}
				if n > 2 {
					x[n-1] = bls12381.G1Jac{} // infinity, as FoldC pads H
					x[1] = x[0]
				}
				want := make([]bls12381.G1Jac, n)
				for j := range n {
					for i := range n {
						var w fr.Element
						w.Exp(omega, big.NewInt(int64(i*j)))
						var term bls12381.G1Jac
						term.ScalarMultiplication(&x[i], w.BigInt(new(big.Int)))
						want[j].AddAssign(&term)
					}
				}
				require.NoError(t, g1DFT(t.Context(), x, omega, nil))
				for j := range n {
					require.True(t, want[j].Equal(&x[j]), "output %d", j)
				}
			})
		}
	}
}
