package timeline

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// capWriter fails once more than n bytes are written, so a runaway writer
// cannot fill the disk or the memory of a test.
type capWriter struct {
	buf bytes.Buffer
	n   int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.n {
		return 0, errors.New("output limit reached")
	}
	return c.buf.Write(p)
}

// finishes runs f and fails the test if it has not returned within a
// minute: a liveness check for code that used to loop forever, not a timing.
func finishes(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

// TestWriteSVGLargeOffset: one event at 1.1e9 ms used to stall the axis loop
// (v += step no longer advanced in float64) and write without end.
func TestWriteSVGLargeOffset(t *testing.T) {
	lg, err := ReadLog(strings.NewReader("TIMELINE,1100000000.000,JOB_DONE,1,p=-1 d=-1 w=-1 ok\n"))
	noErr(t, err)
	equal(t, len(lg.Events), 1, "events")
	w := &capWriter{n: 1 << 20}
	noErr(t, finishes(t, "WriteSVG", func() error { return WriteSVG(w, lg.Events) }))
	checkXML(t, w.buf.Bytes())
	equal(t, strings.Count(w.buf.String(), `text-anchor="middle"`), 1, "ticks over a one-instant span")
	if !strings.Contains(w.buf.String(), ">1100000000.000000<") {
		t.Errorf("the tick does not show the offset exactly:\n%s", w.buf.String())
	}
}

// TestWriteSVGExtremeOffsets: offsets at both ends of int64, whose difference
// overflows an int64, give a bounded, well-formed picture.
func TestWriteSVGExtremeOffsets(t *testing.T) {
	for _, c := range []struct{ a, b time.Duration }{
		{math.MinInt64, math.MaxInt64},
		{math.MaxInt64 - 1, math.MaxInt64},
		{math.MinInt64, math.MinInt64 + 3},
		{-5, 5},
	} {
		evs := []Event{
			{Offset: c.a, Kind: GPUStart, Job: 1, Device: 0, Worker: 0},
			{Offset: c.b, Kind: GPUEnd, Job: 1, Device: 0, Worker: 0},
		}
		w := &capWriter{n: 1 << 20}
		noErr(t, finishes(t, "WriteSVG", func() error { return WriteSVG(w, evs) }))
		checkXML(t, w.buf.Bytes())
		ticks := strings.Count(w.buf.String(), `text-anchor="middle"`)
		if ticks < 1 || ticks > svgMaxTicks {
			t.Errorf("%d..%d: %d ticks", c.a, c.b, ticks)
		}
		if strings.Contains(w.buf.String(), "NaN") || strings.Contains(w.buf.String(), "Inf") {
			t.Errorf("%d..%d: NaN or Inf in the SVG", c.a, c.b)
		}
		w.buf.Reset()
		noErr(t, WriteWaterfall(w, evs, 30, false))
		noErr(t, WriteChromeTrace(w, evs))
	}
}

// TestAxisTicks checks the integer tick positions and their labels.
func TestAxisTicks(t *testing.T) {
	equal(t, axisTicks(msd(1), msd(9), 2e6), []time.Duration{msd(2), msd(4), msd(6), msd(8)}, "2 ms steps in 1..9 ms")
	equal(t, axisTicks(-5, 5, 5), []time.Duration{-5, 0, 5}, "across zero")
	equal(t, axisTicks(-7, -1, 5), []time.Duration{-5}, "negative")
	equal(t, len(axisTicks(0, msd(1000), 1)), svgMaxTicks, "capped")
	equal(t, axisTicks(math.MaxInt64-2, math.MaxInt64, 1e9), []time.Duration(nil), "first multiple past int64")
	equal(t, axisTicks(math.MaxInt64-1, math.MaxInt64, 1), []time.Duration{math.MaxInt64 - 1, math.MaxInt64}, "up to MaxInt64")
}

// TestWriteSVGRowLimit: rows past svgMaxRows are counted, not drawn.
func TestWriteSVGRowLimit(t *testing.T) {
	var evs []Event
	for p := range svgMaxRows + 7 {
		evs = append(evs, timelineOf(gpuOnly(1, p, 0, 0, float64(p), float64(p)+0.5))...)
	}
	var buf bytes.Buffer
	noErr(t, WriteSVG(&buf, evs))
	elems, _ := checkXML(t, buf.Bytes())
	equal(t, elems["g"], 2+svgMaxRows, "legend, axis and the drawn rows")
	if !strings.Contains(buf.String(), "... 7 more partitions not drawn") {
		t.Error("SVG does not count the rows left out")
	}
}

// TestSVGLongLabel: a long job id is shortened in the row label.
func TestSVGLongLabel(t *testing.T) {
	id := strings.Repeat("é", 100)
	evs := []Event{
		{Offset: 0, Kind: GPUStart, Job: 1, JobID: id, Device: -1, Worker: 0},
		{Offset: 10, Kind: GPUEnd, Job: 1, JobID: id, Device: -1, Worker: 0},
	}
	var buf bytes.Buffer
	noErr(t, WriteSVG(&buf, evs))
	checkXML(t, buf.Bytes())
	want := ">" + strings.Repeat("é", 22) + "...<"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("SVG lacks the shortened label %q", want)
	}
}

// TestWriteWaterfallWidthLimit: a width past MaxWaterfallWidth is refused
// before anything is written.
func TestWriteWaterfallWidthLimit(t *testing.T) {
	evs := timelineOf(gpuOnly(1, 0, 0, 0, 0, 10))
	w := &capWriter{n: 1 << 20}
	err := WriteWaterfall(w, evs, 4000000000, false)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxWaterfallWidth)) {
		t.Errorf("width 4e9: error %v, want one naming the limit", err)
	}
	equal(t, w.buf.Len(), 0, "bytes written")
	noErr(t, WriteWaterfall(w, evs, MaxWaterfallWidth, false))
}
