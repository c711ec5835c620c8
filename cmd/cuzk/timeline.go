package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/cuzk-go/cuzk/timeline"
)

func runTimeline(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("timeline", flag.ContinueOnError)
	width := fs.Int("width", timeline.DefaultWaterfallWidth, "waterfall width in columns")
	byJob := fs.Bool("by-job", false, "waterfall rows per job instead of per partition")
	trace := fs.String("trace", "", "also write a Chrome trace (Perfetto) to this file")
	svg := fs.String("svg", "", "also write an SVG waterfall to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("timeline: want one TIMELINE log file, got %d arguments", fs.NArg())
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	// ParseLog skips lines that are not TIMELINE lines, so a whole program log can be given.
	events, err := timeline.ParseLog(f)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if len(events) == 0 {
		return fmt.Errorf("%s: no TIMELINE lines", fs.Arg(0))
	}
	return reportTimeline(events, *width, *byJob, *trace, *svg)
}

// reportTimeline prints the analysis and the waterfall of events and writes the optional files.
func reportTimeline(events []timeline.Event, width int, byJob bool, tracePath, svgPath string) error {
	if err := timeline.Analyze(events).WriteText(os.Stdout); err != nil {
		return err
	}
	fmt.Println()
	if err := timeline.WriteWaterfall(os.Stdout, events, width, byJob); err != nil {
		return err
	}
	for _, out := range []struct {
		path  string
		write func(f *os.File) error
	}{
		{tracePath, func(f *os.File) error { return timeline.WriteChromeTrace(f, events) }},
		{svgPath, func(f *os.File) error { return timeline.WriteSVG(f, events) }},
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

// writeFile creates path, lets write fill it and closes it, reporting the first error.
func writeFile(path string, write func(f *os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
