package sdr

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestLabelKnownAnswers checks the last label of the last node after 11 layers against
// rust-fil-proofs storage-proofs-porep/tests/stacked_vanilla.rs test_stacked_porep_generate_labels:
// replica id [9; 32], 64- and 128-node graphs, porep id [0; 32] with API v1.0 and [123; 32] with
// v1.1 and v1.2; the expected labels are Fr::from_u64s_le limbs.
func TestLabelKnownAnswers(t *testing.T) {
	var replicaID, legacy, porepID [32]byte
	for i := range replicaID {
		replicaID[i], porepID[i] = 9, 123
	}
	cases := []struct {
		nodes   uint64
		porepID [32]byte
		api     sector.APIVersion
		want    [4]uint64
	}{
		{64, legacy, sector.V1_0_0, [4]uint64{0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37}},
		{128, legacy, sector.V1_0_0, [4]uint64{0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8, 0x234c00d1dc1d53be}},
		{64, porepID, sector.V1_1_0, [4]uint64{0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
		{128, porepID, sector.V1_1_0, [4]uint64{0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
		{64, porepID, sector.V1_2_0, [4]uint64{0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
		{128, porepID, sector.V1_2_0, [4]uint64{0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
	}
	for _, c := range cases {
		g, err := NewGraph(c.nodes, c.porepID, c.api)
		require.NoError(t, err)
		lb, err := Label(context.Background(), g, replicaID, 11)
		require.NoError(t, err)
		var want [32]byte
		for i, limb := range c.want {
			binary.LittleEndian.PutUint64(want[8*i:], limb)
		}
		require.Equal(t, want[:], lb.Label(11, c.nodes-1), "%d nodes, %v", c.nodes, c.api)
	}
}
