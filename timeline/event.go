package timeline

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Kind is the type of a timeline event. The zero value is not a valid kind.
type Kind uint8

// The event kinds, in the order a partition normally passes through them.
const (
	// SynthStart ("SYNTH_START"): synthesis of a partition begins (CPU).
	SynthStart Kind = iota + 1
	// SynthEnd ("SYNTH_END"): synthesis of a partition ends.
	SynthEnd
	// ChanSend ("CHAN_SEND"): the synthesized partition is queued for a device.
	ChanSend
	// GPUPickup ("GPU_PICKUP"): a device worker took the partition; its CPU
	// preparation starts.
	GPUPickup
	// LockWait ("LOCK_WAIT"): preparation is done; the worker starts waiting
	// for the device's kernel-only lock.
	LockWait
	// GPUStart ("GPU_START"): the kernel-only lock is acquired; device work
	// begins.
	GPUStart
	// GPUEnd ("GPU_END"): device work is done; the lock is released.
	GPUEnd
	// FinalizeStart ("FINALIZE_START"): CPU finalization of the partition's
	// proof begins.
	FinalizeStart
	// FinalizeEnd ("FINALIZE_END"): CPU finalization ends.
	FinalizeEnd
	// JobDone ("JOB_DONE"): every partition of the job is proved (or the job
	// failed; see Event.Detail).
	JobDone

	numKinds = int(JobDone) + 1
)

var kindNames = [numKinds]string{
	SynthStart:    "SYNTH_START",
	SynthEnd:      "SYNTH_END",
	ChanSend:      "CHAN_SEND",
	GPUPickup:     "GPU_PICKUP",
	LockWait:      "LOCK_WAIT",
	GPUStart:      "GPU_START",
	GPUEnd:        "GPU_END",
	FinalizeStart: "FINALIZE_START",
	FinalizeEnd:   "FINALIZE_END",
	JobDone:       "JOB_DONE",
}

// Valid reports whether k is one of the defined kinds.
func (k Kind) Valid() bool { return k >= SynthStart && k <= JobDone }

// String returns the upper-case wire name of k ("GPU_START"), or "Kind(n)"
// for an undefined value.
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ErrUnknownKind is returned (wrapped) by parseKind for a name that is not a
// defined kind.
var ErrUnknownKind = errors.New("unknown timeline event kind")

// parseKind returns the Kind whose String is s. Matching is exact
// (case-sensitive, no surrounding spaces).
func parseKind(s string) (Kind, error) {
	for k := SynthStart; k <= JobDone; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("parse kind %q: %w", s, ErrUnknownKind)
}

// MarshalText implements encoding.TextMarshaler with the wire name. It fails
// for an undefined kind.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("marshal kind %d: %w", uint8(k), ErrUnknownKind)
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with parseKind.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := parseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Event is one timeline record.
type Event struct {
	// Offset is the monotonic time since the engine's epoch (see Clock), in
	// nanoseconds as a time.Duration. The line format keeps microseconds.
	Offset time.Duration
	// Kind says what happened.
	Kind Kind
	// Job is the engine's job sequence number. For a log whose job ids are
	// strings (the Curio dialect, see ReadLog) it numbers the ids 1, 2, ...
	// in order of first appearance.
	Job uint64
	// JobID is the job's id as the log gives it (a UUID or its hex prefix in
	// the Curio dialect), shown in reports instead of Job when set. It is
	// empty for this module's engine, and FormatLine does not write it.
	JobID string
	// Partition is the partition index within the job, or -1 when the event is
	// not about a partition (JOB_DONE).
	Partition int
	// Device is the device index, or -1 when the event did not happen on a
	// device worker (synthesis, CHAN_SEND, JOB_DONE).
	Device int
	// Worker is the device worker index on Device, or -1 when the event is not
	// from a device worker.
	Worker int
	// Detail is free text. It may contain any characters, commas and newlines
	// included; the writers escape what their format needs.
	Detail string
}

// String returns e in the line format (see FormatLine).
func (e Event) String() string { return FormatLine(e) }

// Hook receives timeline events. A nil Hook means timeline recording is off
// and must cost nothing beyond the nil check:
//
//	if h != nil {
//		h.Event(timeline.Event{...})
//	}
//
// Implementations must be safe for concurrent use: the engine calls Event
// from every synthesis and device worker goroutine. Event must not block for
// long; it runs on the proving path (inside the kernel-lock region for
// GPU_START and right after it for GPU_END).
type Hook interface {
	Event(e Event)
}

// HookFunc adapts a function to the Hook interface. The function must be safe
// for concurrent use.
type HookFunc func(e Event)

// Event calls f(e).
func (f HookFunc) Event(e Event) { f(e) }

// Clock turns time.Now into monotonic offsets from an epoch. The zero Clock is
// not usable; create one with NewClock. A Clock is safe for concurrent use.
type Clock struct {
	epoch time.Time
}

// NewClock returns a Clock whose epoch is now.
func NewClock() Clock { return Clock{epoch: time.Now()} }

// Epoch returns the clock's epoch.
func (c Clock) Epoch() time.Time { return c.epoch }

// Now returns the monotonic time elapsed since the epoch.
func (c Clock) Now() time.Duration { return time.Since(c.epoch) }

// Recorder is a Hook that keeps every event in memory. The zero value is
// ready to use; a Recorder is safe for concurrent use and must not be copied
// after first use. Events are stored in fixed-size chunks, so recording
// never copies earlier events.
type Recorder struct {
	mu     sync.Mutex
	chunks [][]Event
	n      int
}

// recorderChunk is the number of events per Recorder chunk.
const recorderChunk = 1024

// Event appends e.
func (r *Recorder) Event(e Event) {
	r.mu.Lock()
	if len(r.chunks) == 0 || len(r.chunks[len(r.chunks)-1]) == recorderChunk {
		r.chunks = append(r.chunks, make([]Event, 0, recorderChunk))
	}
	last := &r.chunks[len(r.chunks)-1]
	*last = append(*last, e)
	r.n++
	r.mu.Unlock()
}

// Len returns the number of events recorded so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Events returns a copy of the recorded events sorted by Offset, then Kind
// (see sortEvents); events equal in both keep their arrival order.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	out := make([]Event, 0, r.n)
	for _, c := range r.chunks {
		out = append(out, c...)
	}
	r.mu.Unlock()
	sortEvents(out)
	return out
}

// Reset drops every recorded event.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.chunks, r.n = nil, 0
	r.mu.Unlock()
}

// sortEvents sorts events in place by Offset, then by Kind, which is the
// order a partition passes through the kinds, keeping the relative order of
// events equal in both. Two goroutines can stamp events with the same
// offset (a coarse clock, a fake one in tests) and record them in either
// order: a CHAN_SEND and the GPU_PICKUP of the worker that took the
// partition at once. Arrival order would then put an end before its start;
// Kind order never does.
func sortEvents(events []Event) {
	sort.SliceStable(events, func(i, j int) bool {
		a, b := events[i], events[j]
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		return a.Kind < b.Kind
	})
}

// Multi returns a Hook that passes every event to each non-nil hook in order.
// It returns nil when no hook is non-nil (so the caller's nil check turns
// recording off), and the hook itself when exactly one is non-nil.
func Multi(hooks ...Hook) Hook {
	var hs []Hook
	for _, h := range hooks {
		if h != nil {
			hs = append(hs, h)
		}
	}
	switch len(hs) {
	case 0:
		return nil
	case 1:
		return hs[0]
	}
	return multiHook(hs)
}

type multiHook []Hook

func (m multiHook) Event(e Event) {
	for _, h := range m {
		h.Event(e)
	}
}
