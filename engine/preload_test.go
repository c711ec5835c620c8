package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/internal/syncbuf"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

// preloadDevice is a simulated device that can preload (prover.Preloads): Preload records its
// call, then waits for release (or returns err at once when set), returning ctx's error if ctx
// ends first. With evaluates, the device evaluates every shape on its own
// (prover.EvaluatesOnDevice) and its Prepare evaluates a witness-only assignment on the host.
type preloadDevice struct {
	*simDevice
	evaluates bool
	err       error
	release   chan struct{}

	mu     sync.Mutex
	calls  []preloadCall
	active int // preloads not yet returned
}

// preloadCall is one Preload call: its arguments and what it returned.
type preloadCall struct {
	params *prover.Parameters
	shape  *synth.Shape
	err    error
	done   bool
}

func newPreloadDevice(evaluates bool) *preloadDevice {
	return &preloadDevice{simDevice: newSimDevice(0, 0, 0), evaluates: evaluates, release: make(chan struct{})}
}

func (d *preloadDevice) EvaluatesOnDevice(*synth.Shape) bool { return d.evaluates }

func (d *preloadDevice) Prepare(ctx context.Context, params *prover.Parameters, asg *synth.Assignment, rs prover.Randomness) (prover.Task, error) {
	if !asg.HasEvaluations() {
		cp := *asg
		if err := cp.Evaluate(ctx); err != nil {
			return nil, err
		}
		asg = &cp
	}
	return d.simDevice.Prepare(ctx, params, asg, rs)
}

func (d *preloadDevice) Preloads() bool { return true }

func (d *preloadDevice) Preload(ctx context.Context, params *prover.Parameters, shape *synth.Shape) error {
	d.mu.Lock()
	i := len(d.calls)
	d.calls = append(d.calls, preloadCall{params: params, shape: shape})
	d.active++
	d.mu.Unlock()
	err := d.err
	if err == nil {
		select {
		case <-d.release:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	d.mu.Lock()
	d.calls[i].err, d.calls[i].done = err, true
	d.active--
	d.mu.Unlock()
	return err
}

// snapshot returns the calls so far and how many have not returned.
func (d *preloadDevice) snapshot() ([]preloadCall, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]preloadCall(nil), d.calls...), d.active
}

// isDone reports whether h's job has finished.
func isDone(h *Handle) bool {
	select {
	case <-h.Done():
		return true
	default:
		return false
	}
}

