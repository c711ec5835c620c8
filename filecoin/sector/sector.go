package sector

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
)

// NodeSize is the size of one sector node in bytes: one field element, 32 bytes
// (storage-proofs-core src/util.rs NODE_SIZE).
const NodeSize = 32

// Graph degrees of the stacked DRG (storage-proofs-core src/drgraph.rs BASE_DEGREE,
// storage-proofs-porep src/stacked/vanilla/graph.rs EXP_DEGREE, TOTAL_PARENTS = 37 in
// stacked/vanilla/mod.rs).
const (
	BaseDegree   = 6
	ExpDegree    = 8
	TotalParents = 37
)

// ParamsVersion is the parameter-file version prefix (storage-proofs-core parameter_cache.rs
// VERSION).
const ParamsVersion = 28

// Published sector sizes in bytes (filecoin-proofs src/constants.rs PUBLISHED_SECTOR_SIZES).
const (
	Size2KiB   uint64 = 1 << 11
	Size8MiB   uint64 = 1 << 23
	Size512MiB uint64 = 1 << 29
	Size32GiB  uint64 = 1 << 35
	Size64GiB  uint64 = 1 << 36
)

// TreeShape is the arity of the base trees, of the sub-tree layer over the base roots and of the
// top layer over the sub roots (0 = absent) of tree C and tree R (filecoin-proofs
// src/constants.rs SectorShape*: LCTree<PoseidonHasher, U8, U0, U0> and so on).
type TreeShape struct {
	Base, Sub, Top int
}

// String returns the shape as rust-fil-proofs displays it, e.g. "8-8-0".
func (s TreeShape) String() string { return fmt.Sprintf("%d-%d-%d", s.Base, s.Sub, s.Top) }

// BaseTrees returns the number of base trees: Sub·Top with absent layers counting 1.
func (s TreeShape) BaseTrees() int { return max(s.Sub, 1) * max(s.Top, 1) }

// Config is the interactive-PoRep configuration of one sector size.
type Config struct {
	SectorSize uint64 // bytes
	Nodes      uint64 // SectorSize / 32
	Layers     int    // SDR layers (filecoin-proofs constants.rs LAYERS)
	Partitions int    // PoRep partitions (constants.rs POREP_PARTITIONS)
	// MinChallenges is the minimum number of interactive challenges over all partitions
	// (constants.rs get_porep_interactive_minimum_challenges); ChallengesPerPartition is
	// ⌈MinChallenges / Partitions⌉ (parameters.rs select_challenges).
	MinChallenges          int
	ChallengesPerPartition int
	Shape                  TreeShape
}

// DataDepth returns the depth of the binary SHA-256 data tree (comm_d): log2(Nodes).
func (c Config) DataDepth() int {
	d := 0
	for n := c.Nodes; n > 1; n >>= 1 {
		d++
	}
	return d
}

var configs = []Config{
	{Size2KiB, Size2KiB / NodeSize, 2, 1, 2, 2, TreeShape{8, 0, 0}},
	{Size8MiB, Size8MiB / NodeSize, 2, 1, 2, 2, TreeShape{8, 0, 0}},
	{Size512MiB, Size512MiB / NodeSize, 2, 1, 2, 2, TreeShape{8, 0, 0}},
	{Size32GiB, Size32GiB / NodeSize, 11, 10, 176, 18, TreeShape{8, 8, 0}},
	{Size64GiB, Size64GiB / NodeSize, 11, 10, 176, 18, TreeShape{8, 8, 2}},
}

// ErrUnknownSize is returned for a sector size that is not a published one.
var ErrUnknownSize = errors.New("sector: unknown sector size")

// ConfigFor returns the configuration of a published sector size in bytes.
func ConfigFor(sectorSize uint64) (Config, error) {
	for _, c := range configs {
		if c.SectorSize == sectorSize {
			return c, nil
		}
	}
	return Config{}, fmt.Errorf("%w %d", ErrUnknownSize, sectorSize)
}

// Configs returns the configurations of all published sector sizes, smallest first.
func Configs() []Config { return append([]Config(nil), configs...) }

