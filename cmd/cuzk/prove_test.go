package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
)

// TestProveBadPoint: prove maps its --params file and decodes the points as the first partition
// needs them, so a point off the curve (a[1]) fails that partition with the file, the section,
// the index and the byte offset, and no output is written; a file cut short by a byte is
// refused when it is opened, naming it.
func TestProveBadPoint(t *testing.T) {
	captureOutput(t)
	dir := t.TempDir()
	ctx := context.Background()
	smallSetup(t, dir)
	path := filepath.Join(dir, "circuit.params")
	b := readFile(t, path)

	m, err := prover.MapParameters(b, prover.Checked)
	require.NoError(t, err)
	vk, err := m.VK.MarshalBinary()
	require.NoError(t, err)
	// bellperson's layout: the verifying key, then per section a u32 count and the points.
	off := len(vk)
	for sec := primitive.SectionH; sec < primitive.SectionA; sec++ {
		off += 4 + m.Len(sec)*prover.G1UncompressedSize
	}
	off += 4 + 1*prover.G1UncompressedSize
	bad := append([]byte(nil), b...)
	bad[off+prover.G1UncompressedSize-1] ^= 1 // the last byte of y
	require.NoError(t, os.WriteFile(path, bad, 0o644))
	err = run(ctx, proveArgs(dir))
	require.ErrorContains(t, err, fmt.Sprintf("partition 0: parameters %s: ", path))
	require.ErrorContains(t, err, fmt.Sprintf("decode a[1] at byte offset %d: point not on curve", off))
	require.NoFileExists(t, filepath.Join(dir, "proof.bin"))
	require.NoFileExists(t, filepath.Join(dir, "inputs.json"))

	require.NoError(t, os.WriteFile(path, b[:len(b)-1], 0o644))
	err = run(ctx, proveArgs(dir))
	require.ErrorContains(t, err, "open parameters file "+path+": ")
	require.ErrorIs(t, err, prover.ErrFormat)
}
