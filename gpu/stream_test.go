package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestStreamPoints: every point arrives at its offset in order, whatever the chunk; a buffer is
// never decoded into while its write runs; a decode or write error stops the stream and is
// returned once the write in flight has returned.
func TestStreamPoints(t *testing.T) {
	for _, n := range []int{1, 2, 7, 64, 1000} {
		for _, chunk := range []int{1, 3, 64, n - 1, n, n + 5, 0} {
			t.Run(fmt.Sprintf("n=%d/chunk=%d", n, chunk), func(t *testing.T) {
				got := make([]int, n)
				var mu sync.Mutex
				busy := map[*int]bool{} // buffers whose write runs
				next := 0
				decode := func(off int, pts []int) error {
					mu.Lock()
					defer mu.Unlock()
					if busy[&pts[0]] {
						t.Errorf("chunk at %d decoded into a buffer being written", off)
					}
					if off != next {
						t.Errorf("decode at %d, want %d", off, next)
					}
					next += len(pts)
					for i := range pts {
						pts[i] = off + i + 1
					}
					return nil
				}
				write := func(off int, pts []int) error {
					mu.Lock()
					busy[&pts[0]] = true
					mu.Unlock()
					copy(got[off:], pts)
					mu.Lock()
					busy[&pts[0]] = false
					mu.Unlock()
					return nil
				}
				if err := streamPoints(context.Background(), n, chunk, decode, write); err != nil {
					t.Fatal(err)
				}
				for i, v := range got {
					if v != i+1 {
						t.Fatalf("point %d: %d", i, v)
					}
				}
			})
		}
	}

	bad := errors.New("bad point")
	writes := 0
	err := streamPoints(context.Background(), 10, 3, func(off int, pts []int) error {
		if off == 6 {
			return bad
		}
		return nil
	}, func(int, []int) error { writes++; return nil })
	if !errors.Is(err, bad) || writes != 2 {
		t.Fatalf("decode error: %v after %d writes, want bad point after 2", err, writes)
	}
	full := errors.New("device full")
	decodes := 0
	err = streamPoints(context.Background(), 10, 3, func(int, []int) error { decodes++; return nil }, func(off int, _ []int) error {
		if off == 3 {
			return full
		}
		return nil
	})
	if !errors.Is(err, full) || decodes > 3 {
		t.Fatalf("write error: %v after %d decodes, want device full after at most 3", err, decodes)
	}
}
