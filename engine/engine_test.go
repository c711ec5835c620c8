package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"

	"github.com/cuzk-go/cuzk/assemble"
	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

// simDevice is a Device whose phases sleep for set durations and whose proof is fixed. It
// checks that no two Run calls overlap and records whether its lock is held.
type simDevice struct {
	prepare, run, finalize time.Duration
	lock                   *semaphore.Weighted
	locked                 atomic.Bool
	active, maxActive      atomic.Int32
	runs                   atomic.Int64
	// hostBytes, if set, is what the device says a partition costs the host.
	hostBytes int64
	// runHook, if set, is called at the start of Run with the partition's tag (its first
	// public input); it may panic or return an error.
	runHook func(tag uint64) error
}

func newSimDevice(prepare, run, finalize time.Duration) *simDevice {
	return &simDevice{prepare: prepare, run: run, finalize: finalize, lock: semaphore.NewWeighted(1)}
}

func (d *simDevice) Name() string { return "sim" }

// HostBytes is hostBytes when set, else what the CPU device would hold.
func (d *simDevice) HostBytes(shape *synth.Shape) int64 {
	if d.hostBytes != 0 {
		return d.hostBytes
	}
	return prover.CPU().HostBytes(shape)
}

func (d *simDevice) Lock(ctx context.Context) error {
	if err := d.lock.Acquire(ctx, 1); err != nil {
		return err
	}
	d.locked.Store(true)
	return nil
}

func (d *simDevice) Unlock() {
	d.locked.Store(false)
	d.lock.Release(1)
}

func (d *simDevice) Prepare(ctx context.Context, _ *prover.Parameters, asg *synth.Assignment, _ prover.Randomness) (prover.Task, error) {
	if asg == nil || asg.A == nil {
		return nil, errors.New("sim: no assignment")
	}
	if err := sleepCtx(ctx, d.prepare); err != nil {
		return nil, err
	}
	return &simTask{d: d, asg: asg}, nil
}

type simTask struct {
	d   *simDevice
	asg *synth.Assignment
}

func (t *simTask) Run(ctx context.Context) error {
	d := t.d
	if !d.locked.Load() {
		return errors.New("sim: Run without the lock")
	}
	n := d.active.Add(1)
	defer d.active.Add(-1)
	for {
		m := d.maxActive.Load()
		if n <= m || d.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	d.runs.Add(1)
	if d.runHook != nil {
		if err := d.runHook(tagOf(t.asg)); err != nil {
			return err
		}
	}
	if t.asg.A == nil {
		return errors.New("sim: evaluations released before Run")
	}
	return sleepCtx(ctx, d.run)
}

func (t *simTask) Finalize(ctx context.Context) (*prover.Proof, error) {
	if err := sleepCtx(ctx, t.d.finalize); err != nil {
		return nil, err
	}
	_, _, g1, g2 := bls12381.Generators()
	return &prover.Proof{A: g1, B: g2, C: g1}, nil
}

func (t *simTask) Release() {}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tagCircuit allocates one public input, its tag, then a chain of n constraints; it panics when
// panicMsg is set.
type tagCircuit struct {
	tag      uint64
	n        int
	panicMsg string
}

func (c tagCircuit) Synthesize(cs *synth.CS) error {
	x := cs.AllocInput(fr.NewElement(c.tag))
	if c.panicMsg != "" {
		panic(c.panicMsg)
	}
	v, prev := fr.NewElement(c.tag), x
	for range c.n {
		v.Mul(&v, &v)
		y := cs.Alloc(v)
		cs.Enforce("sq", synth.V(prev), synth.V(prev), synth.V(y))
		prev = y
	}
	return nil
}

func tagOf(asg *synth.Assignment) uint64 {
	if len(asg.Inputs) < 2 {
		return 0
	}
	return asg.Inputs[1].Uint64()
}

// tag encodes a job marker and a partition index in a circuit's public input.
func tag(marker, partition int) uint64 { return uint64(marker)*1000 + uint64(partition) }

var (
	simShapeOnce sync.Once
	simShape     *synth.Shape
	simParams    *prover.Parameters
)

// simSetup returns the shape of tagCircuit{n: 4} and parameters of the right sizes made of
// zero points: the simulated device does not read them.
func simSetup(t testing.TB) (*synth.Shape, *prover.Parameters) {
	simShapeOnce.Do(func() {
		s, err := synth.Compile(tagCircuit{n: 4})
		if err != nil {
			panic(err)
		}
		b := s.BDensityInput.Count() + s.BDensityAux.Count()
		simShape = s
		simParams = &prover.Parameters{
			VK:  prover.VerifyingKey{IC: make([]bls12381.G1Affine, s.NumInputs)},
			H:   make([]bls12381.G1Affine, s.DomainSize()-1),
			L:   make([]bls12381.G1Affine, s.NumAux),
			A:   make([]bls12381.G1Affine, s.NumInputs+s.ADensityAux.Count()),
			BG1: make([]bls12381.G1Affine, b),
			BG2: make([]bls12381.G2Affine, b),
		}
	})
	require.NoError(t, prover.CheckParameters(simParams, simShape))
	return simShape, simParams
}

// simJob returns a job of n partitions of tagCircuit whose tags carry marker.
func simJob(t testing.TB, marker, n, priority int) *Job {
	shape, params := simSetup(t)
	return &Job{
		Priority:   priority,
		Params:     params,
		Shape:      shape,
		Partitions: n,
		Circuit: func(i int) (synth.Circuit, error) {
			return tagCircuit{tag: tag(marker, i), n: 4}, nil
		},
	}
}

// newTestEngine starts an engine without the self-check (the simulated devices' proofs never
// verify) and closes it at the end of the test, checking that no goroutine is left behind.
func newTestEngine(t *testing.T, opts ...Option) *Engine {
	t.Helper()
	return newCheckedEngine(t, append([]Option{WithoutSelfCheck()}, opts...)...)
}

// newCheckedEngine is newTestEngine with the engine's defaults, the self-check included.
func newCheckedEngine(t *testing.T, opts ...Option) *Engine {
	t.Helper()
	base := runtime.NumGoroutine()
	e, err := New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, e.Close(ctx))
		requireGoroutinesBack(t, base)
	})
	return e
}

