package parallel

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChunksCoversEachIndexOnce: every index of [0, n) is passed to f exactly once, in chunks of
// the given length (the last shorter), for sizes around the chunk and none at all.
func TestChunksCoversEachIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, chunk int }{{0, 4}, {1, 4}, {4, 4}, {5, 4}, {1000, 7}, {10, 0}} {
		seen := make([]atomic.Int32, tc.n)
		require.NoError(t, Chunks(t.Context(), tc.n, tc.chunk, func(lo, hi int) {
			require.LessOrEqual(t, hi-lo, max(tc.chunk, 1))
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		}))
		for i := range seen {
			require.EqualValues(t, 1, seen[i].Load(), "n %d chunk %d index %d", tc.n, tc.chunk, i)
		}
	}
}

// TestChunksStopsWhenCancelled: a loop whose context ends in its first chunk takes at most the
// chunks the other cores already hold, and returns the context's error.
func TestChunksStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var calls atomic.Int32
	err := Chunks(ctx, 1<<20, 1, func(int, int) {
		calls.Add(1)
		cancel()
	})
	require.ErrorIs(t, err, context.Canceled)
	require.LessOrEqual(t, int(calls.Load()), runtime.GOMAXPROCS(0))
}

// TestRanges: one contiguous range a core at most, covering [0, n).
func TestRanges(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1001} {
		var total, ranges atomic.Int64
		Ranges(n, func(lo, hi int) {
			total.Add(int64(hi - lo))
			ranges.Add(1)
		})
		require.EqualValues(t, n, total.Load())
		require.LessOrEqual(t, int(ranges.Load()), runtime.GOMAXPROCS(0))
	}
}