// TestEnginePreload runs in synctest bubbles, so that synctest.Wait says when every goroutine of
// the engine is blocked (its partitions proved, or its preloads waiting), and a goroutine left
// behind fails the test.
func TestEnginePreload(t *testing.T) {
	// Each device preloads once per job, with the job's parameters, and its shape when device
	// evaluation is on; the job finishes only after the preloads return, though its partitions
	// were all proved before.
	for _, eval := range []bool{true, false} {
		t.Run("once per device/evaluation="+map[bool]string{true: "on", false: "off"}[eval], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				devs := []*preloadDevice{newPreloadDevice(true), newPreloadDevice(true)}
				e, err := New(WithDevices(devs[0], devs[1]), WithDeviceEvaluation(eval), WithoutSelfCheck())
				require.NoError(t, err)
				ctx := context.Background()
				jb := simJob(t, 1, 3, 0)
				h, err := e.Submit(ctx, jb)
				require.NoError(t, err)
				synctest.Wait()
				st := e.Stats()
				require.Equal(t, 0, st.QueuedSynthesis+st.Synthesizing+st.QueuedDevice+st.OnDevice, "partitions proved")
				require.Equal(t, int64(3), devs[0].runs.Load()+devs[1].runs.Load())
				require.False(t, isDone(h), "the job waits for its preloads")
				wantShape := jb.Shape
				if !eval {
					wantShape = nil
				}
				for i, d := range devs {
					calls, active := d.snapshot()
					require.Len(t, calls, 1, "device %d", i)
					require.Same(t, jb.Params, calls[0].params)
					require.Equal(t, wantShape, calls[0].shape, "device %d", i)
					require.Equal(t, 1, active)
				}
				close(devs[0].release)
				synctest.Wait()
				require.False(t, isDone(h), "one preload still runs")
				close(devs[1].release)
				res, err := h.Wait(ctx)
				require.NoError(t, err)
				require.Len(t, res.Proof, 3*prover.ProofSize)
				require.Equal(t, uint64(1), e.Stats().JobsDone)
				require.NoError(t, e.Close(ctx))
			})
		})
	}

	// A device that cannot preload is left alone; the others preload.
	t.Run("only devices that preload", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			pd := newPreloadDevice(false)
			close(pd.release)
			e, err := New(WithDevices(newSimDevice(0, 0, 0), pd), WithoutSelfCheck())
			require.NoError(t, err)
			ctx := context.Background()
			h, err := e.Submit(ctx, simJob(t, 1, 2, 0))
			require.NoError(t, err)
			_, err = h.Wait(ctx)
			require.NoError(t, err)
			calls, _ := pd.snapshot()
			require.Len(t, calls, 1)
			require.Nil(t, calls[0].shape, "the devices do not all evaluate: no shape")
			require.NoError(t, e.Close(ctx))
		})
	})

	// A preload error is logged with the job and the device; the job succeeds.
	t.Run("error logged", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			pd := newPreloadDevice(false)
			pd.err = errors.New("upload refused")
			var log syncbuf.Buffer
			e, err := New(WithDevices(pd), WithoutSelfCheck(),
				WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			require.NoError(t, err)
			ctx := context.Background()
			h, err := e.Submit(ctx, simJob(t, 1, 2, 0))
			require.NoError(t, err)
			res, err := h.Wait(ctx)
			require.NoError(t, err)
			require.Len(t, res.Proof, 2*prover.ProofSize)
			require.NoError(t, e.Close(ctx))
			require.Contains(t, log.String(), `level=WARN msg="preload failed; the partitions upload on their own" job=1 device=0 err="preload: upload refused"`)
		})
	})

	// Cancelling the job cancels its preload's context; the job finishes once the preload has
	// returned.
	t.Run("cancel", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			pd := newPreloadDevice(false)
			e, err := New(WithDevices(pd), WithoutSelfCheck())
			require.NoError(t, err)
			jctx, cancel := context.WithCancel(context.Background())
			h, err := e.Submit(jctx, simJob(t, 1, 2, 0))
			require.NoError(t, err)
			synctest.Wait()
			require.False(t, isDone(h))
			cancel()
			_, err = h.Wait(context.Background())
			require.ErrorIs(t, err, context.Canceled)
			calls, active := pd.snapshot()
			require.Len(t, calls, 1)
			require.True(t, calls[0].done, "the job finished after its preload returned")
			require.ErrorIs(t, calls[0].err, context.Canceled)
			require.Zero(t, active)
			require.NoError(t, e.Close(context.Background()))
		})
	})

	// Close waits for a preload; when Close's context ends first, it cancels the job, which
	// stops the preload.
	t.Run("close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			pd := newPreloadDevice(false)
			e, err := New(WithDevices(pd), WithoutSelfCheck())
			require.NoError(t, err)
			ctx := context.Background()
			h, err := e.Submit(ctx, simJob(t, 1, 2, 0))
			require.NoError(t, err)
			closed := make(chan error)
			go func() { closed <- e.Close(ctx) }()
			synctest.Wait()
			select {
			case err := <-closed:
				t.Fatalf("Close returned (%v) while a preload runs", err)
			default:
			}
			close(pd.release)
			require.NoError(t, <-closed)
			_, err = h.Wait(ctx)
			require.NoError(t, err)

			pd = newPreloadDevice(false)
			e, err = New(WithDevices(pd), WithoutSelfCheck())
			require.NoError(t, err)
			h, err = e.Submit(ctx, simJob(t, 1, 2, 0))
			require.NoError(t, err)
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			require.ErrorIs(t, e.Close(cctx), context.DeadlineExceeded)
			_, err = h.Wait(ctx)
			require.ErrorIs(t, err, ErrClosed)
			calls, active := pd.snapshot()
			require.ErrorIs(t, calls[0].err, context.Canceled)
			require.Zero(t, active)
		})
	})
}

// synthGate holds every synthesis of the jobs it gates until the test lets one through, and
// counts the syntheses started, so that a test can see how many run at once.
type synthGate struct {
	mu      sync.Mutex
	started int
	gate    chan struct{}
}

func newSynthGate() *synthGate { return &synthGate{gate: make(chan struct{})} }

// job returns simJob(marker, n) whose circuit construction counts itself and waits for release.
func (g *synthGate) job(t *testing.T, marker, n int) *Job {
	jb := simJob(t, marker, n, 0)
	inner := jb.Circuit
	jb.Circuit = func(i int) (synth.Circuit, error) {
		g.mu.Lock()
		g.started++
		g.mu.Unlock()
		<-g.gate
		return inner(i)
	}
	return jb
}

// release lets one waiting synthesis go on.
func (g *synthGate) release() { g.gate <- struct{}{} }

// running waits until the bubble is idle and returns the syntheses started less done.
func (g *synthGate) running(done int) int {
	synctest.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started - done
}

