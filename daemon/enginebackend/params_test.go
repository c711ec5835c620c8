package enginebackend

import (
	"context"
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
)

// WriteParamsFile writes INSECURE development parameters of the 2 KiB WindowPoSt circuit to a
// new directory under the name of its v28 .params file, lets edit change the file's bytes, and
// returns a parameter cache of that directory whose manifest lists the file with the digest of
// what was written (the first 16 bytes of BLAKE2b-512, as Filecoin's parameters.json), and the
// file's path. Exported to the package's external tests.
func WriteParamsFile(t *testing.T, edit func(b []byte)) (*paramcache.Cache, string) {
	t.Helper()
	const pt = post.StackedDrgWindow2KiBV1_1
	pi, err := proofs.PoStProofInfo(pt)
	require.NoError(t, err)
	shape, err := proofs.PoStCircuitShape(pt)
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, pi.ParamsFile)
	require.NoError(t, devsetup.WriteInsecureSetup(path, shape, tw))
	if edit != nil {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		edit(b)
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	digest, err := paramcache.FileDigest(context.Background(), path)
	require.NoError(t, err)
	entry := paramcache.Default()[pi.ParamsFile]
	entry.Digest = digest
	c, err := paramcache.Open(paramcache.WithDir(dir), paramcache.WithMemoFile("-"),
		paramcache.WithManifest(paramcache.Manifest{pi.ParamsFile: entry}))
	require.NoError(t, err)
	return c, path
}

// requireOpen reports whether m is still mapped: decoding its first H point works on an open
// mapping and fails with "closed" on a closed one.
func requireOpen(t *testing.T, m *prover.MappedParameters, open bool) {
	t.Helper()
	var q [1]bls12381.G1Affine
	err := m.G1(primitive.SectionH, 0, q[:])
	if open {
		require.NoError(t, err)
	} else {
		require.ErrorContains(t, err, "mapped parameters are closed")
	}
}

// TestParamStoreUnmaps: the store maps a circuit's file once for every proof (the parameters'
// points stay in the mapping); evicting it while a proof holds the parameters keeps the mapping
// until that proof releases them, and the next proof maps the file afresh; close unmaps what no
// proof holds.
func TestParamStoreUnmaps(t *testing.T) {
	ctx := t.Context()
	cache, _ := WriteParamsFile(t, nil)
	s := newParamStore(cache, false, nil, slog.New(slog.DiscardHandler))
	const id = "wpost-2k"
	k, rp, err := representative(id)
	require.NoError(t, err)
	pi, err := proofInfo(k, rp)
	require.NoError(t, err)

	e, loaded, err := s.acquire(ctx, id, pi, k, rp)
	require.NoError(t, err)
	require.True(t, loaded)
	m := e.params.Mapped()
	require.NotNil(t, m, "parameters from the cache are mapped")
	require.Same(t, m, e.file)
	require.Zero(t, e.params.HeapBytes())
	e2, loaded, err := s.acquire(ctx, id, pi, k, rp)
	require.NoError(t, err)
	require.False(t, loaded)
	require.Same(t, e, e2)

	ev, err := s.evict(ctx, id)
	require.NoError(t, err)
	require.True(t, ev.WasLoaded)
	requireOpen(t, m, true) // two proofs hold it
	s.release(e)
	requireOpen(t, m, true) // one proof holds it
	s.release(e2)
	requireOpen(t, m, false)
	require.Empty(t, s.status())

	e, _, err = s.acquire(ctx, id, pi, k, rp)
	require.NoError(t, err)
	m2 := e.params.Mapped()
	require.NotSame(t, m, m2, "mapped afresh after the eviction")
	requireOpen(t, m2, true)
	s.release(e)
	requireOpen(t, m2, true) // loaded: kept until evicted
	s.close()
	requireOpen(t, m2, false)
}

// TestParamStoreEvictWhileLoading: a circuit evicted right after a cancelled request started its
// load (usually while the cache still hashes the file), with no proof holding it, ends unmapped
// once the load has ended, whichever of the two came first.
func TestParamStoreEvictWhileLoading(t *testing.T) {
	cache, _ := WriteParamsFile(t, nil)
	s := newParamStore(cache, false, nil, slog.New(slog.DiscardHandler))
	const id = "wpost-2k"
	k, rp, err := representative(id)
	require.NoError(t, err)
	pi, err := proofInfo(k, rp)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err = s.acquire(ctx, id, pi, k, rp) // starts the load, gives up at once
	require.ErrorIs(t, err, context.Canceled)
	s.mu.Lock()
	e := s.entries[id]
	s.mu.Unlock()
	require.NotNil(t, e)
	_, err = s.evict(t.Context(), id) // waits for the load
	require.NoError(t, err)
	<-e.ready
	require.NoError(t, e.err)
	requireOpen(t, e.params.Mapped(), false)
}
