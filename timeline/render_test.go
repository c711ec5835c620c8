package timeline

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// pipeline is a small realistic timeline: job 1 with three partitions on
// device 0 (workers 0 and 1), overlapping synthesis, and JOB_DONE.
func pipeline() []Event {
	evs := timelineOf(
		life{1, 0, 0, 0, 0, 100, 100, 100, 110, 110, 200, 200, 230},
		life{1, 1, 0, 1, 50, 150, 150, 150, 160, 200, 290, 290, 320},
		life{1, 2, 0, 0, 100, 240, 240, 240, 250, 290, 380, 380, 400},
	)
	evs[3].Detail = `odd "detail" <&> , with comma`
	return append(evs, jobDone(1, 400))
}

type chromeFile struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Cat  string         `json:"cat"`
		Ph   string         `json:"ph"`
		Ts   float64        `json:"ts"`
		Dur  *float64       `json:"dur"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		S    string         `json:"s"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string `json:"displayTimeUnit"`
}

func TestWriteChromeTrace(t *testing.T) {
	var buf bytes.Buffer
	noErr(t, WriteChromeTrace(&buf, pipeline()))
	var f chromeFile
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatalf("chrome trace is not JSON: %v\n%s", err, buf.String())
	}
	count := map[string]int{}
	cats := map[string]int{}
	for _, e := range f.TraceEvents {
		count[e.Ph]++
		if e.Ph == "X" {
			cats[e.Cat]++
			if e.Dur == nil {
				t.Errorf("X event %q without dur", e.Name)
			}
		}
	}
	// 3 partitions × 5 stages (synthesis, preparation, lock wait, device,
	// finalize); 3 CHAN_SEND + 1 JOB_DONE; processes synthesis and device 0,
	// threads: 2 synthesis lanes (p0 0..100 and p1 50..150 overlap; p2
	// starts at 100 and reuses p0's lane) and 2 workers, each with a name
	// and sort index.
	equal(t, count["X"], 15, "complete events")
	equal(t, count["i"], 4, "instant events")
	equal(t, count["M"], 2*2+2*(2+2), "metadata events")
	equal(t, len(f.TraceEvents), 15+4+12, "all events")
	for _, c := range []string{"synthesis", "preparation", "lock wait", "device", "finalize"} {
		equal(t, cats[c], 3, "category "+c)
	}
	for _, e := range f.TraceEvents {
		switch {
		case e.Ph == "X" && e.Cat == "device" && e.Args["partition"] == 1.0:
			equal(t, [4]float64{e.Ts, *e.Dur, float64(e.Pid), float64(e.Tid)}, [4]float64{200000, 90000, 1, 1}, "device event of p1 (µs, pid, tid)")
			equal(t, e.Name, "device j1 p1", "name")
		case e.Ph == "X" && e.Cat == "synthesis":
			equal(t, e.Pid, chromeSynthesisPid, "synthesis pid")
		case e.Ph == "i" && strings.HasPrefix(e.Name, "JOB_DONE"):
			equal(t, [2]any{e.Ts, e.S}, [2]any{400000.0, "g"}, "JOB_DONE")
		case e.Ph == "M" && e.Name == "process_name" && e.Pid == 1:
			equal(t, e.Args["name"], any("device 0"), "device process name")
		case e.Ph == "X" && e.Cat == "preparation" && e.Args["partition"] == 0.0:
			equal(t, e.Args["detail"], any(`odd "detail" <&> , with comma`), "detail survives")
		}
	}
	// No two synthesis slices on one lane overlap.
	type span struct{ s, e float64 }
	lanes := map[int][]span{}
	for _, e := range f.TraceEvents {
		if e.Ph == "X" && e.Pid == chromeSynthesisPid {
			for _, o := range lanes[e.Tid] {
				if e.Ts < o.e && o.s < e.Ts+*e.Dur {
					t.Errorf("synthesis slices overlap on lane %d", e.Tid)
				}
			}
			lanes[e.Tid] = append(lanes[e.Tid], span{e.Ts, e.Ts + *e.Dur})
		}
	}
	equal(t, len(lanes), 2, "synthesis lanes")

	buf.Reset()
	noErr(t, WriteChromeTrace(&buf, nil))
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil || len(f.TraceEvents) != 0 {
		t.Errorf("empty trace: %v %s", err, buf.String())
	}
	if err := WriteChromeTrace(&failWriter{}, pipeline()); err == nil {
		t.Error("WriteChromeTrace ignored a write error")
	}
}

