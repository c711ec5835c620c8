package engine

import (
	"context"
	"testing"

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
