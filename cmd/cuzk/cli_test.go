package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover"
)

// captureOutput sends the commands' stdout and stderr to buffers for the rest of the test.
func captureOutput(t *testing.T) (out, errOut *bytes.Buffer) {
	out, errOut = new(bytes.Buffer), new(bytes.Buffer)
	oldOut, oldErr := stdout, stderr
	stdout, stderr = out, errOut
	t.Cleanup(func() { stdout, stderr = oldOut, oldErr })
	return out, errOut
}

// status runs cuzk with args and returns its exit status.
func status(ctx context.Context, args ...string) int {
	return runMain(ctx, func() {}, args)
}

// smallSetup writes INSECURE parameters of a 50-constraint, 2-input circuit to dir, and checks
// that circuit.vk holds the verifying key the parameters file starts with.
func smallSetup(t *testing.T, dir string) {
	require.NoError(t, run(context.Background(), []string{"setup", "--out", dir, "--constraints", "50", "--inputs", "2"}))
	m, err := prover.OpenParametersFile(filepath.Join(dir, "circuit.params"), prover.Checked)
	require.NoError(t, err)
	defer m.Close()
	want, err := m.VK.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, want, readFile(t, filepath.Join(dir, "circuit.vk")))
}

func proveArgs(dir string, extra ...string) []string {
	return append([]string{"prove", "--params", filepath.Join(dir, "circuit.params"), "--constraints", "50", "--inputs", "2",
		"--device", "cpu", "--partitions", "2", "--proof", filepath.Join(dir, "proof.bin"), "--inputs-out", filepath.Join(dir, "inputs.json")}, extra...)
}

func readFile(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// requireMode0644 checks that each named file in dir exists with permissions 0644.
func requireMode0644(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, f := range names {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o644), st.Mode().Perm(), f)
	}
}

// TestProveRefusesOverwrite: an existing proof or inputs file is replaced only with --force,
// and the refusal comes before any work and leaves both files as they were.
func TestProveRefusesOverwrite(t *testing.T) {
	captureOutput(t)
	dir := t.TempDir()
	ctx := context.Background()
	smallSetup(t, dir)
	require.NoError(t, run(ctx, proveArgs(dir)))
	proof, inputs := readFile(t, filepath.Join(dir, "proof.bin")), readFile(t, filepath.Join(dir, "inputs.json"))

	err := run(ctx, proveArgs(dir, "--seed", "2"))
	require.ErrorContains(t, err, "inputs.json: file exists (use --force")
	require.Equal(t, exitFailure, exitStatus(ctx, err))
	require.Equal(t, proof, readFile(t, filepath.Join(dir, "proof.bin")))
	require.Equal(t, inputs, readFile(t, filepath.Join(dir, "inputs.json")))

	require.NoError(t, run(ctx, proveArgs(dir, "--seed", "2", "--force")))
	require.NotEqual(t, proof, readFile(t, filepath.Join(dir, "proof.bin")))
	require.NotEqual(t, inputs, readFile(t, filepath.Join(dir, "inputs.json")))
	require.NoError(t, run(ctx, []string{"verify", "--vk", filepath.Join(dir, "circuit.vk"),
		"--proof", filepath.Join(dir, "proof.bin"), "--inputs", filepath.Join(dir, "inputs.json")}))
	requireMode0644(t, dir, "proof.bin", "inputs.json", "circuit.params", "circuit.vk")
}

