package enginebackend_test

import (
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/internal/syncbuf"
	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
	"github.com/cuzk-go/cuzk/prover"
)

// TestFoldDirOverGRPC: a daemon with a fold directory proves a WindowPoSt partition from a
// parameters file with its fold overlay mapped over it (proofs.ProofInfo.FoldParameters made it),
// and the proof verifies with the file's key; with no overlay there, a damaged one, or one whose
// proofs fail the self-check, it proves with the parameters alone and logs why and what to do.
// The fold takes ≈ 10 s on 2 cores: -short runs the case without an overlay alone.
func TestFoldDirOverGRPC(t *testing.T) {
	ctx := t.Context()
	const pt = post.StackedDrgWindow2KiBV1_1
	pi, err := proofs.PoStProofInfo(pt)
	require.NoError(t, err)
	cache, path := enginebackend.WriteParamsFile(t, nil)
	vk, err := prover.OpenParametersFile(path, prover.Checked)
	require.NoError(t, err)
	defer vk.Close()
	var rnd post.Domain
	rnd[4] = 2
	vanilla, sectors := postInputs(t, pt, rnd, []uint64{5})
	dir := t.TempDir()

	// prove proves once a want with a new daemon, each proof verified, and checks that its log
	// says each want.
	prove := func(t *testing.T, wants ...string) {
		var log syncbuf.Buffer
		b, err := enginebackend.New(enginebackend.WithParamCache(cache), enginebackend.WithFoldDir(dir),
			enginebackend.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		require.NoError(t, err)
		defer func() { require.NoError(t, b.Close()) }()
		c := serve(t, b)
		for range wants {
			res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
				ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(pt),
				MinerId: miner, Randomness: rnd[:], VanillaProofs: vanilla,
			}})
			require.NoError(t, err)
			require.Equal(t, cuzkv1.AwaitProofResponse_COMPLETED, res.Result.Status, res.Result.ErrorMessage)
			vi := proofs.WindowPoStVerifyInfo{Randomness: rnd, Prover: miner, ChallengedSectors: sectors,
				Proofs: []proofs.PoStProof{{PoStProof: pt, ProofBytes: res.Result.Proof}}}
			ok, err := proofs.VerifyWindowPoStWithKey(vi, &vk.VK)
			require.NoError(t, err)
			require.True(t, ok)
		}
		for _, want := range wants {
			require.Contains(t, log.String(), want)
		}
	}

	t.Run("none", func(t *testing.T) { prove(t, "no fold overlay") })
	if testing.Short() {
		return
	}
	fold, err := pi.FoldParameters(ctx, cache, dir)
	require.NoError(t, err)
	t.Run("folded", func(t *testing.T) { prove(t, "c_folded=true") })
	b, err := os.ReadFile(fold)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fold, b[:len(b)-1], 0o644))
	t.Run("damaged", func(t *testing.T) { prove(t, "fold overlay not used") })
	require.Equal(t, filepath.Join(dir, pi.FoldFile()), fold)

	// An overlay whose header fits but whose L' is wrong (every point negated: on the curve, in
	// the subgroup): the proof with it fails the engine's self-check, the overlay is set aside
	// and the job is proved again without it; a later load passes it over while it is unchanged.
	require.NoError(t, os.WriteFile(fold, b, 0o644))
	const hdr = 4096 // the header of a few inputs' points, padded to 4 KiB; then L''s count
	n := int(binary.BigEndian.Uint32(b[hdr:]))
	// L' alone; K's count and points follow it.
	pts := b[hdr+4 : hdr+4+n*prover.G1UncompressedSize]
	for i := range n { // y ← p − y: bytes 48..96 of a point, big-endian
		y := pts[i*prover.G1UncompressedSize+fp.Bytes : (i+1)*prover.G1UncompressedSize]
		var e fp.Element
		require.NoError(t, e.SetBytesCanonical(y))
		e.Neg(&e)
		b := e.Bytes()
		copy(y, b[:])
	}
	require.NoError(t, os.WriteFile(fold, b, 0o644))
	t.Run("wrong", func(t *testing.T) {
		prove(t, "fold overlay set aside: a proof with it failed the self-check", "fold overlay set aside after a failed self-check")
	})
}
