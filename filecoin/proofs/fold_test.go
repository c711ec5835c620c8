package proofs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/prover"
)

// TestOpenFoldMissing: OpenFold of a directory without the type's overlay wraps ErrNoFold and
// names the file it looked for, ParamsFile with ".params" replaced.
func TestOpenFoldMissing(t *testing.T) {
	pi, path := insecureParamsFile(t, post.StackedDrgWindow2KiBV1_1)
	base, err := pi.OpenParameters(t.Context(), cacheOf(t, pi, path), prover.Unchecked)
	require.NoError(t, err)
	defer base.Close()
	dir := t.TempDir()
	_, err = pi.OpenFold(base, dir, prover.Unchecked)
	require.ErrorIs(t, err, ErrNoFold)
	want := strings.TrimSuffix(pi.ParamsFile, ".params") + ".cuzk-fold"
	require.Equal(t, want, pi.FoldFile())
	require.ErrorContains(t, err, filepath.Join(dir, want))
}

// TestFoldedParametersEndToEnd: a WindowPoSt partition's parameters folded into an overlay
// (FoldParameters) and mapped over their file (OpenFold) prove a WindowPoSt that verifies with
// the file's key. A missing overlay wraps ErrNoFold; a damaged one is refused naming its file.
// The fold takes ≈ 10 s on 2 cores: -short skips it (TestOpenFoldMissing and prover's fold
// tests run instead).
func TestFoldedParametersEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("a fold of 2^15 points: ≈ 10 s on 2 cores")
	}
	ctx := context.Background()
	const pt = post.StackedDrgWindow2KiBV1_1
	pi, path := insecureParamsFile(t, pt)
	cache := cacheOf(t, pi, path)
	dir := t.TempDir()

	base, err := pi.OpenParameters(ctx, cache, prover.Unchecked)
	require.NoError(t, err)
	defer base.Close()
	_, err = pi.OpenFold(base, dir, prover.Unchecked)
	require.ErrorIs(t, err, ErrNoFold)
	require.ErrorContains(t, err, filepath.Join(dir, pi.FoldFile()))

	var stages []string
	fold, err := pi.FoldParameters(ctx, cache, dir, prover.FoldWithProgress(func(stage string, done, _ int64) {
		if done == 0 {
			stages = append(stages, stage)
		}
	}))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, pi.FoldFile()), fold)
	require.Equal(t, []string{"C's transform", "H on the coset", "C's columns"}, stages)

	folded, err := pi.OpenFold(base, dir, prover.Unchecked)
	require.NoError(t, err)
	params, err := folded.Parameters()
	require.NoError(t, err)
	require.NotNil(t, params.CFold)

	info, err := post.Lookup(pt)
	require.NoError(t, err)
	var rnd post.Domain
	rnd[2] = 9
	replica := sealed2KiB(t, 4, pt)
	ch, err := info.LeafChallenges(rnd, 4, 0)
	require.NoError(t, err)
	vp, err := GenerateSingleVanillaProof(replica, ch)
	require.NoError(t, err)
	eng, err := engine.New()
	require.NoError(t, err)
	defer eng.Close(ctx)
	out, err := GenerateWindowPoStWithVanilla(ctx, eng, params, pt, 1000, rnd, [][]byte{vp})
	require.NoError(t, err)
	vi := WindowPoStVerifyInfo{Randomness: rnd, Proofs: out, ChallengedSectors: []SectorInfo{replica.SectorInfo}, Prover: 1000}
	ok, err := VerifyWindowPoStWithKey(vi, &params.VK)
	require.NoError(t, err)
	require.True(t, ok, "a proof with the folded parameters verifies")
	require.NoError(t, folded.Close())

	// An overlay cut short (one folded from another file is refused as prover's TestFoldOverlay
	// shows).
	b, err := os.ReadFile(fold)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fold, b[:len(b)/2], 0o644))
	_, err = pi.OpenFold(base, dir, prover.Unchecked)
	require.ErrorContains(t, err, fold)
	require.NotErrorIs(t, err, ErrNoFold)
}
