package proofs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/prover"
)

const winningDir = "testdata/filecoin-winningpost-2kib"

// lanternInfo returns lantern's real WinningPoSt 2 KiB proof (filecoin-ffi made it) as a
// WinningPoStVerifyInfo.
func lanternInfo(t *testing.T) WinningPoStVerifyInfo {
	t.Helper()
	b, err := os.ReadFile(winningDir + "/lantern_winningpost_2kib_vector.json")
	require.NoError(t, err)
	var v struct {
		SealProofType int64  `json:"seal_proof_type"`
		PoStProofType int64  `json:"post_proof_type"`
		MinerID       uint64 `json:"miner_id"`
		SectorNumber  uint64 `json:"sector_number"`
		RandomnessHex string `json:"randomness_hex"`
		SealedCID     string `json:"sealed_cid"`
		ProofHex      string `json:"proof_bytes_hex"`
	}
	require.NoError(t, json.Unmarshal(b, &v))
	rnd, err := hex.DecodeString(v.RandomnessHex)
	require.NoError(t, err)
	proof, err := hex.DecodeString(v.ProofHex)
	require.NoError(t, err)
	info := WinningPoStVerifyInfo{
		Proofs:            []PoStProof{{PoStProof: post.ProofType(v.PoStProofType), ProofBytes: proof}},
		ChallengedSectors: []SectorInfo{{SealProof: sector.RegisteredSealProof(v.SealProofType), SectorNumber: v.SectorNumber, SealedCID: v.SealedCID}},
		Prover:            v.MinerID,
	}
	copy(info.Randomness[:], rnd)
	return info
}

// TestVerifyWinningPoStReal verifies lantern's real v28 WinningPoSt 2 KiB proof through
// VerifyWinningPoSt: the verifying key comes from a paramcache over testdata, which checks it
// against the digest Filecoin's parameters.json pins, and the 132 public inputs are derived
// from randomness, sector 7 and the sealed CID. Another randomness, sector number or comm_r
// gives false; malformed input gives errors.
func TestVerifyWinningPoStReal(t *testing.T) {
	ctx := context.Background()
	cache, err := paramcache.Open(paramcache.WithDir(winningDir), paramcache.WithMemoFile("-"))
	require.NoError(t, err)
	info := lanternInfo(t)
	ok, err := VerifyWinningPoSt(ctx, info, cache)
	require.NoError(t, err)
	require.True(t, ok)

	bad := info
	bad.Randomness[0] ^= 1
	ok, err = VerifyWinningPoSt(ctx, bad, cache)
	require.NoError(t, err)
	require.False(t, ok, "changed randomness")

	bad = info
	bad.ChallengedSectors = []SectorInfo{info.ChallengedSectors[0]}
	bad.ChallengedSectors[0].SectorNumber = 8
	ok, err = VerifyWinningPoSt(ctx, bad, cache)
	require.NoError(t, err)
	require.False(t, ok, "changed sector number")

	commR, err := post.CommRFromCID(info.ChallengedSectors[0].SealedCID)
	require.NoError(t, err)
	commR[0] ^= 1
	bad.ChallengedSectors[0] = info.ChallengedSectors[0]
	bad.ChallengedSectors[0].SealedCID = post.SealedCID(commR)
	ok, err = VerifyWinningPoSt(ctx, bad, cache)
	require.NoError(t, err)
	require.False(t, ok, "changed comm_r")

	bad = info
	bad.Proofs = []PoStProof{{PoStProof: info.Proofs[0].PoStProof, ProofBytes: info.Proofs[0].ProofBytes[:191]}}
	_, err = VerifyWinningPoSt(ctx, bad, cache)
	require.ErrorContains(t, err, "proof of 191 bytes, 1 partitions take 192")
	bad = info
	bad.ChallengedSectors = append([]SectorInfo{}, info.ChallengedSectors[0], info.ChallengedSectors[0])
	_, err = VerifyWinningPoSt(ctx, bad, cache)
	require.ErrorContains(t, err, "2 challenged sectors, want 1")
	bad = info
	bad.ChallengedSectors = []SectorInfo{info.ChallengedSectors[0]}
	bad.ChallengedSectors[0].SealProof = sector.StackedDrg32GiBV1_1
	_, err = VerifyWinningPoSt(ctx, bad, cache)
	require.ErrorContains(t, err, "another sector size")
	bad.ChallengedSectors[0].SealProof = 25
	_, err = VerifyWinningPoSt(ctx, bad, cache)
	require.ErrorContains(t, err, "ChallengedSectors[0] (sector 7): unknown registered seal proof 25")
	bad = info
	bad.Proofs = []PoStProof{{PoStProof: post.StackedDrgWindow2KiBV1, ProofBytes: info.Proofs[0].ProofBytes}}
	_, err = VerifyWinningPoStWithKey(bad, &prover.VerifyingKey{})
	require.ErrorContains(t, err, "is a window type")

	// A parameter directory without the key names the file.
	empty, err := paramcache.Open(paramcache.WithDir(t.TempDir()), paramcache.WithMemoFile("-"))
	require.NoError(t, err)
	_, err = VerifyWinningPoSt(ctx, info, empty)
	require.ErrorIs(t, err, paramcache.ErrMissing)
}

