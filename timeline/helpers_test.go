package timeline

import (
	"reflect"
	"testing"
	"time"
)

// msd converts milliseconds to a Duration (fractions allowed).
func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// life describes one partition's pass through the pipeline, in
// milliseconds. Negative times leave the event out.
type life struct {
	job               uint64
	part, dev, worker int
	synthS, synthE    float64
	send, pick, lock  float64
	gpuS, gpuE        float64
	finS, finE        float64
}

func (l life) events() []Event {
	var out []Event
	add := func(t float64, k Kind, onWorker bool) {
		if t < 0 {
			return
		}
		e := Event{Offset: msd(t), Kind: k, Job: l.job, Partition: l.part, Device: -1, Worker: -1}
		if onWorker {
			e.Device, e.Worker = l.dev, l.worker
		}
		out = append(out, e)
	}
	add(l.synthS, SynthStart, false)
	add(l.synthE, SynthEnd, false)
	add(l.send, ChanSend, false)
	add(l.pick, GPUPickup, true)
	add(l.lock, LockWait, true)
	add(l.gpuS, GPUStart, true)
	add(l.gpuE, GPUEnd, true)
	add(l.finS, FinalizeStart, true)
	add(l.finE, FinalizeEnd, true)
	return out
}

// gpuOnly returns a life with only a device region.
func gpuOnly(job uint64, part, dev, worker int, s, e float64) life {
	return life{job: job, part: part, dev: dev, worker: worker,
		synthS: -1, synthE: -1, send: -1, pick: -1, lock: -1, gpuS: s, gpuE: e, finS: -1, finE: -1}
}

func timelineOf(ls ...life) []Event {
	var out []Event
	for _, l := range ls {
		out = append(out, l.events()...)
	}
	return out
}

func jobDone(job uint64, t float64) Event {
	return Event{Offset: msd(t), Kind: JobDone, Job: job, Partition: -1, Device: -1, Worker: -1}
}

func equal[T any](t *testing.T, got, want T, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func near(t *testing.T, got, want float64, what string) {
	t.Helper()
	if d := got - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// kinds returns every valid Kind in ascending order.
func kinds() []Kind {
	ks := make([]Kind, 0, numKinds-1)
	for k := SynthStart; k <= JobDone; k++ {
		ks = append(ks, k)
	}
	return ks
}
