package timeline

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultWaterfallWidth is the number of time columns WriteWaterfall uses
// when width <= 0.
const DefaultWaterfallWidth = 100

// MaxWaterfallWidth is the largest width WriteWaterfall accepts.
const MaxWaterfallWidth = 10000

// waterfallRow is one row of a waterfall: a partition or a job.
type waterfallRow struct {
	job         uint64
	jobID       string
	part        int // -1 for a job row
	device      int // device of the first device region, -1 if none
	worker      int // worker of the first device region, -1 if none
	first, last time.Duration
	ivs         []Interval
}

// label names the row: "job <job>" for a job row, else "j<job> p<partition>"
// (the job's string id instead of j<job> when it has one) and " d<device>",
// or " w<worker>" when the device is not known.
func (r *waterfallRow) label() string {
	if r.part < 0 {
		return "job " + jobLabel(r.job, r.jobID)
	}
	s := fmt.Sprintf("%s p%d", jobTag(r.job, r.jobID), r.part)
	switch {
	case r.device >= 0:
		s += fmt.Sprintf(" d%d", r.device)
	case r.worker >= 0:
		s += fmt.Sprintf(" w%d", r.worker)
	}
	return s
}

// waterfallRows groups events and intervals into rows, sorted by first
// event, then job, then partition. Events without a partition (JOB_DONE)
// only belong to job rows.
func waterfallRows(events []Event, byJob bool) ([]*waterfallRow, []Interval) {
	ivs, _ := Intervals(events)
	rows := make(map[partKey]*waterfallRow)
	key := func(job uint64, part int) (partKey, bool) {
		if byJob {
			return partKey{job, -1}, true
		}
		return partKey{job, part}, part >= 0
	}
	for _, e := range events {
		k, ok := key(e.Job, e.Partition)
		if !ok {
			continue
		}
		r := rows[k]
		if r == nil {
			r = &waterfallRow{job: k.job, part: k.part, device: -1, worker: -1, first: e.Offset, last: e.Offset}
			rows[k] = r
		}
		r.first, r.last = min(r.first, e.Offset), max(r.last, e.Offset)
		if e.JobID != "" {
			r.jobID = e.JobID
		}
	}
	for _, iv := range ivs {
		k, ok := key(iv.Job, iv.Partition)
		if !ok || rows[k] == nil {
			continue
		}
		r := rows[k]
		r.ivs = append(r.ivs, iv)
		if iv.Stage == StageDevice && !byJob && r.device < 0 && r.worker < 0 {
			r.device = iv.Device
			if iv.Device < 0 {
				r.worker = iv.Worker
			}
		}
	}
	out := make([]*waterfallRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.first != b.first {
			return a.first < b.first
		}
		if a.job != b.job {
			return a.job < b.job
		}
		return a.part < b.part
	})
	return out, ivs
}

// timeScale maps offsets in [t0, t0+span] to columns [0, width). span is in
// nanoseconds as a float64, as the difference of two offsets may not fit in
// an int64.
type timeScale struct {
	t0    time.Duration
	span  float64
	width int
}

// col returns the column of t, clamped to [0, width-1], rounding with round.
func (s timeScale) col(t time.Duration, round func(float64) float64, shift float64) int {
	c := round((float64(t)-float64(s.t0))*float64(s.width)/s.span) + shift
	return int(max(0, min(c, float64(s.width-1))))
}

func (s timeScale) colStart(t time.Duration) int { return s.col(t, math.Floor, 0) }

// colEnd returns the last column an interval ending at t covers.
func (s timeScale) colEnd(t time.Duration) int { return s.col(t, math.Ceil, -1) }

var waterfallChar = [NumStages]byte{
	StageSynthesis:   'S',
	StageQueue:       '.',
	StagePreparation: '.',
	StageLockWait:    '.',
	StageDevice:      'G',
	StageFinalize:    'F',
}

