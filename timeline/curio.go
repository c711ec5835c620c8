package timeline

import (
	"fmt"
	"strconv"
	"strings"
)

// curioKinds maps the event names of the Curio dialect to kinds. Source:
// filecoin-project/curio extern/cuzk/cuzk-core/src/engine.rs, the calls of
// timeline_event. GPU_QUEUE (newer engine.rs) and CHAN_SEND (older) both
// mark a synthesized partition handed to the GPU workers.
var curioKinds = map[string]Kind{
	"SYNTH_START": SynthStart,
	"SYNTH_END":   SynthEnd,
	"CHAN_SEND":   ChanSend,
	"GPU_QUEUE":   ChanSend,
	"GPU_PICKUP":  GPUPickup,
	"GPU_START":   GPUStart,
	"GPU_END":     GPUEnd,
}

// curioKeys are the detail keys engine.rs writes, and whether the value is a
// non-negative integer:
//
//	SYNTH_START  partition=P | kind=<proof kind>
//	SYNTH_END    partition=P,synth_ms=M | synth_ms=M
//	CHAN_SEND    partition=P | (empty)
//	GPU_QUEUE    partition=P | monolithic
//	GPU_PICKUP   worker=W[,partition=P]
//	GPU_START    worker=W[,partition=P]
//	GPU_END      worker=W[,partition=P],gpu_ms=G
var curioKeys = map[string]bool{
	"partition": true,
	"worker":    true,
	"synth_ms":  true,
	"gpu_ms":    true,
	"kind":      false,
}

// curioWords are the bare words engine.rs writes as a whole detail.
var curioWords = map[string]bool{"monolithic": true}

// parseCurioLine parses one TIMELINE line in the Curio dialect (see ReadLog).
// jobs numbers the job ids seen so far and is extended with a new id.
// unknown lists detail keys and bare words that engine.rs does not write;
// the event is still returned. err wraps ErrMalformed for a truncated or
// malformed line and ErrUnknownKind for an unknown event name.
func parseCurioLine(line string, jobs map[string]uint64) (e Event, unknown []error, err error) {
	parts := strings.SplitN(line, ",", 5)
	if len(parts) != 5 {
		return Event{}, nil, fmt.Errorf("want 5 comma-separated fields, have %d (truncated line?): %w", len(parts), ErrMalformed)
	}
	if parts[0] != linePrefix {
		return Event{}, nil, fmt.Errorf("first field %q is not %s: %w", parts[0], linePrefix, ErrMalformed)
	}
	if e.Offset, err = parseMillis(parts[1]); err != nil {
		return Event{}, nil, err
	}
	kind, ok := curioKinds[parts[2]]
	if !ok {
		if kind, err = parseKind(parts[2]); err != nil {
			return Event{}, nil, err
		}
	}
	id := parts[3]
	if id == "" {
		return Event{}, nil, fmt.Errorf("empty job id: %w", ErrMalformed)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c == 0x7f {
			return Event{}, nil, fmt.Errorf("job id %q has a space or control character at byte %d: %w", id, i, ErrMalformed)
		}
	}
	e.Kind, e.Partition, e.Device, e.Worker, e.Detail = kind, 0, -1, -1, parts[4]
	detail := parts[4]
	if detail != "" && !strings.Contains(detail, "=") && !strings.Contains(detail, ",") {
		if !curioWords[detail] {
			unknown = append(unknown, fmt.Errorf("detail word %q: %w", detail, ErrUnknownKey))
		}
	} else if detail != "" {
		seen := make(map[string]bool)
		for _, kv := range strings.Split(detail, ",") {
			key, val, hasEq := strings.Cut(kv, "=")
			if !hasEq || key == "" || val == "" {
				return Event{}, nil, fmt.Errorf("detail %q: want key=value, have %q (truncated line?): %w", detail, kv, ErrMalformed)
			}
			if seen[key] {
				return Event{}, nil, fmt.Errorf("detail %q: key %q twice: %w", detail, key, ErrMalformed)
			}
			seen[key] = true
			isInt, known := curioKeys[key]
			if !known {
				unknown = append(unknown, fmt.Errorf("detail key %q: %w", key, ErrUnknownKey))
				continue
			}
			if !isInt {
				continue
			}
			n, err := strconv.ParseUint(val, 10, 63)
			if err != nil || ((key == "partition" || key == "worker") && n >= 1<<31) {
				return Event{}, nil, fmt.Errorf("detail %q: %s=%q is not a non-negative integer in range: %w", detail, key, val, ErrMalformed)
			}
			switch key {
			case "partition":
				e.Partition = int(n)
			case "worker":
				e.Worker = int(n)
			}
		}
	}
	if _, ok := jobs[id]; !ok {
		jobs[id] = uint64(len(jobs) + 1)
	}
	e.Job, e.JobID = jobs[id], id
	return e, unknown, nil
}
