package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

// TestEngineFallback: partitions whose device work fails (an error, a panic) are proved on the
// fallback device and their jobs complete; when the fallback fails too, only that job fails.
func TestEngineFallback(t *testing.T) {
	gpu := newSimDevice(time.Millisecond, 2*time.Millisecond, time.Millisecond)
	gpu.runHook = func(tg uint64) error {
		switch tg {
		case tag(2, 1):
			return errors.New("device error")
		case tag(3, 2):
			panic("device exploded")
		case tag(4, 0):
			return errors.New("device error again")
		}
		return nil
	}
	cpu := newSimDevice(0, time.Millisecond, 0)
	cpu.runHook = func(tg uint64) error {
		if tg == tag(4, 0) {
			return errors.New("fallback broken too")
		}
		return nil
	}
	var rec timeline.Recorder
	e := newTestEngine(t, WithDevices(gpu), WithFallback(cpu), WithTimeline(&rec))
	ctx := testCtx(t)

	var ok []*Handle
	for _, marker := range []int{1, 2, 3} {
		h, err := e.Submit(ctx, simJob(t, marker, 4, 0))
		require.NoError(t, err)
		ok = append(ok, h)
	}
	bad, err := e.Submit(ctx, simJob(t, 4, 3, 0))
	require.NoError(t, err)
	for _, h := range ok {
		res, err := h.Wait(ctx)
		require.NoError(t, err)
		require.Len(t, res.Proof, 4*prover.ProofSize)
	}
	_, err = bad.Wait(ctx)
	require.ErrorContains(t, err, "partition 0: fallback")
	require.ErrorContains(t, err, "after device error")
	require.Equal(t, int64(3), cpu.runs.Load(), "the three failed partitions ran on the fallback")
	require.Equal(t, int64(0), e.Stats().Reserved)

	rep := timeline.Analyze(rec.Events())
	ds, found := rep.Device(0)
	require.True(t, found)
	require.Zero(t, ds.Overlaps)
	fallbacks := 0
	for _, ev := range rec.Events() {
		if ev.Kind == timeline.FinalizeStart && len(ev.Detail) >= 8 && ev.Detail[:8] == "fallback" {
			fallbacks++
		}
	}
	require.Equal(t, 3, fallbacks)
}

func TestEngineFallbackOption(t *testing.T) {
	_, err := New(WithFallback(nil))
	require.Error(t, err)
}

// scalableJob is a job of n partitions of a small real circuit with real parameters.
func scalableJob(t *testing.T, n int) *Job {
	shape, params := setupFor(t, &circuits.Scalable{Constraints: 40, Inputs: 2})
	return &Job{Params: params, Shape: shape, Partitions: n, Circuit: func(i int) (synth.Circuit, error) {
		return &circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 5, Partition: i}, nil
	}}
}

// TestEngineSelfCheckByDefault: with the engine's defaults, a device that returns a wrong proof
// fails its job with ErrSelfCheck, and correct proofs pass; WithoutSelfCheck lets the wrong proof
// through.
func TestEngineSelfCheckByDefault(t *testing.T) {
	ctx := testCtx(t)
	liar := newSimDevice(0, time.Millisecond, 0) // its proofs are three generators: never valid

	e := newCheckedEngine(t, WithDevices(liar))
	h, err := e.Submit(ctx, simJob(t, 1, 2, 0))
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.ErrorIs(t, err, ErrSelfCheck)
	require.ErrorContains(t, err, "finalize")

	unchecked := newTestEngine(t, WithDevices(liar))
	h, err = unchecked.Submit(ctx, simJob(t, 2, 2, 0))
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.NoError(t, err, "the opt-out accepts what the device returns")

	good := newCheckedEngine(t, WithDevices(prover.NewCPUDevice()))
	h, err = good.Submit(ctx, scalableJob(t, 3))
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.NoError(t, err)
}

