package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"
)

// chromeSynthesisPid is the trace-event process id of the synthesis
// process; device d is process d+1, and the workers of unnamed devices are
// the process after the last device.
const chromeSynthesisPid = 0

// chromeEvent is one record of the Chrome trace-event format
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

type chromeTrace struct {
	TraceEvents     []chromeEvent `json:"traceEvents"`
	DisplayTimeUnit string        `json:"displayTimeUnit"`
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// WriteChromeTrace writes events as a Chrome trace-event JSON object
// ({"traceEvents":[...]}) that opens in Perfetto (ui.perfetto.dev) and
// chrome://tracing. Timestamps and durations are in microseconds from the
// epoch.
//
// Complete events ("ph":"X", named "<stage> j<job> p<partition>", category
// the stage name, args job/partition/device/worker/detail, plus job_id when
// the log names jobs by string) are written for the matched stages (see
// Intervals) synthesis, preparation, lock wait, device and finalize; the
// queue stage is left out (it shows as the space between CHAN_SEND and the
// worker's preparation). Worker stages go to process pid = device+1
// ("device d"), thread tid = worker; when the device is not known (a Curio
// log) to one process "GPU workers" after the last device. Synthesis goes
// to process 0 ("synthesis"), where concurrent partitions are spread over
// lanes (tid 0, 1, ...) so that slices on one thread never overlap.
// CHAN_SEND is a thread-scoped instant event ("ph":"i") on the lane that
// synthesized the partition (lane 0 if unknown); JOB_DONE is a global instant
// event. Metadata events ("ph":"M") name every process and thread.
// Unmatched start or end events are left out.
func WriteChromeTrace(w io.Writer, events []Event) error {
	ivs, _ := Intervals(events)
	var out []chromeEvent
	type thread struct{ pid, tid int }
	threads := make(map[thread]string)
	procs := make(map[int]string)

	// Synthesis lanes: greedy interval partitioning in start order.
	var laneEnd []time.Duration
	synthLane := make(map[partKey]int)
	for _, iv := range ivs {
		if iv.Stage != StageSynthesis {
			continue
		}
		lane := -1
		for l, end := range laneEnd {
			if end <= iv.Start {
				lane = l
				break
			}
		}
		if lane < 0 {
			lane = len(laneEnd)
			laneEnd = append(laneEnd, 0)
		}
		laneEnd[lane] = iv.End
		synthLane[partKey{iv.Job, iv.Partition}] = lane
		out = append(out, completeEvent(iv, chromeSynthesisPid, lane))
		procs[chromeSynthesisPid] = "synthesis"
		threads[thread{chromeSynthesisPid, lane}] = fmt.Sprintf("synthesis lane %d", lane)
	}
	unnamedPid := 1 // after the last device
	for _, iv := range ivs {
		unnamedPid = max(unnamedPid, iv.Device+2)
	}
	for _, iv := range ivs {
		switch iv.Stage {
		case StageSynthesis, StageQueue:
			continue
		}
		pid, name := iv.Device+1, fmt.Sprintf("device %d", iv.Device)
		if iv.Device < 0 {
			pid, name = unnamedPid, "GPU workers"
		}
		procs[pid] = name
		out = append(out, completeEvent(iv, pid, iv.Worker))
		threads[thread{pid, iv.Worker}] = fmt.Sprintf("worker %d", iv.Worker)
	}
	for _, e := range events {
		switch e.Kind {
		case ChanSend:
			lane := synthLane[partKey{e.Job, e.Partition}]
			out = append(out, chromeEvent{
				Name: fmt.Sprintf("CHAN_SEND %s p%d", jobTag(e.Job, e.JobID), e.Partition), Cat: "queue", Ph: "i",
				Ts: micros(e.Offset), Pid: chromeSynthesisPid, Tid: lane, S: "t", Args: eventArgs(e),
			})
			procs[chromeSynthesisPid] = "synthesis"
			if _, ok := threads[thread{chromeSynthesisPid, lane}]; !ok {
				threads[thread{chromeSynthesisPid, lane}] = fmt.Sprintf("synthesis lane %d", lane)
			}
		case JobDone:
			out = append(out, chromeEvent{
				Name: fmt.Sprintf("JOB_DONE %s", jobTag(e.Job, e.JobID)), Cat: "job", Ph: "i",
				Ts: micros(e.Offset), Pid: chromeSynthesisPid, Tid: 0, S: "g", Args: eventArgs(e),
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ts < out[j].Ts })

	var meta []chromeEvent
	pids := make([]int, 0, len(procs))
	for pid := range procs {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	for _, pid := range pids {
		meta = append(meta,
			chromeEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": procs[pid]}},
			chromeEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
	}
	ths := make([]thread, 0, len(threads))
	for t := range threads {
		ths = append(ths, t)
	}
	sort.Slice(ths, func(i, j int) bool {
		if ths[i].pid != ths[j].pid {
			return ths[i].pid < ths[j].pid
		}
		return ths[i].tid < ths[j].tid
	})
	for _, t := range ths {
		meta = append(meta,
			chromeEvent{Name: "thread_name", Ph: "M", Pid: t.pid, Tid: t.tid, Args: map[string]any{"name": threads[t]}},
			chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: t.pid, Tid: t.tid, Args: map[string]any{"sort_index": t.tid}})
	}

	trace := chromeTrace{TraceEvents: append(meta, out...), DisplayTimeUnit: "ms"}
	if trace.TraceEvents == nil {
		trace.TraceEvents = []chromeEvent{}
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(trace); err != nil {
		return fmt.Errorf("write chrome trace: %w", err)
	}
	return nil
}

func completeEvent(iv Interval, pid, tid int) chromeEvent {
	dur := micros(iv.Duration())
	args := map[string]any{"job": iv.Job, "partition": iv.Partition, "device": iv.Device, "worker": iv.Worker}
	if iv.Detail != "" {
		args["detail"] = iv.Detail
	}
	if iv.JobID != "" {
		args["job_id"] = iv.JobID
	}
	return chromeEvent{
		Name: fmt.Sprintf("%s %s p%d", iv.Stage, jobTag(iv.Job, iv.JobID), iv.Partition), Cat: iv.Stage.String(), Ph: "X",
		Ts: micros(iv.Start), Dur: &dur, Pid: pid, Tid: tid, Args: args,
	}
}

func eventArgs(e Event) map[string]any {
	args := map[string]any{"job": e.Job, "partition": e.Partition, "device": e.Device, "worker": e.Worker}
	if e.Detail != "" {
		args["detail"] = e.Detail
	}
	if e.JobID != "" {
		args["job_id"] = e.JobID
	}
	return args
}
