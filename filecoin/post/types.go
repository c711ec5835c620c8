package post

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// ProofType is a registered PoSt proof type, numbered as Filecoin's chain and filecoin-ffi number
// them (go-state-types abi/sector.go RegisteredPoStProof; filecoin-ffi rust/src/proofs/types.rs).
// The Window…V1_1 types are rust-filecoin-proofs-api's StackedDrgWindow…V1_2 (ApiVersion 1.2.0):
// filecoin-ffi renames them for the chain ("WindowPoSt uses V1_2 to fix the grindability
// issue", rust-filecoin-proofs-api src/registry.rs).
type ProofType int64

// The registered PoSt proof types. The numbers are consensus values and never change.
const (
	StackedDrgWinning2KiBV1   ProofType = 0
	StackedDrgWinning8MiBV1   ProofType = 1
	StackedDrgWinning512MiBV1 ProofType = 2
	StackedDrgWinning32GiBV1  ProofType = 3
	StackedDrgWinning64GiBV1  ProofType = 4

	StackedDrgWindow2KiBV1   ProofType = 5
	StackedDrgWindow8MiBV1   ProofType = 6
	StackedDrgWindow512MiBV1 ProofType = 7
	StackedDrgWindow32GiBV1  ProofType = 8
	StackedDrgWindow64GiBV1  ProofType = 9

	StackedDrgWindow2KiBV1_1   ProofType = 10
	StackedDrgWindow8MiBV1_1   ProofType = 11
	StackedDrgWindow512MiBV1_1 ProofType = 12
	StackedDrgWindow32GiBV1_1  ProofType = 13
	StackedDrgWindow64GiBV1_1  ProofType = 14
)

// Kind says whether a proof type is a WinningPoSt or a WindowPoSt.
type Kind uint8

// The two PoSt kinds (filecoin-proofs PoStType).
const (
	Winning Kind = iota
	Window
)

// String returns "winning" or "window".
func (k Kind) String() string {
	if k == Winning {
		return "winning"
	}
	return "window"
}

// APIVersion is the rust-fil-proofs ApiVersion a PoSt proof type runs with. PoSt changes only in
// how a leaf challenge's index is chosen (storage-proofs-post fallback/utils.rs
// get_challenge_index).
type APIVersion uint8

// The API versions PoSt proof types use: Winning and Window…V1 run V1_0_0 (V1_1_0 behaves the
// same for PoSt), Window…V1_1 runs V1_2_0 (rust-filecoin-proofs-api registry.rs
// RegisteredPoStProof::version).
const (
	APIVersion1_0_0 APIVersion = iota
	APIVersion1_2_0
)

// String returns the semantic version, "1.0.0" or "1.2.0".
func (v APIVersion) String() string {
	if v == APIVersion1_2_0 {
		return "1.2.0"
	}
	return "1.0.0"
}

// TreeShape gives the arities of a sector's tree-r-last (filecoin-proofs constants.rs
// SectorShape*): Base is the arity of the base trees (always 8), Sub the number of base trees
// joined by a sub-tree layer (0: none), Top the number of sub trees joined by a top layer
// (0: none). 2 KiB, 8 MiB and 512 MiB are 8-0-0, 32 GiB is 8-8-0, 64 GiB is 8-8-2. It is the
// sector package's type: a sector's shape is the same for PoRep and PoSt.
type TreeShape = sector.TreeShape

// NodeSize is the size in bytes of one tree-r-last leaf, a field element (storage-proofs-core
// util.rs NODE_SIZE).
const NodeSize = sector.NodeSize

// Challenge counts and sector counts of PoStConfig (filecoin-proofs constants.rs).
const (
	WinningChallengeCount = 66 // WINNING_POST_CHALLENGE_COUNT
	WinningSectorCount    = 1  // WINNING_POST_SECTOR_COUNT
	WindowChallengeCount  = 10 // WINDOW_POST_CHALLENGE_COUNT
)

// Info is everything about a PoSt proof type that proving and verifying need.
type Info struct {
	Type       ProofType
	Name       string // the Go/chain name, e.g. "StackedDrgWindow32GiBV1"
	Kind       Kind
	SectorSize uint64 // padded sector size in bytes
	API        APIVersion
	Shape      TreeShape

	// ConfigSectors and ConfigChallenges are filecoin-proofs' PoStConfig sector_count and
	// challenge_count: how many sectors a vanilla proof set covers per partition and how many
	// leaves each sector's vanilla proof opens (Winning: 1 sector, 66 challenges; Window:
	// WINDOW_POST_SECTOR_COUNT sectors, 10 challenges).
	ConfigSectors, ConfigChallenges int

	// CircuitSectors and CircuitChallenges are the FallbackPoSt circuit's PublicParams
	// sector_count and challenge_count (filecoin-proofs parameters.rs
	// winning_post_setup_params / window_post_setup_params): Winning reshapes 1 sector × 66
	// challenges into 66 sectors × 1 challenge; Window keeps the PoStConfig numbers.
	CircuitSectors, CircuitChallenges int
}

