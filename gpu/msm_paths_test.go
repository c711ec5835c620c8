package gpu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// cyclePattern returns n bases from pts in the order P, −P, P, P, Q, −Q, Q,
// Q, …: with one scalar for all of them every pair of a window lands in the
// same bucket, so the accumulation meets the sum of a point and its negation
// (the point at infinity), a restart from infinity and the doubling of a point
// added to itself, in every window.
func cyclePattern[A any](pts []A, n int, neg func(*A, *A)) []A {
	out := make([]A, n)
	for i := range out {
		p := pts[(i/4)%len(pts)]
		out[i] = p
		if i%4 == 1 {
			neg(&out[i], &p)
		}
	}
	return out
}

// TestMSMSameBucketPaths runs MSMs whose pairs all share one bucket per
// window (one scalar for every base, bases P, −P, P, P, …) against gnark
// MultiExp. With 32 pairs a chunk: n = 8 is summed whole by one thread per
// run; n = 1000 is split into chunks once (runs longer than 8 pairs) and its
// partial sums, in runs of up to 33, summed by the one-loop form; n = 4100 is
// split twice and its partial sums, in runs of up to 6, summed a loop per
// run. So every accumulation kernel takes the cancellation and doubling
// branches of the additions, G1 and G2.
func TestMSMSameBucketPaths(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	_, _, g1, g2 := bls12381.Generators()
	seeds := randScalars(rng.Uint64(), 64)
	p1 := bls12381.BatchScalarMultiplicationG1(&g1, seeds)
	p2 := bls12381.BatchScalarMultiplicationG2(&g2, seeds)
	for _, n := range []int{8, 1000, 4100} {
		b1 := cyclePattern(p1, n, func(d, s *bls12381.G1Affine) { d.Neg(s) })
		b2 := cyclePattern(p2, n, func(d, s *bls12381.G2Affine) { d.Neg(s) })
		k := randScalars(rng.Uint64(), 1)[0]
		sc := make([]fr.Element, n)
		for i := range sc {
			sc[i] = k
		}
		t.Run(fmt.Sprintf("G1/n=%d", n), func(t *testing.T) {
			bases, err := d.UploadG1Bases(b1)
			if err != nil {
				t.Fatal(err)
			}
			defer bases.Close()
			checkG1MSM(t, ctx, bases, b1, sc)
		})
		t.Run(fmt.Sprintf("G2/n=%d", n), func(t *testing.T) {
			bases, err := d.UploadG2Bases(b2)
			if err != nil {
				t.Fatal(err)
			}
			defer bases.Close()
			checkG2MSM(t, ctx, bases, b2, sc)
		})
	}
}

// TestMSMWindowOverride forces the window width through CUZK_MSM_C (the
// library reads it at each MSM) and compares G1 MSMs of random scalars with
// gnark MultiExp at widths the cost model does not pick at this size; it also
// runs one MSM with the step timings on (CUZK_MSM_TIMING=1) and checks that
// bad values of both variables are refused with an error naming them.
func TestMSMWindowOverride(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	const n = 3000
	pts := g1Points(n)
	bases, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	check := func(t *testing.T) {
		t.Helper()
		checkG1MSM(t, ctx, bases, pts, makeScalars(rng.Uint64(), n, kindRandom))
	}
	for _, c := range []int{4, 7, 13, 16, 19, 22} {
		t.Run(fmt.Sprintf("c=%d", c), func(t *testing.T) {
			t.Setenv("CUZK_MSM_C", fmt.Sprint(c))
			check(t)
		})
	}
	t.Run("timing", func(t *testing.T) {
		t.Setenv("CUZK_MSM_TIMING", "1")
		check(t)
	})
	sc := makeScalars(rng.Uint64(), n, kindRandom)
	for _, bad := range []struct{ name, value string }{
		{"CUZK_MSM_C", "3"}, {"CUZK_MSM_C", "25"}, {"CUZK_MSM_C", "16x"}, {"CUZK_MSM_TIMING", "yes"},
	} {
		t.Run(bad.name+"="+bad.value, func(t *testing.T) {
			t.Setenv(bad.name, bad.value)
			_, err := bases.MSM(ctx, sc)
			if err == nil || !strings.Contains(err.Error(), bad.name) {
				t.Fatalf("MSM with %s=%s: err = %v, want an error naming %s", bad.name, bad.value, err, bad.name)
			}
		})
	}
}

// TestMSMLongChunks runs MSMs of many random scalars over the bases P_(i mod 64) of 64 random
// points: 2^24 for G1 and G2, enough pairs for the accumulation to give each thread about 64 of
// them (run_chunk in csrc/src/msm.cuh) before its second round returns to 32, and 2^26 for G1,
// about 256 a thread shortened to fill whole waves, the last wave's pairs in chunks of a quarter
// of that (split_chunks). The expected sum is computed independently:
// Σ_j (Σ_(i ≡ j mod 64) s_i)·P_j by gnark MultiExp over the 64 points.
func TestMSMLongChunks(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	const k = 64
	_, _, g1, g2 := bls12381.Generators()
	seeds := randScalars(rng.Uint64(), k)
	p1 := bls12381.BatchScalarMultiplicationG1(&g1, seeds)
	p2 := bls12381.BatchScalarMultiplicationG2(&g2, seeds)
	for _, logN := range []int{24, 26} {
		n := 1 << logN
		sc := randScalars(rng.Uint64(), n)
		folded := make([]fr.Element, k)
		for i := range sc {
			folded[i%k].Add(&folded[i%k], &sc[i])
		}
		t.Run(fmt.Sprintf("G1/2^%d", logN), func(t *testing.T) {
			checkRepeatedBasesMSM[bls12381.G1Affine, bls12381.G1Jac](t, p1, folded, n, d.UploadG1Bases, sc)
		})
		if logN <= 24 {
			t.Run(fmt.Sprintf("G2/2^%d", logN), func(t *testing.T) {
				checkRepeatedBasesMSM[bls12381.G2Affine, bls12381.G2Jac](t, p2, folded, n, d.UploadG2Bases, sc)
			})
		}
	}
}

// affinePoint is what checkRepeatedBasesMSM needs of gnark's G1Affine or G2Affine (A), whose
// Jacobian form is J.
type affinePoint[A, J any] interface {
	*A
	MultiExp([]A, []fr.Element, ecc.MultiExpConfig) (*A, error)
	FromJacobian(*J) *A
	String() string
}

// checkRepeatedBasesMSM uploads n bases pts[i mod len(pts)] with upload and fails t unless
// their MSM with sc equals gnark's MultiExp of pts with folded, folded[j] = Σ_(i ≡ j) sc[i].
func checkRepeatedBasesMSM[A, J any, PA affinePoint[A, J], B interface {
	MSM(context.Context, []fr.Element) (J, error)
	Close() error
}](t *testing.T, pts []A, folded []fr.Element, n int, upload func([]A) (B, error), sc []fr.Element) {
	t.Helper()
	var want, got A
	_, err := PA(&want).MultiExp(pts, folded, ecc.MultiExpConfig{})
	require.NoError(t, err)
	b := make([]A, n)
	for i := range b {
		b[i] = pts[i%len(pts)]
	}
	bases, err := upload(b)
	require.NoError(t, err)
	defer bases.Close()
	jac, err := bases.MSM(context.Background(), sc)
	require.NoError(t, err)
	PA(&got).FromJacobian(&jac)
	require.Equal(t, PA(&want).String(), PA(&got).String(), "MSM of %d scalars", n)
}