// sealed2KiB seals a 2 KiB sector of random fr32 data with sdr.Seal and returns it as a
// PrivateSectorInfo for the PoSt type pt.
func sealed2KiB(t *testing.T, number uint64, pt post.ProofType) PrivateSectorInfo {
	t.Helper()
	data := make([]byte, 2<<10)
	_, _ = rand.Read(data)
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	var ticket [32]byte
	ticket[0] = byte(number)
	s, err := sdr.Seal(context.Background(), sector.StackedDrg2KiBV1_1, sector.ProverID(1000), number, ticket, data)
	require.NoError(t, err)
	return PrivateSectorInfo{
		SectorInfo:    SectorInfo{SealProof: sector.StackedDrg2KiBV1_1, SectorNumber: number, SealedCID: post.SealedCID(post.DomainOf(&s.CommR))},
		PoStProofType: pt, CommC: s.CommC, TreeRLast: s.TreeR,
	}
}

// setup2KiB returns INSECURE development parameters for the PoSt type's circuit, written to a
// file and mapped from a parameter cache as a Curio node's are (ProofInfo.OpenParameters), and a
// CPU engine.
func setup2KiB(t *testing.T, pt post.ProofType) (*prover.Parameters, *engine.Engine) {
	t.Helper()
	pi, path := insecureParamsFile(t, pt)
	params := openParams(t, pi, cacheOf(t, pi, path))
	eng, err := engine.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close(context.Background()) })
	return params, eng
}

// TestWindowPoStEndToEnd2KiB: three 2 KiB sectors sealed in Go (sdr.Seal: tree-r-last, comm_c,
// comm_r) → vanilla proofs for the derived leaf challenges → WindowPoSt of 2 partitions (2 + 1
// padded sectors, 21,866 constraints each) proved on the CPU engine with devsetup parameters →
// VerifyWindowPoStWithKey, deriving the inputs from sector numbers, sealed CIDs and randomness
// alone, with the sectors given out of order. Another randomness or a missing sector fails.
func TestWindowPoStEndToEnd2KiB(t *testing.T) {
	ctx := context.Background()
	const pt = post.StackedDrgWindow2KiBV1_1
	info, err := post.Lookup(pt)
	require.NoError(t, err)
	var rnd post.Domain
	rnd[0], rnd[5] = 42, 7
	ids := []uint64{3, 7, 9}
	var vanilla [][]byte
	var sectors []SectorInfo
	fc, err := GeneratePoStFallbackSectorChallenges(pt, 1000, rnd, ids)
	require.NoError(t, err)
	require.Equal(t, ids, fc.Sectors)
	for idx, id := range ids {
		replica := sealed2KiB(t, id, pt)
		ch, err := info.LeafChallenges(rnd, id, idx)
		require.NoError(t, err)
		require.Equal(t, ch, fc.Challenges[id])
		vp, err := GenerateSingleVanillaProof(replica, fc.Challenges[id])
		require.NoError(t, err)
		vanilla = append(vanilla, vp)
		sectors = append(sectors, replica.SectorInfo)
	}
	params, eng := setup2KiB(t, pt)
	out, err := GenerateWindowPoStWithVanilla(ctx, eng, params, pt, 1000, rnd, vanilla)
	require.NoError(t, err)
	require.Len(t, out, 1)
	require.Len(t, out[0].ProofBytes, 2*prover.ProofSize)

	vi := WindowPoStVerifyInfo{Randomness: rnd, Proofs: out, ChallengedSectors: []SectorInfo{sectors[2], sectors[0], sectors[1]}, Prover: 1000}
	ok, err := VerifyWindowPoStWithKey(vi, &params.VK)
	require.NoError(t, err)
	require.True(t, ok)

	bad := vi
	bad.Randomness[0] ^= 1
	ok, err = VerifyWindowPoStWithKey(bad, &params.VK)
	require.NoError(t, err)
	require.False(t, ok, "changed randomness")
	bad = vi
	bad.ChallengedSectors = sectors[:2]
	_, err = VerifyWindowPoStWithKey(bad, &params.VK)
	require.ErrorContains(t, err, "proof of 384 bytes, 1 partitions take 192")

	// Vanilla proofs for other challenges are refused before proving, naming the sector.
	wrong := [][]byte{vanilla[1], vanilla[0], vanilla[2]}
	_, err = GenerateWindowPoStWithVanilla(ctx, eng, params, pt, 1000, rnd, wrong)
	require.ErrorContains(t, err, "not strictly ascending")
	rnd2 := rnd
	rnd2[1] = 1
	_, err = GenerateWindowPoStWithVanilla(ctx, eng, params, pt, 1000, rnd2, vanilla)
	require.ErrorContains(t, err, "sector 3")
}

