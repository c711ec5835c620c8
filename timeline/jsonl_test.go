package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJSONLinesRoundTrip(t *testing.T) {
	var events []Event
	for i, d := range oddDetails {
		events = append(events, Event{
			Offset: time.Duration(i*1234567+i) - 3, Kind: kinds()[i%10], Job: uint64(i) << 40,
			Partition: i - 2, Device: i%3 - 1, Worker: 1 - i%3, Detail: strings.ToValidUTF8(d, "?"),
		})
	}
	var buf bytes.Buffer
	jw := NewJSONWriter(&buf)
	for _, e := range events {
		jw.Event(e)
	}
	noErr(t, jw.Err())
	equal(t, jw.Written(), len(events), "written")
	equal(t, strings.Count(buf.String(), "\n"), len(events), "one line per event")
	got, err := ParseJSONLines(&buf)
	noErr(t, err)
	equal(t, got, events, "round trip (nanosecond offsets)")
}

func TestJSONShape(t *testing.T) {
	b, err := json.Marshal(Event{Offset: 12345678, Kind: GPUStart, Job: 1, Partition: 3, Device: 0, Worker: 1, Detail: "x"})
	noErr(t, err)
	equal(t, string(b), `{"offset_ns":12345678,"offset_ms":12.345,"event":"GPU_START","job":1,"partition":3,"device":0,"worker":1,"detail":"x"}`, "json")

	var e Event
	noErr(t, json.Unmarshal([]byte(`{"offset_ms":1.5,"event":"JOB_DONE","job":4}`), &e))
	equal(t, e, Event{Offset: 1500 * time.Microsecond, Kind: JobDone, Job: 4, Partition: -1, Device: -1, Worker: -1}, "defaults")

	if _, err := json.Marshal(Event{Kind: 0}); err == nil {
		t.Error("marshalled an event with Kind 0")
	}
}

func TestParseJSONLinesErrors(t *testing.T) {
	good := `{"offset_ns":1,"event":"GPU_END","job":1}`
	for _, c := range []struct{ name, line string }{
		{"not json", `hello`},
		{"unknown kind", `{"offset_ns":1,"event":"GPU","job":1}`},
		{"missing kind", `{"offset_ns":1,"job":1}`},
		{"missing offset", `{"event":"GPU_END","job":1}`},
		{"bad job", `{"offset_ns":1,"event":"GPU_END","job":-1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseJSONLines(strings.NewReader(good + "\n\n" + c.line + "\n"))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 3 {
				t.Fatalf("error = %v, want *ParseError at line 3", err)
			}
		})
	}
	jw := NewJSONWriter(&failWriter{})
	jw.Event(Event{Kind: GPUEnd})
	if jw.Err() == nil {
		t.Error("JSONWriter ignored a write error")
	}
	jw = NewJSONWriter(&bytes.Buffer{})
	jw.Event(Event{})
	if jw.Err() == nil {
		t.Error("JSONWriter accepted Kind 0")
	}
}