// waterfallRank orders characters when stages share a column: the higher
// rank wins.
func waterfallRank(c byte) int {
	return strings.IndexByte(" .FSG", c)
}

// WriteWaterfall writes a text waterfall of the timeline: one row per
// partition (labelled "j<job> p<partition> d<device>", or w<worker> when the
// device is not known), or per job when byJob is true, sorted by first
// event. The x axis runs from the first to the last event, scaled to width
// columns (DefaultWaterfallWidth when width <= 0; more than
// MaxWaterfallWidth is an error), so one column is (last-first)/width. A column shows 'G' if the row was in a
// device region (GPU_START..GPU_END) during that column, else 'S' for
// synthesis, else 'F' for finalize, else '.' if it lies between the row's
// first and last event (queue, preparation, lock wait or any other
// waiting), else ' '. Any stage, however short, marks at least the column it
// starts in. The header gives the time range, the scale and a ruler with a
// '+' every 10 columns and the time in milliseconds at those marks.
func WriteWaterfall(w io.Writer, events []Event, width int, byJob bool) error {
	if width <= 0 {
		width = DefaultWaterfallWidth
	}
	if width > MaxWaterfallWidth {
		return fmt.Errorf("write waterfall: width %d is more than %d columns", width, MaxWaterfallWidth)
	}
	bw := bufio.NewWriter(w)
	if len(events) == 0 {
		fmt.Fprintln(bw, "waterfall: no events")
		return flushWaterfall(bw)
	}
	rows, _ := waterfallRows(events, byJob)
	t0, t1 := events[0].Offset, events[0].Offset
	for _, e := range events {
		t0, t1 = min(t0, e.Offset), max(t1, e.Offset)
	}
	sc := timeScale{t0: t0, span: max(float64(t1)-float64(t0), 1), width: width}

	labelW := 0
	for _, r := range rows {
		labelW = max(labelW, len(r.label()))
	}
	pad := strings.Repeat(" ", labelW+1)
	fmt.Fprintf(bw, "waterfall: %s..%s ms, %d columns, 1 column = %s ms; S synthesis, G device, F finalize, . waiting\n",
		ms(t0), ms(t1), width, strconv.FormatFloat(sc.span/float64(width)/1e6, 'f', 3, 64))
	ruler := []byte(strings.Repeat("-", width))
	ticks := []byte(strings.Repeat(" ", width+12))
	for c := 0; c < width; c += 10 {
		ruler[c] = '+'
		t := float64(t0) + math.Trunc(float64(c)*sc.span/float64(width))
		label := strconv.FormatFloat(t/1e6, 'f', -1, 64)
		if dot := strings.IndexByte(label, '.'); dot >= 0 && len(label)-dot > 2 {
			label = label[:dot+2] // one decimal is enough for a ruler
		}
		if c == 0 || ticks[c-1] == ' ' {
			copy(ticks[c:], label)
		}
	}
	fmt.Fprintf(bw, "%s%s\n%s%s\n", pad, ruler, pad, strings.TrimRight(string(ticks), " "))

	line := make([]byte, width)
	for _, r := range rows {
		for i := range line {
			line[i] = ' '
		}
		for c := sc.colStart(r.first); c <= max(sc.colEnd(r.last), sc.colStart(r.first)); c++ {
			line[c] = '.'
		}
		for _, iv := range r.ivs {
			ch := waterfallChar[iv.Stage]
			c1 := max(sc.colEnd(iv.End), sc.colStart(iv.Start))
			for c := sc.colStart(iv.Start); c <= c1; c++ {
				if waterfallRank(ch) > waterfallRank(line[c]) {
					line[c] = ch
				}
			}
		}
		fmt.Fprintf(bw, "%-*s %s\n", labelW, r.label(), strings.TrimRight(string(line), " "))
	}
	return flushWaterfall(bw)
}

func flushWaterfall(bw *bufio.Writer) error {
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write waterfall: %w", err)
	}
	return nil
}
