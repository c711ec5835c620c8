package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func benchArgs(out string, extra ...string) []string {
	return append([]string{"bench", "--device", "cpu", "--constraints", "50", "--inputs", "2",
		"--jobs", "1", "--partitions", "2", "--out", out}, extra...)
}

// TestBenchParamsFile: --params-file writes the INSECURE setup to a missing file and proves
// with it (the bench verifies every proof); a second run reuses the file unchanged (a new setup
// would draw new toxic waste); parameters that `cuzk setup` wrote for the same circuit are
// reused and prove; a file for another circuit, or one that is not a parameters file, is an
// error naming it and is left as it was.
func TestBenchParamsFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.params")
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out1"), "--params-file", path)))
	first := readFile(t, path)
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out2"), "--params-file", path)))
	require.Equal(t, first, readFile(t, path), "the file was written again")

	setupDir := filepath.Join(dir, "setup")
	require.NoError(t, run(ctx, []string{"setup", "--out", setupDir, "--constraints", "50", "--inputs", "2", "--device", "cpu"}))
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out3"), "--params-file", filepath.Join(setupDir, "circuit.params"))))

	other := []string{"bench", "--device", "cpu", "--constraints", "60", "--inputs", "3",
		"--jobs", "1", "--partitions", "1", "--out", filepath.Join(dir, "out4"), "--params-file", path}
	err := run(ctx, other)
	require.ErrorContains(t, err, path+" holds parameters for another circuit: section ic has 3 points, this circuit needs 4")
	require.Equal(t, first, readFile(t, path))

	junk := filepath.Join(dir, "junk.params")
	require.NoError(t, os.WriteFile(junk, []byte("not a parameters file"), 0o644))
	require.ErrorContains(t, run(ctx, benchArgs(filepath.Join(dir, "out5"), "--params-file", junk)), junk)
	require.Equal(t, "not a parameters file", string(readFile(t, junk)))

	require.ErrorContains(t, run(ctx, benchArgs(filepath.Join(dir, "out6"), "--params-file", filepath.Join(dir, "missing", "x.params"))),
		"--params-file")
}

// TestTablesNeedGPU: --shift-table-h (bare, on or auto) and --pair-tables with --device cpu are
// usage errors for bench and prove, before any work, and so is a value of --shift-table-h other
// than off, on and auto.
func TestTablesNeedGPU(t *testing.T) {
	captureOutput(t)
	ctx := context.Background()
	dir := t.TempDir()
	prove := func(flag string) []string {
		return []string{"prove", "--device", "cpu", flag, "--params", filepath.Join(dir, "p.params"),
			"--proof", filepath.Join(dir, "proof"), "--inputs-out", filepath.Join(dir, "inputs")}
	}
	for _, args := range [][]string{
		benchArgs(filepath.Join(dir, "out"), "--shift-table-h"),
		benchArgs(filepath.Join(dir, "out"), "--shift-table-h=auto"),
		benchArgs(filepath.Join(dir, "out"), "--shift-table-h=sometimes"),
		prove("--shift-table-h"),
		prove("--shift-table-h=on"),
		prove("--shift-table-h=sometimes"),
	} {
		err := run(ctx, args)
		require.ErrorContains(t, err, "shift-table-h", args)
		require.Equal(t, exitUsage, exitStatus(ctx, err), args)
	}
	for _, args := range [][]string{benchArgs(filepath.Join(dir, "out"), "--pair-tables"), prove("--pair-tables")} {
		err := run(ctx, args)
		require.ErrorContains(t, err, "--pair-tables: the pair tables are kept on GPUs", args)
		require.Equal(t, exitUsage, exitStatus(ctx, err), args)
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written")
}

// TestBenchParamsFileUsage: --params-file with --random-params is a usage error, before any work.
func TestBenchParamsFileUsage(t *testing.T) {
	captureOutput(t)
	ctx := context.Background()
	dir := t.TempDir()
	err := run(ctx, benchArgs(filepath.Join(dir, "out"), "--params-file", filepath.Join(dir, "p.params"), "--random-params"))
	require.ErrorContains(t, err, "--params-file and --random-params exclude each other")
	require.Equal(t, exitUsage, exitStatus(ctx, err))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written")
}

// TestBenchFoldC: --fold-c on proves with C folded into L (the bench verifies every proof), over
// parameters in memory or in a file (decoded for the fold), and keeps the fold in
// --folded-params-file; --fold-c random times random points standing for the fold, over either;
// another value is refused.
func TestBenchFoldC(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.params")
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out1"), "--fold-c", "on")))
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out2"), "--fold-c", "on", "--params-file", path)))
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out3"), "--fold-c", "random", "--random-params")))
	require.NoError(t, run(ctx, benchArgs(filepath.Join(dir, "out4"), "--fold-c", "random", "--params-file", path)))
	require.ErrorContains(t, run(ctx, benchArgs(filepath.Join(dir, "out5"), "--fold-c", "yes")), "want off, on or random")

	// The fold kept in a file: over --params-file a fold overlay, else a folded parameters file;
	// each written by the first run and reused by the next (unchanged); an overlay refused over
	// other parameters; the flag refused without --fold-c on.
	for _, tc := range []struct{ name, file string }{{"overlay", "--params-file"}, {"folded", ""}} {
		keep := filepath.Join(dir, tc.name+".fold")
		args := func(out string) []string {
			a := benchArgs(filepath.Join(dir, out), "--fold-c", "on", "--folded-params-file", keep)
			if tc.file != "" {
				a = append(a, tc.file, path)
			}
			return a
		}
		require.NoError(t, run(ctx, args(tc.name+"1")), tc.name)
		before, err := os.Stat(keep)
		require.NoError(t, err)
		require.NoError(t, run(ctx, args(tc.name+"2")), tc.name)
		after, err := os.Stat(keep)
		require.NoError(t, err)
		require.Equal(t, before.ModTime(), after.ModTime(), "%s reused, not written again", tc.name)
	}
	other := filepath.Join(dir, "other.params")
	err := run(ctx, []string{"bench", "--device", "cpu", "--constraints", "60", "--inputs", "2", "--jobs", "1",
		"--partitions", "1", "--out", filepath.Join(dir, "out8"), "--params-file", other, "--fold-c", "on",
		"--folded-params-file", filepath.Join(dir, "overlay.fold")})
	require.ErrorContains(t, err, "overlay.fold")
	require.ErrorContains(t, err, "folded from other parameters")
	require.ErrorContains(t, run(ctx, benchArgs(filepath.Join(dir, "out9"), "--folded-params-file", filepath.Join(dir, "x"))),
		"needs --fold-c on")
}
