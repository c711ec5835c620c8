package timeline

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func TestKindStringParseRoundTrip(t *testing.T) {
	want := []string{"SYNTH_START", "SYNTH_END", "CHAN_SEND", "GPU_PICKUP", "LOCK_WAIT",
		"GPU_START", "GPU_END", "FINALIZE_START", "FINALIZE_END", "JOB_DONE"}
	ks := kinds()
	if len(ks) != len(want) {
		t.Fatalf("kinds() has %d kinds, want %d", len(ks), len(want))
	}
	for i, k := range ks {
		equal(t, k, Kind(i+1), "kind value")
		equal(t, k.String(), want[i], "String")
		got, err := parseKind(want[i])
		noErr(t, err)
		equal(t, got, k, "parseKind")
		b, err := k.MarshalText()
		noErr(t, err)
		var u Kind
		noErr(t, u.UnmarshalText(b))
		equal(t, u, k, "text round trip")
	}
	for _, bad := range []string{"", "gpu_start", " GPU_START", "GPU_START ", "Kind(6)", "GPU"} {
		if _, err := parseKind(bad); !errors.Is(err, ErrUnknownKind) {
			t.Errorf("parseKind(%q) error = %v, want ErrUnknownKind", bad, err)
		}
	}
	equal(t, Kind(0).String(), "Kind(0)", "zero kind")
	equal(t, Kind(11).String(), "Kind(11)", "kind past end")
	if _, err := Kind(0).MarshalText(); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("MarshalText(Kind(0)) error = %v, want ErrUnknownKind", err)
	}
}

func TestRecorderConcurrent(t *testing.T) {
	const goroutines, perG = 8, 500
	var rec Recorder
	var buf bytes.Buffer
	lw := NewLineWriter(&buf)
	hook := Multi(&rec, nil, lw)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range perG {
				// Few distinct offsets, so stability is exercised.
				hook.Event(Event{Offset: time.Duration(rng.IntN(20)) * time.Microsecond, Kind: GPUStart,
					Job: uint64(g), Partition: i, Device: 0, Worker: g})
			}
		}()
	}
	wg.Wait()
	equal(t, rec.Len(), goroutines*perG, "Len")
	evs := rec.Events()
	equal(t, len(evs), goroutines*perG, "len(Events)")
	// Sorted by offset; within one goroutine and one offset, arrival order
	// (Partition increases) is kept.
	last := make(map[[2]int64]int)
	for i, e := range evs {
		if i > 0 && evs[i-1].Offset > e.Offset {
			t.Fatalf("events not sorted at %d: %v after %v", i, e.Offset, evs[i-1].Offset)
		}
		k := [2]int64{int64(e.Job), int64(e.Offset)}
		if p, ok := last[k]; ok && p >= e.Partition {
			t.Fatalf("sort not stable: job %d offset %v partition %d after %d", e.Job, e.Offset, e.Partition, p)
		}
		last[k] = e.Partition
	}
	// Events returns a copy.
	evs[0].Job = 999
	if rec.Events()[0].Job == 999 {
		t.Error("Events does not return a copy")
	}
	// The line writer got whole, parseable lines.
	noErr(t, lw.Err())
	equal(t, lw.Written(), goroutines*perG, "lines written")
	parsed, err := ParseLines(&buf)
	noErr(t, err)
	equal(t, len(parsed), goroutines*perG, "lines parsed")

	rec.Reset()
	equal(t, rec.Len(), 0, "Len after Reset")
}

func TestMulti(t *testing.T) {
	if Multi() != nil || Multi(nil, nil) != nil {
		t.Error("Multi of no hooks is not nil")
	}
	var a, b Recorder
	if Multi(nil, &a) != Hook(&a) {
		t.Error("Multi of one hook is not that hook")
	}
	var n int
	var mu sync.Mutex
	h := Multi(&a, nil, &b, HookFunc(func(Event) { mu.Lock(); n++; mu.Unlock() }))
	h.Event(Event{Kind: JobDone})
	h.Event(Event{Kind: JobDone})
	equal(t, a.Len(), 2, "first hook")
	equal(t, b.Len(), 2, "second hook")
	equal(t, n, 2, "func hook")
}

func TestClock(t *testing.T) {
	epoch := time.Now()
	c := Clock{epoch: epoch}
	equal(t, c.Epoch(), epoch, "epoch")
	if d := c.Now(); d < 0 {
		t.Errorf("Now() = %v, want >= 0", d)
	}
	if d := NewClock().Now(); d < 0 {
		t.Errorf("NewClock().Now() = %v, want >= 0", d)
	}
}

var sinkHook Hook

// BenchmarkHook measures the per-event cost of the hook call patterns the
// engine uses: a nil hook behind a nil check, a Recorder, a LineWriter to
// io.Discard and a Multi of two.
func BenchmarkHook(b *testing.B) {
	e := Event{Offset: 123456 * time.Microsecond, Kind: GPUStart, Job: 7, Partition: 3, Device: 0, Worker: 1, Detail: "msm g1"}
	b.Run("nil", func(b *testing.B) {
		var h Hook = sinkHook // nil, but not a constant the compiler can fold
		for i := 0; b.Loop(); i++ {
			if h != nil {
				e.Job = uint64(i)
				h.Event(e)
			}
		}
	})
	// The recorders are reset every 10000 events, the size of a run of a
	// few hundred partitions, so the benchmark measures recording rather
	// than the garbage collector walking millions of kept events.
	const keep = 10000
	b.Run("recorder", func(b *testing.B) {
		var rec Recorder
		var h Hook = &rec
		for i := 0; b.Loop(); i++ {
			if i%keep == 0 {
				rec.Reset()
			}
			if h != nil {
				h.Event(e)
			}
		}
	})
	b.Run("line-writer", func(b *testing.B) {
		var h Hook = NewLineWriter(discard{})
		for b.Loop() {
			h.Event(e)
		}
	})
	b.Run("json-writer", func(b *testing.B) {
		var h Hook = NewJSONWriter(discard{})
		for b.Loop() {
			h.Event(e)
		}
	})
	b.Run("multi-2", func(b *testing.B) {
		var r1, r2 Recorder
		h := Multi(&r1, &r2)
		for i := 0; b.Loop(); i++ {
			if i%keep == 0 {
				r1.Reset()
				r2.Reset()
			}
			h.Event(e)
		}
	})
	b.Run("recorder-parallel", func(b *testing.B) {
		var rec Recorder
		var h Hook = &rec
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if i%keep == 0 {
					rec.Reset()
				}
				h.Event(e)
			}
		})
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
