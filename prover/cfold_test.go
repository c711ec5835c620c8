package prover_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// cHeavy returns a circuit that puts in C every kind of term a fold meets: inputs (One
// included), an aux variable found only in C, coefficients 1, −1 and general ones (k), a
// variable repeated in one row, terms that cancel and rows of several terms. Circuits of two
// k have the same counts and densities and differ in C alone.
func cHeavy(k fr.Element) funcCircuit {
	return func(cs *synth.CS) error {
		x, y := fr.NewElement(7), fr.NewElement(11)
		var xy, kxy, negK, minus fr.Element
		xy.Mul(&x, &y)
		kxy.Mul(&k, &xy)
		negK.Neg(&k)
		minus.Neg(&xy)
		in := cs.AllocInput(xy)
		a, b := cs.Alloc(x), cs.Alloc(y)
		p := cs.Alloc(xy)
		kp := cs.Alloc(kxy)
		only := cs.Alloc(minus)
		cs.Enforce("product", synth.V(a), synth.V(b), synth.V(p))
		cs.Enforce("input in C", synth.V(a), synth.V(b), synth.V(in))
		// k·xy = 3k·p − 2k·in, with p three times, in twice, and k·One − k·One + kp − kp.
		c := synth.LC{}.AddTerm(k, p).AddTerm(k, p).AddTerm(k, p).AddTerm(negK, in).AddTerm(negK, in).
			AddTerm(k, synth.One).AddTerm(negK, synth.One).Add(kp).Sub(kp)
		cs.Enforce("general coefficients", synth.V(kp), synth.V(synth.One), c)
		cs.Enforce("aux only in C, −1", synth.V(a), synth.V(b), synth.LC{}.Sub(only))
		cs.Enforce("One in C", synth.V(synth.One), synth.V(synth.One), synth.V(synth.One))
		return nil
	}
}

// TestFoldCProvesTheSameBytes: parameters with C folded into L prove the unfolded parameters'
// proof byte for byte (same r and s) on the CPU, through a device that evaluates the witness
// itself and through one that takes the quotient in one call and leaves h bit-reversed (as a
// GPU does); the fold changes L where C has terms and leaves the parameters it was given as
// they were.
func TestFoldCProvesTheSameBytes(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]synth.Circuit{
		"scalable": &circuits.Scalable{Constraints: 300, Inputs: 3, Seed: 9},
		"c terms":  cHeavy(fr.NewElement(0x1234567890abcdef)),
		"no aux": funcCircuit(func(cs *synth.CS) error {
			x, y := fr.NewElement(5), fr.NewElement(6)
			var xy fr.Element
			xy.Mul(&x, &y)
			cs.Enforce("mul", synth.V(cs.AllocInput(x)), synth.V(cs.AllocInput(y)), synth.V(cs.AllocInput(xy)))
			return nil
		}),
	} {
		t.Run(name, func(t *testing.T) {
			shape, params := setupFor(t, c)
			asg, err := synth.Synthesize(ctx, shape, c)
			require.NoError(t, err)
			require.NoError(t, synth.Check(shape, asg, c))
			l := append(params.L[:0:0], params.L...)
			folded, err := prover.FoldC(t.Context(), params, shape)
			require.NoError(t, err)
			require.Equal(t, l, params.L, "FoldC changed its input")
			require.Nil(t, params.CFold)
			require.Len(t, folded.CFold.Inputs, shape.NumInputs)
			if shape.NumAux > 0 && shape.C.NumTerms() > 0 {
				require.NotEqual(t, params.L, folded.L)
				// Devices keep the points by identity: other points, another identity.
				require.NotEqual(t, params.Identity(), folded.Identity())
			}

			rs := fixedRandomness(21)
			want, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
			require.NoError(t, err)
			for dname, dev := range map[string]prover.Device{
				"cpu":               prover.CPU(),
				"evaluating device": prover.NewDevice(&hostEvaluator{Device: prover.NewCPUPrimitives()}),
				"one-call quotient": prover.NewDevice(&msmRunnerDevice{Device: prover.NewCPUPrimitives(), reverseH: true, t: t}),
			} {
				got, err := prover.ProvePartition(ctx, folded, asg, prover.WithRandomness(rs), prover.WithDevice(dev))
				require.NoError(t, err, dname)
				require.Equal(t, want.Bytes(), got.Bytes(), dname)
			}
			// The witness alone on the evaluating device.
			wit, err := synth.SynthesizeWitness(ctx, shape, c, nil)
			require.NoError(t, err)
			got, err := prover.ProvePartition(ctx, folded, wit, prover.WithRandomness(rs),
				prover.WithDevice(prover.NewDevice(&hostEvaluator{Device: prover.NewCPUPrimitives()})))
			require.NoError(t, err)
			require.Equal(t, want.Bytes(), got.Bytes())
		})
	}
}