// TestWinningPoStEndToEnd2KiB: a 2 KiB sector sealed in Go → its WinningPoSt vanilla proof
// (66 challenges) → proved on the CPU engine with devsetup parameters (90,750 constraints) →
// VerifyWinningPoStWithKey from sector number, sealed CID and randomness; another randomness
// fails.
func TestWinningPoStEndToEnd2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 90,750-constraint setup and proof on the CPU; TestWindowPoStEndToEnd2KiB covers the path in -short")
	}
	ctx := context.Background()
	const pt = post.StackedDrgWinning2KiBV1
	var rnd post.Domain
	rnd[0] = 9
	replica := sealed2KiB(t, 11, pt)
	fc, err := GeneratePoStFallbackSectorChallenges(pt, 1000, rnd, []uint64{11})
	require.NoError(t, err)
	ch := fc.Challenges[11]
	require.Len(t, ch, 66)
	vp, err := GenerateSingleVanillaProof(replica, ch)
	require.NoError(t, err)
	params, eng := setup2KiB(t, pt)
	out, err := GenerateWinningPoStWithVanilla(ctx, eng, params, pt, 1000, rnd, [][]byte{vp})
	require.NoError(t, err)
	vi := WinningPoStVerifyInfo{Randomness: rnd, Proofs: out, ChallengedSectors: []SectorInfo{replica.SectorInfo}, Prover: 1000}
	ok, err := VerifyWinningPoStWithKey(vi, &params.VK)
	require.NoError(t, err)
	require.True(t, ok)
	vi.Randomness[0] ^= 1
	ok, err = VerifyWinningPoStWithKey(vi, &params.VK)
	require.NoError(t, err)
	require.False(t, ok)
}

// TestGenerateSingleVanillaProofBadInput: a comm_r that is not Poseidon(comm_c, root), a
// challenge beyond the tree and a tree of another size are errors.
func TestGenerateSingleVanillaProofBadInput(t *testing.T) {
	replica := sealed2KiB(t, 1, post.StackedDrgWinning2KiBV1)
	bad := replica
	bad.CommC.SetUint64(5)
	_, err := GenerateSingleVanillaProof(bad, []uint64{0})
	require.ErrorContains(t, err, "Poseidon(comm_c, comm_r_last)")
	_, err = GenerateSingleVanillaProof(replica, []uint64{64})
	require.ErrorContains(t, err, "challenge 0 is leaf 64 of 64")
	bad = replica
	bad.PoStProofType = post.StackedDrgWinning8MiBV1
	_, err = GenerateSingleVanillaProof(bad, []uint64{0})
	require.ErrorContains(t, err, "tree-r-last of 64 leaves")
	vp, err := GenerateSingleVanillaProof(replica, []uint64{0, 63})
	require.NoError(t, err)
	p, err := post.DecodeSectorProof(vp)
	require.NoError(t, err)
	require.Equal(t, uint64(1), p.SectorID)
	require.Len(t, p.Sectors[0].InclusionProofs, 2)
}

// TestGeneratePoStFallbackSectorChallenges: WindowPoSt challenges depend on the sector's
// position (API 1.0.0) and equal post.Info.LeafChallenges; WinningPoSt challenges only the
// first sector; a repeated sector or non-canonical randomness is an error.
func TestGeneratePoStFallbackSectorChallenges(t *testing.T) {
	var rnd post.Domain
	rnd[3] = 1
	fc, err := GeneratePoStFallbackSectorChallenges(post.StackedDrgWindow32GiBV1, 1000, rnd, []uint64{9, 4})
	require.NoError(t, err)
	require.Equal(t, []uint64{4, 9}, fc.Sectors)
	info, err := post.Lookup(post.StackedDrgWindow32GiBV1)
	require.NoError(t, err)
	want, err := info.LeafChallenges(rnd, 4, 1)
	require.NoError(t, err)
	require.Equal(t, want, fc.Challenges[4])
	fc, err = GeneratePoStFallbackSectorChallenges(post.StackedDrgWinning32GiBV1, 1000, rnd, []uint64{9, 4})
	require.NoError(t, err)
	require.Equal(t, []uint64{9}, fc.Sectors)
	require.Len(t, fc.Challenges[9], 66)
	_, err = GeneratePoStFallbackSectorChallenges(post.StackedDrgWindow2KiBV1, 1000, rnd, []uint64{3, 3})
	require.ErrorContains(t, err, "sector 3 listed twice")
	rnd[31] = 0xff
	_, err = GeneratePoStFallbackSectorChallenges(post.StackedDrgWindow2KiBV1, 1000, rnd, []uint64{3})
	require.ErrorContains(t, err, "not canonical")
}
