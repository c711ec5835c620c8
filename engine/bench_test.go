package engine

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

// BenchmarkEngineOverhead measures the engine's cost per partition (scheduling, queues, memory
// accounting, hooks, assembly) with a zero-duration simulated device and a trivial circuit
// (one input, four constraints), whose synthesis is included. Jobs of 16 partitions are kept
// in flight four at a time; ns/op is per partition.
func BenchmarkEngineOverhead(b *testing.B) {
	for _, bc := range []struct {
		name string
		hook func() timeline.Hook
	}{
		{"nohook", func() timeline.Hook { return nil }},
		{"recorder", func() timeline.Hook { return new(timeline.Recorder) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const parts, inFlight = 16, 4
			e, err := New(WithDevices(newSimDevice(0, 0, 0)), WithTimeline(bc.hook()), WithoutSelfCheck())
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close(context.Background())
			ctx := context.Background()
			jb := simJob(b, 1, parts, 0)
			c := tagCircuit{tag: 1, n: 4}
			jb.Circuit = func(int) (synth.Circuit, error) { return c, nil }
			jb.Randomness = func(int) (prover.Randomness, error) { return prover.Randomness{}, nil }
			jobs := (b.N + parts - 1) / parts
			b.ReportAllocs()
			b.ResetTimer()
			var pending []*Handle
			for k := 0; k < jobs; k++ {
				h, err := e.Submit(ctx, jb)
				if err != nil {
					b.Fatal(err)
				}
				pending = append(pending, h)
				if len(pending) == inFlight || k == jobs-1 {
					for _, h := range pending {
						if _, err := h.Wait(ctx); err != nil {
							b.Fatal(err)
						}
					}
					pending = pending[:0]
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(jobs*parts), "ns/partition")
		})
	}
}

// hostlessDevice is a simulated device that holds nothing on the host, as a GPU (whose staging
// is pinned memory outside the Go heap): what the host holds per partition is the assignment.
type hostlessDevice struct{ *simDevice }

func (hostlessDevice) HostBytes(*synth.Shape) int64 { return 0 }

// BenchmarkEngineHostMemory measures the Go heap a GPU-shaped run holds per partition in
// flight against the engine's estimate: jobs of 16 partitions of a 2^18-row scalable circuit,
// synthesis-bound (the device takes no time, 2 synthesis workers) or device-bound (50 ms a
// partition, 1 synthesis worker), and of a 2^21-row one device-bound (400 ms), with the budget at resident + 2.5 partitions and
// the soft memory limit at the budget, as cuzk bench sets it; the results are kept to the end,
// as cuzk bench keeps them. heap/est is the peak of HeapInuse
// above what was in use before the run, over the peak reservation plus the pooled vectors
// (1.0: the estimate is what the heap holds); rss/est the same for the resident set (Linux;
// it includes collected memory not yet returned to the OS); allocated/est the bytes allocated
// per partition over its estimate; GCs/partition the collections per partition.
func BenchmarkEngineHostMemory(b *testing.B) {
	b.Run("synthesis-bound", func(b *testing.B) { benchHostMemory(b, 1<<18-8, 0, 2) })
	b.Run("device-bound", func(b *testing.B) { benchHostMemory(b, 1<<18-8, 50*time.Millisecond, 1) })
	b.Run("device-bound-2^21", func(b *testing.B) { benchHostMemory(b, 2_000_000, 400*time.Millisecond, 1) })
}

// benchHostMemory is BenchmarkEngineHostMemory for a circuit of the given constraints, a
// device taking run per partition and synth synthesis workers.
func benchHostMemory(b *testing.B, constraints int, run time.Duration, synthWorkers int) {
	const parts = 16
	shape, err := synth.Compile(&circuits.Scalable{Constraints: constraints, Inputs: 4})
	if err != nil {
		b.Fatal(err)
	}
	nb := shape.BDensityInput.Count() + shape.BDensityAux.Count()
	params := &prover.Parameters{
		VK:  prover.VerifyingKey{IC: make([]bls12381.G1Affine, shape.NumInputs)},
		H:   make([]bls12381.G1Affine, shape.DomainSize()-1),
		L:   make([]bls12381.G1Affine, shape.NumAux),
		A:   make([]bls12381.G1Affine, shape.NumInputs+shape.ADensityAux.Count()),
		BG1: make([]bls12381.G1Affine, nb),
		BG2: make([]bls12381.G2Affine, nb),
	}
	dev := hostlessDevice{newSimDevice(0, run, 0)}
	est, _ := EstimatePartitionBytes(shape, dev)
	budget := ShapeBytes(shape) + ParametersBytes(params) + est*5/2
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(budget))

	var (
		mu       sync.Mutex
		peakHeap uint64
		peakRSS  int64
		eng      *Engine
		peakHeld int64
	)
	sample := timeline.HookFunc(func(ev timeline.Event) {
		if ev.Kind != timeline.SynthEnd && ev.Kind != timeline.FinalizeEnd {
			return
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st := eng.Stats()
		rss := vmRSS()
		mu.Lock()
		peakRSS = max(peakRSS, rss)
		peakHeap = max(peakHeap, ms.HeapInuse)
		peakHeld = max(peakHeld, st.Reserved+st.Pooled)
		mu.Unlock()
	})
	eng, err = New(WithDevices(dev), WithoutSelfCheck(), WithMemoryBudget(budget), WithTimeline(sample),
		WithSynthesisConcurrency(synthWorkers), WithWorkersPerDevice(1))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close(context.Background())
	ctx := context.Background()
	jb := &Job{Params: params, Shape: shape, Partitions: parts, Circuit: func(i int) (synth.Circuit, error) {
		return &circuits.Scalable{Constraints: constraints, Inputs: 4, Partition: i}, nil
	}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore := vmRSS()
	b.ResetTimer()
	var results []*Result // kept, as cuzk bench keeps them to verify the proofs
	for range b.N {
		h, err := eng.Submit(ctx, jb)
		if err != nil {
			b.Fatal(err)
		}
		res, err := h.Wait(ctx)
		if err != nil {
			b.Fatal(err)
		}
		results = append(results, res)
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(peakHeap-before.HeapInuse)/float64(peakHeld), "heap/est")
	if rssBefore > 0 {
		b.ReportMetric(float64(peakRSS-rssBefore)/float64(peakHeld), "rss/est")
	}
	b.ReportMetric(float64(after.NumGC-before.NumGC)/float64(b.N*parts), "GCs/partition")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*parts)/float64(est), "allocated/est")
	runtime.KeepAlive(results)
}

// vmRSS returns the process's resident set in bytes (Linux /proc/self/status), 0 elsewhere.
func vmRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