// TestFoldCRefuses: a second fold and a circuit other than the folded one (same counts, other C)
// are refused with errors that say so, and folded parameters are not written in bellperson's
// format. Parameters mapped from a file fold to the decoded parameters' fold.
func TestFoldCRefuses(t *testing.T) {
	ctx := context.Background()
	c := cHeavy(fr.NewElement(3))
	shape, params := setupFor(t, c)
	folded, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)

	_, err = prover.FoldC(t.Context(), folded, shape)
	require.ErrorIs(t, err, prover.ErrFold)
	require.ErrorContains(t, err, "folded already")

	_, decoded, _, m := mappedSetup(t, c)
	mp, err := m.Parameters()
	require.NoError(t, err)
	fromFile, err := prover.FoldC(t.Context(), mp, shape)
	require.NoError(t, err)
	fromHeap, err := prover.FoldC(t.Context(), decoded, shape)
	require.NoError(t, err)
	require.Equal(t, fromHeap.L, fromFile.L)
	require.Equal(t, fromHeap.CFold, fromFile.CFold)
	require.Equal(t, mp.Identity()+" (folded)", fromFile.ID)
	require.Nil(t, fromFile.Mapped())

	other := cHeavy(fr.NewElement(4))
	otherShape, err := synth.Compile(other)
	require.NoError(t, err)
	asg, err := synth.Synthesize(ctx, otherShape, other)
	require.NoError(t, err)
	// The unfolded parameters fit both circuits' counts, so only the fold tells them apart.
	require.NoError(t, prover.CheckParameters(params, otherShape))
	_, err = prover.ProvePartition(ctx, folded, asg)
	require.ErrorIs(t, err, prover.ErrParamsMismatch)
	require.ErrorContains(t, err, "C is folded for the circuit of digest")

	var buf bytes.Buffer
	_, err = folded.WriteTo(&buf)
	require.ErrorContains(t, err, "folded")
	require.Zero(t, buf.Len())
}

// TestFoldWithProgress: the fold reports its three stages in order, each from 0 up to its total
// (two transforms' twisted inputs and butterflies, then C's columns), and folds as without a
// report.
func TestFoldWithProgress(t *testing.T) {
	c := cHeavy(fr.NewElement(11))
	shape, params := setupFor(t, c)
	type report struct {
		stage       string
		done, total int64
	}
	var got []report
	folded, err := prover.FoldC(t.Context(), params, shape, prover.FoldWithProgress(func(stage string, done, total int64) {
		got = append(got, report{stage, done, total})
	}))
	require.NoError(t, err)
	want, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)
	require.Equal(t, want.L, folded.L)
	require.Equal(t, want.H, folded.H)
	var stages []string
	for i, r := range got {
		if i == 0 || r.stage != got[i-1].stage {
			stages = append(stages, r.stage)
			require.Zero(t, r.done, "%s starts at 0", r.stage)
		} else {
			require.GreaterOrEqual(t, r.done, got[i-1].done, "%s goes forward", r.stage)
		}
		if i == len(got)-1 || got[i+1].stage != r.stage {
			require.Equal(t, r.total, r.done, "%s ends at its total", r.stage)
		}
	}
	require.Equal(t, []string{"C's transform", "H on the coset", "C's columns"}, stages)
	m := int64(shape.DomainSize())
	require.Equal(t, m/2*int64(bits.TrailingZeros64(uint64(m)))+m-1, got[0].total)
}

