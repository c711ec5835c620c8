package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// jsonEvent is the JSON form of an Event. offset_ns is exact; offset_ms is
// the same instant in milliseconds for people reading the file.
type jsonEvent struct {
	OffsetNs  *int64   `json:"offset_ns,omitempty"`
	OffsetMs  *float64 `json:"offset_ms,omitempty"`
	Event     Kind     `json:"event"`
	Job       uint64   `json:"job"`
	JobID     string   `json:"job_id,omitempty"`
	Partition *int     `json:"partition,omitempty"`
	Device    *int     `json:"device,omitempty"`
	Worker    *int     `json:"worker,omitempty"`
	Detail    string   `json:"detail,omitempty"`
}

// MarshalJSON encodes e as
//
//	{"offset_ns":12345000,"offset_ms":12.345,"event":"GPU_START","job":1,
//	 "partition":3,"device":0,"worker":1,"detail":"text"}
//
// offset_ns is exact; offset_ms is rounded to microseconds; job_id (the
// string id of a Curio log, see Event.JobID) and detail are omitted when
// empty (invalid UTF-8 becomes U+FFFD, as encoding/json does). It fails
// for an undefined Kind.
func (e Event) MarshalJSON() ([]byte, error) {
	ns := int64(e.Offset)
	ms := float64(e.Offset/time.Microsecond) / 1000
	p, d, w := e.Partition, e.Device, e.Worker
	return json.Marshal(jsonEvent{
		OffsetNs: &ns, OffsetMs: &ms, Event: e.Kind, Job: e.Job, JobID: e.JobID,
		Partition: &p, Device: &d, Worker: &w, Detail: e.Detail,
	})
}

// UnmarshalJSON decodes the form written by MarshalJSON. "event" is
// required; the offset is taken from offset_ns, or from offset_ms (rounded to
// the nearest nanosecond) when offset_ns is absent; a missing partition,
// device or worker is -1.
func (e *Event) UnmarshalJSON(b []byte) error {
	var j jsonEvent
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("decode timeline event: %w", err)
	}
	if !j.Event.Valid() {
		return fmt.Errorf("decode timeline event: missing \"event\": %w", ErrMalformed)
	}
	var off time.Duration
	switch {
	case j.OffsetNs != nil:
		off = time.Duration(*j.OffsetNs)
	case j.OffsetMs != nil:
		v := *j.OffsetMs * float64(time.Millisecond)
		if math.IsNaN(v) || math.Abs(v) > math.MaxInt64/2 {
			return fmt.Errorf("decode timeline event: offset_ms %v out of range: %w", *j.OffsetMs, ErrMalformed)
		}
		off = time.Duration(math.Round(v))
	default:
		return fmt.Errorf("decode timeline event: missing offset_ns and offset_ms: %w", ErrMalformed)
	}
	orMinus1 := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	*e = Event{
		Offset: off, Kind: j.Event, Job: j.Job, JobID: j.JobID,
		Partition: orMinus1(j.Partition), Device: orMinus1(j.Device), Worker: orMinus1(j.Worker),
		Detail: j.Detail,
	}
	return nil
}

// JSONWriter is a Hook that writes each event as one JSON object per line
// (JSON Lines; see Event.MarshalJSON), one Write call per event, as the event
// arrives. It is safe for concurrent use. After the first error it drops
// further events; Err returns that error.
type JSONWriter struct {
	writerState
	w io.Writer
}

// NewJSONWriter returns a JSONWriter writing to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Event writes e as one JSON line.
func (jw *JSONWriter) Event(e Event) {
	b, merr := e.MarshalJSON()
	jw.mu.Lock()
	defer jw.mu.Unlock()
	if jw.err != nil {
		return
	}
	if merr != nil {
		jw.err = fmt.Errorf("encode timeline event %s job %d: %w", e.Kind, e.Job, merr)
		return
	}
	if _, err := jw.w.Write(append(b, '\n')); err != nil {
		jw.err = fmt.Errorf("write timeline JSON for %s job %d: %w", e.Kind, e.Job, err)
		return
	}
	jw.n++
}

// ParseJSONLines reads JSON Lines written by JSONWriter and returns the
// events in input order. Blank lines are skipped; a bad line yields a
// *ParseError with its 1-based line number.
func ParseJSONLines(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLineBytes)
	var events []Event
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Event
		if err := e.UnmarshalJSON(line); err != nil {
			return events, newParseError(n, string(line), err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("read timeline JSON line %d: %w", n+1, err)
	}
	return events, nil
}