func requireGoroutinesBack(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), base, buf[:n])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestEstimatePartitionBytes(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 100, Inputs: 3})
	require.NoError(t, err)
	total, eval := EstimatePartitionBytes(shape, prover.CPU())
	n, m := int64(shape.NumRows()), int64(shape.DomainSize())
	require.Equal(t, int64(104), n) // 100 constraints + One + 3 inputs
	require.Equal(t, int64(128), m)
	require.Equal(t, 3*n*32, eval)
	w := int64(shape.NumInputs + shape.NumAux)
	var a int64 // A's scalars are w itself when a_aux marks every aux variable
	if shape.ADensityAux.Count() != shape.NumAux {
		a = int64(shape.NumInputs + shape.ADensityAux.Count())
	}
	b := int64(shape.BDensityInput.Count() + shape.BDensityAux.Count())
	cpu := (3*m + w + a + b) * 32 // the CPU workspace: a, b, c over the domain, w, A and B scalars
	require.Equal(t, eval+w*32+cpu, total)
	big := newSimDevice(0, 0, 0)
	big.hostBytes = cpu + 1000
	total2, eval2 := EstimatePartitionBytes(shape, prover.CPU(), big)
	require.Equal(t, total+1000, total2, "the costliest device counts")
	require.Equal(t, eval, eval2)

}

func TestPartQueueOrder(t *testing.T) {
	j1 := &job{id: 1, spec: Job{Priority: 5}}
	j2 := &job{id: 2, spec: Job{Priority: 1}}
	j3 := &job{id: 3, spec: Job{Priority: 5}}
	var q partQueue
	for _, j := range []*job{j3, j1, j2} {
		for i := 2; i >= 0; i-- {
			q.push(&part{job: j, index: i})
		}
	}
	removed := q.removeJob(j3)
	require.Len(t, removed, 3)
	q.push(&part{job: j3, index: 0})
	var got []string
	for p := q.pop(); p != nil; p = q.pop() {
		got = append(got, fmt.Sprintf("%d/%d", p.job.id, p.index))
	}
	require.Equal(t, []string{"2/0", "2/1", "2/2", "1/0", "1/1", "1/2", "3/0"}, got)
	require.Nil(t, q.peek())
}