// TestEngineSynthesisRamp: from idle, as many partitions synthesize at once as there are device
// workers (2), one more after each completed synthesis, up to WithSynthesisConcurrency (8); after
// the engine went idle, the next job starts at 2 again; a concurrency below the device workers
// stays the limit. Each synthesis blocks until the test releases one; synctest.Wait lets every
// worker that may start do so before the count is checked.
func TestEngineSynthesisRamp(t *testing.T) {
	for _, tc := range []struct {
		concurrency int
		want        func(done int) int // syntheses at once after done completed ones
	}{
		{8, func(done int) int { return min(8, 2+done) }},
		{1, func(int) int { return 1 }},
	} {
		synctest.Test(t, func(t *testing.T) {
			e, err := New(WithDevices(newSimDevice(0, 0, 0)), WithWorkersPerDevice(2),
				WithSynthesisConcurrency(tc.concurrency), WithoutSelfCheck())
			require.NoError(t, err)
			ctx := context.Background()
			g := newSynthGate()
			for round, n := range []int{20, 6} {
				h, err := e.Submit(ctx, g.job(t, round+1, n))
				require.NoError(t, err)
				base := 0
				if round > 0 {
					base = 20
				}
				for done := 0; done < n; done++ {
					require.Equal(t, min(tc.want(done), n-done), g.running(base+done),
						"concurrency %d, job %d: syntheses at once after %d completed", tc.concurrency, round+1, done)
					g.release()
				}
				_, err = h.Wait(ctx)
				require.NoError(t, err)
			}
			require.NoError(t, e.Close(ctx))
		})
	}
}

// TestEngineSynthesisRampHoldsDuringPreload: while a preload is in flight the ramp stays at its
// cold width (the devices cannot start, and the upload needs the host), and grows again after.
func TestEngineSynthesisRampHoldsDuringPreload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dev := newPreloadDevice(false)
		e, err := New(WithDevices(dev), WithWorkersPerDevice(2), WithSynthesisConcurrency(8), WithoutSelfCheck())
		require.NoError(t, err)
		ctx := context.Background()
		g := newSynthGate()
		h, err := e.Submit(ctx, g.job(t, 1, 12))
		require.NoError(t, err)
		done := 0
		for ; done < 3; done++ {
			require.Equal(t, 2, g.running(done), "preload in flight, %d syntheses completed", done)
			g.release()
		}
		synctest.Wait() // the third synthesis has counted itself while the preload was in flight
		close(dev.release)
		for want := 2; done < 8; done, want = done+1, want+1 {
			require.Equal(t, min(want, 12-done), g.running(done), "preload returned, %d syntheses completed", done)
			g.release()
		}
		for ; done < 12; done++ {
			g.release()
		}
		_, err = h.Wait(ctx)
		require.NoError(t, err)
		require.NoError(t, e.Close(ctx))
	})
}

// TestEngineHandoffInDispatchOrder: partitions that finish synthesis while the device queue is
// full enter it in dispatch order (the older job first), whichever order they finished in.
func TestEngineHandoffInDispatchOrder(t *testing.T) {
	for _, last := range [][2]uint64{{tag(2, 1), tag(1, 2)}, {tag(1, 2), tag(2, 1)}} {
		t.Run(fmt.Sprintf("%d-then-%d", last[0], last[1]), func(t *testing.T) { testHandoffOrder(t, last) })
	}
}

func testHandoffOrder(t *testing.T, last [2]uint64) {
	synctest.Test(t, func(t *testing.T) {
		dev := newSimDevice(0, 0, 0)
		runGate := make(chan struct{})
		dev.runHook = func(uint64) error { <-runGate; return nil }
		var rec timeline.Recorder
		e, err := New(WithDevices(dev), WithWorkersPerDevice(2), WithQueueDepth(1),
			WithSynthesisConcurrency(8), WithoutSelfCheck(), WithTimeline(&rec))
		require.NoError(t, err)
		ctx := context.Background()
		gates := map[uint64]chan struct{}{}
		gated := func(marker, n int) *Job {
			jb := simJob(t, marker, n, 0)
			for i := range n {
				gates[tag(marker, i)] = make(chan struct{})
			}
			inner := jb.Circuit
			jb.Circuit = func(i int) (synth.Circuit, error) {
				<-gates[tag(marker, i)]
				return inner(i)
			}
			return jb
		}
		ja, jb := gated(1, 3), gated(2, 2)
		ha, err := e.Submit(ctx, ja)
		require.NoError(t, err)
		hb, err := e.Submit(ctx, jb)
		require.NoError(t, err)
		// A0 reaches the device (its Run waits), A1 the second worker (waiting for the lock);
		// B0 fills the device queue; then B1 and A2 finish, in the order last gives, and wait
		// for room.
		for _, tg := range []uint64{tag(1, 0), tag(1, 1), tag(2, 0), last[0], last[1]} {
			synctest.Wait()
			close(gates[tg])
		}
		for range 5 {
			synctest.Wait()
			runGate <- struct{}{}
		}
		_, err = ha.Wait(ctx)
		require.NoError(t, err)
		_, err = hb.Wait(ctx)
		require.NoError(t, err)
		require.NoError(t, e.Close(ctx))
		var order []string
		for _, ev := range rec.Events() {
			if ev.Kind == timeline.ChanSend {
				order = append(order, fmt.Sprintf("j%d p%d", ev.Job, ev.Partition))
			}
		}
		require.Equal(t, []string{"j1 p0", "j1 p1", "j2 p0", "j1 p2", "j2 p1"}, order)
	})
}