// TestFoldWithDFT: a transform given with FoldWithDFT (here the definition, point by point,
// reporting its stages) folds to the same parameters as the CPU's (L', K and the inputs' points),
// its stages reported as the fold's "C's transform" up to its total; its error and a result of
// the wrong length are refused with errors that say so.
func TestFoldWithDFT(t *testing.T) {
	c := cHeavy(fr.NewElement(9))
	shape, params := setupFor(t, c)
	want, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)
	definition := func(_ context.Context, points []bls12381.G1Affine, logN int, omega, twist, scale fr.Element, progress func(int)) ([]bls12381.G1Affine, error) {
		n := 1 << logN
		out := make([]bls12381.G1Jac, n)
		for j := range n {
			for i := range points {
				var w, t fr.Element
				w.Exp(omega, big.NewInt(int64(i*j)))
				t.Exp(twist, big.NewInt(int64(i)))
				w.Mul(&w, &t).Mul(&w, &scale)
				var term bls12381.G1Jac
				term.FromAffine(&points[i])
				term.ScalarMultiplication(&term, w.BigInt(new(big.Int)))
				out[j].AddAssign(&term)
			}
		}
		progress(1)
		progress(logN - 1) // the last stage is left to the fold's end
		return bls12381.BatchJacobianToAffineG1(out), nil
	}
	var done []int64
	got, err := prover.FoldC(t.Context(), params, shape, prover.FoldWithDFT(definition),
		prover.FoldWithProgress(func(stage string, d, total int64) {
			if stage == "C's transform" {
				done = append(done, d)
			}
		}))
	require.NoError(t, err)
	m := int64(shape.DomainSize())
	logM := int64(bits.TrailingZeros64(uint64(m)))
	require.Equal(t, []int64{0, m / 2, (logM - 1) * m / 2, logM*m/2 + m - 1}, done)
	require.Equal(t, want.L, got.L)
	require.Equal(t, want.H, got.H)
	require.Len(t, got.H, int(m))
	require.Equal(t, want.CFold, got.CFold)

	_, err = prover.FoldC(t.Context(), params, shape, prover.FoldWithDFT(func(context.Context, []bls12381.G1Affine, int, fr.Element, fr.Element, fr.Element, func(int)) ([]bls12381.G1Affine, error) {
		return nil, errors.New("device lost")
	}))
	require.ErrorIs(t, err, prover.ErrFold)
	require.ErrorContains(t, err, "device lost")
	_, err = prover.FoldC(t.Context(), params, shape, prover.FoldWithDFT(func(_ context.Context, p []bls12381.G1Affine, logN int, w, t, s fr.Element, _ func(int)) ([]bls12381.G1Affine, error) {
		return p, nil
	}))
	require.ErrorContains(t, err, "want")
}

// TestFoldCancelled: a fold whose context ends as a stage starts stops with the context's error
// (each core at most within the chunk of work it holds), and a fold overlay cancelled so leaves
// no file.
func TestFoldCancelled(t *testing.T) {
	c := cHeavy(fr.NewElement(5))
	shape, params, _, base := mappedSetup(t, c)
	for _, stage := range []string{"C's transform", "H on the coset", "C's columns"} {
		t.Run(stage, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var after int // reports of stage after the cancel
			_, err := prover.FoldC(ctx, params, shape, prover.FoldWithProgress(func(s string, done, total int64) {
				if s != stage {
					return
				}
				if ctx.Err() != nil {
					after++
				}
				cancel() // at the stage's first report, 0 done
			}))
			require.ErrorIs(t, err, context.Canceled)
			require.ErrorIs(t, err, prover.ErrFold)
			require.LessOrEqual(t, after, runtime.GOMAXPROCS(0), "each core finishes at most the chunk it holds")
		})
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "c.fold")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, prover.FoldParametersOverlay(ctx, base, shape, path), context.Canceled)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "no overlay, no temporary file")
}

// TestFoldedIdentity: parameters with C folded into L have an identity of their own even where
// every point the identity reads is the unfolded parameters' (the first and last aux variables
// are booleans, absent from C, so L' starts and ends as L does), on the heap and through a fold
// overlay alike; a device keeping points by identity then never serves one's L for the other.
func TestFoldedIdentity(t *testing.T) {
	c := funcCircuit(func(cs *synth.CS) error {
		x, y := fr.NewElement(3), fr.NewElement(5)
		var xy fr.Element
		xy.Mul(&x, &y)
		boolean := func(v synth.Variable) { // v·(1 − v) = 0: v is not in C
			cs.Enforce("boolean", synth.V(v), synth.LC{}.Add(synth.One).Sub(v), synth.LC{})
		}
		first := cs.Alloc(fr.One())
		boolean(first)
		a, b, p := cs.Alloc(x), cs.Alloc(y), cs.Alloc(xy)
		cs.Enforce("product", synth.V(a), synth.V(b), synth.V(p))
		last := cs.Alloc(fr.Element{})
		boolean(last)
		return nil
	})
	shape, params, _, base := mappedSetup(t, c)
	folded, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)
	n := len(params.L)
	require.Equal(t, params.L[0], folded.L[0], "the first aux variable is not in C")
	require.Equal(t, params.L[n-1], folded.L[n-1], "the last aux variable is not in C")
	require.NotEqual(t, params.Identity(), folded.Identity())

	path := filepath.Join(t.TempDir(), "c.fold")
	require.NoError(t, prover.FoldParametersOverlay(t.Context(), base, shape, path))
	m, err := prover.OpenFoldOverlay(base, path, prover.Unchecked)
	require.NoError(t, err)
	defer m.Close()
	overlay, err := m.Parameters()
	require.NoError(t, err)
	baseParams, err := base.Parameters()
	require.NoError(t, err)
	require.NotEqual(t, baseParams.Identity(), overlay.Identity())
	require.Equal(t, folded.Identity(), overlay.Identity())
}
