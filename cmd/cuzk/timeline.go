package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cuzk-go/cuzk/timeline"
)

// maxLogNotes bounds the unreadable or unknown lines listed one by one.
const maxLogNotes = 10

func runTimeline(ctx context.Context, args []string) error {
	return timelineCommand(args, stdout, stderr)
}

// timelineCommand is cuzk timeline with its output streams: the report goes to stdout, usage and
// warnings about the log to stderr (usage to stdout for -h).
func timelineCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("timeline", flag.ContinueOnError)
	width := fs.Int("width", timeline.DefaultWaterfallWidth, fmt.Sprintf("waterfall width in columns (1..%d)", timeline.MaxWaterfallWidth))
	byJob := fs.Bool("by-job", false, "waterfall rows per job instead of per partition")
	trace := fs.String("trace", "", "also write a Chrome trace (Perfetto) to this file")
	svg := fs.String("svg", "", "also write an SVG waterfall to this file")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: cuzk timeline [flags] LOG [flags]\n\n"+
			"Analyze the TIMELINE lines of a log: this engine's (cuzk bench writes bench.timeline)\n"+
			"or the Rust cuzk daemon's stderr; other lines are skipped. Reports device (or GPU\n"+
			"worker) utilization, gaps and their causes, stage durations and a waterfall.\n\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	}
	if err != nil {
		return usagef("timeline: %v (see 'cuzk timeline -h')", err)
	}
	if len(pos) != 1 {
		return usagef("timeline: want one log file, got %d arguments (see 'cuzk timeline -h')", len(pos))
	}
	if *width < 1 || *width > timeline.MaxWaterfallWidth {
		return usagef("timeline: --width %d: want 1..%d columns", *width, timeline.MaxWaterfallWidth)
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	defer f.Close()
	lg, err := timeline.ReadLog(f)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	reportLogNotes(stderr, pos[0], lg)
	if lg.Lines == 0 {
		return fmt.Errorf("%s: no TIMELINE lines", pos[0])
	}
	if len(lg.Events) == 0 {
		return fmt.Errorf("%s: none of the %d TIMELINE lines could be read", pos[0], lg.Lines)
	}
	fmt.Fprintf(stdout, "log: %s, %d TIMELINE lines in the %s dialect, %d events read, %d lines not read, %d unknown events or keys\n",
		pos[0], lg.Lines, lg.Dialect, len(lg.Events), len(lg.Bad), len(lg.Unknown))
	return writeTimelineReport(stdout, lg.Events, *width, *byJob, *trace, *svg)
}

// reportLogNotes warns about the TIMELINE lines that were not read or not understood, naming
// their line numbers (at most maxLogNotes of each).
func reportLogNotes(w io.Writer, path string, lg *timeline.Log) {
	for _, list := range []struct {
		what  string
		notes []*timeline.ParseError
	}{{"not read", lg.Bad}, {"unknown", lg.Unknown}} {
		for i, n := range list.notes {
			if i == maxLogNotes {
				fmt.Fprintf(w, "cuzk: %s: %d more lines %s\n", path, len(list.notes)-i, list.what)
				break
			}
			fmt.Fprintf(w, "cuzk: %s: %s: %v\n", path, list.what, n)
		}
	}
}

// reportTimeline prints the analysis and the waterfall of events and writes the optional files.
func reportTimeline(events []timeline.Event, width int, byJob bool, tracePath, svgPath string) error {
	return writeTimelineReport(stdout, events, width, byJob, tracePath, svgPath)
}

func writeTimelineReport(w io.Writer, events []timeline.Event, width int, byJob bool, tracePath, svgPath string) error {
	if err := timeline.Analyze(events).WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := timeline.WriteWaterfall(w, events, width, byJob); err != nil {
		return err
	}
	for _, out := range []struct {
		path  string
		write func(w io.Writer) error
	}{
		{tracePath, func(w io.Writer) error { return timeline.WriteChromeTrace(w, events) }},
		{svgPath, func(w io.Writer) error { return timeline.WriteSVG(w, events) }},
	} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			return err
		}
	}
	return nil
}
