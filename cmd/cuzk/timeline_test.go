package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// curioLog is a short Rust cuzk daemon log (engine.rs formats): one partitioned job on worker 0,
// a monolithic job on worker 1, tracing lines around them and a truncated last line.
const curioLog = `2026-11-30T10:00:00.120Z  INFO cuzk_core::engine: pipeline GPU worker started worker_id=0 gpu=0
TIMELINE,100,SYNTH_START,ae003926,partition=0
TIMELINE,900,SYNTH_END,ae003926,partition=0,synth_ms=800
TIMELINE,900,GPU_QUEUE,ae003926,partition=0
TIMELINE,1000,GPU_START,ae003926,worker=0,partition=0
TIMELINE,910,GPU_PICKUP,ae003926,worker=0,partition=0
TIMELINE,2000,GPU_END,ae003926,worker=0,partition=0,gpu_ms=1000
TIMELINE,100,SYNTH_START,ae003926,partition=1
TIMELINE,2400,SYNTH_END,ae003926,partition=1,synth_ms=2300
TIMELINE,2400,GPU_QUEUE,ae003926,partition=1
TIMELINE,2410,GPU_PICKUP,ae003926,worker=0,partition=1
TIMELINE,2500,GPU_START,ae003926,worker=0,partition=1
TIMELINE,3500,GPU_END,ae003926,worker=0,partition=1,gpu_ms=1000
TIMELINE,500,SYNTH_START,9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01,kind=porep-c2
TIMELINE,1500,SYNTH_END,9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01,synth_ms=1000
TIMELINE,1500,GPU_QUEUE,9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01,monolithic
TIMELINE,1600,GPU_PICKUP,9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01,worker=1
TIMELINE,1700,GPU_START,9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01,worker=1
TIMELINE,3700,GPU_END,9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01,worker=1,gpu_ms=2000
TIMELINE,3800,GPU_EN
`

// TestTimelineCurioLog runs cuzk timeline on a Rust cuzk daemon log with the flags after the
// file: per-worker utilization and gaps, the truncated line named on stderr, both files written.
func TestTimelineCurioLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "daemon.log")
	require.NoError(t, os.WriteFile(log, []byte(curioLog), 0o644))
	svg, trace := filepath.Join(dir, "out.svg"), filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, timelineCommand([]string{log, "--svg", svg, "--trace", trace, "--width", "40"}, &stdout, &stderr))
	out := stdout.String()
	// Worker 0: busy 1000 + 1000 ms over 1000..3500 ms; the 500 ms gap 2000..2500 waited for
	// partition 1's synthesis (queued at 2400).
	for _, want := range []string{
		"19 TIMELINE lines in the curio dialect, 18 events read, 1 lines not read",
		"worker 0 (device not in the log): 2 regions, busy 2000.000 ms of span 2500.000 ms = 80.0% utilization",
		"500.000 ms at 2000.000..2500.000 ms before job ae003926 partition 1 (worker 0): synthesis [synthesis 400.000, queue 10.000, preparation 90.000, lock 0.000 ms]",
		"worker 1 (device not in the log): 1 regions, busy 2000.000 ms of span 2000.000 ms = 100.0% utilization",
		"9c1f0e2d-7a4b-4c3e-9f10-5e6d7c8b9a01 p0 w1 ",
	} {
		require.Contains(t, out, want)
	}
	require.Contains(t, stderr.String(), `line 20 "TIMELINE,3800,GPU_EN"`)
	for _, f := range []string{svg, trace} {
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Positive(t, st.Size())
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 3, "no temporary files left")
}

func TestTimelineFlags(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "daemon.log")
	require.NoError(t, os.WriteFile(log, []byte(curioLog), 0o644))
	var stdout, stderr bytes.Buffer

	// -h: usage on stdout, no error (exit status 0).
	for _, h := range []string{"-h", "--help", "-help"} {
		stdout.Reset()
		require.NoError(t, timelineCommand([]string{h}, &stdout, &stderr), h)
		require.Contains(t, stdout.String(), "usage: cuzk timeline")
		require.Contains(t, stdout.String(), "-svg")
	}
	// Flags before, between and after; "--" ends the flags.
	require.NoError(t, timelineCommand([]string{"--by-job", log, "--width", "20"}, &stdout, &stderr))
	require.NoError(t, timelineCommand([]string{"--width", "20", "--", log}, &stdout, &stderr))
	require.ErrorContains(t, timelineCommand([]string{log, log}, &stdout, &stderr), "want one log file, got 2")
	require.ErrorContains(t, timelineCommand([]string{log, "--bogus"}, &stdout, &stderr), "bogus")
	require.ErrorContains(t, timelineCommand([]string{log, "--width", "4000000000"}, &stdout, &stderr), "--width 4000000000")
	require.ErrorContains(t, timelineCommand([]string{log, "--width", "-3"}, &stdout, &stderr), "--width -3")
	bad := filepath.Join(dir, "bad.log")
	require.NoError(t, os.WriteFile(bad, []byte("TIMELINE,1,GPU_EN\n"), 0o644))
	require.ErrorContains(t, timelineCommand([]string{bad}, &stdout, &stderr), "none of the 1 TIMELINE lines")
}

// TestWriteFileAtomic: a failed write leaves the old file whole and no temporary file behind.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.svg")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	err := writeFile(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half of the new"); err != nil {
			return err
		}
		return errors.New("disk full")
	})
	require.ErrorContains(t, err, "disk full")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old", string(b))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1, "temporary file removed")

	require.NoError(t, writeFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(b))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	require.ErrorContains(t, writeFile(filepath.Join(dir, "missing", "x.svg"), func(io.Writer) error { return nil }), "missing")
}
