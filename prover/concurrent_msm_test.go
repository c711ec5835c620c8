package prover_test

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// msmMeter is the CPU's primitives with workspaces that report ConcurrentMSMs as concurrent says
// and count the MSMs after H's: calls, and the most running at once. When gate > 0, each of
// those MSMs waits until gate of them have started (or a second has passed), so that MSMs run
// one after the other cannot reach it.
type msmMeter struct {
	primitive.Device
	concurrent bool
	gate       int

	mu       sync.Mutex
	started  int
	running  int
	most     int
	calls    int
	allThere chan struct{}
}

func (d *msmMeter) Workspace(ctx context.Context, dims primitive.Dims) (primitive.Workspace, error) {
	ws, err := d.Device.Workspace(ctx, dims)
	if err != nil {
		return nil, err
	}
	return &meteredWorkspace{Workspace: ws, d: d}, nil
}

type meteredWorkspace struct {
	primitive.Workspace
	d *msmMeter
}

func (w *meteredWorkspace) ConcurrentMSMs() bool { return w.d.concurrent }

// enter counts an MSM after H's in and, with a gate, waits for the others; leave counts it out.
func (d *msmMeter) enter() {
	d.mu.Lock()
	d.calls++
	d.started++
	d.running++
	d.most = max(d.most, d.running)
	if d.gate > 0 && d.started == d.gate {
		close(d.allThere)
	}
	d.mu.Unlock()
	if d.gate > 0 {
		select {
		case <-d.allThere:
		case <-time.After(time.Second):
		}
	}
}

func (d *msmMeter) leave() {
	d.mu.Lock()
	d.running--
	d.mu.Unlock()
}

func (w *meteredWorkspace) MSMG1(ctx context.Context, b primitive.Bases, sec primitive.Section, s primitive.Buf, off, n int) (bls12381.G1Jac, error) {
	if sec != primitive.SectionH {
		w.d.enter()
		defer w.d.leave()
	}
	return w.Workspace.MSMG1(ctx, b, sec, s, off, n)
}

func (w *meteredWorkspace) MSMG2(ctx context.Context, b primitive.Bases, s primitive.Buf, off, n int) (bls12381.G2Jac, error) {
	w.d.enter()
	defer w.d.leave()
	return w.Workspace.MSMG2(ctx, b, s, off, n)
}

// TestConcurrentMSMs: on a workspace that allows it, the MSMs after H's (A, B_G1, L, B_G2) run
// at once, and the proof is the CPU's, byte for byte, for the same r and s; on one that does
// not, they run one at a time.
func TestConcurrentMSMs(t *testing.T) {
	ctx := context.Background()
	c := &circuits.Scalable{Constraints: 300, Inputs: 3, Seed: 6}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	params, err := devsetup.InsecureSetup(shape, tw)
	require.NoError(t, err)
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	rs, err := prover.NewRandomness()
	require.NoError(t, err)
	want, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
	require.NoError(t, err)

	serial := &msmMeter{Device: prover.NewCPUPrimitives()}
	got, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(prover.NewDevice(serial)), prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), got.Bytes())
	require.Equal(t, 1, serial.most, "MSMs ran at once on a workspace that does not allow it")
	require.Equal(t, 4, serial.calls, "A, B_G1, L and B_G2 are all non-empty in this circuit")

	together := &msmMeter{Device: prover.NewCPUPrimitives(), concurrent: true, gate: serial.calls,
		allThere: make(chan struct{})}
	got, err = prover.ProvePartition(ctx, params, asg, prover.WithDevice(prover.NewDevice(together)), prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), got.Bytes())
	require.Equal(t, serial.calls, together.most, "the MSMs after H's did not all run at once")
}
