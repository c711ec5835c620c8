package timeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// lineSeeds are lines of both dialects, good and bad.
var lineSeeds = []string{
	"TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0",
	"TIMELINE,12.345,GPU_END,7,p=3 d=1 w=1 detail, with comma \\n and escapes \\\\",
	"TIMELINE,1100000000.000,JOB_DONE,1,p=-1 d=-1 w=-1 ok",
	"TIMELINE,-0.500,SYNTH_START,18446744073709551615,p=0 d=-1 w=-1",
	"TIMELINE,9223372036854.775807,LOCK_WAIT,1,p=0 d=0 w=0",
	"TIMELINE,1.000,JOB_DONE,3,done, ok",
	"TIMELINE,87698,SYNTH_START,ae003926,kind=porep-c2",
	"TIMELINE,4812,SYNTH_END,ae003926,partition=3,synth_ms=3812",
	"TIMELINE,4812,GPU_QUEUE,ae003926,monolithic",
	"TIMELINE,4812,CHAN_SEND,ae003926,",
	"TIMELINE,6927,GPU_END,ae003926,worker=1,partition=3,gpu_ms=2107",
	"TIMELINE,6927,GPU_END,5b0e7c1a-93d2-4f57-8e0b-2c61f0a4d9e3,worker=1,gpu_ms=2107,mem_gb=3",
	"TIMELINE,9400,GPU_RETRY,ae003926,worker=0",
	"TIMELINE,11000,GPU_START,ae003926,worker=",
	"TIMELINE,12400,GPU_END,5b0e",
	"2026-11-30T10:00:00Z INFO cuzk_core::engine: started",
	"",
}

// FuzzParseLine: ParseLine never panics, and what it accepts formats back to
// a line it parses to the same event (to the microsecond).
func FuzzParseLine(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, err := ParseLine(line)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnknownKind) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrUnknownKind", err)
			}
			return
		}
		back, err := ParseLine(FormatLine(e))
		if err != nil {
			t.Fatalf("ParseLine(FormatLine(%+v)) = %v", e, err)
		}
		e.Offset = e.Offset / time.Microsecond * time.Microsecond
		equal(t, back, e, "round trip")
	})
}

// FuzzReadLog: ReadLog reads any bytes in either dialect without failing;
// every TIMELINE line is accounted for, job ids map one to one to job
// numbers, and the analysis and every renderer accept the events.
func FuzzReadLog(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add(s + "\n")
	}
	f.Add(strings.Join(lineSeeds[:6], "\n"))
	f.Add(strings.Join(lineSeeds[6:], "\r\n"))
	for _, name := range []string{"testdata/curio-daemon.log"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		lg, err := ReadLog(strings.NewReader(in))
		if err != nil {
			t.Fatalf("ReadLog of a string failed: %v", err)
		}
		unknownKinds := 0
		for _, u := range lg.Unknown {
			if u.Line < 1 {
				t.Fatalf("unknown note without a line number: %v", u)
			}
			if errors.Is(u, ErrUnknownKind) {
				unknownKinds++
			}
		}
		for _, b := range lg.Bad {
			if b.Line < 1 || !errors.Is(b, ErrMalformed) {
				t.Fatalf("bad note %v: want a line number and ErrMalformed", b)
			}
		}
		if len(lg.Events)+len(lg.Bad)+unknownKinds != lg.Lines {
			t.Fatalf("%d events + %d bad + %d unknown events != %d lines", len(lg.Events), len(lg.Bad), unknownKinds, lg.Lines)
		}
		ids, jobs := map[string]uint64{}, map[uint64]string{}
		for _, e := range lg.Events {
			if lg.Dialect == DialectCuzk {
				if e.JobID != "" {
					t.Fatalf("cuzk dialect event with a job id: %+v", e)
				}
				continue
			}
			if j, ok := ids[e.JobID]; ok && j != e.Job {
				t.Fatalf("job id %q has numbers %d and %d", e.JobID, j, e.Job)
			}
			if id, ok := jobs[e.Job]; ok && id != e.JobID {
				t.Fatalf("job %d has ids %q and %q", e.Job, id, e.JobID)
			}
			ids[e.JobID], jobs[e.Job] = e.Job, e.JobID
		}
		render(t, lg.Events)
	})
}

// render runs the analysis and every renderer on events and checks that the
// output stays well formed and within a size linear in the input.
func render(t *testing.T, events []Event) {
	t.Helper()
	r := Analyze(events)
	limit := 1<<16 + 2048*len(events)
	for _, e := range events {
		limit += 4 * len(e.Detail)
	}
	w := &capWriter{n: limit}
	if err := r.WriteText(w); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	w.buf.Reset()
	if err := WriteWaterfall(w, events, 50, false); err != nil {
		t.Fatalf("WriteWaterfall: %v", err)
	}
	w.buf.Reset()
	if err := WriteChromeTrace(w, events); err != nil {
		t.Fatalf("WriteChromeTrace: %v", err)
	}
	w.buf.Reset()
	if err := WriteSVG(w, events); err != nil {
		t.Fatalf("WriteSVG: %v", err)
	}
	checkXML(t, w.buf.Bytes())
}

// FuzzWriteSVG builds events from raw bytes (any offsets, kinds, jobs,
// partitions, devices and workers) and checks that WriteSVG finishes with
// well-formed XML of bounded size, as the other renderers.
func FuzzWriteSVG(f *testing.F) {
	enc := func(evs ...Event) []byte {
		var b []byte
		for _, e := range evs {
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Offset))
			b = append(b, byte(e.Kind), byte(e.Job), byte(e.Partition), byte(e.Device), byte(e.Worker))
		}
		return b
	}
	f.Add(enc(Event{Offset: 1100000000 * time.Millisecond, Kind: JobDone, Job: 1, Partition: -1, Device: -1, Worker: -1}))
	f.Add(enc(Event{Offset: math.MinInt64, Kind: GPUStart}, Event{Offset: math.MaxInt64, Kind: GPUEnd}))
	f.Add(enc(pipeline()...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		const rec = 13
		var events []Event
		for len(data) >= rec && len(events) < 512 {
			events = append(events, Event{
				Offset:    time.Duration(binary.LittleEndian.Uint64(data)),
				Kind:      Kind(data[8] % 12),
				Job:       uint64(data[9] % 4),
				Partition: int(int8(data[10])) % 8,
				Device:    int(int8(data[11])) % 3,
				Worker:    int(int8(data[12])) % 3,
			})
			if data[9]&0x80 != 0 {
				events[len(events)-1].JobID = string(bytes.Repeat([]byte{'a' + data[9]%4}, int(data[10])))
			}
			data = data[rec:]
		}
		render(t, events)
	})
}