func TestEngineOptions(t *testing.T) {
	for name, opt := range map[string]Option{
		"no devices":     WithDevices(),
		"nil device":     WithDevices(nil),
		"zero workers":   WithWorkersPerDevice(0),
		"zero synthesis": WithSynthesisConcurrency(0),
		"zero budget":    WithMemoryBudget(0),
		"zero depth":     WithQueueDepth(0),
		"nil logger":     WithLogger(nil),
	} {
		_, err := New(opt)
		require.Error(t, err, name)
	}
	e := newTestEngine(t, WithDevices(newSimDevice(0, 0, 0)))
	ctx := testCtx(t)
	shape, params := simSetup(t)
	for name, jb := range map[string]*Job{
		"nil":           nil,
		"no params":     {Shape: shape, Partitions: 1, Circuit: simJob(t, 0, 1, 0).Circuit},
		"no shape":      {Params: params, Partitions: 1, Circuit: simJob(t, 0, 1, 0).Circuit},
		"no circuit":    {Params: params, Shape: shape, Partitions: 1},
		"no partitions": {Params: params, Shape: shape, Circuit: simJob(t, 0, 1, 0).Circuit},
		"wrong params":  {Params: &prover.Parameters{}, Shape: shape, Partitions: 1, Circuit: simJob(t, 0, 1, 0).Circuit},
	} {
		_, err := e.Submit(ctx, jb)
		require.Error(t, err, name)
	}
	_, err := e.Submit(ctx, &Job{Params: &prover.Parameters{}, Shape: shape, Partitions: 1, Circuit: simJob(t, 0, 1, 0).Circuit})
	require.ErrorIs(t, err, prover.ErrParamsMismatch)
}

// runSimJobs proves jobs×parts partitions on one simulated device with the given number of
// workers and returns the recorded timeline.
func runSimJobs(t *testing.T, dev *simDevice, workers, jobs, parts int) []timeline.Event {
	t.Helper()
	var rec timeline.Recorder
	e, err := New(WithDevices(dev), WithWorkersPerDevice(workers), WithSynthesisConcurrency(1), WithoutSelfCheck(),
		WithTimeline(&rec))
	require.NoError(t, err)
	ctx := context.Background()
	var hs []*Handle
	for k := range jobs {
		h, err := e.Submit(ctx, simJob(t, k+1, parts, 0))
		require.NoError(t, err)
		hs = append(hs, h)
	}
	for _, h := range hs {
		res, err := h.Wait(ctx)
		require.NoError(t, err)
		require.Len(t, res.Proof, parts*prover.ProofSize)
		require.Len(t, res.Partitions, parts)
		require.GreaterOrEqual(t, res.Stats.Device, time.Duration(parts)*dev.run)
	}
	require.NoError(t, e.Close(ctx))
	require.Equal(t, int32(1), dev.maxActive.Load(), "device work overlapped")
	require.Equal(t, int64(jobs*parts), dev.runs.Load())
	return rec.Events()
}

// Nominal phase durations of the utilization tests: one worker should keep the device busy
// run/(prepare+run+finalize) = 2/3 of the time, two workers all of it since
// prepare+finalize ≤ run.
const (
	utilPrepare  = 10 * time.Millisecond
	utilRun      = 40 * time.Millisecond
	utilFinalize = 10 * time.Millisecond
)

// TestEngineUtilization runs 2 jobs × 10 partitions on a simulated device in a synctest bubble,
// whose fake clock advances only when every goroutine is blocked: the CPU work of the engine
// takes no time, the device phases exactly their durations, so the figures are exact.
func TestEngineUtilization(t *testing.T) {
	t.Run("one worker", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			dev := newSimDevice(utilPrepare, utilRun, utilFinalize)
			rep := timeline.Analyze(runSimJobs(t, dev, 1, 2, 10))
			require.Zero(t, rep.Unmatched)
			ds, ok := rep.Device(0)
			require.True(t, ok)
			require.Equal(t, 20, ds.Regions)
			require.Zero(t, ds.Overlaps)
			t.Logf("1 worker: utilization %.3f, steady %.3f (ideal %.3f), %d gaps, total gap %v",
				ds.Utilization, ds.SteadyUtilization, 2.0/3, ds.Gaps, ds.GapTotal)
			// Each gap is exactly the next partition's preparation plus the previous one's
			// finalization, caused by preparation.
			require.Equal(t, 20*utilRun, ds.Busy)
			require.Equal(t, 19, ds.Gaps)
			require.Equal(t, 19*(utilPrepare+utilFinalize), ds.GapTotal)
			require.Equal(t, ds.Gaps, ds.CauseCount[timeline.GapPreparation])
			for _, g := range ds.TopGaps {
				require.Equal(t, utilPrepare+utilFinalize, g.Duration())
			}
			require.InDelta(t, 2.0/3, ds.SteadyUtilization, 0.02)
		})
	})
	t.Run("two workers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			dev := newSimDevice(utilPrepare, utilRun, utilFinalize)
			rep := timeline.Analyze(runSimJobs(t, dev, 2, 2, 10))
			require.Zero(t, rep.Unmatched)
			ds, ok := rep.Device(0)
			require.True(t, ok)
			require.Equal(t, 20, ds.Regions)
			require.Zero(t, ds.Overlaps)
			t.Logf("2 workers: utilization %.3f, steady %.3f, %d gaps, total gap %v",
				ds.Utilization, ds.SteadyUtilization, ds.Gaps, ds.GapTotal)
			require.GreaterOrEqual(t, ds.SteadyUtilization, 0.95)
			// With the CPU phases hidden under the other worker's device work, the device
			// never waits: the lock passes from one worker to the next at once.
			require.Zero(t, ds.GapTotal)
			require.Equal(t, 20*utilRun, ds.Span)
		})
	})
}

