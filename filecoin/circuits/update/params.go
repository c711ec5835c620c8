package update

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/bits"
)

// TreeShape is the arity of tree R's levels: base trees of arity Base, then optionally a
// sub-tree level of arity Sub and a top level of arity Top (0: none).
type TreeShape struct{ Base, Sub, Top int }

// NodeSize is the size of a tree node in bytes.
const NodeSize = 32

// sizes lists storage-proofs-update constants.rs ALLOWED_SECTOR_SIZES (in 32-byte nodes) with
// the tree R shape validate_tree_r_shape requires: the test sizes 1 KiB … 16 MiB, 512 MiB and the
// published 32 and 64 GiB.
var sizes = map[uint64]TreeShape{
	1 << 5:  {8, 4, 0},
	1 << 6:  {8, 0, 0},
	1 << 7:  {8, 2, 0},
	1 << 8:  {8, 4, 0},
	1 << 9:  {8, 8, 0},
	1 << 10: {8, 8, 2},
	1 << 18: {8, 0, 0},
	1 << 19: {8, 2, 0},
	1 << 24: {8, 0, 0},
	1 << 30: {8, 8, 0},
	1 << 31: {8, 8, 2},
}

// Params are the EmptySectorUpdate circuit's public parameters (storage-proofs-update
// vanilla.rs PublicParams::from_sector_size, constants.rs):
//
//	challenges  = 10 up to 16 MiB, else 86           (challenge_count)
//	partitions  = 1 up to 8 KiB, 2 up to 32 KiB, 4 up to 16 MiB, else 16   (partition_count)
//	apex leaves = 8 up to 8 KiB, else 128            (apex_leaf_count)
//	hs          = [1;6] up to 32 KiB, else [7 … 12]  (the allowed numbers of high challenge bits)
type Params struct {
	SectorNodes    uint64
	Tree           TreeShape
	ChallengeCount int
	PartitionCount int
	ApexLeafCount  int
	HS             [6]int
}

// ParamsFor returns the parameters of an allowed sector size in bytes.
func ParamsFor(sectorSize uint64) (Params, error) {
	nodes := sectorSize / NodeSize
	tree, ok := sizes[nodes]
	if !ok || sectorSize%NodeSize != 0 {
		return Params{}, fmt.Errorf("update: sector size %d is not an EmptySectorUpdate size", sectorSize)
	}
	p := Params{SectorNodes: nodes, Tree: tree, ChallengeCount: 86, PartitionCount: 16, ApexLeafCount: 128,
		HS: [6]int{7, 8, 9, 10, 11, 12}}
	if nodes <= 1<<19 {
		p.ChallengeCount = 10
	}
	switch {
	case nodes <= 1<<8:
		p.PartitionCount = 1
	case nodes <= 1<<10:
		p.PartitionCount = 2
	case nodes <= 1<<19:
		p.PartitionCount = 4
	}
	if nodes <= 1<<8 {
		p.ApexLeafCount = 8
	}
	if nodes <= 1<<10 {
		p.HS = [6]int{1, 1, 1, 1, 1, 1}
	}
	return p, nil
}

// ChallengeBits is log2(SectorNodes), the bits of a challenge (challenge_bit_len).
func (p Params) ChallengeBits() int { return bits.TrailingZeros64(p.SectorNodes) }

// PartitionBits is log2(PartitionCount) (partition_bit_len).
func (p Params) PartitionBits() int { return bits.TrailingZeros(uint(p.PartitionCount)) }

// ApexLeafBits is log2(ApexLeafCount) (apex_leaf_bit_len).
func (p Params) ApexLeafBits() int { return bits.TrailingZeros(uint(p.ApexLeafCount)) }

// Arities returns tree R's level arities from the leaves up: base levels, then sub and top
// (circuit.rs ChallengeProof::empty).
func (p Params) Arities() []int {
	rest := p.ChallengeBits()
	var upper []int
	for _, a := range []int{p.Tree.Sub, p.Tree.Top} {
		if a > 0 {
			upper = append(upper, a)
			rest -= bits.TrailingZeros(uint(a))
		}
	}
	out := make([]int, 0, rest/3+len(upper))
	for i := 0; i < rest/bits.TrailingZeros(uint(p.Tree.Base)); i++ {
		out = append(out, p.Tree.Base)
	}
	return append(out, upper...)
}

// DigestsPerPartition is the number of Poseidon digests that give a partition's challenge
// bits: ⌈ChallengeCount / ⌊254 / (ChallengeBits − PartitionBits)⌋⌉ (gadgets.rs
// gen_challenge_bits).
func (p Params) DigestsPerPartition() int {
	per := 254 / (p.ChallengeBits() - p.PartitionBits())
	return (p.ChallengeCount + per - 1) / per
}

// CacheID returns the parameter-cache identifier of the circuit, from which the v28 file names
// derive: "empty-sector-update-merkletree-poseidon_hasher-<base>-<sub>-<top>-" + hex(SHA-256(
// "empty_sector_update::PublicParams{ sector_nodes: N }")) (storage-proofs-update compound.rs
// cache_prefix, vanilla.rs identifier; storage-proofs-core parameter_cache.rs cache_identifier).
func (p Params) CacheID() string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("empty_sector_update::PublicParams{ sector_nodes: %d }", p.SectorNodes)))
	return fmt.Sprintf("empty-sector-update-merkletree-poseidon_hasher-%d-%d-%d-%s", p.Tree.Base, p.Tree.Sub, p.Tree.Top, hex.EncodeToString(sum[:]))
}

// ParamsFile returns the v28 Groth16 parameters file name, "v28-" + CacheID() + ".params".
func (p Params) ParamsFile() string { return "v28-" + p.CacheID() + ".params" }

// VKFile returns the v28 verifying-key file name, "v28-" + CacheID() + ".vk".
func (p Params) VKFile() string { return "v28-" + p.CacheID() + ".vk" }
