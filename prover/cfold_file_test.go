package prover_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// TestFoldedParametersFile: folded parameters written to a folded parameters file and mapped
// again carry the same fold and identity and prove FoldC's proof byte for byte; the inputs'
// points at infinity (inputs absent from C) survive the round trip.
func TestFoldedParametersFile(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]synth.Circuit{
		"c terms":  cHeavy(fr.NewElement(77)),
		"scalable": &circuits.Scalable{Constraints: 200, Inputs: 3, Seed: 2},
	} {
		t.Run(name, func(t *testing.T) {
			shape, params := setupFor(t, c)
			folded, err := prover.FoldC(t.Context(), params, shape)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "folded.params")
			require.NoError(t, folded.WriteFoldedParametersFile(path))
			for _, mode := range []prover.DecodeMode{prover.Checked, prover.Unchecked} {
				m, err := prover.OpenFoldedParametersFile(path, mode)
				require.NoError(t, err)
				mp, err := m.Parameters()
				require.NoError(t, err)
				require.Equal(t, folded.CFold, mp.CFold)
				require.Equal(t, folded.Identity(), mp.Identity())
				require.NoError(t, prover.CheckParameters(mp, shape))
				asg, err := synth.Synthesize(ctx, shape, c)
				require.NoError(t, err)
				rs := fixedRandomness(5)
				want, err := prover.ProvePartition(ctx, folded, asg, prover.WithRandomness(rs))
				require.NoError(t, err)
				got, err := prover.ProvePartition(ctx, mp, asg, prover.WithRandomness(rs))
				require.NoError(t, err)
				require.Equal(t, want.Bytes(), got.Bytes())
				require.NoError(t, m.Close())
			}
		})
	}
}

// TestFoldedParametersFileErrors: what is not a folded parameters file, or is a damaged one, is
// refused with an error that names what and where; unfolded parameters are not written as one.
func TestFoldedParametersFileErrors(t *testing.T) {
	c := cHeavy(fr.NewElement(78))
	shape, params := setupFor(t, c)
	folded, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "folded.params")
	require.NoError(t, folded.WriteFoldedParametersFile(path))
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	plain := filepath.Join(dir, "plain.params")
	require.NoError(t, params.WriteParametersFile(plain))

	require.ErrorContains(t, params.WriteFoldedParametersFile(filepath.Join(dir, "x")), "not folded")
	_, err = os.Stat(filepath.Join(dir, "x"))
	require.True(t, os.IsNotExist(err), "no file left behind")
	_, err = prover.OpenFoldedParametersFile(plain, prover.Checked)
	require.ErrorContains(t, err, "not a folded parameters file")
	_, err = prover.OpenParametersFile(path, prover.Checked)
	require.Error(t, err, "a bellperson reader refuses a folded file")

	k := len(folded.CFold.Inputs)
	end := 80 + 96*k // the checksum's offset
	rechecksum := func(b []byte) {
		sum := sha256.Sum256(b[:end])
		copy(b[end:], sum[:])
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"version", func(b []byte) []byte { b[11] = 3; return b }, "version 3 at byte 8"},
		{"version 1", func(b []byte) []byte { b[11] = 1; return b }, "without H on the coset; fold again"},
		{"cut in the header", func(b []byte) []byte { return b[:100] }, "needs 4096 bytes, the file has 100"},
		{"checksum", func(b []byte) []byte { b[60]++; return b }, "header checksum"},
		{"padding", func(b []byte) []byte { b[4000] = 1; return b }, "padding at byte 4000"},
		{"bad input point", func(b []byte) []byte { b[80+96+95] ^= 1; rechecksum(b); return b }, "c_fold inputs"},
		{"parameters cut", func(b []byte) []byte { return b[:4096+100] }, "after the 4096-byte header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(bad, tc.damage(append([]byte(nil), good...)), 0o644))
			_, err := prover.OpenFoldedParametersFile(bad, prover.Checked)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, bad)
		})
	}
}