// TestEngineUtilizationRealTime is TestEngineUtilization with real sleeps and real scheduling,
// so its bounds are loose; it is skipped in -short mode, as it depends on the machine's load.
func TestEngineUtilizationRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing-dependent; run without -short")
	}
	t.Run("one worker", func(t *testing.T) {
		dev := newSimDevice(utilPrepare, utilRun, utilFinalize)
		rep := timeline.Analyze(runSimJobs(t, dev, 1, 2, 10))
		ds, _ := rep.Device(0)
		require.Zero(t, ds.Overlaps)
		t.Logf("1 worker: utilization %.3f, steady %.3f, mean gap %v",
			ds.Utilization, ds.SteadyUtilization, ds.GapTotal/time.Duration(max(ds.Gaps, 1)))
		require.InDelta(t, 2.0/3, ds.SteadyUtilization, 0.1)
		for _, g := range ds.TopGaps {
			require.GreaterOrEqual(t, g.Duration(), utilPrepare+utilFinalize)
		}
	})
	t.Run("two workers", func(t *testing.T) {
		dev := newSimDevice(utilPrepare, utilRun, utilFinalize)
		rep := timeline.Analyze(runSimJobs(t, dev, 2, 2, 10))
		ds, _ := rep.Device(0)
		require.Zero(t, ds.Overlaps)
		t.Logf("2 workers: utilization %.3f, steady %.3f, total gap %v", ds.Utilization, ds.SteadyUtilization, ds.GapTotal)
		require.GreaterOrEqual(t, ds.SteadyUtilization, 0.95)
	})
}

// TestEngineTimeline checks the events of every partition: their order, their fields, and that
// GPU_START and GPU_END are emitted with the device lock held.
func TestEngineTimeline(t *testing.T) {
	dev := newSimDevice(time.Millisecond, 2*time.Millisecond, time.Millisecond)
	var rec timeline.Recorder
	var outside atomic.Int32
	hook := timeline.HookFunc(func(ev timeline.Event) {
		if (ev.Kind == timeline.GPUStart || ev.Kind == timeline.GPUEnd) && !dev.locked.Load() {
			outside.Add(1)
		}
		rec.Event(ev)
	})
	e := newTestEngine(t, WithDevices(dev), WithTimeline(hook))
	ctx := testCtx(t)
	h1, err := e.Submit(ctx, simJob(t, 1, 4, 0))
	require.NoError(t, err)
	h2, err := e.Submit(ctx, simJob(t, 2, 3, 0))
	require.NoError(t, err)
	for _, h := range []*Handle{h1, h2} {
		_, err := h.Wait(ctx)
		require.NoError(t, err)
	}
	require.Zero(t, outside.Load(), "GPU_START/GPU_END emitted without the lock")
	events := rec.Events()

	type key struct {
		job  uint64
		part int
	}
	seq := map[key][]timeline.Kind{}
	jobDone := map[uint64]int{}
	for _, ev := range events {
		require.True(t, ev.Kind.Valid())
		switch ev.Kind {
		case timeline.JobDone:
			require.Equal(t, -1, ev.Partition)
			require.Equal(t, "ok", ev.Detail)
			jobDone[ev.Job]++
			continue
		case timeline.SynthStart, timeline.SynthEnd, timeline.ChanSend:
			require.Equal(t, -1, ev.Device)
			require.Equal(t, -1, ev.Worker)
		default:
			require.Equal(t, 0, ev.Device)
			require.Contains(t, []int{0, 1}, ev.Worker)
		}
		k := key{ev.Job, ev.Partition}
		seq[k] = append(seq[k], ev.Kind)
	}
	want := []timeline.Kind{timeline.SynthStart, timeline.SynthEnd, timeline.ChanSend, timeline.GPUPickup,
		timeline.LockWait, timeline.GPUStart, timeline.GPUEnd, timeline.FinalizeStart, timeline.FinalizeEnd}
	require.Len(t, seq, 7)
	for k, s := range seq {
		require.Equal(t, want, s, "job %d partition %d", k.job, k.part)
	}
	require.Equal(t, map[uint64]int{h1.ID(): 1, h2.ID(): 1}, jobDone)
	rep := timeline.Analyze(events)
	require.Zero(t, rep.Unmatched)
	require.Len(t, rep.Jobs, 2)
	ds, _ := rep.Device(0)
	require.Zero(t, ds.Overlaps)
	for _, iv := range mustIntervals(t, events, timeline.StageDevice) {
		require.GreaterOrEqual(t, iv.Duration(), dev.run)
	}
}

