package sdr

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestSyntheticProofsVerify checks that synthetic proofs of each size pass Verify and have the
// size's shape; 32 and 64 GiB only outside -short.
func TestSyntheticProofsVerify(t *testing.T) {
	ps := []sector.RegisteredSealProof{sector.StackedDrg2KiBV1, sector.StackedDrg8MiBV1_1, sector.StackedDrg512MiBV1_1}
	if !testing.Short() {
		ps = append(ps, sector.StackedDrg32GiBV1_1, sector.StackedDrg64GiBV1_1)
	}
	for _, p := range ps {
		pub, proofs, err := SyntheticProofs(context.Background(), p, [32]byte{byte(p)})
		require.NoError(t, err)
		require.NoError(t, Verify(pub, proofs), "%v", p)
		cfg := p.Config()
		require.Len(t, proofs, cfg.Partitions)
		pr := proofs[0][0]
		require.Len(t, pr.CommDProofs.BaseProof, cfg.DataDepth())
		require.Equal(t, cfg.Shape.Sub > 0, pr.CommRLastProof.SubProof != nil)
		require.Equal(t, cfg.Shape.Top > 0, pr.ReplicaColumnProofs.CX.InclusionProof.TopProof != nil)
		require.Len(t, pr.ReplicaColumnProofs.CX.Column.Rows, cfg.Layers)

		pr.LabelingProofs[0].Parents[0].SetUint64(1)
		require.ErrorIs(t, Verify(pub, proofs), ErrInvalidProof)
	}
}
