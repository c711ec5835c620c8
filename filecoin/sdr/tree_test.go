package sdr

import (
	"encoding/binary"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestPoseidonTreeKnownAnswer builds the binary Poseidon tree over (1, 0, 0, 1) of
// rust-fil-proofs filecoin-hashers/src/poseidon.rs test_poseidon_hasher and compares its first
// inner node and its root with the values stated there (u64 limbs, little-endian bytes).
func TestPoseidonTreeKnownAnswer(t *testing.T) {
	leaves := make([]fr.Element, 4)
	leaves[0].SetOne()
	leaves[3].SetOne()
	tr, err := NewTreeRC(sector.TreeShape{Base: 2}, leaves)
	require.NoError(t, err)
	bytesOf := func(limbs [4]uint64) [32]byte {
		var b [32]byte
		for i, l := range limbs {
			binary.LittleEndian.PutUint64(b[8*i:], l)
		}
		return b
	}
	inner := poseidonNode(leaves[:2])
	require.Equal(t, bytesOf([4]uint64{0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3}), Bytes(&inner))
	root := tr.Root()
	require.Equal(t, bytesOf([4]uint64{0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb}), Bytes(&root))
}
