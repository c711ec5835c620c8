package daemon

import (
	"fmt"
	"strings"
)

// ProofKind is the Filecoin proof a job computes. The numbers are the cuzk.v1 ProofKind enum's.
type ProofKind int32

// The proof kinds of the cuzk.v1 service.
const (
	PoRepSealCommit     ProofKind = 1 // PoRep C2 from a C1 output
	SnapDealsUpdate     ProofKind = 2 // SnapDeals empty-sector-update proof
	WindowPoStPartition ProofKind = 3 // one WindowPoSt partition
	WinningPoSt         ProofKind = 4 // WinningPoSt
)

// Kinds lists every proof kind in the order the scheduler serves their default priorities.
var Kinds = [...]ProofKind{WinningPoSt, WindowPoStPartition, PoRepSealCommit, SnapDealsUpdate}

// Valid reports whether k is one of the four proof kinds.
func (k ProofKind) Valid() bool { return k >= PoRepSealCommit && k <= WinningPoSt }

// String returns the kind's name as the Rust cuzk daemon prints it in QueueStatus.proof_kind
// ("porep-c2", "snap-update", "window-post", "winning-post"; cuzk-core types.rs Display).
func (k ProofKind) String() string {
	switch k {
	case PoRepSealCommit:
		return "porep-c2"
	case SnapDealsUpdate:
		return "snap-update"
	case WindowPoStPartition:
		return "window-post"
	case WinningPoSt:
		return "winning-post"
	}
	return fmt.Sprintf("proof-kind(%d)", int32(k))
}

// MetricLabel returns the kind as a Prometheus label value ("porep_c2", "snap_update",
// "window_post", "winning_post"; cuzk-core types.rs metric_label).
func (k ProofKind) MetricLabel() string { return strings.ReplaceAll(k.String(), "-", "_") }

// circuitPrefix is the circuit-id prefix of a kind (cuzk-core types.rs circuit_id).
func (k ProofKind) circuitPrefix() string {
	switch k {
	case PoRepSealCommit:
		return "porep"
	case SnapDealsUpdate:
		return "snap"
	case WindowPoStPartition:
		return "wpost"
	case WinningPoSt:
		return "winning"
	}
	return ""
}

// Priority orders the queue: a higher priority is served first, equal priorities in submission
// order. The numbers are the cuzk.v1 Priority enum's.
type Priority int32

// The priorities of the cuzk.v1 service.
const (
	PriorityLow      Priority = 1
	PriorityNormal   Priority = 2
	PriorityHigh     Priority = 3
	PriorityCritical Priority = 4
)

// String returns "low", "normal", "high" or "critical".
func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityNormal:
		return "normal"
	case PriorityHigh:
		return "high"
	case PriorityCritical:
		return "critical"
	}
	return fmt.Sprintf("priority(%d)", int32(p))
}

// DefaultPriority is the priority of a request that leaves it unspecified, as the Rust cuzk
// engine assigns it (cuzk-core types.rs Priority::default_for): WinningPoSt is critical (it must
// finish within the epoch), WindowPoSt high, PoRep and SnapDeals normal.
func DefaultPriority(k ProofKind) Priority {
	switch k {
	case WinningPoSt:
		return PriorityCritical
	case WindowPoStPartition:
		return PriorityHigh
	}
	return PriorityNormal
}

// Sector sizes in bytes, in the order Filecoin's registered proof numbers enumerate them
// (go-state-types abi/sector.go: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB).
var sectorSizes = [5]uint64{2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30}

// sizeTags are the sector sizes as circuit ids spell them ("porep-32g").
var sizeTags = [5]string{"2k", "8m", "512m", "32g", "64g"}

// sizeNames are the sector sizes as error messages spell them.
var sizeNames = [5]string{"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"}

func sizeIndex(size uint64) (int, bool) {
	for i, s := range sectorSizes {
		if s == size {
			return i, true
		}
	}
	return 0, false
}

// ProofSectorSize returns the sector size in bytes of registered proof number rp for kind k, or
// an error if rp is not a proof type of that kind. The numbering is Filecoin's
// (go-state-types abi/sector.go):
//   - PoRep, RegisteredSealProof: 0–4 StackedDrg…V1, 5–9 …V1_1, 10–14 …V1_1_Feat_SyntheticPoRep,
//     15–19 …V1_2_Feat_NiPoRep, each group in sector-size order;
//   - WinningPoSt, RegisteredPoStProof: 0–4 StackedDrgWinning…V1;
//   - WindowPoSt, RegisteredPoStProof: 5–9 StackedDrgWindow…V1, 10–14 …V1_1;
//   - SnapDeals, RegisteredUpdateProof: 0–4 StackedDrg…V1.
func ProofSectorSize(k ProofKind, rp uint64) (uint64, error) {
	var lo, hi uint64
	switch k {
	case PoRepSealCommit:
		lo, hi = 0, 19
	case WinningPoSt:
		lo, hi = 0, 4
	case WindowPoStPartition:
		lo, hi = 5, 14
	case SnapDealsUpdate:
		lo, hi = 0, 4
	default:
		return 0, fmt.Errorf("unknown proof kind %d", int32(k))
	}
	if rp < lo || rp > hi {
		return 0, fmt.Errorf("registered proof %d is not a %s proof type (want %d..%d)", rp, k, lo, hi)
	}
	return sectorSizes[rp%5], nil
}

// CircuitID names the circuit (and so the parameter file) that proofs of kind k over sectors of
// size bytes use, e.g. "porep-32g", "wpost-32g", "winning-32g", "snap-64g" as the Rust cuzk
// daemon names them (cuzk-core srs_manager.rs CircuitId); the small test sizes are "…-2k",
// "…-8m", "…-512m". It returns "" for an unknown kind or size.
func CircuitID(k ProofKind, size uint64) string {
	i, ok := sizeIndex(size)
	if !ok || !k.Valid() {
		return ""
	}
	return k.circuitPrefix() + "-" + sizeTags[i]
}

// ParseCircuitID splits a circuit id made by CircuitID into its kind and sector size.
func ParseCircuitID(id string) (ProofKind, uint64, error) {
	prefix, tag, ok := strings.Cut(id, "-")
	if ok {
		for _, k := range Kinds {
			if k.circuitPrefix() != prefix {
				continue
			}
			for i, t := range sizeTags {
				if t == tag {
					return k, sectorSizes[i], nil
				}
			}
		}
	}
	return 0, 0, fmt.Errorf("unknown circuit id %q (want porep|snap|wpost|winning - 2k|8m|512m|32g|64g, e.g. \"porep-32g\")", id)
}
