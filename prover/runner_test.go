package prover_test

import (
	"context"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
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
	mu    sync.Mutex
	calls [][]primitive.Section
	alone int // MSMs asked for one at a time
}

func (d *msmRunnerDevice) Workspace(ctx context.Context, dims primitive.Dims) (primitive.Workspace, error) {
	ws, err := d.Device.Workspace(ctx, dims)
	if err != nil {
		return nil, err
	}
	return &msmRunnerWorkspace{Workspace: ws, d: d}, nil
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

// TestProveTakesTheMSMRunner: a workspace that runs MSMs in one call gets a partition's five
// MSMs as one call, in the order of the steps, and the proof is the CPU's byte for byte.
func TestProveTakesTheMSMRunner(t *testing.T) {
	c := &circuits.Scalable{Constraints: 300, Inputs: 3, Seed: 7}
	shape, params := setupFor(t, c)
	ctx := context.Background()
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	rs := fixedRandomness(5)
	want, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	rd := &msmRunnerDevice{Device: prover.NewCPUPrimitives()}
	got, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs), prover.WithDevice(prover.NewDevice(rd)))
	require.NoError(t, err)
	wantBytes, _ := want.MarshalBinary()
	gotBytes, _ := got.MarshalBinary()
	require.Equal(t, wantBytes, gotBytes)
	require.Zero(t, rd.alone, "MSMs asked for one at a time beside RunMSMs")
	require.Equal(t, [][]primitive.Section{{primitive.SectionBG2, primitive.SectionA, primitive.SectionBG1,
		primitive.SectionL, primitive.SectionH}}, rd.calls)
}
