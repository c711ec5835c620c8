package devsetup

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/synth"
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

// gnarkFixedBase is a FixedBase on gnark-crypto's batch scalar multiplication, counting the
// points it was asked for; fail makes it return an error instead.
type gnarkFixedBase struct {
	g1, g2 int
	fail   error
}

func (f *gnarkFixedBase) MulG1(ctx context.Context, scalars []fr.Element) ([]bls12381.G1Affine, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	f.g1 += len(scalars)
	_, _, g1, _ := bls12381.Generators()
	out := make([]bls12381.G1Affine, len(scalars))
	for i := range scalars {
		out[i].ScalarMultiplication(&g1, bigOf(&scalars[i]))
	}
	return out, nil
}

func (f *gnarkFixedBase) MulG2(ctx context.Context, scalars []fr.Element) ([]bls12381.G2Affine, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	f.g2 += len(scalars)
	_, _, _, g2 := bls12381.Generators()
	out := make([]bls12381.G2Affine, len(scalars))
	for i := range scalars {
		out[i].ScalarMultiplication(&g2, bigOf(&scalars[i]))
	}
	return out, nil
}

// TestWithFixedBase checks that InsecureSetup computes every section's points with the given
// FixedBase, gets the same parameters as with its CPU tables, reports the same stages, and
// passes on the FixedBase's error with the stage.
func TestWithFixedBase(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 1000, Inputs: 3, Seed: 2})
	require.NoError(t, err)
	tw, err := NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	cpu, err := InsecureSetup(shape, tw)
	require.NoError(t, err)
	fb := &gnarkFixedBase{}
	log := newProgressLog(t)
	got, err := InsecureSetup(shape, tw, WithFixedBase(fb), WithProgress(log.report))
	require.NoError(t, err)
	log.complete()
	require.Equal(t, []string{"Lagrange basis", "evaluate A, B, C", "IC and L scalars",
		"IC points", "H points", "L points", "A points", "B_G1 points", "B_G2 points"}, log.stages)
	require.Equal(t, len(cpu.VK.IC)+len(cpu.L)+len(cpu.A)+len(cpu.BG1)+len(cpu.H), fb.g1)
	require.Equal(t, len(cpu.BG2), fb.g2)
	var a, b bytes.Buffer
	_, err = cpu.WriteTo(&a)
	require.NoError(t, err)
	_, err = got.WriteTo(&b)
	require.NoError(t, err)
	require.True(t, bytes.Equal(a.Bytes(), b.Bytes()), "parameters differ from the CPU tables'")

	boom := errors.New("device lost")
	_, err = InsecureSetup(shape, tw, WithFixedBase(&gnarkFixedBase{fail: boom}))
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "IC points")
}
