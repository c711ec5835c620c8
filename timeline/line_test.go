package timeline

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var oddDetails = []string{
	"",
	"plain",
	"a,b,,c,",
	",",
	"new\nline",
	"crlf\r\n",
	"\r",
	`back\slash`,
	`\n literally`,
	`\`,
	`ends in \`,
	"  leading and trailing  ",
	" ",
	"p=1 d=2 w=3",
	"TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0",
	"tab\there",
	"unicode ✓ ü",
	"nul\x00byte",
	"\xff\xfe invalid utf-8",
}

func TestFormatLineExact(t *testing.T) {
	e := Event{Offset: 12345678 * time.Microsecond / 1000, Kind: GPUStart, Job: 7, Partition: 3, Device: 0, Worker: 1, Detail: "msm, g1"}
	equal(t, FormatLine(e), "TIMELINE,12.345,GPU_START,7,p=3 d=0 w=1 msm, g1", "line")
	e = Event{Offset: 1500 * time.Millisecond, Kind: JobDone, Job: 2, Partition: -1, Device: -1, Worker: -1}
	equal(t, FormatLine(e), "TIMELINE,1500.000,JOB_DONE,2,p=-1 d=-1 w=-1", "line without text")
	e = Event{Offset: 3*time.Microsecond + 999, Kind: SynthStart, Partition: 0, Detail: "a\nb\\c\r"}
	equal(t, FormatLine(e), `TIMELINE,0.003,SYNTH_START,0,p=0 d=0 w=0 a\nb\\c\r`, "escaped line, offset truncated")
	e = Event{Offset: -2500 * time.Microsecond, Kind: SynthEnd, Partition: 1}
	equal(t, FormatLine(e), "TIMELINE,-2.500,SYNTH_END,0,p=1 d=0 w=0", "negative offset")
	e = Event{Offset: -999, Kind: SynthEnd}
	equal(t, FormatLine(e), "TIMELINE,0.000,SYNTH_END,0,p=0 d=0 w=0", "sub-microsecond negative offset truncates to 0")
}

func TestLineRoundTrip(t *testing.T) {
	var events []Event
	for i, d := range oddDetails {
		events = append(events, Event{
			Offset: time.Duration(i*1234567) * time.Microsecond, Kind: kinds()[i%10], Job: uint64(i) * 1e17,
			Partition: i - 2, Device: i%3 - 1, Worker: 1 - i%3, Detail: d,
		})
	}
	events = append(events,
		Event{Offset: -5 * time.Microsecond, Kind: ChanSend, Job: math.MaxUint64, Partition: math.MaxInt32, Device: math.MinInt32, Worker: 0},
		Event{Offset: time.Duration(math.MaxInt64/1000) * time.Microsecond, Kind: JobDone, Partition: -1, Device: -1, Worker: -1, Detail: "max offset"},
	)
	var buf bytes.Buffer
	lw := NewLineWriter(&buf)
	for _, e := range events {
		lw.Event(e)
	}
	noErr(t, lw.Err())
	equal(t, strings.Count(buf.String(), "\n"), len(events), "one line per event")
	got, err := ParseLines(&buf)
	noErr(t, err)
	equal(t, got, events, "round trip")

	// WriteLines writes the same bytes as the hook.
	var a, b bytes.Buffer
	noErr(t, WriteLines(&a, events))
	lw = NewLineWriter(&b)
	for _, e := range events {
		lw.Event(e)
	}
	equal(t, a.String(), b.String(), "WriteLines vs LineWriter")
}

func TestLineRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(",\\\n\r pdw=-0123456789abc\t\"'\x00\xff")
	for i := range 2000 {
		n := rng.IntN(12)
		d := make([]byte, n)
		for j := range d {
			d[j] = alphabet[rng.IntN(len(alphabet))]
		}
		e := Event{
			Offset: time.Duration(rng.Int64N(1e12)-1e11) * time.Microsecond,
			Kind:   Kind(1 + rng.IntN(10)), Job: rng.Uint64(),
			Partition: rng.IntN(2000) - 1, Device: rng.IntN(9) - 1, Worker: rng.IntN(3) - 1,
			Detail: string(d),
		}
		line := FormatLine(e)
		if strings.ContainsAny(line, "\n\r") {
			t.Fatalf("case %d: line %q contains a line break", i, line)
		}
		got, err := ParseLine(line)
		if err != nil {
			t.Fatalf("case %d: ParseLine(%q): %v", i, line, err)
		}
		if got != e {
			t.Fatalf("case %d: round trip of %q: got %+v, want %+v", i, line, got, e)
		}
	}
}

func TestParseLineOffsets(t *testing.T) {
	for _, c := range []struct {
		s    string
		want time.Duration
	}{
		{"0", 0}, {"0.000", 0}, {"1.5", 1500 * time.Microsecond}, {"12.345", 12345 * time.Microsecond},
		{"0.000001", time.Nanosecond}, {"-3.25", -3250 * time.Microsecond}, {"7", 7 * time.Millisecond},
	} {
		e, err := ParseLine("TIMELINE," + c.s + ",GPU_END,1,p=0 d=0 w=0")
		noErr(t, err)
		equal(t, e.Offset, c.want, "offset "+c.s)
	}
}

func TestParseLineForeignDetail(t *testing.T) {
	e, err := ParseLine("TIMELINE,1.000,JOB_DONE,3,done, ok \\n")
	noErr(t, err)
	equal(t, e, Event{Offset: time.Millisecond, Kind: JobDone, Job: 3, Partition: -1, Device: -1, Worker: -1, Detail: `done, ok \n`}, "event")
	e, err = ParseLine("TIMELINE,1.000,JOB_DONE,3,")
	noErr(t, err)
	equal(t, e.Detail, "", "empty detail")
}

func TestParseLinesErrors(t *testing.T) {
	good := "TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0 ok"
	for _, c := range []struct {
		name, line string
		want       error
	}{
		{"wrong prefix", "TIMELINES,1.000,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"lowercase prefix", "timeline,1.000,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"not a timeline line", "hello world", ErrMalformed},
		{"too few fields", "TIMELINE,1.000,GPU_START,1", ErrMalformed},
		{"empty offset", "TIMELINE,,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"two dots", "TIMELINE,1.2.3,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"letters in offset", "TIMELINE,1.0a0,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"trailing dot", "TIMELINE,1.,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"leading dot", "TIMELINE,.5,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"too many decimals", "TIMELINE,1.0000001,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"offset overflow", "TIMELINE,99999999999999999999,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"offset just past int64", "TIMELINE,9223372036854.775808,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"space in offset", "TIMELINE, 1.000,GPU_START,1,p=0 d=0 w=0", ErrMalformed},
		{"unknown kind", "TIMELINE,1.000,GPU_BEGIN,1,p=0 d=0 w=0", ErrUnknownKind},
		{"negative job", "TIMELINE,1.000,GPU_START,-1,p=0 d=0 w=0", ErrMalformed},
		{"empty job", "TIMELINE,1.000,GPU_START,,p=0 d=0 w=0", ErrMalformed},
		{"bad partition", "TIMELINE,1.000,GPU_START,1,p=x d=0 w=0", ErrMalformed},
		{"missing worker", "TIMELINE,1.000,GPU_START,1,p=0 d=0", ErrMalformed},
		{"missing device", "TIMELINE,1.000,GPU_START,1,p=0", ErrMalformed},
		{"fields out of order", "TIMELINE,1.000,GPU_START,1,p=0 w=0 d=0", ErrMalformed},
		{"double space", "TIMELINE,1.000,GPU_START,1,p=0  d=0 w=0", ErrMalformed},
		{"unknown escape", `TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0 bad \q escape`, ErrMalformed},
		{"lone backslash", `TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0 bad \`, ErrMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The bad line is line 4: good, blank (skipped but counted), good, bad, good.
			in := good + "\n\n" + good + "\n" + c.line + "\n" + good + "\n"
			evs, err := ParseLines(strings.NewReader(in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want *ParseError", err)
			}
			equal(t, pe.Line, 4, "line number")
			equal(t, pe.Text, c.line, "line text")
			if !errors.Is(err, c.want) {
				t.Errorf("error %v does not wrap %v", err, c.want)
			}
			if !strings.Contains(err.Error(), "line 4") {
				t.Errorf("error %q does not name line 4", err)
			}
			equal(t, len(evs), 2, "events before the bad line")
		})
	}
}

func TestParseLinesLongLine(t *testing.T) {
	in := "TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0 " + strings.Repeat("x", maxLineBytes+10) + "\n"
	if _, err := ParseLines(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("error = %v, want a read error naming line 1", err)
	}
}

func TestReadLogCuzk(t *testing.T) {
	in := "2024/01/01 starting engine\n" +
		"TIMELINE,1.000,SYNTH_START,1,p=0 d=-1 w=-1\n" +
		"some other output, with commas\n" +
		"TIMELINE,2.000,SYNTH_END,1,p=0 d=-1 w=-1\r\n"
	lg, err := ReadLog(strings.NewReader(in))
	noErr(t, err)
	equal(t, lg.Dialect, DialectCuzk, "dialect")
	equal(t, len(lg.Events), 2, "events")
	equal(t, lg.Events[1].Offset, 2*time.Millisecond, "offset of CRLF line")
	if _, err := ParseLines(strings.NewReader(in)); err == nil {
		t.Error("ParseLines accepted a foreign line")
	}
	// A malformed TIMELINE line is reported with its line number; the rest
	// is read.
	lg, err = ReadLog(strings.NewReader(in + "TIMELINE,x,SYNTH_END,1,p=0 d=-1 w=-1\n" + "TIMELINE,3.000,JOB_DONE,1,p=-1 d=-1 w=-1 ok\n"))
	noErr(t, err)
	equal(t, len(lg.Events), 3, "events around the bad line")
	equal(t, lg.Lines, 4, "TIMELINE lines")
	if len(lg.Bad) != 1 || lg.Bad[0].Line != 5 || !errors.Is(lg.Bad[0], ErrMalformed) {
		t.Errorf("Bad = %v, want one ErrMalformed at line 5", lg.Bad)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestLineWriterError(t *testing.T) {
	lw := NewLineWriter(&failWriter{n: 2})
	for range 5 {
		lw.Event(Event{Kind: GPUEnd})
	}
	equal(t, lw.Written(), 2, "written before the error")
	if err := lw.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Err() = %v, want the write error", err)
	}
	if err := WriteLines(&failWriter{}, []Event{{Kind: GPUEnd}}); err == nil {
		t.Error("WriteLines ignored a write error")
	}
}