// TestProveChecksOutputsFirst: outputs that cannot be written are refused before the
// parameters are read (here they are corrupt, which would be reported first otherwise), and
// the existing proof is kept: an --inputs-out that is a directory used to fail after the proof
// had been overwritten.
func TestProveChecksOutputsFirst(t *testing.T) {
	captureOutput(t)
	dir := t.TempDir()
	ctx := context.Background()
	smallSetup(t, dir)
	require.NoError(t, run(ctx, proveArgs(dir)))
	proof := readFile(t, filepath.Join(dir, "proof.bin"))
	corrupt := filepath.Join(dir, "corrupt.params")
	require.NoError(t, os.WriteFile(corrupt, []byte("not parameters"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))

	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--inputs-out", filepath.Join(dir, "sub")}, "is a directory", exitFailure},
		{[]string{"--inputs-out", filepath.Join(dir, "proof.bin")}, "name the same file", exitUsage},
		{[]string{"--inputs-out", filepath.Join(dir, "sub", "in.json")}, "must be in one directory", exitUsage},
		{[]string{"--proof", filepath.Join(dir, "missing", "p.bin"), "--inputs-out", filepath.Join(dir, "missing", "i.json")}, "directory " + filepath.Join(dir, "missing") + " does not exist", exitFailure},
		{[]string{"--partitions", "0"}, "--partitions 0 out of range", exitUsage},
		{[]string{"--device", "tpu"}, "unknown device", exitUsage},
		{[]string{"--params", filepath.Join(dir, "absent.params"), "--proof", filepath.Join(dir, "p2.bin"), "--inputs-out", filepath.Join(dir, "i2.json")}, "--params " + filepath.Join(dir, "absent.params") + ": no such file", exitFailure},
	} {
		args := proveArgs(dir, "--force")
		args[2] = corrupt
		err := run(ctx, append(args, tc.args...))
		require.ErrorContains(t, err, tc.want, tc.args)
		require.Equal(t, tc.code, exitStatus(ctx, err), tc.args)
		require.Equal(t, proof, readFile(t, filepath.Join(dir, "proof.bin")), tc.args)
	}
}

