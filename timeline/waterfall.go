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

// waterfallRow is one row of a waterfall: a partition or a job.
type waterfallRow struct {
	job         uint64
	part        int // -1 for a job row
	device      int // device of the first device region, -1 if none
	first, last time.Duration
	ivs         []Interval
}

func (r *waterfallRow) label() string {
	if r.part < 0 {
		return "job " + strconv.FormatUint(r.job, 10)
	}
	s := fmt.Sprintf("j%d p%d", r.job, r.part)
	if r.device >= 0 {
		s += fmt.Sprintf(" d%d", r.device)
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
			r = &waterfallRow{job: k.job, part: k.part, device: -1, first: e.Offset, last: e.Offset}
			rows[k] = r
		}
		r.first, r.last = min(r.first, e.Offset), max(r.last, e.Offset)
	}
	for _, iv := range ivs {
		k, ok := key(iv.Job, iv.Partition)
		if !ok || rows[k] == nil {
			continue
		}
		r := rows[k]
		r.ivs = append(r.ivs, iv)
		if iv.Stage == StageDevice && r.device < 0 && !byJob {
			r.device = iv.Device
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

// timeScale maps offsets in [t0, t0+span] to columns [0, width).
type timeScale struct {
	t0    time.Duration
	span  time.Duration
	width int
}

func (s timeScale) colStart(t time.Duration) int {
	c := int(math.Floor(float64(t-s.t0) * float64(s.width) / float64(s.span)))
	return max(0, min(c, s.width-1))
}

// colEnd returns the last column an interval ending at t covers.
func (s timeScale) colEnd(t time.Duration) int {
	c := int(math.Ceil(float64(t-s.t0)*float64(s.width)/float64(s.span))) - 1
	return max(0, min(c, s.width-1))
}

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
// partition (labelled "j<job> p<partition> d<device>"), or per job when byJob
// is true, sorted by first event. The x axis runs from the first to the last
// event, scaled to width columns (DefaultWaterfallWidth when width <= 0), so
// one column is (last-first)/width. A column shows 'G' if the row was in a
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
	sc := timeScale{t0: t0, span: max(t1-t0, 1), width: width}

	labelW := 0
	for _, r := range rows {
		labelW = max(labelW, len(r.label()))
	}
	pad := strings.Repeat(" ", labelW+1)
	fmt.Fprintf(bw, "waterfall: %s..%s ms, %d columns, 1 column = %s ms; S synthesis, G device, F finalize, . waiting\n",
		ms(t0), ms(t1), width, strconv.FormatFloat(float64(sc.span)/float64(width)/1e6, 'f', 3, 64))
	ruler := []byte(strings.Repeat("-", width))
	ticks := []byte(strings.Repeat(" ", width+12))
	for c := 0; c < width; c += 10 {
		ruler[c] = '+'
		t := t0 + time.Duration(float64(c)*float64(sc.span)/float64(width))
		label := strconv.FormatFloat(float64(t)/1e6, 'f', -1, 64)
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
