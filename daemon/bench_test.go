package daemon

import (
	"context"
	"fmt"
	"testing"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

// benchSink keeps results alive.
var benchSink int

// BenchmarkSubmitAwait measures the daemon's own cost per job (queueing, scheduling, outcome
// delivery) with a backend that returns at once: in-process, and over gRPC on loopback as Curio
// calls Prove.
func BenchmarkSubmitAwait(b *testing.B) {
	req, err := RequestFromProto(winningReq(""))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("inprocess", func(b *testing.B) {
		d, _ := New(&FakeBackend{}, WithResultRetention(DefaultResultRetention, 16))
		defer d.Shutdown(context.Background())
		ctx := context.Background()
		b.ResetTimer()
		for b.Loop() {
			t, err := d.Submit(req)
			if err != nil {
				b.Fatal(err)
			}
			o, err := d.Await(ctx, t.JobID)
			if err != nil || o.State != Completed {
				b.Fatal(o, err)
			}
			benchSink += len(o.Proof)
		}
	})
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("grpc/parallel=%d", par), func(b *testing.B) {
			h := start(b, &FakeBackend{}, ServerConfig{}, WithMaxConcurrent(4), WithMaxQueueDepth(1024))
			in := &cuzkv1.ProveRequest{Submit: winningReq("")}
			b.SetParallelism(par)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r, err := h.client.Prove(context.Background(), in)
					if err != nil || r.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
						b.Error(r, err)
						return
					}
				}
			})
		})
	}
}
