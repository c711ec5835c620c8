package engine

import (
	"errors"
	"testing"
	"time"

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

// TestEngineSelfCheck: with WithSelfCheck, a device that returns a wrong proof fails its job
// with ErrSelfCheck, and correct proofs pass.
func TestEngineSelfCheck(t *testing.T) {
	ctx := testCtx(t)
	liar := newSimDevice(0, time.Millisecond, 0) // its proofs are three generators: never valid

	e := newTestEngine(t, WithDevices(liar), WithSelfCheck())
	h, err := e.Submit(ctx, simJob(t, 1, 2, 0))
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.ErrorIs(t, err, ErrSelfCheck)
	require.ErrorContains(t, err, "finalize")

	shape, params := setupFor(t, &circuits.Scalable{Constraints: 40, Inputs: 2})
	job := func() *Job {
		return &Job{Params: params, Shape: shape, Partitions: 3, Circuit: func(i int) (synth.Circuit, error) {
			return &circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 5, Partition: i}, nil
		}}
	}
	good := newTestEngine(t, WithDevices(prover.NewCPUDevice()), WithSelfCheck())
	h, err = good.Submit(ctx, job())
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.NoError(t, err)

	// Finalize-time failures are not retried (the evaluations are gone), so the liar with a
	// fallback still fails: the self-check guarantees no wrong proof, not a retry.
	rescued := newTestEngine(t, WithDevices(liar), WithSelfCheck(), WithFallback(prover.NewCPUDevice()))
	h, err = rescued.Submit(ctx, job())
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.ErrorIs(t, err, ErrSelfCheck)
}
