package enginebackend_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/internal/syncbuf"
	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
	"github.com/cuzk-go/cuzk/prover"
)

// TestFoldDir: a daemon with a fold directory proves a WindowPoSt partition from a parameters
// file with its fold overlay mapped over it (proofs.ProofInfo.FoldParameters made it), and the
// proof verifies with the file's key; with no overlay there, or a damaged one, it proves with the
// parameters alone and logs why and what to do.
func TestFoldDir(t *testing.T) {
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

	prove := func(t *testing.T, want string) {
		var log syncbuf.Buffer
		b, err := enginebackend.New(enginebackend.WithParamCache(cache), enginebackend.WithFoldDir(dir),
			enginebackend.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		require.NoError(t, err)
		defer func() { require.NoError(t, b.Close()) }()
		res, err := serve(t, b).Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
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
		require.Contains(t, log.String(), want)
	}

	t.Run("none", func(t *testing.T) { prove(t, "no fold overlay") })
	fold, err := pi.FoldParameters(ctx, cache, dir)
	require.NoError(t, err)
	t.Run("folded", func(t *testing.T) { prove(t, "c_folded=true") })
	b, err := os.ReadFile(fold)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fold, b[:len(b)-1], 0o644))
	t.Run("damaged", func(t *testing.T) { prove(t, "fold overlay not used") })
	require.Equal(t, filepath.Join(dir, pi.FoldFile()), fold)
}
