package proofs

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/filecoin/update"
	"github.com/cuzk-go/cuzk/prover"
)

// updated2KiB seals a random 2 KiB sector in Go (sdr.Seal) and encodes new random data into it.
func updated2KiB(t *testing.T) *update.Replica {
	t.Helper()
	random := func() []byte {
		b := make([]byte, sector.Size2KiB)
		_, _ = rand.Read(b)
		for i := 31; i < len(b); i += 32 {
			b[i] &= 0x3f
		}
		return b
	}
	var ticket [32]byte
	ticket[0] = 5
	s, err := sdr.Seal(context.Background(), sector.StackedDrg2KiBV1_1, sector.ProverID(1000), 5, ticket, random())
	require.NoError(t, err)
	data, err := sdr.DataNodes(random())
	require.NoError(t, err)
	r, err := update.Encode(update.StackedDrg2KiBV1, s.TreeR, s.CommC, data)
	require.NoError(t, err)
	return r
}

func commitments(r *update.Replica) (rOld, rNew, dNew [32]byte) {
	return sdr.Bytes(&r.CommROld), sdr.Bytes(&r.CommRNew), sdr.Bytes(&r.CommDNew)
}

// TestUpdateProofInfo: the update types' partitions and file names.
func TestUpdateProofInfo(t *testing.T) {
	pi, err := UpdateProofInfo(update.StackedDrg32GiBV1)
	require.NoError(t, err)
	require.Equal(t, EmptySectorUpdate, pi.Circuit)
	require.Equal(t, "StackedDrg32GiBV1", pi.Name)
	require.Equal(t, 16, pi.Partitions(1))
	require.Equal(t, "empty-sector-update", pi.Circuit.String())
	pi, err = UpdateProofInfo(update.StackedDrg2KiBV1)
	require.NoError(t, err)
	require.Equal(t, 1, pi.Partitions(1))
	require.Contains(t, pi.VKFile, "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-")
	_, err = UpdateProofInfo(update.ProofType(5))
	require.ErrorContains(t, err, "unknown registered update proof 5")
}

// TestUpdateVanillaRejected: vanilla proofs that do not check against the commitments, a wrong
// count or a malformed encoding are refused before any proving, naming what.
func TestUpdateVanillaRejected(t *testing.T) {
	ctx := context.Background()
	r := updated2KiB(t)
	vanilla, err := GenerateEmptySectorUpdatePartitionProofs(r)
	require.NoError(t, err)
	require.Len(t, vanilla, 1)
	eng, err := engine.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close(context.Background()) })
	params := &prover.Parameters{} // never reached: every case fails before proving
	rOld, rNew, dNew := commitments(r)

	bad := rNew
	bad[0] ^= 1
	_, err = GenerateEmptySectorUpdateProofWithVanilla(ctx, eng, params, update.StackedDrg2KiBV1, rOld, bad, dNew, vanilla)
	require.ErrorIs(t, err, update.ErrInvalidProof)
	require.ErrorContains(t, err, "partition 0")
	_, err = GenerateEmptySectorUpdateProofWithVanilla(ctx, eng, params, update.StackedDrg2KiBV1, rOld, rNew, dNew, nil)
	require.ErrorContains(t, err, "0 partition proofs, want 1")
	trunc := [][]byte{vanilla[0][:100]}
	_, err = GenerateEmptySectorUpdateProofWithVanilla(ctx, eng, params, update.StackedDrg2KiBV1, rOld, rNew, dNew, trunc)
	require.ErrorIs(t, err, update.ErrFormat)
	require.ErrorContains(t, err, "partition 0")
	var huge [32]byte
	for i := range huge {
		huge[i] = 0xff
	}
	_, err = GenerateEmptySectorUpdateProofWithVanilla(ctx, eng, params, update.StackedDrg2KiBV1, huge, rNew, dNew, vanilla)
	require.ErrorContains(t, err, "comm_r_old is not a field element")
}

// TestEmptySectorUpdateEndToEnd2KiB: a 2 KiB sector sealed in Go → updated with new data →
// vanilla partition proofs (bincode) → proved on the CPU engine with INSECURE devsetup
// parameters (1,705,039 constraints, 2^21 rows) → VerifyEmptySectorUpdateProofWithKey with the
// inputs derived from the three commitments alone; a changed comm_r_new or comm_d_new gives
// false.
func TestEmptySectorUpdateEndToEnd2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.7 M-constraint setup and proof on the CPU; TestUpdateVanillaRejected and filecoin/update cover the vanilla path in -short")
	}
	ctx := context.Background()
	r := updated2KiB(t)
	vanilla, err := GenerateEmptySectorUpdatePartitionProofs(r)
	require.NoError(t, err)
	shape, err := UpdateCircuitShape(update.StackedDrg2KiBV1)
	require.NoError(t, err)
	require.Equal(t, 1_705_039, shape.NumConstraints)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	params, err := devsetup.InsecureSetup(shape, tw)
	require.NoError(t, err)
	eng, err := engine.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close(context.Background()) })

	rOld, rNew, dNew := commitments(r)
	proof, err := GenerateEmptySectorUpdateProofWithVanilla(ctx, eng, params, update.StackedDrg2KiBV1, rOld, rNew, dNew, vanilla)
	require.NoError(t, err)
	require.Len(t, proof, prover.ProofSize)

	info := ReplicaUpdateInfo{UpdateProofType: update.StackedDrg2KiBV1, CommROld: rOld, CommRNew: rNew, CommDNew: dNew, Proof: proof}
	ok, err := VerifyEmptySectorUpdateProofWithKey(info, &params.VK)
	require.NoError(t, err)
	require.True(t, ok)

	bad := info
	bad.CommRNew[0] ^= 1
	ok, err = VerifyEmptySectorUpdateProofWithKey(bad, &params.VK)
	require.NoError(t, err)
	require.False(t, ok, "changed comm_r_new")
	bad = info
	bad.CommDNew[3] ^= 1
	ok, err = VerifyEmptySectorUpdateProofWithKey(bad, &params.VK)
	require.NoError(t, err)
	require.False(t, ok, "changed comm_d_new")
	bad = info
	bad.Proof = proof[:100]
	_, err = VerifyEmptySectorUpdateProofWithKey(bad, &params.VK)
	require.ErrorContains(t, err, "proof of 100 bytes, 1 partitions take 192")
}