func mustIntervals(t *testing.T, events []timeline.Event, s timeline.Stage) []timeline.Interval {
	ivs, unmatched := timeline.Intervals(events)
	require.Zero(t, unmatched)
	var out []timeline.Interval
	for _, iv := range ivs {
		if iv.Stage == s {
			out = append(out, iv)
		}
	}
	return out
}

// waitFor polls cond until it holds or the test's time runs out.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestEnginePriorities(t *testing.T) {
	t.Run("synthesis queue", func(t *testing.T) {
		// A blocker job occupies the only synthesis worker while four jobs are queued; then the
		// synthesis order must follow (priority, submission order, partition).
		var rec timeline.Recorder
		e := newTestEngine(t, WithDevices(newSimDevice(0, 0, 0)), WithWorkersPerDevice(1),
			WithSynthesisConcurrency(1), WithTimeline(&rec))
		ctx := testCtx(t)
		gate := make(chan struct{})
		blocker := simJob(t, 9, 1, 0)
		inner := blocker.Circuit
		blocker.Circuit = func(i int) (synth.Circuit, error) { <-gate; return inner(i) }
		hb, err := e.Submit(ctx, blocker)
		require.NoError(t, err)
		waitFor(t, "the blocker's synthesis", func() bool { return e.Stats().Synthesizing == 1 })
		var hs []*Handle
		for k, prio := range []int{5, 1, 5, 1} {
			h, err := e.Submit(ctx, simJob(t, k+1, 2, prio))
			require.NoError(t, err)
			hs = append(hs, h)
		}
		close(gate)
		for _, h := range append(hs, hb) {
			_, err := h.Wait(ctx)
			require.NoError(t, err)
		}
		var synthOrder, doneOrder []uint64
		for _, ev := range rec.Events() {
			switch ev.Kind {
			case timeline.SynthStart:
				synthOrder = append(synthOrder, ev.Job*10+uint64(ev.Partition))
			case timeline.JobDone:
				doneOrder = append(doneOrder, ev.Job)
			}
		}
		// Job ids: blocker 1, then priorities 5, 1, 5, 1 as jobs 2, 3, 4, 5.
		require.Equal(t, []uint64{10, 30, 31, 50, 51, 20, 21, 40, 41}, synthOrder)
		require.Equal(t, []uint64{1, 3, 5, 2, 4}, doneOrder)
	})
	t.Run("device queue", func(t *testing.T) {
		// The test holds the device lock: the only worker picks job 1's first partition and waits
		// for the lock; job 1's second partition and then job 2's (more urgent) partitions queue.
		// After the lock is released, job 2 must overtake job 1's second partition.
		dev := newSimDevice(0, 0, 0)
		var rec timeline.Recorder
		e := newTestEngine(t, WithDevices(dev), WithWorkersPerDevice(1), WithQueueDepth(4), WithTimeline(&rec))
		ctx := testCtx(t)
		require.NoError(t, dev.Lock(ctx))
		h1, err := e.Submit(ctx, simJob(t, 1, 2, 5))
		require.NoError(t, err)
		waitFor(t, "job 1 queued", func() bool { s := e.Stats(); return s.OnDevice == 1 && s.QueuedDevice == 1 })
		h2, err := e.Submit(ctx, simJob(t, 2, 2, 1))
		require.NoError(t, err)
		waitFor(t, "job 2 queued", func() bool { return e.Stats().QueuedDevice == 3 })
		dev.Unlock()
		for _, h := range []*Handle{h1, h2} {
			_, err := h.Wait(ctx)
			require.NoError(t, err)
		}
		var order []string
		for _, ev := range rec.Events() {
			if ev.Kind == timeline.GPUStart {
				order = append(order, fmt.Sprintf("%d/%d", ev.Job, ev.Partition))
			}
		}
		require.Equal(t, []string{"1/0", "2/0", "2/1", "1/1"}, order)
	})
}