// TreeDisplay returns the tree type as rust-fil-proofs displays it in parameter identifiers,
// e.g. "merkletree-poseidon_hasher-8-8-0" (storage-proofs-core merkle/tree.rs display).
func (c Config) TreeDisplay() string { return "merkletree-poseidon_hasher-" + c.Shape.String() }

// ParamsIdentifier returns the PoRep circuit's public-parameter identifier, whose SHA-256 names
// the parameter files (storage-proofs-porep stacked/vanilla/params.rs PublicParams::identifier;
// the porep id is not part of it, so v1 and v1.1 proofs share parameters).
func (c Config) ParamsIdentifier() string {
	return fmt.Sprintf("layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: %d base_graph: drgraph::BucketGraph{size: %d; degree: %d; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: %d, max_count: %d }, tree: %s }",
		ExpDegree, c.Nodes, BaseDegree, c.Layers, c.ChallengesPerPartition, c.TreeDisplay())
}

// ParamsCacheID returns "stacked-proof-of-replication-<tree>-sha256_hasher-<hex SHA-256 of
// ParamsIdentifier>" (storage-proofs-core parameter_cache.rs cache_identifier; the prefix from
// storage-proofs-porep stacked/circuit/proof.rs cache_prefix).
func (c Config) ParamsCacheID() string {
	h := sha256.Sum256([]byte(c.ParamsIdentifier()))
	return "stacked-proof-of-replication-" + c.TreeDisplay() + "-sha256_hasher-" + hex.EncodeToString(h[:])
}

// ParamsFileName returns the v28 Groth16 parameter file name of the PoRep circuit.
func (c Config) ParamsFileName() string {
	return fmt.Sprintf("v%d-%s.params", ParamsVersion, c.ParamsCacheID())
}

// VKFileName returns the v28 verifying-key file name of the PoRep circuit.
func (c Config) VKFileName() string {
	return fmt.Sprintf("v%d-%s.vk", ParamsVersion, c.ParamsCacheID())
}

// APIVersion is the proofs API version (storage-proofs-core src/api_version.rs ApiVersion).
type APIVersion int

// API versions; they serialize as "V1_0_0" and so on.
const (
	V1_0_0 APIVersion = iota
	V1_1_0
	V1_2_0
)

var apiVersionNames = [...]string{"V1_0_0", "V1_1_0", "V1_2_0"}

// String returns the serde name, e.g. "V1_1_0".
func (v APIVersion) String() string {
	if v < 0 || int(v) >= len(apiVersionNames) {
		return fmt.Sprintf("APIVersion(%d)", int(v))
	}
	return apiVersionNames[v]
}

// ParseAPIVersion parses a serde name such as "V1_1_0".
func ParseAPIVersion(s string) (APIVersion, error) {
	for i, n := range apiVersionNames {
		if n == s {
			return APIVersion(i), nil
		}
	}
	return 0, fmt.Errorf("sector: unknown api version %q", s)
}

// Feature is an API feature (storage-proofs-core src/api_version.rs ApiFeature).
type Feature string

// Features of the v1.2 seal proofs.
const (
	SyntheticPoRep      Feature = "SyntheticPoRep"
	NonInteractivePoRep Feature = "NonInteractivePoRep"
)

// RegisteredSealProof is a seal proof type; its value is the registered proof id
// (rust-filecoin-proofs-api src/registry.rs REGISTERED_PROOF_IDS).
type RegisteredSealProof uint64

