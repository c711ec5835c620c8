package devsetup

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// TestWriteInsecureSetupMatches: the file WriteInsecureSetup streams is byte for byte the one
// InsecureSetup + WriteParametersFile writes for the same toxic waste, on the CPU tables and
// with a FixedBase, with chunks of 100 points (so every section spans several chunks, the last
// one partial), and it reads back as the same Parameters. The progress stages are
// InsecureSetup's.
func TestWriteInsecureSetupMatches(t *testing.T) {
	defer func(c int) { pointChunk = c }(pointChunk)
	pointChunk = 100
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 1000, Inputs: 3, Seed: 4})
	require.NoError(t, err)
	tw, err := NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()

	p, err := InsecureSetup(shape, tw)
	require.NoError(t, err)
	require.Greater(t, len(p.H), 2*pointChunk)
	require.NoError(t, p.WriteParametersFile(filepath.Join(dir, "memory.params")))
	want, err := os.ReadFile(filepath.Join(dir, "memory.params"))
	require.NoError(t, err)

	cpuPath := filepath.Join(dir, "cpu.params")
	log := newProgressLog(t)
	require.NoError(t, WriteInsecureSetup(cpuPath, shape, tw, WithProgress(log.report)))
	log.complete()
	require.Equal(t, []string{"Lagrange basis", "evaluate A, B, C", "IC and L scalars",
		"IC points", "H points", "L points", "A points", "B_G1 points", "B_G2 points"}, log.stages)
	got, err := os.ReadFile(cpuPath)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "streamed file differs (%d vs %d bytes)", len(got), len(want))

	fb := &gnarkFixedBase{}
	fbPath := filepath.Join(dir, "fixedbase.params")
	require.NoError(t, WriteInsecureSetup(fbPath, shape, tw, WithFixedBase(fb)))
	got, err = os.ReadFile(fbPath)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "streamed file with a FixedBase differs")
	require.Equal(t, len(p.VK.IC)+len(p.H)+len(p.L)+len(p.A)+len(p.BG1), fb.g1)
	require.Equal(t, len(p.BG2), fb.g2)

	back, err := prover.ReadParametersFile(fbPath, prover.Checked)
	require.NoError(t, err)
	require.Equal(t, p, back)
}

// TestWriteInsecureSetupFails: a FixedBase error comes back naming the stage, an existing file
// at the path is left as it was, and no temporary file remains; so does a bad toxic waste.
func TestWriteInsecureSetupFails(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 200, Inputs: 2, Seed: 1})
	require.NoError(t, err)
	tw, err := NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.params")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	boom := errors.New("device lost")
	err = WriteInsecureSetup(path, shape, tw, WithFixedBase(&gnarkFixedBase{fail: boom}))
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "IC points")
	require.ErrorContains(t, err, path)

	bad := tw
	bad.Delta.SetZero()
	require.ErrorContains(t, WriteInsecureSetup(path, shape, bad), "must be non-zero")

	old, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old", string(old))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "a temporary file remains")

	require.Error(t, WriteInsecureSetup(filepath.Join(dir, "missing", "x.params"), shape, tw))
}

// TestGenerateChunked: the setup made 100 points at a time into memory (every section in
// several chunks, H's scalars too) equals InsecureSetup's, made a section at a time.
func TestGenerateChunked(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 700, Inputs: 5, Seed: 8})
	require.NoError(t, err)
	tw, err := NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	want, err := InsecureSetup(shape, tw)
	require.NoError(t, err)
	ms := &memorySink{}
	require.NoError(t, generate(shape, tw, options{fixedBase: &gnarkFixedBase{}}, ms, 100))
	require.Greater(t, len(want.L), 200)
	require.Equal(t, want, &ms.p)
}
