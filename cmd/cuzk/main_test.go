package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSetupProveVerifyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	size := []string{"--constraints", "300", "--inputs", "3", "--seed", "9"}
	require.NoError(t, run(ctx, append([]string{"setup", "--out", dir}, size...)))
	proof := filepath.Join(dir, "proof.bin")
	inputs := filepath.Join(dir, "inputs.json")
	require.NoError(t, run(ctx, append([]string{"prove", "--params", filepath.Join(dir, "circuit.params"),
		"--partitions", "3", "--proof", proof, "--inputs-out", inputs}, size...)))
	b, err := os.ReadFile(proof)
	require.NoError(t, err)
	require.Len(t, b, 3*192)
	vk := filepath.Join(dir, "circuit.vk")
	require.NoError(t, run(ctx, []string{"verify", "--vk", vk, "--proof", proof, "--inputs", inputs}))

	// A flipped bit in partition 2's proof fails, naming the partition.
	bad := append([]byte(nil), b...)
	bad[2*192+100] ^= 1
	badPath := filepath.Join(dir, "bad.bin")
	require.NoError(t, os.WriteFile(badPath, bad, 0o644))
	err = run(ctx, []string{"verify", "--vk", vk, "--proof", badPath, "--inputs", inputs})
	require.ErrorContains(t, err, "partition 2")

	// Inputs swapped between partitions fail.
	swapped := filepath.Join(dir, "swapped.json")
	require.NoError(t, os.WriteFile(swapped, []byte(`[["1","2","3"],["4","5","6"],["7","8","9"]]`), 0o644))
	err = run(ctx, []string{"verify", "--vk", vk, "--proof", proof, "--inputs", swapped})
	require.ErrorContains(t, err, "partition 0")

	// Malformed inputs and a proof of the wrong length are clear errors.
	junk := filepath.Join(dir, "junk.json")
	require.NoError(t, os.WriteFile(junk, []byte(`[["-1"]]`), 0o644))
	err = run(ctx, []string{"verify", "--vk", vk, "--proof", proof, "--inputs", junk})
	require.ErrorContains(t, err, "partition 0 input 0")
	require.NoError(t, os.WriteFile(badPath, b[:500], 0o644))
	err = run(ctx, []string{"verify", "--vk", vk, "--proof", badPath, "--inputs", inputs})
	require.ErrorContains(t, err, "multiple of 192")

	// Parameters for another size are refused before proving, and the outputs are kept.
	err = run(ctx, []string{"prove", "--params", filepath.Join(dir, "circuit.params"), "--constraints", "301",
		"--inputs", "3", "--proof", proof, "--inputs-out", inputs, "--force"})
	require.ErrorContains(t, err, "do not match")
	require.NoError(t, run(ctx, []string{"verify", "--vk", vk, "--proof", proof, "--inputs", inputs}))
}

func TestUnknownCommand(t *testing.T) {
	require.Error(t, run(context.Background(), []string{"frobnicate"}))
}

// TestPoRepRoundTrip proves the PoRep-shaped circuit at its tiny size (≈1.2 M constraints)
// through setup, prove and verify: about 90 s on 2 cores, so -short skips it and CI runs it
// in its own step. Under -short the same path is covered by TestSetupProveVerifyRoundTrip
// (the CLI) and circuits/porep's TestTinySatisfiedAndInputs (the circuit).
func TestPoRepRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("1.2 M-constraint setup and proof; run without -short")
	}
	dir := t.TempDir()
	ctx := context.Background()
	circ := []string{"--circuit", "porep", "--porep-size", "tiny", "--seed", "3"}
	require.NoError(t, run(ctx, append([]string{"setup", "--out", dir}, circ...)))
	proof := filepath.Join(dir, "proof.bin")
	inputs := filepath.Join(dir, "inputs.json")
	require.NoError(t, run(ctx, append([]string{"prove", "--params", filepath.Join(dir, "circuit.params"), "--unchecked",
		"--partitions", "1", "--proof", proof, "--inputs-out", inputs}, circ...)))
	require.NoError(t, run(ctx, []string{"verify", "--vk", filepath.Join(dir, "circuit.vk"), "--proof", proof, "--inputs", inputs}))
	// Another seed is another sector: its proof does not verify against these inputs.
	other := append([]string{"prove", "--params", filepath.Join(dir, "circuit.params"), "--unchecked",
		"--partitions", "1", "--proof", filepath.Join(dir, "other.bin"), "--inputs-out", filepath.Join(dir, "other.json")}, circ...)
	other[len(other)-1] = "4"
	require.NoError(t, run(ctx, other))
	require.ErrorContains(t, run(ctx, []string{"verify", "--vk", filepath.Join(dir, "circuit.vk"), "--proof", filepath.Join(dir, "other.bin"),
		"--inputs", inputs}), "partition 0")
}

// TestBenchAndTimeline runs the main job small on the CPU, then analyzes its TIMELINE log.
func TestBenchAndTimeline(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	require.NoError(t, run(ctx, []string{"bench", "--device", "cpu", "--constraints", "200", "--inputs", "2",
		"--jobs", "2", "--partitions", "3", "--out", dir}))
	for _, f := range []string{"bench.timeline", "bench.trace.json", "bench.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Positive(t, st.Size(), f)
	}
	var trace map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "bench.trace.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &trace))
	require.NotEmpty(t, trace["traceEvents"])

	trace2 := filepath.Join(dir, "again.json")
	require.NoError(t, run(ctx, []string{"timeline", "--trace", trace2, filepath.Join(dir, "bench.timeline")}))
	_, err = os.Stat(trace2)
	require.NoError(t, err)

	empty := filepath.Join(dir, "empty.log")
	require.NoError(t, os.WriteFile(empty, []byte("no timeline here\n"), 0o644))
	require.ErrorContains(t, run(ctx, []string{"timeline", empty}), "no TIMELINE lines")
	require.ErrorContains(t, run(ctx, []string{"bench", "--device", "tpu"}), "unknown device")
}

// TestBenchSweep runs two worker counts over one setup: each run gets its own directory.
func TestBenchSweep(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	require.NoError(t, run(ctx, []string{"bench", "--device", "cpu", "--constraints", "100", "--inputs", "1",
		"--jobs", "1", "--partitions", "2", "--workers", "2,1", "--out", dir}))
	for _, sub := range []string{"gpus1-w2", "gpus1-w1"} {
		st, err := os.Stat(filepath.Join(dir, sub, "bench.timeline"))
		require.NoError(t, err, sub)
		require.Positive(t, st.Size(), sub)
	}
	require.ErrorContains(t, run(ctx, []string{"bench", "--device", "cpu", "--workers", "2,x"}), "--workers")
	require.ErrorContains(t, run(ctx, []string{"bench", "--device", "cpu", "--workers", "0"}), "--workers")
}

// TestProveRejectsCorruptParams: a truncated parameters file is refused with its section and
// byte offset.
func TestProveRejectsCorruptParams(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	require.NoError(t, run(ctx, []string{"setup", "--out", dir, "--constraints", "50"}))
	path := filepath.Join(dir, "circuit.params")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-100], 0o644))
	err = run(ctx, []string{"prove", "--params", path, "--constraints", "50", "--device", "cpu",
		"--proof", filepath.Join(dir, "p"), "--inputs-out", filepath.Join(dir, "i")})
	require.ErrorContains(t, err, "b_g2")
	require.ErrorContains(t, err, "offset")
}
