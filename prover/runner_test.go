package prover_test

import (
	"context"
	"math/big"
	"slices"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// msmRunnerDevice is the CPU's primitive device whose workspaces also run MSMs in one call
// (primitive.MSMRunner), recording the sections of every call.
type msmRunnerDevice struct {
	primitive.Device
	mu       sync.Mutex
	calls    [][]primitive.Section
	alone    int    // MSMs asked for one at a time
	reverseH bool   // workspaces take the quotient in one call and leave h bit-reversed
	folded   []bool // RunQuotient's folded, call by call
	t        *testing.T
}

func (d *msmRunnerDevice) Workspace(ctx context.Context, dims primitive.Dims) (primitive.Workspace, error) {
	ws, err := d.Device.Workspace(ctx, dims)
	if err != nil {
		return nil, err
	}
	w := &msmRunnerWorkspace{Workspace: ws, d: d}
	if d.reverseH {
		return &hReversingWorkspace{msmRunnerWorkspace: w}, nil
	}
	return w, nil
}

type msmRunnerWorkspace struct {
	primitive.Workspace
	d *msmRunnerDevice
}

func (w *msmRunnerWorkspace) MSMG1(ctx context.Context, b primitive.Bases, sec primitive.Section, s primitive.Buf, off, n int) (bls12381.G1Jac, error) {
	w.d.mu.Lock()
	w.d.alone++
	w.d.mu.Unlock()
	return w.Workspace.MSMG1(ctx, b, sec, s, off, n)
}

func (w *msmRunnerWorkspace) MSMG2(ctx context.Context, b primitive.Bases, s primitive.Buf, off, n int) (bls12381.G2Jac, error) {
	w.d.mu.Lock()
	w.d.alone++
	w.d.mu.Unlock()
	return w.Workspace.MSMG2(ctx, b, s, off, n)
}

func (w *msmRunnerWorkspace) RunMSMs(ctx context.Context, b primitive.Bases, jobs []primitive.MSMJob) error {
	var secs []primitive.Section
	for _, j := range jobs {
		secs = append(secs, j.Sec)
		if err := j.Run(ctx, w.Workspace, b); err != nil {
			return err
		}
	}
	w.d.mu.Lock()
	w.d.calls = append(w.d.calls, secs)
	w.d.mu.Unlock()
	return nil
}

// proveThrough proves a partition of a small circuit (seed) on the CPU and through rd's
// workspaces, and checks that the proofs are the same bytes.
func proveThrough(t *testing.T, seed uint64, rd *msmRunnerDevice) {
	t.Helper()
	c := &circuits.Scalable{Constraints: 300, Inputs: 3, Seed: seed}
	shape, params := setupFor(t, c)
	ctx := context.Background()
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	rs := fixedRandomness(seed)
	want, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	got, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs), prover.WithDevice(prover.NewDevice(rd)))
	require.NoError(t, err)
	wantBytes, _ := want.MarshalBinary()
	gotBytes, _ := got.MarshalBinary()
	require.Equal(t, wantBytes, gotBytes)
}

// TestProveTakesTheMSMRunner: a workspace that runs MSMs in one call gets a partition's five
// MSMs as one call, in the order of the steps, and the proof is the CPU's byte for byte.
func TestProveTakesTheMSMRunner(t *testing.T) {
	rd := &msmRunnerDevice{Device: prover.NewCPUPrimitives()}
	proveThrough(t, 7, rd)
	require.Zero(t, rd.alone, "MSMs asked for one at a time beside RunMSMs")
	require.Equal(t, [][]primitive.Section{{primitive.SectionH, primitive.SectionBG2, primitive.SectionA,
		primitive.SectionBG1, primitive.SectionL}}, rd.calls)
}

// hReversingWorkspace also takes the quotient in one call (primitive.QuotientRunner) and leaves h
// in bit-reversed order, as a GPU's call does: the recipe's steps on the CPU, then BufA reordered
// by a transform to bit-reversed order and an inverse from it to it. Its RunMSMs checks that only
// H's job says so, with the quotient's size, and puts h back before the batch.
type hReversingWorkspace struct {
	*msmRunnerWorkspace
	logN int
}