// windowSectorCount is WINDOW_POST_SECTOR_COUNT per sector size (filecoin-proofs constants.rs).
var windowSectorCount = map[uint64]int{
	2 << 10:   2,
	8 << 20:   2,
	512 << 20: 2,
	32 << 30:  2349,
	64 << 30:  2300,
}

var sizeNames = map[uint64]string{2 << 10: "2KiB", 8 << 20: "8MiB", 512 << 20: "512MiB", 32 << 30: "32GiB", 64 << 30: "64GiB"}

// Lookup returns the Info of a registered PoSt proof type, or an error for an unknown number.
func Lookup(t ProofType) (Info, error) {
	if t < 0 || t > StackedDrgWindow64GiBV1_1 {
		return Info{}, fmt.Errorf("post: unknown registered PoSt proof type %d (want 0..14)", int64(t))
	}
	// The registry numbers the sizes as sector.Configs lists them, smallest first; a size's
	// tree-r-last is its Config.Shape (filecoin-proofs constants.rs SectorShape*).
	cfg := sector.Configs()[t%5]
	size := cfg.SectorSize
	info := Info{Type: t, SectorSize: size, Shape: cfg.Shape}
	switch {
	case t <= StackedDrgWinning64GiBV1:
		info.Kind, info.API = Winning, APIVersion1_0_0
		info.Name = "StackedDrgWinning" + sizeNames[size] + "V1"
		info.ConfigSectors, info.ConfigChallenges = WinningSectorCount, WinningChallengeCount
		// winning_post_setup_params: sector_count = challenge_count / sector_count,
		// challenge_count = challenge_count / that.
		info.CircuitSectors = WinningChallengeCount / WinningSectorCount
		info.CircuitChallenges = WinningChallengeCount / info.CircuitSectors
	default:
		info.Kind = Window
		info.Name = "StackedDrgWindow" + sizeNames[size] + "V1"
		info.API = APIVersion1_0_0
		if t >= StackedDrgWindow2KiBV1_1 {
			info.Name += "_1"
			info.API = APIVersion1_2_0
		}
		info.ConfigSectors, info.ConfigChallenges = windowSectorCount[size], WindowChallengeCount
		info.CircuitSectors, info.CircuitChallenges = info.ConfigSectors, info.ConfigChallenges
	}
	return info, nil
}

// String returns the type's name, or "ProofType(n)" for an unknown number.
func (t ProofType) String() string {
	info, err := Lookup(t)
	if err != nil {
		return fmt.Sprintf("ProofType(%d)", int64(t))
	}
	return info.Name
}

// Leaves returns the number of tree-r-last leaves, SectorSize / 32.
func (i Info) Leaves() uint64 { return i.SectorSize / NodeSize }

// NumPublicInputs returns the circuit's public inputs without the leading ONE:
// CircuitSectors · (1 + CircuitChallenges) — per sector comm_r and one leaf index per
// challenge (132 for Winning, 22 for Window 2 KiB, 25,839 for Window 32 GiB).
func (i Info) NumPublicInputs() int { return i.CircuitSectors * (1 + i.CircuitChallenges) }

// CacheID returns the parameter-cache identifier of the type's circuit, from which the
// .params/.vk file names derive: "proof-of-spacetime-fallback-merkletree-poseidon_hasher-" +
// shape + "-" + hex(SHA-256(identifier)), where identifier is FallbackPoSt PublicParams'
// "FallbackPoSt::PublicParams{sector_size: S, challenge_count: C, sector_count: N}" with the
// circuit's numbers (storage-proofs-core parameter_cache.rs cache_identifier; storage-proofs-post
// fallback/vanilla.rs identifier, fallback/compound.rs cache_prefix; storage-proofs-core
// merkle/tree.rs display). The API version is not part of it, so V1 and V1_1 share files.
func (i Info) CacheID() string {
	id := fmt.Sprintf("FallbackPoSt::PublicParams{sector_size: %d, challenge_count: %d, sector_count: %d}",
		i.SectorSize, i.CircuitChallenges, i.CircuitSectors)
	sum := sha256.Sum256([]byte(id))
	return "proof-of-spacetime-fallback-merkletree-poseidon_hasher-" + i.Shape.String() + "-" + hex.EncodeToString(sum[:])
}

// ParamsFile returns the v28 Groth16 parameters file name, "v28-" + CacheID() + ".params"
// (storage-proofs-core parameter_cache.rs parameter_id, VERSION = 28).
func (i Info) ParamsFile() string { return "v28-" + i.CacheID() + ".params" }

// VKFile returns the v28 verifying key file name, "v28-" + CacheID() + ".vk".
func (i Info) VKFile() string { return "v28-" + i.CacheID() + ".vk" }