func TestEngineCancelJob(t *testing.T) {
	base := runtime.NumGoroutine()
	dev := newSimDevice(time.Millisecond, 20*time.Millisecond, time.Millisecond)
	started := make(chan struct{})
	var once sync.Once
	var rec timeline.Recorder
	hook := timeline.HookFunc(func(ev timeline.Event) {
		rec.Event(ev)
		if ev.Kind == timeline.GPUStart && ev.Job == 1 {
			once.Do(func() { close(started) })
		}
	})
	e, err := New(WithDevices(dev), WithTimeline(hook), WithoutSelfCheck())
	require.NoError(t, err)
	ctx := testCtx(t)
	jctx, cancel := context.WithCancel(ctx)
	h1, err := e.Submit(jctx, simJob(t, 1, 10, 0))
	require.NoError(t, err)
	h2, err := e.Submit(ctx, simJob(t, 2, 3, 0))
	require.NoError(t, err)
	<-started
	cancel()
	_, err = h1.Wait(ctx)
	require.ErrorIs(t, err, context.Canceled)
	res, err := h2.Wait(ctx)
	require.NoError(t, err, "the other job goes on")
	require.Len(t, res.Proof, 3*prover.ProofSize)
	st := e.Stats()
	require.Zero(t, st.Reserved, "reservations released")
	require.Zero(t, st.ActiveJobs)
	require.Equal(t, uint64(1), st.JobsFailed)
	require.Equal(t, uint64(1), st.JobsDone)
	// Job 1's remaining partitions were dropped, not proved.
	proved := 0
	for _, ev := range rec.Events() {
		if ev.Kind == timeline.FinalizeEnd && ev.Job == 1 {
			proved++
		}
	}
	require.Less(t, proved, 10)
	require.NoError(t, e.Close(ctx))
	requireGoroutinesBack(t, base)

	// A job submitted with a context already cancelled is refused.
	e2 := newTestEngine(t, WithDevices(dev))
	_, err = e2.Submit(jctx, simJob(t, 3, 1, 0))
	require.ErrorIs(t, err, context.Canceled)
}

func TestEngineMemoryBudget(t *testing.T) {
	shape, params := simSetup(t)
	est, eval := EstimatePartitionBytes(shape, newSimDevice(0, 0, 0))
	resident := ShapeBytes(shape) + ParametersBytes(params)
	t.Run("never exceeded", func(t *testing.T) {
		// In a synctest bubble (fake clock), so that the pipeline fills the same way on any
		// machine: 3 jobs × 8 partitions, a budget of the resident shape and parameters (shared
		// by the jobs, counted once) and 3.5 partitions.
		synctest.Test(t, func(t *testing.T) {
			budget := resident + 3*est + est/2
			dev := newSimDevice(time.Millisecond, 3*time.Millisecond, time.Millisecond)
			e, err := New(WithDevices(dev), WithMemoryBudget(budget), WithSynthesisConcurrency(2), WithoutSelfCheck(),
				WithQueueDepth(2))
			require.NoError(t, err)
			ctx := context.Background()
			var hs []*Handle
			for k := range 3 {
				h, err := e.Submit(ctx, simJob(t, k+1, 8, 0))
				require.NoError(t, err)
				hs = append(hs, h)
			}
			for _, h := range hs {
				_, err := h.Wait(ctx)
				require.NoError(t, err)
			}
			st := e.Stats()
			require.NoError(t, e.Close(ctx))
			t.Logf("budget %d, estimate %d, peak reserved %d, peak queued %d", budget, est, st.PeakReserved, st.PeakQueuedDevice)
			require.LessOrEqual(t, st.PeakReserved, budget-resident)
			require.Greater(t, st.PeakReserved, 3*est-eval, "the budget is used")
			require.LessOrEqual(t, st.PeakQueuedDevice, 2)
			require.Zero(t, st.Reserved)
		})
	})
	t.Run("staged release", func(t *testing.T) {
		// One partition at a time: at FINALIZE_START only the non-evaluation share is reserved,
		// at JOB_DONE nothing.
		var e *Engine
		var mu sync.Mutex
		seen := map[timeline.Kind]int64{}
		hook := timeline.HookFunc(func(ev timeline.Event) {
			switch ev.Kind {
			case timeline.GPUEnd, timeline.FinalizeStart, timeline.FinalizeEnd, timeline.JobDone:
				r := e.Stats().Reserved
				mu.Lock()
				seen[ev.Kind] = r
				mu.Unlock()
			}
		})
		e = newTestEngine(t, WithDevices(newSimDevice(0, 0, 0)), WithWorkersPerDevice(1),
			WithSynthesisConcurrency(1), WithTimeline(hook))
		ctx := testCtx(t)
		h, err := e.Submit(ctx, simJob(t, 1, 1, 0))
		require.NoError(t, err)
		_, err = h.Wait(ctx)
		require.NoError(t, err)
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, est, seen[timeline.GPUEnd])
		require.Equal(t, est-eval, seen[timeline.FinalizeStart])
		require.Equal(t, est-eval, seen[timeline.FinalizeEnd])
		require.Zero(t, seen[timeline.JobDone])
	})
	t.Run("partition larger than budget", func(t *testing.T) {
		e := newTestEngine(t, WithDevices(newSimDevice(0, 0, 0)), WithMemoryBudget(est-1))
		_, err := e.Submit(testCtx(t), simJob(t, 1, 2, 0))
		require.ErrorIs(t, err, ErrMemoryBudget)
		require.Contains(t, err.Error(), fmt.Sprint(est))
	})
}

