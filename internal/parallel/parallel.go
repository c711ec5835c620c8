// Package parallel runs a loop over [0, n) on all cores, a chunk of indices at a time.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Chunks calls f on the chunks [lo, hi) of [0, n), chunk long (the last shorter; a chunk below 1
// counts as 1), from at most one goroutine a core, each taking the next chunk until none is left
// or ctx ends. It returns once every call has returned: nil when every chunk was taken, else
// ctx's error (the chunks taken before ctx ended have run to their end).
func Chunks(ctx context.Context, n, chunk int, f func(lo, hi int)) error {
	chunk = max(chunk, 1)
	chunks := (n + chunk - 1) / chunk
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), chunks)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				f(c*chunk, min((c+1)*chunk, n))
			}
		})
	}
	wg.Wait()
	if int(next.Load()) < chunks {
		return ctx.Err()
	}
	return nil
}

// Ranges calls f on one contiguous range of [0, n) a core, at once, and returns when they have
// run.
func Ranges(n int, f func(lo, hi int)) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	_ = Chunks(context.Background(), n, (n+workers-1)/workers, f)
}
