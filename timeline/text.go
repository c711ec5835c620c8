package timeline

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// ms formats d in milliseconds with three decimals.
func ms(d time.Duration) string { return string(appendMillis(nil, d)) }

// jobTag names a job in row labels and trace names: "j<job>", or its string
// id when the log has one.
func jobTag(job uint64, id string) string {
	if id != "" {
		return id
	}
	return "j" + strconv.FormatUint(job, 10)
}

// jobLabel names a job in reports: its string id when the log has one,
// else its number.
func jobLabel(job uint64, id string) string {
	if id != "" {
		return id
	}
	return strconv.FormatUint(job, 10)
}

// WriteText writes the report as a human-readable summary: per device the
// utilization (overall and steady state), overlap count, gap histogram, gap
// causes and largest gaps, then a table of stage and job durations. All
// times are in milliseconds.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("timeline: %d events, %d jobs done, %d partitions, offsets %s..%s ms\n",
		r.Events, len(r.Jobs), r.Partitions, ms(r.First), ms(r.Last))
	if r.Windowed {
		ew.printf("window: %s..%s ms (%s ms)\n", ms(r.From), ms(r.To), ms(r.To-r.From))
	}
	if r.Unmatched > 0 {
		ew.printf("warning: %d start/end events without a partner (truncated or inconsistent timeline)\n", r.Unmatched)
	}
	if len(r.Devices) == 0 {
		ew.printf("no device regions (GPU_START..GPU_END)\n")
	}
	for _, d := range r.Devices {
		name := fmt.Sprintf("device %d", d.Device)
		if d.Device < 0 {
			name = fmt.Sprintf("worker %d (device not in the log)", d.Worker)
		}
		ew.printf("\n%s: %d regions, busy %s ms of span %s ms = %.1f%% utilization\n",
			name, d.Regions, ms(d.Busy), ms(d.Span), 100*d.Utilization)
		if d.SteadyRegions > 0 {
			ew.printf("  steady state (without first and last region): %d regions, busy %s ms of %s ms = %.1f%%\n",
				d.SteadyRegions, ms(d.SteadyBusy), ms(d.SteadySpan), 100*d.SteadyUtilization)
		}
		ew.printf("  overlapping region pairs: %d\n", d.Overlaps)
		ew.printf("  gaps: %d, total %s ms;", d.Gaps, ms(d.GapTotal))
		for i, n := range d.GapBuckets {
			ew.printf(" %s: %d", gapBucketLabels[i], n)
		}
		ew.printf("\n  gap causes:")
		for c := range NumGapCauses {
			ew.printf(" %s %d (%s ms)", GapCause(c), d.CauseCount[c], ms(d.CauseTime[c]))
		}
		ew.printf("\n")
		if len(d.TopGaps) > 0 {
			ew.printf("  largest gaps:\n")
		}
		for _, g := range d.TopGaps {
			ew.printf("    %s ms at %s..%s ms before job %s partition %d (worker %d): %s [synthesis %s, queue %s, preparation %s, lock %s ms]\n",
				ms(g.Duration()), ms(g.Start), ms(g.End), jobLabel(g.Job, g.JobID), g.Partition, g.Worker, g.Cause,
				ms(g.Breakdown[StageSynthesis]), ms(g.Breakdown[StageQueue]),
				ms(g.Breakdown[StagePreparation]), ms(g.Breakdown[StageLockWait]))
		}
	}
	ew.printf("\n")
	if ew.err != nil {
		return ew.err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	ew = &errWriter{w: tw}
	ew.printf("stage\tcount\tmean ms\tp50 ms\tp90 ms\tmax ms\t\n")
	row := func(name string, s DurationStats) {
		ew.printf("%s\t%d\t%s\t%s\t%s\t%s\t\n", name, s.Count, ms(s.Mean), ms(s.P50), ms(s.P90), ms(s.Max))
	}
	for s := range NumStages {
		row(Stage(s).String(), r.Stages[s])
	}
	row("job total", r.JobTotal)
	if ew.err != nil {
		return ew.err
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write timeline report: %w", err)
	}
	return nil
}

// String returns the WriteText output.
func (r *Report) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

// errWriter keeps the first write error so formatting code can ignore it
// until the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	if _, err := fmt.Fprintf(e.w, format, args...); err != nil {
		e.err = fmt.Errorf("write timeline report: %w", err)
	}
}