// TestEngineFallbackRescuesWrongProofs: a device whose proofs fail the self-check has its
// partitions proved again on the fallback, and the job's proofs verify.
func TestEngineFallbackRescuesWrongProofs(t *testing.T) {
	ctx := testCtx(t)
	liar := newSimDevice(0, time.Millisecond, 0)
	e := newCheckedEngine(t, WithDevices(liar), WithFallback(prover.NewCPUDevice()))
	job := scalableJob(t, 3)
	h, err := e.Submit(ctx, job)
	require.NoError(t, err)
	res, err := h.Wait(ctx)
	require.NoError(t, err)
	pvk, err := prover.PrepareVerifyingKey(&job.Params.VK)
	require.NoError(t, err)
	for i, p := range res.Partitions {
		require.NoError(t, prover.Verify(pvk, p, res.Inputs[i]), "partition %d", i)
	}
}

// TestEngineFallbackIsChecked: the fallback's proofs pass the self-check too; a fallback that
// returns wrong proofs fails the job with ErrSelfCheck instead of handing them out.
func TestEngineFallbackIsChecked(t *testing.T) {
	ctx := testCtx(t)
	broken := newSimDevice(0, 0, 0)
	broken.runHook = func(uint64) error { return errors.New("device error") }
	liar := newSimDevice(0, 0, 0)
	e := newCheckedEngine(t, WithDevices(broken), WithFallback(liar))
	h, err := e.Submit(ctx, scalableJob(t, 2))
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.ErrorIs(t, err, ErrSelfCheck)
	require.ErrorContains(t, err, "fallback")
	require.Positive(t, liar.runs.Load())
}

// lockFailDevice is a simulated device whose kernel lock cannot be taken.
type lockFailDevice struct{ *simDevice }

func (lockFailDevice) Lock(context.Context) error { return errors.New("device lost") }

// TestEngineLockFailureFallsBack: a partition whose device lock fails (not by cancellation) is
// proved on the fallback device.
func TestEngineLockFailureFallsBack(t *testing.T) {
	ctx := testCtx(t)
	cpu := newSimDevice(0, 0, 0)
	e := newTestEngine(t, WithDevices(lockFailDevice{newSimDevice(0, 0, 0)}), WithFallback(cpu))
	h, err := e.Submit(ctx, simJob(t, 1, 3, 0))
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(3), cpu.runs.Load())
}

// corruptingDevice proves on the CPU but first overwrites the assignment it was given, then
// fails: the fallback must not prove from what it left behind.
type corruptingDevice struct{ prover.Device }

func (d corruptingDevice) Prepare(ctx context.Context, params *prover.Parameters, asg *synth.Assignment, rs prover.Randomness) (prover.Task, error) {
	for _, v := range [][]fr.Element{asg.A, asg.B, asg.C, asg.W} {
		for i := range v {
			v[i].SetUint64(uint64(i) + 3)
		}
	}
	return nil, errors.New("device error after scribbling on the assignment")
}

func TestEngineFallbackResynthesizes(t *testing.T) {
	ctx := testCtx(t)
	e := newTestEngine(t, WithDevices(corruptingDevice{prover.NewCPUDevice()}), WithFallback(prover.NewCPUDevice()))
	job := scalableJob(t, 2)
	h, err := e.Submit(ctx, job)
	require.NoError(t, err)
	res, err := h.Wait(ctx)
	require.NoError(t, err)
	pvk, err := prover.PrepareVerifyingKey(&job.Params.VK)
	require.NoError(t, err)
	for i, p := range res.Partitions {
		in := (&circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 5, Partition: i}).PublicInputs()
		require.NoError(t, prover.Verify(pvk, p, in), "partition %d", i)
	}
}

// TestEngineBoundsCounts: counts beyond the engine's bounds are errors where they enter, not
// allocations.
func TestEngineBoundsCounts(t *testing.T) {
	e := newTestEngine(t, WithDevices(newSimDevice(0, 0, 0)))
	jb := simJob(t, 1, 1, 0)
	for _, n := range []int{0, -1, MaxPartitions + 1, 1 << 40} {
		jb.Partitions = n
		_, err := e.Submit(testCtx(t), jb)
		require.ErrorContains(t, err, "partitions, want 1 to")
	}
	for _, o := range []Option{WithWorkersPerDevice(1 << 40), WithSynthesisConcurrency(1 << 40), WithQueueDepth(1 << 40)} {
		_, err := New(o)
		require.ErrorContains(t, err, "want 1 to")
	}
}
