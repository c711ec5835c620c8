package prover_test

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// hostEvaluator is the CPU's primitives as a primitive.Evaluator: its workspaces stage w and
// compute the evaluations on the host (synth's Assignment.Evaluate), counting the stagings, so
// that Groth16's recipe takes the path a GPU with device evaluation takes.
type hostEvaluator struct {
	primitive.Device
	staged int
}

func (d *hostEvaluator) EvaluatesShape(*synth.Shape) bool { return true }

func (d *hostEvaluator) Workspace(ctx context.Context, dims primitive.Dims) (primitive.Workspace, error) {
	ws, err := d.Device.Workspace(ctx, dims)
	if err != nil {
		return nil, err
	}
	return &hostEvalWorkspace{Workspace: ws, d: d}, nil
}

type hostEvalWorkspace struct {
	primitive.Workspace
	d *hostEvaluator
}

func (w *hostEvalWorkspace) StageWitness(ctx context.Context, shape *synth.Shape, wit []fr.Element, withC bool) error {
	asg := &synth.Assignment{Shape: shape, W: wit, Inputs: wit[:shape.NumInputs], Aux: wit[shape.NumInputs:]}
	if err := asg.Evaluate(ctx); err != nil {
		return err
	}
	bufs := []struct {
		buf primitive.Buf
		v   []fr.Element
	}{{primitive.BufA, asg.A}, {primitive.BufB, asg.B}, {primitive.BufW, wit}, {primitive.BufC, asg.C}}
	if !withC {
		bufs = bufs[:3]
	}
	for _, s := range bufs {
		if err := w.Upload(ctx, s.buf, s.v); err != nil {
			return err
		}
	}
	w.d.staged++
	return nil
}

// TestDeviceEvaluationPath: a witness-only assignment proved on an evaluating device gives the
// CPU's proof of the full assignment (same r, s), byte for byte; a device that does not
// evaluate refuses it with an error saying so.
func TestDeviceEvaluationPath(t *testing.T) {
	ctx := context.Background()
	c := &circuits.Scalable{Constraints: 300, Inputs: 3, Seed: 4}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	params, err := devsetup.InsecureSetup(shape, tw)
	require.NoError(t, err)
	full, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	wit, err := synth.SynthesizeWitness(ctx, shape, c, nil)
	require.NoError(t, err)
	rs, err := prover.NewRandomness()
	require.NoError(t, err)

	ev := &hostEvaluator{Device: prover.NewCPUPrimitives()}
	dev := prover.NewDevice(ev)
	require.True(t, prover.EvaluatesOnDevice(dev, shape))
	require.False(t, prover.EvaluatesOnDevice(prover.CPU(), shape))
	require.Equal(t, prover.CPU().HostBytes(shape), dev.HostBytes(shape))

	got, err := prover.ProvePartition(ctx, params, wit, prover.WithDevice(dev), prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, 1, ev.staged)
	want, err := prover.ProvePartition(ctx, params, full, prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), got.Bytes())
	require.Nil(t, wit.A, "Prepare does not modify the assignment")

	// With evaluations, the evaluating device stages them as they are.
	got, err = prover.ProvePartition(ctx, params, full, prover.WithDevice(dev), prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, 1, ev.staged)
	require.Equal(t, want.Bytes(), got.Bytes())

	_, err = prover.ProvePartition(ctx, params, wit, prover.WithRandomness(rs))
	require.ErrorContains(t, err, "does not compute them")
}