// TestSetupOutputs: setup refuses to replace circuit.params and circuit.vk without --force,
// writes both 0644, replaces them as a pair with it, and removes the temporary file a killed
// setup left (but not one that may be in use).
func TestSetupOutputs(t *testing.T) {
	captureOutput(t)
	dir := t.TempDir()
	ctx := context.Background()
	smallSetup(t, dir)
	params, vk := readFile(t, filepath.Join(dir, "circuit.params")), readFile(t, filepath.Join(dir, "circuit.vk"))
	// The vk is the prefix of the params file: they are a pair.
	require.Equal(t, vk, params[:len(vk)])

	err := run(ctx, []string{"setup", "--out", dir, "--constraints", "50", "--inputs", "2"})
	require.ErrorContains(t, err, "circuit.vk: file exists (use --force")
	require.Equal(t, params, readFile(t, filepath.Join(dir, "circuit.params")))
	require.Equal(t, vk, readFile(t, filepath.Join(dir, "circuit.vk")))

	stale := filepath.Join(dir, "circuit.params.tmp123456")
	fresh := filepath.Join(dir, "circuit.params.tmp654321")
	require.NoError(t, os.WriteFile(stale, []byte("half a params file"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("being written"), 0o600))
	old := time.Now().Add(-2 * staleTempAge)
	require.NoError(t, os.Chtimes(stale, old, old))

	_, errOut := captureOutput(t)
	require.NoError(t, run(ctx, []string{"setup", "--out", dir, "--constraints", "50", "--inputs", "2", "--force"}))
	require.Contains(t, errOut.String(), "removed "+stale)
	_, err = os.Stat(stale)
	require.True(t, os.IsNotExist(err), "stale temporary file removed")
	_, err = os.Stat(fresh)
	require.NoError(t, err, "recent temporary file kept")

	params2, vk2 := readFile(t, filepath.Join(dir, "circuit.params")), readFile(t, filepath.Join(dir, "circuit.vk"))
	require.NotEqual(t, vk, vk2)
	require.Equal(t, vk2, params2[:len(vk2)])
	requireMode0644(t, dir, "circuit.params", "circuit.vk")
}

// TestCountBounds: counts that used to panic in makeslice or grow without bound are usage
// errors naming the flag and its range, returned before any work.
func TestCountBounds(t *testing.T) {
	captureOutput(t)
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--partitions", "9223372036854775807"}, "--partitions 9223372036854775807 out of range: want 1 to 65536"},
		{[]string{"prove", "--partitions", "65537"}, "--partitions 65537 out of range"},
		{[]string{"prove", "--partitions", "1e9"}, "invalid value \"1e9\" for flag -partitions"},
		{[]string{"prove", "--partitions", "-1"}, "--partitions -1 out of range"},
		{[]string{"bench", "--partitions", "1099511627776"}, "--partitions 1099511627776 out of range"},
		{[]string{"bench", "--jobs", "1099511627776"}, "--jobs 1099511627776 out of range"},
		{[]string{"bench", "--synth", "1099511627776"}, "--synth 1099511627776 out of range"},
		{[]string{"bench", "--width", "0"}, "--width 0 out of range"},
		{[]string{"bench", "--workers", "1,1000"}, "--workers"},
		{[]string{"bench", "--gpus", "99999"}, "--gpus"},
		{[]string{"bench", "--constraints", "1099511627776"}, "--constraints 1099511627776 out of range: want 1 to 134217728"},
		{[]string{"setup", "--inputs", "2147483648", "--out", dir}, "--inputs 2147483648 out of range: want 0 to 1048575"},
		{[]string{"setup", "--inputs", "-1", "--out", dir}, "--inputs -1 out of range"},
		{[]string{"setup", "--constraints", "1099511627776", "--out", dir}, "--constraints 1099511627776 out of range"},
		{[]string{"setup", "--constraints", "0", "--out", dir}, "--constraints 0 out of range"},
		{[]string{"setup", "--circuit", "porep", "--challenges", "1000000000", "--out", dir}, "--challenges 1000000000 out of range: want 0 to 18"},
		{[]string{"setup", "--circuit", "porep", "--porep-size", "huge", "--out", dir}, "unknown --porep-size"},
		{[]string{"setup", "--circuit", "plonk", "--out", dir}, "--circuit \"plonk\""},
		{[]string{"circuit-hash", "--circuit", "window-post", "--post-sectors", "1099511627776"}, "--post-sectors 1099511627776 out of range"},
		{[]string{"circuit-hash", "--circuit", "window-post", "--post-challenges", "1099511627776"}, "--post-challenges 1099511627776 out of range"},
		{[]string{"circuit-hash", "--circuit", "stacked-porep", "--layers", "12"}, "--layers 12"},
		{[]string{"circuit-hash", "--constraints", "1099511627776"}, "--constraints 1099511627776 out of range"},
	} {
		err := run(ctx, tc.args)
		require.ErrorContains(t, err, tc.want, tc.args)
		require.Equal(t, exitUsage, exitStatus(ctx, err), tc.args)
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written")
}

// TestBoundedReads: verify reads at most what a valid proof, key and inputs can need; an
// endless or oversized file is an error naming the file, not unbounded memory.
func TestBoundedReads(t *testing.T) {
	captureOutput(t)
	dir := t.TempDir()
	ctx := context.Background()
	smallSetup(t, dir)
	require.NoError(t, run(ctx, proveArgs(dir)))
	vk, proof, inputs := filepath.Join(dir, "circuit.vk"), filepath.Join(dir, "proof.bin"), filepath.Join(dir, "inputs.json")

	// Sparse files: 65537 proofs of zeros; 10 MiB of blanks before the inputs JSON.
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate((prover.MaxProofs+1)*prover.ProofSize))
	require.NoError(t, f.Close())
	padded := filepath.Join(dir, "padded.json")
	require.NoError(t, os.WriteFile(padded, append(bytes.Repeat([]byte(" "), 10<<20), readFile(t, inputs)...), 0o644))

	for _, tc := range []struct {
		vk, proof, inputs, want string
	}{
		{"/dev/zero", proof, inputs, "read verifying key file /dev/zero"},
		{vk, "/dev/zero", inputs, "read proofs file /dev/zero"},
		{vk, big, inputs, "more than 65536 proofs"},
		{vk, proof, "/dev/zero", "read /dev/zero: more than"},
		{vk, proof, padded, "read " + padded + ": more than"},
	} {
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"verify", "--vk", tc.vk, "--proof", tc.proof, "--inputs", tc.inputs})
		}()
		select {
		case err := <-done:
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, exitFailure, exitStatus(ctx, err))
		case <-time.After(30 * time.Second):
			t.Fatalf("verify --vk %s --proof %s --inputs %s still reading after 30 s", tc.vk, tc.proof, tc.inputs)
		}
	}
}

