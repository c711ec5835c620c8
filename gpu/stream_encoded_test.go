package gpu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
)

// TestOverlapChunks: every chunk is fetched, then written, in order, covering [0, n) exactly;
// chunk k+1's fetch may run during chunk k's write but not before chunk k−1's write returned
// (its buffer is then free); the first error of a fetch or
// a write stops the pipeline and is returned once no fetch runs.
func TestOverlapChunks(t *testing.T) {
	for _, tc := range [][2]int{{0, 4}, {1, 4}, {7, 7}, {7, 3}, {10, 1}, {10, 20}} {
		n, chunk := tc[0], tc[1]
		t.Run(fmt.Sprintf("n=%d/chunk=%d", n, chunk), func(t *testing.T) {
			var mu sync.Mutex
			fetched := map[int]int{} // k → off
			written := 0
			err := overlapChunks(context.Background(), n, chunk,
				func(k, off int) error {
					mu.Lock()
					defer mu.Unlock()
					if k > written+1 {
						t.Errorf("chunk %d fetched while chunk %d is the next to write", k, written)
					}
					fetched[k] = off
					return nil
				},
				func(k, off int) error {
					mu.Lock()
					defer mu.Unlock()
					if k != written || off != k*chunk || fetched[k] != off {
						t.Errorf("chunk %d written at %d (fetched at %d), want chunk %d at %d", k, off, fetched[k], written, written*chunk)
					}
					written++
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if want := (n + chunk - 1) / chunk; written != want || len(fetched) != want {
				t.Fatalf("%d chunks written, %d fetched, want %d", written, len(fetched), want)
			}
		})
	}
	stop := errors.New("stop")
	for _, failAt := range []int{0, 1, 2} {
		for _, inFetch := range []bool{false, true} {
			writes := 0
			err := overlapChunks(context.Background(), 10, 3,
				func(k, off int) error {
					if inFetch && k == failAt {
						return stop
					}
					return nil
				},
				func(k, off int) error {
					writes++
					if !inFetch && k == failAt {
						return stop
					}
					return nil
				})
			if !errors.Is(err, stop) {
				t.Fatalf("error in chunk %d (fetch %v): got %v", failAt, inFetch, err)
			}
			want := failAt + 1 // a failed write, or the write that overlapped the failed fetch
			if inFetch {
				want = failAt
			}
			if writes != want {
				t.Fatalf("error in chunk %d (fetch %v): %d writes, want %d", failAt, inFetch, writes, want)
			}
		}
	}
}

// TestOverlapChunksCancel: once ctx ends, no further chunk is written, the fetch in flight is
// waited for, and ctx's error is returned; a ctx ended before the start fetches nothing.
func TestOverlapChunksCancel(t *testing.T) {
	for _, stopAfter := range []int{1, 2, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		var fetching atomic.Int32
		writes := 0
		err := overlapChunks(ctx, 10, 3,
			func(k, off int) error {
				fetching.Add(1)
				defer fetching.Add(-1)
				return nil
			},
			func(k, off int) error {
				writes++
				if writes == stopAfter {
					cancel()
				}
				return nil
			})
		if !errors.Is(err, context.Canceled) || writes != stopAfter || fetching.Load() != 0 {
			t.Fatalf("cancelled after write %d: %v after %d writes, %d fetches running", stopAfter, err, writes, fetching.Load())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	count := func(int, int) error { calls++; return nil }
	if err := overlapChunks(ctx, 10, 3, count, count); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("cancelled before the start: %v after %d calls", err, calls)
	}
}

// TestHostDecodeFault: a point the device rejects becomes the host decode's *prover.DecodeError
// for it (section, index, offset, and a cause that errors.Is matches like the host's); a point
// the host accepts yields an error saying that the two decodes disagree.
func TestHostDecodeFault(t *testing.T) {
	_, _, g1, g2 := bls12381.Generators()
	p := &prover.Parameters{
		VK: prover.VerifyingKey{AlphaG1: g1, BetaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG1: g1, DeltaG2: g2,
			IC: []bls12381.G1Affine{g1}},
		L:   []bls12381.G1Affine{g1, g1, g1},
		BG2: []bls12381.G2Affine{g2, g2},
	}
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	lAt := p.VK.EncodedSize() + 4 + 4 + 2*96 // l[2], after H's empty count and L's count
	file[lAt] |= 0x80
	g2At := p.VK.EncodedSize() + 4 + (4 + 3*96) + 4 + 4 + 4 + 192 // b_g2[1]
	file[g2At+191] ^= 1
	m, err := prover.MapParameters(file, prover.Unchecked)
	if err != nil {
		t.Fatal(err)
	}
	var hostL, hostG2 error
	hostL = m.G1(primitive.SectionL, 2, make([]bls12381.G1Affine, 1))
	hostG2 = m.G2(1, make([]bls12381.G2Affine, 1))
	for _, tc := range []struct {
		sec    primitive.Section
		i      int
		reason uint32
		name   string
		at     int
		host   error
	}{
		{primitive.SectionL, 2, 1, "l", lAt, hostL},
		{primitive.SectionBG2, 1, 6, "b_g2", g2At, hostG2},
	} {
		err := hostDecodeFault(m, tc.sec, tc.i, tc.reason)
		var de, want *prover.DecodeError
		if !errors.As(err, &de) || !errors.As(tc.host, &want) {
			t.Fatalf("%s[%d]: %v (host: %v), want a DecodeError", tc.name, tc.i, err, tc.host)
		}
		if de.Section != tc.name || de.Index != tc.i || de.Offset != int64(tc.at) || !errors.Is(err, prover.ErrFormat) ||
			!errors.Is(err, want.Err) || err.Error() != tc.host.Error() {
			t.Fatalf("%s[%d]: %v, want %v at offset %d", tc.name, tc.i, err, tc.host, tc.at)
		}
	}
	err = hostDecodeFault(m, primitive.SectionL, 1, 5)
	var de *prover.DecodeError
	if err == nil || errors.As(err, &de) {
		t.Fatalf("a point the host accepts: %v, want a disagreement", err)
	}
}
