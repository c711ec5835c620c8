package timeline

import (
	"fmt"
	"sort"
	"time"
)

// Stage is a span of a partition's life between two events.
type Stage uint8

// The stages, in pipeline order.
const (
	// StageSynthesis is SYNTH_START..SYNTH_END (CPU).
	StageSynthesis Stage = iota
	// StageQueue is CHAN_SEND..GPU_PICKUP: synthesized, waiting for a free
	// device worker.
	StageQueue
	// StagePreparation is GPU_PICKUP..LOCK_WAIT: the device worker's CPU
	// preparation before it asks for the kernel lock. For an emitter that
	// writes no LOCK_WAIT (the Curio dialect) it is GPU_PICKUP..GPU_START.
	StagePreparation
	// StageLockWait is LOCK_WAIT..GPU_START: waiting for the device's
	// kernel-only lock.
	StageLockWait
	// StageDevice is GPU_START..GPU_END: the kernel-lock region (device work
	// only).
	StageDevice
	// StageFinalize is FINALIZE_START..FINALIZE_END (CPU).
	StageFinalize

	// NumStages is the number of stages.
	NumStages = int(StageFinalize) + 1
)

var stageNames = [NumStages]string{"synthesis", "queue", "preparation", "lock wait", "device", "finalize"}

// String returns the lower-case stage name ("lock wait").
func (s Stage) String() string {
	if int(s) < NumStages {
		return stageNames[s]
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}

// stageBounds gives the start and end kind of every stage.
var stageBounds = [NumStages][2]Kind{
	StageSynthesis:   {SynthStart, SynthEnd},
	StageQueue:       {ChanSend, GPUPickup},
	StagePreparation: {GPUPickup, LockWait},
	StageLockWait:    {LockWait, GPUStart},
	StageDevice:      {GPUStart, GPUEnd},
	StageFinalize:    {FinalizeStart, FinalizeEnd},
}

// bounds returns the kinds of the events that start and end s.
func (s Stage) bounds() (start, end Kind) { return stageBounds[s][0], stageBounds[s][1] }

// onWorker reports whether a stage's two events come from one device worker,
// so they are matched on device and worker as well as job and partition.
// Synthesis and the queue cross from the synthesis side to a worker.
func (s Stage) onWorker() bool { return s >= StagePreparation }

// startsStage reports whether k starts some stage. Such kinds (GPU_PICKUP,
// LOCK_WAIT, GPU_START) also end the stage before; when that stage's start
// is missing (an emitter that skips LOCK_WAIT, say) they are not counted
// as unmatched.
func startsStage(k Kind) bool {
	for _, b := range stageBounds {
		if b[0] == k {
			return true
		}
	}
	return false
}

// Interval is one matched stage of one partition.
type Interval struct {
	Stage     Stage
	Job       uint64
	JobID     string // Event.JobID of the start event
	Partition int
	// Device and Worker come from the end event for the queue stage (the
	// worker that picked the partition up) and from the start event
	// otherwise.
	Device, Worker int
	Start, End     time.Duration // offsets from the epoch; End >= Start
	Detail         string        // Detail of the start event
}

// Duration returns End - Start.
func (iv Interval) Duration() time.Duration { return iv.End - iv.Start }

type pairKey struct {
	stage          Stage
	job            uint64
	part           int
	device, worker int
}

// Intervals matches start and end events into stage intervals. Events are
// processed in Offset order, equal offsets in Kind order (see sortEvents). A
// start is matched with the next end of the same stage and the same job and
// partition, and, for preparation, lock wait, device and finalize, the same
// device and worker (first in, first out, so a partition that goes through a
// stage twice, e.g. after a retry, gives two intervals). A preparation with
// no LOCK_WAIT after it ends at the worker's GPU_START. Intervals are
// returned sorted by Start, then Stage. unmatched counts start events without
// an end, and SYNTH_END, GPU_END and FINALIZE_END events without a start;
// an end earlier than its start cannot happen because of the ordering.
func Intervals(events []Event) (ivs []Interval, unmatched int) {
	sorted := make([]Event, len(events))
	copy(sorted, events)
	sortEvents(sorted)

	open := make(map[pairKey][]Event)
	keyOf := func(s Stage, e Event) pairKey {
		k := pairKey{stage: s, job: e.Job, part: e.Partition, device: -1, worker: -1}
		if s.onWorker() {
			k.device, k.worker = e.Device, e.Worker
		}
		return k
	}
	// pop matches the oldest open start of k with the end event e.
	pop := func(s Stage, k pairKey, e Event) bool {
		q := open[k]
		if len(q) == 0 {
			return false
		}
		st := q[0]
		if len(q) == 1 {
			delete(open, k)
		} else {
			open[k] = q[1:]
		}
		iv := Interval{Stage: s, Job: st.Job, JobID: st.JobID, Partition: st.Partition,
			Device: st.Device, Worker: st.Worker, Start: st.Offset, End: e.Offset, Detail: st.Detail}
		if s == StageQueue {
			iv.Device, iv.Worker = e.Device, e.Worker
		}
		ivs = append(ivs, iv)
		return true
	}
	for _, e := range sorted {
		// Without a LOCK_WAIT, GPU_START ends the preparation.
		if e.Kind == GPUStart && len(open[keyOf(StageLockWait, e)]) == 0 {
			pop(StagePreparation, keyOf(StagePreparation, e), e)
		}
		for s := Stage(0); int(s) < NumStages; s++ {
			startK, endK := s.bounds()
			if e.Kind == endK && !pop(s, keyOf(s, e), e) && !startsStage(e.Kind) {
				unmatched++
			}
			// A kind can end one stage and start the next (LOCK_WAIT,
			// GPU_START), so check both.
			if e.Kind == startK {
				k := keyOf(s, e)
				open[k] = append(open[k], e)
			}
		}
	}
	for _, q := range open {
		unmatched += len(q)
	}
	sort.SliceStable(ivs, func(i, j int) bool {
		if ivs[i].Start != ivs[j].Start {
			return ivs[i].Start < ivs[j].Start
		}
		return ivs[i].Stage < ivs[j].Stage
	})
	return ivs, unmatched
}