func TestEngineFailures(t *testing.T) {
	dev := newSimDevice(time.Millisecond, 2*time.Millisecond, time.Millisecond)
	dev.runHook = func(tg uint64) error {
		switch tg {
		case tag(7, 2):
			panic("device exploded")
		case tag(8, 1):
			return errors.New("device error")
		}
		return nil
	}
	e := newTestEngine(t, WithDevices(dev), WithSynthesisConcurrency(2))
	ctx := testCtx(t)

	synthPanic := simJob(t, 4, 6, 0)
	synthPanic.Circuit = func(i int) (synth.Circuit, error) {
		c := tagCircuit{tag: tag(4, i), n: 4}
		if i == 3 {
			c.panicMsg = "circuit exploded"
		}
		return c, nil
	}
	buildPanic := simJob(t, 5, 4, 0)
	buildPanic.Circuit = func(i int) (synth.Circuit, error) {
		if i == 1 {
			var m map[int]int
			m[0] = 1 // panics: assignment to entry in nil map
		}
		return tagCircuit{tag: tag(5, i), n: 4}, nil
	}
	buildErr := simJob(t, 6, 4, 0)
	errNoCircuit := errors.New("no such sector")
	buildErr.Circuit = func(i int) (synth.Circuit, error) {
		if i == 2 {
			return nil, errNoCircuit
		}
		return tagCircuit{tag: tag(6, i), n: 4}, nil
	}
	cases := []struct {
		job      *Job
		is       error
		contains string
	}{
		{synthPanic, synth.ErrCircuitPanic, "partition 3: synthesize"},
		{buildPanic, ErrPanicked, "partition 1: build circuit"},
		{buildErr, errNoCircuit, "partition 2: build circuit"},
		{simJob(t, 7, 4, 0), ErrPanicked, "partition 2: run"},
		{simJob(t, 8, 4, 0), nil, "partition 1: run: device error"},
	}
	var good []*Handle
	var bad []*Handle
	for _, c := range cases {
		h, err := e.Submit(ctx, c.job)
		require.NoError(t, err)
		bad = append(bad, h)
		h, err = e.Submit(ctx, simJob(t, 1, 3, 0))
		require.NoError(t, err)
		good = append(good, h)
	}
	for i, c := range cases {
		_, err := bad[i].Wait(ctx)
		require.Error(t, err)
		if c.is != nil {
			require.ErrorIs(t, err, c.is)
		}
		require.Contains(t, err.Error(), c.contains)
		require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("job %d: partition", bad[i].ID())), err.Error())
	}
	for _, h := range good {
		res, err := h.Wait(ctx)
		require.NoError(t, err, "other jobs go on")
		require.Len(t, res.Proof, 3*prover.ProofSize)
	}
	st := e.Stats()
	require.Zero(t, st.Reserved)
	require.Equal(t, uint64(len(cases)), st.JobsFailed)
	require.Equal(t, uint64(len(cases)), st.JobsDone)
	require.Equal(t, int32(1), dev.maxActive.Load())
}

