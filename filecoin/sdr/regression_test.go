package sdr

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestSealRegressionRecords reads rust-fil-proofs' 124 2 KiB seal regression records (their
// sector data is not published, so no commitment can be recomputed): comm_d and comm_r are
// canonical field elements with comm_d's top two bits clear (a truncated SHA-256 root), and for
// each the replica id and the interactive challenges derive within the 64-node sector.
func TestSealRegressionRecords(t *testing.T) {
	f, err := os.Open("testdata/seal_regression_records.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var r struct {
			PoRepConfig struct {
				PoRepID    [32]byte `json:"porep_id"`
				APIVersion string   `json:"api_version"`
			} `json:"porep_config"`
			CommR    [32]byte `json:"comm_r"`
			CommD    [32]byte `json:"comm_d"`
			ProverID [32]byte `json:"prover_id"`
			SectorID uint64   `json:"sector_id"`
			Ticket   [32]byte `json:"ticket"`
			Seed     [32]byte `json:"seed"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		_, err := fr.LittleEndian.Element(&r.CommR)
		require.NoError(t, err, "record %d comm_r", n)
		_, err = fr.LittleEndian.Element(&r.CommD)
		require.NoError(t, err, "record %d comm_d", n)
		require.Zero(t, r.CommD[31]&0xc0, "record %d comm_d", n)
		p, err := sector.FromPoRepID(r.PoRepConfig.PoRepID)
		require.NoError(t, err)
		id := ReplicaID(r.ProverID, r.SectorID, r.Ticket, r.CommD, r.PoRepConfig.PoRepID)
		for _, c := range InteractiveChallenges(p.Config().Nodes, &id, r.Seed, 0, p.Config().ChallengesPerPartition) {
			require.True(t, c >= 1 && c < 64)
		}
		n++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 124, n)
}
