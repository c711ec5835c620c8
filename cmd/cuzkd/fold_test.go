package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/prover"
)

// TestFoldCommandLine: cuzkd fold refuses a command line without circuits, without a fold
// directory, or with an unknown circuit id, before it reads any parameters.
func TestFoldCommandLine(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cuzk.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("[srs]\nparam_cache = \"/nonexistent\"\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fold", "--config", cfg, "--fold-dir", t.TempDir()}, "name at least one circuit id"},
		{[]string{"fold", "--config", cfg, "wpost-2k"}, "no fold directory: set srs.fold_dir in the configuration or pass --fold-dir"},
		{[]string{"fold", "--config", cfg, "--fold-dir", t.TempDir(), "wpost-3k"}, "wpost-3k"},
		{[]string{"fold", "--config", cfg, "--fold-dir", t.TempDir(), "--device", "tpu", "wpost-2k"}, `--device "tpu": want auto, cpu or gpu`},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tc.args, &out, &out)
		require.ErrorContains(t, err, tc.want, "%q", tc.args)
	}
}

// TestFoldCircuitEndToEnd: foldCircuit makes a circuit's overlay from the parameters of the cache (the
// daemon's WindowPoSt 2 KiB circuit, INSECURE parameters listed in the cache's manifest), keeps
// one that fits on the next call, folds again with force or when the overlay does not open, and
// the overlay opens over the parameters for the circuit. Its two folds take ≈ 20 s on 2 cores:
// -short skips it.
func TestFoldCircuitEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("two folds of 2^15 points: ≈ 20 s on 2 cores")
	}
	ctx := context.Background()
	const id = "wpost-2k"
	pi, err := enginebackend.CircuitProofInfo(id)
	require.NoError(t, err)
	shape, err := pi.Shape()
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	paramDir, foldDir := t.TempDir(), t.TempDir()
	path := filepath.Join(paramDir, pi.ParamsFile)
	require.NoError(t, devsetup.WriteInsecureSetup(path, shape, tw))
	digest, err := paramcache.FileDigest(ctx, path)
	require.NoError(t, err)
	entry := paramcache.Default()[pi.ParamsFile]
	entry.Digest = digest
	cache, err := paramcache.Open(paramcache.WithDir(paramDir), paramcache.WithMemoFile("-"),
		paramcache.WithManifest(paramcache.Manifest{pi.ParamsFile: entry}))
	require.NoError(t, err)

	fold := func(force bool) (string, string) {
		var out, errs bytes.Buffer
		require.NoError(t, foldCircuit(ctx, id, pi, cache, foldDir, force, &out, &errs))
		return out.String(), errs.String()
	}
	overlay := filepath.Join(foldDir, pi.FoldFile())
	out, errs := fold(false)
	require.Contains(t, out, id+": folded into "+overlay)
	require.Contains(t, errs, "H on the coset")
	out, _ = fold(false)
	require.Contains(t, out, "fits its parameters and circuit: kept")
	require.NoError(t, os.Truncate(overlay, 100))
	out, errs = fold(false)
	require.Contains(t, errs, id+": folding again: ")
	require.Contains(t, out, "folded into")

	base, err := pi.OpenParameters(ctx, cache, prover.Unchecked)
	require.NoError(t, err)
	defer base.Close()
	m, err := pi.OpenFold(base, foldDir, prover.Unchecked)
	require.NoError(t, err)
	require.NoError(t, m.Close())
}
