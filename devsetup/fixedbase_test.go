package devsetup

import (
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

func TestFixedBaseMatchesScalarMultiplication(t *testing.T) {
	_, _, g1, g2 := bls12381.Generators()
	sc := make([]fr.Element, 300)
	for i := range sc {
		sc[i].MustSetRandom()
	}
	sc[0].SetZero()
	sc[1].SetOne()
	sc[2].SetOne()
	sc[2].Neg(&sc[2]) // r − 1
	p1 := newFixedBaseG1(&g1).mul(sc, nil)
	p2 := newFixedBaseG2(&g2).mul(sc, nil)
	for i := range sc {
		var w1 bls12381.G1Affine
		var w2 bls12381.G2Affine
		w1.ScalarMultiplication(&g1, bigOf(&sc[i]))
		w2.ScalarMultiplication(&g2, bigOf(&sc[i]))
		require.True(t, p1[i].Equal(&w1), "G1 scalar %d", i)
		require.True(t, p2[i].Equal(&w2), "G2 scalar %d", i)
	}
}