// checkXML decodes every token of an SVG and returns the counts of start
// elements by name and the fill of every rect.
func checkXML(t *testing.T, b []byte) (map[string]int, []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	elems := map[string]int{}
	var fills []string
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, b)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				equal(t, v.Name.Local, "svg", "root element")
				equal(t, v.Name.Space, "http://www.w3.org/2000/svg", "namespace")
			}
			depth++
			elems[v.Name.Local]++
			if v.Name.Local == "rect" {
				for _, a := range v.Attr {
					if a.Name.Local == "fill" {
						fills = append(fills, a.Value)
					}
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	equal(t, roots, 1, "one root element")
	return elems, fills
}

func TestWriteSVG(t *testing.T) {
	var buf bytes.Buffer
	evs := pipeline()
	evs[0].Detail = "bad \x01 control, <tag> & \"quote\""
	noErr(t, WriteSVG(&buf, evs))
	elems, fills := checkXML(t, buf.Bytes())
	perStage := map[string]int{}
	for _, f := range fills {
		perStage[f]++
	}
	// Each stage color: one legend swatch plus one bar per partition.
	for s := range NumStages {
		equal(t, perStage[stageColors[s]], 1+3, "rects of "+Stage(s).String())
	}
	equal(t, elems["g"], 2+3, "legend, axis and one group per row")
	for _, want := range []string{">synthesis<", ">lock wait<", ">ms<", ">j1 p0 d0<", ">j1 p2 d0<", ">400<"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}

	buf.Reset()
	noErr(t, WriteSVG(&buf, nil))
	checkXML(t, buf.Bytes())
	if err := WriteSVG(&failWriter{}, evs); err == nil {
		t.Error("WriteSVG ignored a write error")
	}
	equal(t, niceStep(400e6, 10), int64(50e6), "nice step 400 ms/10")
	equal(t, niceStep(0.37e6, 10), int64(50e3), "nice step 0.37 ms/10")
	equal(t, niceStep(0, 10), int64(1), "nice step of an empty span")
	equal(t, formatTick(150e3, 50e3), "0.15", "tick label")
	equal(t, formatTick(-2e6, 1e6), "-2", "negative tick label")
	equal(t, formatTick(1, 1), "0.000001", "1 ns tick label")
}

func TestWriteWaterfall(t *testing.T) {
	// Synthesis 0..100, waiting, device 200..300, finalize 300..400 on a
	// 40-column axis: 10 ms per column.
	evs := timelineOf(life{1, 0, 0, 0, 0, 100, 100, 150, 190, 200, 300, 300, 400})
	var buf bytes.Buffer
	noErr(t, WriteWaterfall(&buf, evs, 40, false))
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	equal(t, len(lines), 4, "header (3 lines) and one row")
	if !strings.Contains(lines[0], "0.000..400.000 ms, 40 columns, 1 column = 10.000 ms") {
		t.Errorf("header %q", lines[0])
	}
	equal(t, lines[1], "         +---------+---------+---------+---------", "ruler")
	equal(t, lines[2], "         0         100       200       300", "ticks")
	equal(t, lines[3], "j1 p0 d0 "+strings.Repeat("S", 10)+strings.Repeat(".", 10)+strings.Repeat("G", 10)+strings.Repeat("F", 10), "row")

	// Per partition and per job, with a second partition and JOB_DONE at
	// 800 (axis 0..800, 20 ms per column).
	evs = append(evs, timelineOf(life{1, 1, 0, 1, 400, 500, 500, 500, 500, 500, 700, 700, 780})...)
	evs = append(evs, jobDone(1, 800))
	buf.Reset()
	noErr(t, WriteWaterfall(&buf, evs, 40, false))
	lines = strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	equal(t, len(lines), 5, "two partition rows")
	equal(t, lines[3], "j1 p0 d0 SSSSS.....GGGGGFFFFF", "row p0 (trailing blanks trimmed)")
	equal(t, lines[4], "j1 p1 d0                     SSSSSGGGGGGGGGGFFFF", "row p1")
	buf.Reset()
	noErr(t, WriteWaterfall(&buf, evs, 40, true))
	lines = strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	equal(t, len(lines), 4, "one job row")
	equal(t, lines[3], "job 1 SSSSS.....GGGGGFFFFFSSSSSGGGGGGGGGGFFFF.", "job row")

	// A column shared by two stages shows the higher one: G > S > F > '.'.
	evs = timelineOf(life{1, 0, 0, 0, 0, 105, 105, 105, 105, 105, 195, 195, 200})
	buf.Reset()
	noErr(t, WriteWaterfall(&buf, evs, 20, false))
	lines = strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	equal(t, lines[3], "j1 p0 d0 SSSSSSSSSSGGGGGGGGGG", "shared columns")

	// A stage shorter than a column still shows.
	evs = timelineOf(gpuOnly(1, 0, 0, 0, 0, 0.001), gpuOnly(1, 1, 0, 0, 999, 1000))
	buf.Reset()
	noErr(t, WriteWaterfall(&buf, evs, 0, false))
	lines = strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	equal(t, lines[3], "j1 p0 d0 G", "short region")
	equal(t, lines[4], "j1 p1 d0 "+strings.Repeat(" ", DefaultWaterfallWidth-1)+"G", "default width")

	buf.Reset()
	noErr(t, WriteWaterfall(&buf, nil, 10, false))
	equal(t, buf.String(), "waterfall: no events\n", "empty")
	if err := WriteWaterfall(&failWriter{}, evs, 10, false); err == nil {
		t.Error("WriteWaterfall ignored a write error")
	}
}