// RunQuotient, folded, leaves c out (the workspace of a partition with folded parameters has no
// BufC) and stops at â·b̂ in natural order; otherwise it computes h and leaves it bit-reversed.
func (w *hReversingWorkspace) RunQuotient(ctx context.Context, logN int, shift fr.Element, folded bool) (bool, error) {
	w.logN = logN
	m := 1 << logN
	w.d.mu.Lock()
	w.d.folded = append(w.d.folded, folded)
	w.d.mu.Unlock()
	steps := []struct {
		b   primitive.Buf
		cfg primitive.NTT
	}{
		{primitive.BufA, primitive.NTT{Inverse: true, OutputBitReversed: true}},
		{primitive.BufB, primitive.NTT{Inverse: true, OutputBitReversed: true}},
		{primitive.BufC, primitive.NTT{Inverse: true, OutputBitReversed: true}},
		{primitive.BufA, primitive.NTT{Coset: true, InputBitReversed: true, Shift: shift}},
		{primitive.BufB, primitive.NTT{Coset: true, InputBitReversed: true, Shift: shift}},
	}
	for _, st := range steps {
		if st.b == primitive.BufC && folded {
			continue
		}
		if err := w.NTT(ctx, st.b, logN, st.cfg); err != nil {
			return false, err
		}
	}
	if err := w.Mul(ctx, primitive.BufA, primitive.BufB, m); err != nil {
		return false, err
	}
	if folded {
		return false, nil
	}
	inverseOnCoset := primitive.NTT{Inverse: true, Coset: true, OutputBitReversed: true, Shift: shift}
	if err := w.NTT(ctx, primitive.BufA, logN, inverseOnCoset); err != nil {
		return false, err
	}
	var z fr.Element
	z.Exp(shift, big.NewInt(int64(m)))
	z.Sub(&z, new(fr.Element).SetOne())
	z.Inverse(&z)
	if err := w.Quotient(ctx, primitive.BufA, primitive.BufC, logN, z); err != nil {
		return false, err
	}
	return true, w.reorder(ctx, primitive.NTT{OutputBitReversed: true},
		primitive.NTT{Inverse: true, InputBitReversed: true, OutputBitReversed: true})
}

// reorder runs the two transforms on BufA: a forward one and its inverse in other orders.
func (w *hReversingWorkspace) reorder(ctx context.Context, fwd, inv primitive.NTT) error {
	if err := w.NTT(ctx, primitive.BufA, w.logN, fwd); err != nil {
		return err
	}
	return w.NTT(ctx, primitive.BufA, w.logN, inv)
}

func (w *hReversingWorkspace) RunMSMs(ctx context.Context, b primitive.Bases, jobs []primitive.MSMJob) error {
	jobs = slices.Clone(jobs)
	for i, j := range jobs {
		if j.RunnerForm != (j.Sec == primitive.SectionH) || (j.RunnerForm && j.S != primitive.BufA) {
			w.d.t.Errorf("job %d (%s over buffer %d): in the runner's form %v, want only H's over a", i, j.Sec, j.S, j.RunnerForm)
		}
		jobs[i].RunnerForm = false
		if j.BitRev == 0 {
			continue
		}
		if j.Sec != primitive.SectionH || j.S != primitive.BufA || j.BitRev != w.logN {
			w.d.t.Errorf("job %d (%s over buffer %d): bit-reversed scalars of %d bits, want only H's over a of %d",
				i, j.Sec, j.S, j.BitRev, w.logN)
		}
		if err := w.reorder(ctx, primitive.NTT{InputBitReversed: true}, primitive.NTT{Inverse: true}); err != nil {
			return err
		}
		jobs[i].BitRev = 0
	}
	return w.msmRunnerWorkspace.RunMSMs(ctx, b, jobs)
}

// TestProveReadsHBitReversed: a workspace whose one-call quotient leaves h bit-reversed gets H's
// MSM job marked so (and no other), and the proof is the CPU's byte for byte.
func TestProveReadsHBitReversed(t *testing.T) {
	rd := &msmRunnerDevice{Device: prover.NewCPUPrimitives(), reverseH: true, t: t}
	proveThrough(t, 11, rd)
	require.Len(t, rd.calls, 1)
}