// TestVerifyErrorsNamePlace: errors name the file and the partition.
func TestVerifyErrorsNamePlace(t *testing.T) {
	captureOutput(t)
	dir := t.TempDir()
	ctx := context.Background()
	smallSetup(t, dir)
	require.NoError(t, run(ctx, proveArgs(dir)))
	vk, proof := filepath.Join(dir, "circuit.vk"), filepath.Join(dir, "proof.bin")
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	for _, tc := range []struct{ inputs, want string }{
		{write("one.json", `[["1","2"]]`), "holds 2 partition proofs but " + filepath.Join(dir, "one.json") + " the inputs of 1 partitions"},
		{write("short.json", `[["1","2"],["3"]]`), "short.json: partition 1 has 1 public inputs, " + vk + " takes 2"},
		{write("bad.json", `[["1","2"],["3","x"]]`), "partition 1 input 1"},
		{write("wrong.json", `[["1","2"],["3","4"]]`), "against " + filepath.Join(dir, "wrong.json") + ": partition 0"},
		{filepath.Join(dir, "absent.json"), "--inputs " + filepath.Join(dir, "absent.json") + ": no such file"},
	} {
		err := run(ctx, []string{"verify", "--vk", vk, "--proof", proof, "--inputs", tc.inputs})
		require.ErrorContains(t, err, tc.want)
	}
	// A proof that does not decode names its partition and byte offset.
	b := readFile(t, proof)
	b[192+10] ^= 0x40
	bad := write("bad.bin", string(b))
	err := run(ctx, []string{"verify", "--vk", vk, "--proof", bad, "--inputs", filepath.Join(dir, "inputs.json")})
	require.ErrorContains(t, err, "partition 1")
	require.ErrorContains(t, err, "byte offset")
}

// TestHelpAndArguments: -h and --help print the usage to stdout and exit 0, for cuzk and every
// command; an argument to a command that takes none, an unknown flag or command, or none at
// all exit 2.
func TestHelpAndArguments(t *testing.T) {
	ctx := context.Background()
	for _, h := range []string{"-h", "--help", "-help"} {
		out, _ := captureOutput(t)
		require.Equal(t, exitOK, status(ctx, h))
		require.Contains(t, out.String(), "usage: cuzk <command>")
		require.Contains(t, out.String(), "Exit status")
		for _, c := range commands() {
			out, errOut := captureOutput(t)
			require.Equal(t, exitOK, status(ctx, c.name, h), c.name+" "+h)
			require.Contains(t, out.String(), "usage: cuzk "+c.name, c.name)
			require.Empty(t, errOut.String(), c.name)
		}
	}
	out, _ := captureOutput(t)
	require.Equal(t, exitOK, status(ctx, "prove", "-h"))
	require.Contains(t, out.String(), "-force")
	require.Contains(t, out.String(), "0644")

	for _, c := range []string{"setup", "prove", "verify", "bench", "circuit-hash"} {
		_, errOut := captureOutput(t)
		require.Equal(t, exitUsage, status(ctx, c, "extra"), c)
		require.Contains(t, errOut.String(), "unexpected argument \"extra\"", c)
		_, errOut = captureOutput(t)
		require.Equal(t, exitUsage, status(ctx, c, "--no-such-flag"), c)
		require.Contains(t, errOut.String(), "flag provided but not defined: -no-such-flag", c)
	}
	_, errOut := captureOutput(t)
	require.Equal(t, exitUsage, status(ctx))
	require.Contains(t, errOut.String(), "no command given")
	require.Equal(t, exitUsage, status(ctx, "frobnicate"))
	require.Equal(t, exitUsage, status(ctx, "timeline"))
	require.Equal(t, exitFailure, status(ctx, "verify", "--vk", filepath.Join(t.TempDir(), "none.vk")))
	require.Equal(t, 1, strings.Count(errOut.String(), "frobnicate"), "the error once, no flag package echo")
}

// TestInterruptedBeforeWriting: a Ctrl-C while proving (here before it starts) exits 130,
// writes nothing and leaves no temporary file.
func TestInterruptedBeforeWriting(t *testing.T) {
	_, errOut := captureOutput(t)
	dir := t.TempDir()
	smallSetup(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Equal(t, exitInterrupted, status(ctx, proveArgs(dir)...))
	require.Contains(t, errOut.String(), "cuzk: interrupted")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 2, "only circuit.params and circuit.vk")
}