// Registered seal proofs, ids 0–19.
const (
	StackedDrg2KiBV1 RegisteredSealProof = iota
	StackedDrg8MiBV1
	StackedDrg512MiBV1
	StackedDrg32GiBV1
	StackedDrg64GiBV1
	StackedDrg2KiBV1_1
	StackedDrg8MiBV1_1
	StackedDrg512MiBV1_1
	StackedDrg32GiBV1_1
	StackedDrg64GiBV1_1
	StackedDrg2KiBV1_1_Feat_SyntheticPoRep
	StackedDrg8MiBV1_1_Feat_SyntheticPoRep
	StackedDrg512MiBV1_1_Feat_SyntheticPoRep
	StackedDrg32GiBV1_1_Feat_SyntheticPoRep
	StackedDrg64GiBV1_1_Feat_SyntheticPoRep
	StackedDrg2KiBV1_2_Feat_NonInteractivePoRep
	StackedDrg8MiBV1_2_Feat_NonInteractivePoRep
	StackedDrg512MiBV1_2_Feat_NonInteractivePoRep
	StackedDrg32GiBV1_2_Feat_NonInteractivePoRep
	StackedDrg64GiBV1_2_Feat_NonInteractivePoRep
	numRegisteredSealProofs
)

var sizeNames = [...]string{"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"}
var familySuffix = [...]string{"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"}

// Valid reports whether p is a registered seal proof.
func (p RegisteredSealProof) Valid() bool { return p < numRegisteredSealProofs }

// String returns the Rust enum name, e.g. "StackedDrg32GiBV1_1".
func (p RegisteredSealProof) String() string {
	if !p.Valid() {
		return fmt.Sprintf("RegisteredSealProof(%d)", uint64(p))
	}
	return "StackedDrg" + sizeNames[p%5] + familySuffix[p/5]
}

// ParseRegisteredSealProof parses a Rust enum name such as "StackedDrg2KiBV1_1".
func ParseRegisteredSealProof(s string) (RegisteredSealProof, error) {
	for p := RegisteredSealProof(0); p < numRegisteredSealProofs; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("sector: unknown registered seal proof %q", s)
}

// SectorSize returns the sector size in bytes.
func (p RegisteredSealProof) SectorSize() uint64 { return configs[p%5].SectorSize }

// Config returns the configuration of p's sector size. Partitions and challenges are those of
// interactive PoRep; NonInteractive proofs use NonInteractivePartitions instead.
func (p RegisteredSealProof) Config() Config { return configs[p%5] }

// APIVersion returns the API version (registry.rs RegisteredSealProof::version).
func (p RegisteredSealProof) APIVersion() APIVersion {
	switch p / 5 {
	case 0:
		return V1_0_0
	case 1:
		return V1_1_0
	default:
		return V1_2_0
	}
}

// Features returns the API features (registry.rs as_v1_config).
func (p RegisteredSealProof) Features() []Feature {
	switch p / 5 {
	case 2:
		return []Feature{SyntheticPoRep}
	case 3:
		return []Feature{NonInteractivePoRep}
	}
	return nil
}

// NonInteractivePartitions returns the partitions of non-interactive PoRep: 13 for the small
// sizes, 126 for 32 and 64 GiB (filecoin-proofs constants.rs
// get_porep_non_interactive_partitions).
func (p RegisteredSealProof) NonInteractivePartitions() int {
	if p.SectorSize() >= Size32GiB {
		return 126
	}
	return 13
}

// PoRepID returns the porep id: the registered proof id as a u64 little-endian in bytes 0–7,
// the nonce (0 for every proof) as a u64 little-endian in bytes 8–15, zeros after
// (registry.rs RegisteredSealProof::porep_id).
func (p RegisteredSealProof) PoRepID() [32]byte {
	var id [32]byte
	binary.LittleEndian.PutUint64(id[:8], uint64(p))
	return id
}

// FromPoRepID returns the registered seal proof whose porep id is id.
func FromPoRepID(id [32]byte) (RegisteredSealProof, error) {
	p := RegisteredSealProof(binary.LittleEndian.Uint64(id[:8]))
	if !p.Valid() || p.PoRepID() != id {
		return 0, fmt.Errorf("sector: porep id %x is not a registered seal proof's", id)
	}
	return p, nil
}

// ProverID returns the prover id of miner actor actorID: the payload of its ID address, the
// unsigned varint of actorID, in the first bytes of 32 (filecoin-ffi proofs.go toProverID).
func ProverID(actorID uint64) [32]byte {
	var id [32]byte
	binary.PutUvarint(id[:], actorID)
	return id
}