func TestEngineClose(t *testing.T) {
	t.Run("drains", func(t *testing.T) {
		base := runtime.NumGoroutine()
		e, err := New(WithDevices(newSimDevice(time.Millisecond, 2*time.Millisecond, time.Millisecond)), WithoutSelfCheck())
		require.NoError(t, err)
		ctx := testCtx(t)
		h, err := e.Submit(ctx, simJob(t, 1, 5, 0))
		require.NoError(t, err)
		require.NoError(t, e.Close(ctx))
		select {
		case <-h.Done():
		default:
			t.Fatal("Close returned before the job finished")
		}
		res, err := h.Wait(ctx)
		require.NoError(t, err)
		require.Len(t, res.Proof, 5*prover.ProofSize)
		_, err = e.Submit(ctx, simJob(t, 2, 1, 0))
		require.ErrorIs(t, err, ErrClosed)
		require.NoError(t, e.Close(ctx), "Close twice")
		requireGoroutinesBack(t, base)
	})
	t.Run("cancels", func(t *testing.T) {
		base := runtime.NumGoroutine()
		dev := newSimDevice(time.Millisecond, time.Hour, time.Millisecond)
		e, err := New(WithDevices(dev), WithoutSelfCheck())
		require.NoError(t, err)
		ctx := testCtx(t)
		h, err := e.Submit(ctx, simJob(t, 1, 10, 0))
		require.NoError(t, err)
		waitFor(t, "device work", func() bool { return dev.runs.Load() == 1 })
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		err = e.Close(cctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		_, err = h.Wait(ctx)
		require.ErrorIs(t, err, ErrClosed)
		require.Zero(t, e.Stats().Reserved)
		requireGoroutinesBack(t, base)
	})
}

// TestEngineCPU proves three partitions end to end on the CPU device with real parameters and
// verifies every proof.
func TestEngineCPU(t *testing.T) {
	shape, params := setupFor(t, &circuits.Scalable{Constraints: 40, Inputs: 2})
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	require.NoError(t, err)
	const seed = 99
	e := newCheckedEngine(t, WithDevices(prover.NewCPUDevice()))
	ctx := testCtx(t)
	h, err := e.Submit(ctx, &Job{
		Params:     params,
		Shape:      shape,
		Partitions: 3,
		Circuit: func(i int) (synth.Circuit, error) {
			return &circuits.Scalable{Constraints: 40, Inputs: 2, Seed: seed, Partition: i}, nil
		},
	})
	require.NoError(t, err)
	res, err := h.Wait(ctx)
	require.NoError(t, err)
	require.Equal(t, h.ID(), res.Job)
	require.Len(t, res.Inputs, 3)
	for i, in := range res.Inputs {
		require.Equal(t, (&circuits.Scalable{Constraints: 40, Inputs: 2, Seed: seed, Partition: i}).PublicInputs(), in)
	}
	split, err := assemble.Split(res.Proof)
	require.NoError(t, err)
	require.Len(t, split, 3)
	for i, p := range res.Partitions {
		inputs := (&circuits.Scalable{Constraints: 40, Inputs: 2, Seed: seed, Partition: i}).PublicInputs()
		require.NoError(t, prover.Verify(pvk, p, inputs), "partition %d", i)
		var q prover.Proof
		require.NoError(t, q.SetBytes(split[i]))
		require.True(t, q.A.Equal(&p.A) && q.B.Equal(&p.B) && q.C.Equal(&p.C), "partition %d bytes", i)
		if i > 0 {
			other := (&circuits.Scalable{Constraints: 40, Inputs: 2, Seed: seed, Partition: i - 1}).PublicInputs()
			require.ErrorIs(t, prover.Verify(pvk, p, other), prover.ErrInvalidProof)
		}
	}
	st := res.Stats
	require.Positive(t, st.Synthesis)
	require.Positive(t, st.Device)
	require.GreaterOrEqual(t, st.Total, st.QueueWait)
}

// setupFor compiles c and runs an insecure setup for it.
func setupFor(t testing.TB, c synth.Circuit) (*synth.Shape, *prover.Parameters) {
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	params, err := devsetup.InsecureSetup(shape, tw)
	require.NoError(t, err)
	return shape, params
}