// TestFoldOverlay: an overlay folded from a mapped parameters file, opened over it, carries
// FoldC's fold and L' and proves FoldC's proof byte for byte, in both decode modes; closing the
// overlay leaves the base open, and reading through an overlay whose base was closed is an error.
func TestFoldOverlay(t *testing.T) {
	ctx := context.Background()
	c := cHeavy(fr.NewElement(79))
	shape, params, _, base := mappedSetup(t, c)
	folded, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "l.overlay")
	require.NoError(t, prover.FoldParametersOverlay(t.Context(), base, shape, path))
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	rs := fixedRandomness(6)
	want, err := prover.ProvePartition(ctx, folded, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	for _, mode := range []prover.DecodeMode{prover.Checked, prover.Unchecked} {
		m, err := prover.OpenFoldOverlay(base, path, mode)
		require.NoError(t, err)
		mp, err := m.Parameters()
		require.NoError(t, err)
		require.Equal(t, folded.CFold, mp.CFold)
		require.Equal(t, folded.Identity(), mp.Identity())
		got, err := prover.ProvePartition(ctx, mp, asg, prover.WithRandomness(rs))
		require.NoError(t, err)
		require.Equal(t, want.Bytes(), got.Bytes())
		require.NoError(t, m.Close())
	}
	_, err = base.Parameters()
	require.NoError(t, err, "the base stays open")

	// Damage and mismatches.
	other := filepath.Join(t.TempDir(), "other.params")
	_, otherParams := setupFor(t, c)
	require.NoError(t, otherParams.WriteParametersFile(other))
	otherBase, err := prover.OpenParametersFile(other, prover.Checked)
	require.NoError(t, err)
	defer otherBase.Close()
	_, err = prover.OpenFoldOverlay(otherBase, path, prover.Checked)
	require.ErrorContains(t, err, "folded from other parameters")
	require.ErrorContains(t, err, path)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.overlay")
	require.NoError(t, os.WriteFile(cut, good[:len(good)-50], 0o644))
	_, err = prover.OpenFoldOverlay(base, cut, prover.Checked)
	require.ErrorContains(t, err, "count")
	long := filepath.Join(t.TempDir(), "long.overlay")
	require.NoError(t, os.WriteFile(long, append(append([]byte(nil), good...), 0), 0o644))
	_, err = prover.OpenFoldOverlay(base, long, prover.Checked)
	require.ErrorContains(t, err, "1 bytes after K")
	// K's count one short (the points moved up, the last byte dropped), then L''s.
	dm := shape.DomainSize()
	kAt := len(good) - 4 - dm*prover.G1UncompressedSize
	short := append([]byte(nil), good[:len(good)-prover.G1UncompressedSize]...)
	binary.BigEndian.PutUint32(short[kAt:], uint32(dm-1))
	require.NoError(t, os.WriteFile(cut, short, 0o644))
	_, err = prover.OpenFoldOverlay(base, cut, prover.Checked)
	require.ErrorContains(t, err, fmt.Sprintf("K (H on the coset) has %d points (byte %d), want %d", dm-1, kAt, dm))
	lAt := kAt - 4 - shape.NumAux*prover.G1UncompressedSize
	bad := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(bad[lAt:], uint32(shape.NumAux-1))
	require.NoError(t, os.WriteFile(cut, bad, 0o644))
	_, err = prover.OpenFoldOverlay(base, cut, prover.Checked)
	require.ErrorContains(t, err, fmt.Sprintf("L' has %d points (byte %d), want %d", shape.NumAux-1, lAt, shape.NumAux))
	folde := filepath.Join(t.TempDir(), "folded.params")
	require.NoError(t, folded.WriteFoldedParametersFile(folde))
	_, err = prover.OpenFoldOverlay(base, folde, prover.Checked)
	require.ErrorContains(t, err, "not a fold overlay")
	_, err = prover.OpenFoldedParametersFile(path, prover.Checked)
	require.ErrorContains(t, err, "not a folded parameters file")

	m, err := prover.OpenFoldOverlay(base, path, prover.Checked)
	require.NoError(t, err)
	defer m.Close()
	require.NoError(t, base.Close())
	_, err = m.Decode()
	require.ErrorContains(t, err, "under the fold overlay are closed")
}

// TestWithFold: a fold held in memory over mapped parameters proves FoldC's proof byte for byte,
// from L' and K or from K alone (base's L); wrong lengths and folded parameters are refused
// with errors that say which section and how long.
func TestWithFold(t *testing.T) {
	ctx := context.Background()
	c := cHeavy(fr.NewElement(83))
	shape, params, _, base := mappedSetup(t, c)
	folded, err := prover.FoldC(t.Context(), params, shape)
	require.NoError(t, err)
	encode := func(pts []bls12381.G1Affine) []byte {
		b := make([]byte, len(pts)*prover.G1UncompressedSize)
		prover.EncodeG1Points(b, pts)
		return b
	}
	l, h := encode(folded.L), encode(folded.H)
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	rs := fixedRandomness(8)
	want, err := prover.ProvePartition(ctx, folded, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	m, err := base.WithFold(folded.CFold, l, h)
	require.NoError(t, err)
	mp, err := m.Parameters()
	require.NoError(t, err)
	got, err := prover.ProvePartition(ctx, mp, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), got.Bytes())
	kOnly, err := base.WithFold(folded.CFold, nil, h)
	require.NoError(t, err)
	require.Equal(t, base.Len(primitive.SectionL), kOnly.Len(primitive.SectionL))
	require.Equal(t, shape.DomainSize(), kOnly.Len(primitive.SectionH))

	_, err = base.WithFold(folded.CFold, l, h[:len(h)-prover.G1UncompressedSize])
	require.ErrorIs(t, err, prover.ErrFold)
	require.ErrorContains(t, err, fmt.Sprintf("K (H on the coset) has %d bytes, want %d points", len(h)-prover.G1UncompressedSize, shape.DomainSize()))
	_, err = base.WithFold(folded.CFold, l[:1], h)
	require.ErrorContains(t, err, "L' has 1 bytes")
	_, err = base.WithFold(folded.CFold, nil, nil)
	require.ErrorContains(t, err, "K (H on the coset) has 0 bytes")
	_, err = m.WithFold(folded.CFold, l, h)
	require.ErrorContains(t, err, "folded already")
}
