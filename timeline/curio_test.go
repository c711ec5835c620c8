package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// readCurioLog reads testdata/curio-daemon.log (see testdata/README.md).
func readCurioLog(t *testing.T) *Log {
	t.Helper()
	f, err := os.Open("testdata/curio-daemon.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lg, err := ReadLog(f)
	noErr(t, err)
	return lg
}

const uuidB = "5b0e7c1a-93d2-4f57-8e0b-2c61f0a4d9e3"

// TestReadLogCurioDaemon checks the parse of the hand-written daemon log:
// dialect, job numbering, and every unread or unknown line by number.
func TestReadLogCurioDaemon(t *testing.T) {
	lg := readCurioLog(t)
	equal(t, lg.Dialect, DialectCurio, "dialect")
	equal(t, lg.Lines, 33, "TIMELINE lines")
	equal(t, len(lg.Events), 30, "events: 33 lines less 2 truncated and 1 unknown event")
	lineOf := func(ps []*ParseError) []int {
		var out []int
		for _, p := range ps {
			out = append(out, p.Line)
		}
		return out
	}
	equal(t, lineOf(lg.Bad), []int{34, 39}, "truncated lines")
	for _, b := range lg.Bad {
		if !errors.Is(b, ErrMalformed) {
			t.Errorf("bad line %d: %v does not wrap ErrMalformed", b.Line, b)
		}
	}
	equal(t, lineOf(lg.Unknown), []int{29, 37}, "unknown event and key")
	if !errors.Is(lg.Unknown[0], ErrUnknownKind) || !strings.Contains(lg.Unknown[0].Error(), "GPU_RETRY") {
		t.Errorf("unknown[0] = %v, want GPU_RETRY as ErrUnknownKind", lg.Unknown[0])
	}
	if !errors.Is(lg.Unknown[1], ErrUnknownKey) || !strings.Contains(lg.Unknown[1].Error(), `"mem_gb"`) {
		t.Errorf("unknown[1] = %v, want mem_gb as ErrUnknownKey", lg.Unknown[1])
	}
	// Jobs are numbered in order of first appearance and keep their ids.
	ids := map[uint64]string{}
	for _, e := range lg.Events {
		if old, ok := ids[e.Job]; ok && old != e.JobID {
			t.Fatalf("job %d has ids %q and %q", e.Job, old, e.JobID)
		}
		ids[e.Job] = e.JobID
	}
	equal(t, ids, map[uint64]string{1: "ae003926", 2: uuidB}, "job numbers")
	// The event with an unknown key is kept whole.
	last := lg.Events[len(lg.Events)-2]
	equal(t, last, Event{Offset: 12000 * time.Millisecond, Kind: GPUEnd, Job: 1, JobID: "ae003926",
		Partition: 3, Device: -1, Worker: 0, Detail: "worker=0,partition=3,gpu_ms=1700,mem_gb=12"}, "event with an unknown key")
}

// TestAnalyzeCurioDaemon checks the analysis of the hand-written daemon log
// against the values worked out by hand, per GPU worker.
func TestAnalyzeCurioDaemon(t *testing.T) {
	r := Analyze(readCurioLog(t).Events)
	equal(t, r.Unmatched, 0, "unmatched events")
	equal(t, r.Partitions, 5, "partitions: 4 of ae003926 and the monolithic job")
	equal(t, len(r.Devices), 2, "one entry per worker")
	// Worker 0: ae003926 p0 4820..6927, p2 8005..10005, p3 10300..12000.
	// Gap 6927..8005: p2 was queued at 8000, so synthesis (1073 ms before
	// the queue, 1 ms queued, 4 ms preparation). Gap 10005..10300: p3 was
	// queued at 9500 and picked up at 10006, so preparation.
	w0 := DeviceStats{
		Device: -1, Worker: 0, Regions: 3,
		First: msd(4820), Last: msd(12000), Busy: msd(2107 + 2000 + 1700), Span: msd(12000 - 4820),
		Utilization:   5807.0 / 7180.0,
		SteadyRegions: 1, SteadyBusy: msd(2000), SteadySpan: msd(2000), SteadyUtilization: 1,
		Gaps: 2, GapTotal: msd(1078 + 295), GapBuckets: [NumGapBuckets]int{0, 0, 1, 1},
		CauseCount: [NumGapCauses]int{GapSynthesis: 1, GapPreparation: 1},
		CauseTime:  [NumGapCauses]time.Duration{GapSynthesis: msd(1078), GapPreparation: msd(295)},
		TopGaps: []Gap{
			{Device: -1, Start: msd(6927), End: msd(8005), Cause: GapSynthesis, Job: 1, JobID: "ae003926", Partition: 2, Worker: 0,
				Breakdown: [NumStages]time.Duration{StageSynthesis: msd(1073), StageQueue: msd(1), StagePreparation: msd(4)}},
			{Device: -1, Start: msd(10005), End: msd(10300), Cause: GapPreparation, Job: 1, JobID: "ae003926", Partition: 3, Worker: 0,
				Breakdown: [NumStages]time.Duration{StageQueue: msd(1), StagePreparation: msd(294)}},
		},
	}
	equal(t, r.Devices[0], w0, "worker 0")
	// Worker 1: ae003926 p1 5010..7010, the monolithic job 9300..12300,
	// queued at 9000 (synthesis), picked up at 9100.
	w1 := DeviceStats{
		Device: -1, Worker: 1, Regions: 2,
		First: msd(5010), Last: msd(12300), Busy: msd(5000), Span: msd(12300 - 5010),
		Utilization: 5000.0 / 7290.0,
		Gaps:        1, GapTotal: msd(2290), GapBuckets: [NumGapBuckets]int{0, 0, 0, 1},
		CauseCount: [NumGapCauses]int{GapSynthesis: 1},
		CauseTime:  [NumGapCauses]time.Duration{GapSynthesis: msd(2290)},
		TopGaps: []Gap{{Device: -1, Start: msd(7010), End: msd(9300), Cause: GapSynthesis, Job: 2, JobID: uuidB, Partition: 0, Worker: 1,
			Breakdown: [NumStages]time.Duration{StageSynthesis: msd(1990), StageQueue: msd(100), StagePreparation: msd(200)}}},
	}
	equal(t, r.Devices[1], w1, "worker 1")
	if _, ok := r.Device(-1); ok {
		t.Error("Device(-1) found a device although the log names none")
	}

	synth := r.Stages[StageSynthesis]
	equal(t, [3]any{synth.Count, synth.Mean, synth.Max}, [3]any{5, msd(3700), msd(4500)}, "synthesis stats")
	dev := r.Stages[StageDevice]
	equal(t, [3]any{dev.Count, dev.Total, dev.Min}, [3]any{5, msd(2107 + 2000 + 2000 + 1700 + 3000), msd(1700)}, "device stats")
	equal(t, r.Stages[StageQueue].Count, 5, "queue intervals (GPU_QUEUE..GPU_PICKUP)")
	equal(t, r.Stages[StagePreparation].Count, 5, "preparation intervals (GPU_PICKUP..GPU_START)")
	equal(t, r.Stages[StageLockWait].Count+r.Stages[StageFinalize].Count, 0, "no lock wait or finalize events")

	text := r.String()
	for _, want := range []string{
		"worker 0 (device not in the log): 3 regions, busy 5807.000 ms of span 7180.000 ms = 80.9% utilization",
		"worker 1 (device not in the log): 2 regions, busy 5000.000 ms of span 7290.000 ms = 68.6% utilization",
		"1078.000 ms at 6927.000..8005.000 ms before job ae003926 partition 2 (worker 0): synthesis",
		"295.000 ms at 10005.000..10300.000 ms before job ae003926 partition 3 (worker 0): preparation",
		"before job " + uuidB + " partition 0 (worker 1): synthesis",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

// TestRenderCurioDaemon draws the daemon log: waterfall rows, SVG rows and
// the Perfetto trace name the jobs by their ids and the workers.
func TestRenderCurioDaemon(t *testing.T) {
	evs := readCurioLog(t).Events
	var buf bytes.Buffer
	noErr(t, WriteWaterfall(&buf, evs, 50, false))
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	equal(t, len(lines), 3+5, "header and 5 partition rows")
	for i, want := range []string{"ae003926 p0 w0", "ae003926 p1 w1", "ae003926 p2 w0", "ae003926 p3 w0", uuidB + " p0 w1"} {
		if !strings.HasPrefix(lines[3+i], want+" ") {
			t.Errorf("row %d = %q, want label %q", i, lines[3+i], want)
		}
	}

	buf.Reset()
	noErr(t, WriteSVG(&buf, evs))
	elems, _ := checkXML(t, buf.Bytes())
	equal(t, elems["g"], 2+5, "legend, axis and 5 rows")
	if !strings.Contains(buf.String(), ">"+uuidB+" p0 w1<") {
		t.Error("SVG lacks the monolithic job's row")
	}

	buf.Reset()
	noErr(t, WriteChromeTrace(&buf, evs))
	var tr chromeFile
	noErr(t, json.Unmarshal(buf.Bytes(), &tr))
	procs := map[int]string{}
	devices := map[string]int{} // device slice name -> tid
	for _, e := range tr.TraceEvents {
		if e.Name == "process_name" {
			procs[e.Pid] = e.Args["name"].(string)
		}
		if e.Cat == "device" {
			devices[e.Name] = e.Tid
			equal(t, e.Pid, 1, "pid of a worker of an unnamed device")
		}
	}
	equal(t, procs, map[int]string{0: "synthesis", 1: "GPU workers"}, "processes")
	equal(t, devices, map[string]int{"device ae003926 p0": 0, "device ae003926 p1": 1, "device ae003926 p2": 0,
		"device ae003926 p3": 0, "device " + uuidB + " p0": 1}, "device slices per worker")
}

// TestReadLogCurioForms reads every event and detail form engine.rs writes.
func TestReadLogCurioForms(t *testing.T) {
	ev := func(ms float64, k Kind, part, worker int, detail string) Event {
		return Event{Offset: msd(ms), Kind: k, Job: 1, JobID: "ae003926", Partition: part, Device: -1, Worker: worker, Detail: detail}
	}
	for _, c := range []struct {
		line string
		want Event
	}{
		{"TIMELINE,87698,SYNTH_START,ae003926,kind=porep-c2", ev(87698, SynthStart, 0, -1, "kind=porep-c2")},
		{"TIMELINE,1,SYNTH_START,ae003926,partition=3", ev(1, SynthStart, 3, -1, "partition=3")},
		{"TIMELINE,2,SYNTH_END,ae003926,partition=3,synth_ms=3812", ev(2, SynthEnd, 3, -1, "partition=3,synth_ms=3812")},
		{"TIMELINE,2,SYNTH_END,ae003926,synth_ms=3812", ev(2, SynthEnd, 0, -1, "synth_ms=3812")},
		{"TIMELINE,3,GPU_QUEUE,ae003926,partition=3", ev(3, ChanSend, 3, -1, "partition=3")},
		{"TIMELINE,3,GPU_QUEUE,ae003926,monolithic", ev(3, ChanSend, 0, -1, "monolithic")},
		{"TIMELINE,3,CHAN_SEND,ae003926,partition=3", ev(3, ChanSend, 3, -1, "partition=3")},
		{"TIMELINE,3,CHAN_SEND,ae003926,", ev(3, ChanSend, 0, -1, "")},
		{"TIMELINE,4,GPU_PICKUP,ae003926,worker=1,partition=3", ev(4, GPUPickup, 3, 1, "worker=1,partition=3")},
		{"TIMELINE,4,GPU_PICKUP,ae003926,worker=1", ev(4, GPUPickup, 0, 1, "worker=1")},
		{"TIMELINE,5,GPU_START,ae003926,worker=1,partition=3", ev(5, GPUStart, 3, 1, "worker=1,partition=3")},
		{"TIMELINE,5,GPU_START,ae003926,worker=1", ev(5, GPUStart, 0, 1, "worker=1")},
		{"TIMELINE,6,GPU_END,ae003926,worker=1,partition=3,gpu_ms=2107", ev(6, GPUEnd, 3, 1, "worker=1,partition=3,gpu_ms=2107")},
		{"TIMELINE,6,GPU_END,ae003926,worker=1,gpu_ms=2107", ev(6, GPUEnd, 0, 1, "worker=1,gpu_ms=2107")},
		{"TIMELINE,6.25,GPU_END,ae003926,gpu_ms=2107,partition=3,worker=1", ev(6.25, GPUEnd, 3, 1, "gpu_ms=2107,partition=3,worker=1")},
	} {
		lg, err := ReadLog(strings.NewReader("some tracing line\n" + c.line + "\n"))
		noErr(t, err)
		if len(lg.Bad)+len(lg.Unknown) != 0 || len(lg.Events) != 1 {
			t.Errorf("%s: bad %v, unknown %v, %d events", c.line, lg.Bad, lg.Unknown, len(lg.Events))
			continue
		}
		equal(t, lg.Dialect, DialectCurio, c.line)
		equal(t, lg.Events[0], c.want, c.line)
	}
}

// TestReadLogCurioErrors: each bad line is reported with its number and the
// lines around it are read; an unknown word or key keeps the event.
func TestReadLogCurioErrors(t *testing.T) {
	good := "TIMELINE,1,GPU_START,ae003926,worker=0,partition=0"
	for _, c := range []struct {
		name, line string
		want       error
		kept       bool // the event is still read
	}{
		{"three fields", "TIMELINE,87698,SYNTH_STA", ErrMalformed, false},
		{"four fields", "TIMELINE,87698,SYNTH_START,ae0039", ErrMalformed, false},
		{"value cut", "TIMELINE,87698,GPU_END,ae003926,worker=1,partition=", ErrMalformed, false},
		{"key cut", "TIMELINE,87698,GPU_END,ae003926,worker=1,parti", ErrMalformed, false},
		{"trailing comma", "TIMELINE,87698,GPU_END,ae003926,worker=1,", ErrMalformed, false},
		{"bad offset", "TIMELINE,87x698,GPU_END,ae003926,worker=1", ErrMalformed, false},
		{"empty job", "TIMELINE,87698,GPU_END,,worker=1", ErrMalformed, false},
		{"space in job", "TIMELINE,87698,GPU_END,ae 003926,worker=1", ErrMalformed, false},
		{"negative worker", "TIMELINE,87698,GPU_END,ae003926,worker=-1", ErrMalformed, false},
		{"huge partition", "TIMELINE,87698,GPU_END,ae003926,partition=99999999999", ErrMalformed, false},
		{"key twice", "TIMELINE,87698,GPU_END,ae003926,worker=1,worker=2", ErrMalformed, false},
		{"cuzk line in a curio log", "TIMELINE,1.000,GPU_START,1,p=0 d=0 w=0", ErrMalformed, false},
		{"unknown event", "TIMELINE,87698,GPU_WARMUP,ae003926,worker=1", ErrUnknownKind, false},
		{"unknown key", "TIMELINE,87698,GPU_END,ae003926,worker=1,vram_mb=900", ErrUnknownKey, true},
		{"unknown word", "TIMELINE,87698,GPU_QUEUE,ae003926,batched", ErrUnknownKey, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := good + "\nINFO other output\n" + good + "\n" + c.line + "\n" + good + "\n"
			lg, err := ReadLog(strings.NewReader(in))
			noErr(t, err)
			notes := lg.Bad
			if c.want != ErrMalformed {
				notes = lg.Unknown
			}
			if len(notes) != 1 {
				t.Fatalf("bad %v, unknown %v: want one note", lg.Bad, lg.Unknown)
			}
			equal(t, notes[0].Line, 4, "line number")
			equal(t, notes[0].Text, c.line, "line text")
			if !errors.Is(notes[0], c.want) {
				t.Errorf("%v does not wrap %v", notes[0], c.want)
			}
			want := 3
			if c.kept {
				want = 4
			}
			equal(t, len(lg.Events), want, "events read")
		})
	}
}

// TestReadLogLongLines: an over-long TIMELINE line is reported, an
// over-long other line skipped, and reading goes on.
func TestReadLogLongLines(t *testing.T) {
	good := "TIMELINE,1,GPU_START,ae003926,worker=0,partition=0\n"
	long := strings.Repeat("x", maxLineBytes+100)
	in := good + "TIMELINE,2,GPU_END,ae003926,worker=0,partition=0," + long + "\n" + long + "\n" + good
	lg, err := ReadLog(strings.NewReader(in))
	noErr(t, err)
	equal(t, len(lg.Events), 2, "events")
	if len(lg.Bad) != 1 || lg.Bad[0].Line != 2 || !strings.Contains(lg.Bad[0].Error(), "longer than") {
		t.Errorf("Bad = %v, want line 2 too long", lg.Bad)
	}
	lg, err = ReadLog(strings.NewReader(""))
	noErr(t, err)
	equal(t, [3]int{lg.Lines, len(lg.Events), len(lg.Bad)}, [3]int{0, 0, 0}, "empty log")
}

// TestReadLogPrefixed: TIMELINE records after a journalctl-style prefix are
// read; a TIMELINE inside a word is not a record.
func TestReadLogPrefixed(t *testing.T) {
	in := "Nov 30 10:00:01 host cuzk-daemon[812]: TIMELINE,1000,GPU_START,ae003926,worker=0,partition=1\n" +
		"Nov 30 10:00:02 host cuzk-daemon[812]:\tTIMELINE,3000,GPU_END,ae003926,worker=0,partition=1,gpu_ms=2000\n" +
		"Nov 30 10:00:02 host cuzk-daemon[812]: NOTATIMELINE,3000,GPU_END,ae003926,worker=0\n"
	lg, err := ReadLog(strings.NewReader(in))
	noErr(t, err)
	equal(t, lg.Lines, 2, "TIMELINE lines")
	equal(t, len(lg.Events), 2, "events")
	r := Analyze(lg.Events)
	equal(t, len(r.Devices), 1, "one worker")
	equal(t, r.Devices[0].Busy, msd(2000), "busy")
}
