package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PublicSector is one challenged sector as the verifier knows it: its number and comm_r
// (storage-proofs-post fallback/vanilla.rs PublicSector).
type PublicSector struct {
	ID    uint64
	CommR Domain
}

// Partitions returns how many circuit partitions prove n sectors: 1 for WinningPoSt,
// ⌈n / CircuitSectors⌉ (at least 1) for WindowPoSt (filecoin-proofs post_util.rs
// get_partitions_for_window_post).
func (i Info) Partitions(n int) int {
	if i.Kind == Winning || n <= i.CircuitSectors {
		return 1
	}
	return (n + i.CircuitSectors - 1) / i.CircuitSectors
}

// circuitSectors returns the sector list the circuit's public parameters see: for WinningPoSt
// the one sector repeated CircuitSectors times (filecoin-proofs winning_post.rs
// verify_winning_post); for WindowPoSt the sectors themselves, which must be in strictly
// ascending ID order as filecoin-proofs keeps them (a BTreeMap keyed by sector id).
func (i Info) circuitSectors(sectors []PublicSector) ([]PublicSector, error) {
	if len(sectors) == 0 {
		return nil, fmt.Errorf("%s: no sectors", i.Name)
	}
	for j := range sectors {
		if _, err := sectors[j].CommR.Element(); err != nil {
			return nil, fmt.Errorf("%s: sector %d (index %d) comm_r: %w", i.Name, sectors[j].ID, j, err)
		}
	}
	if i.Kind == Winning {
		if len(sectors) != i.ConfigSectors {
			return nil, fmt.Errorf("%s: %d sectors, want %d", i.Name, len(sectors), i.ConfigSectors)
		}
		out := make([]PublicSector, i.CircuitSectors)
		for j := range out {
			out[j] = sectors[0]
		}
		return out, nil
	}
	for j := 1; j < len(sectors); j++ {
		if sectors[j].ID <= sectors[j-1].ID {
			return nil, fmt.Errorf("%s: sector ids not strictly ascending at index %d (%d after %d)",
				i.Name, j, sectors[j].ID, sectors[j-1].ID)
		}
	}
	return sectors, nil
}

// PublicInputs returns the public inputs (without the leading ONE) of partition k of the
// FallbackPoSt circuit (storage-proofs-post fallback/compound.rs generate_public_inputs):
// for each of the partition's CircuitSectors sector slots, comm_r then one leaf index per
// challenge,
//
//	leaf(s, n) = LeafChallenge(randomness, id_s, ChallengeIndex(API, k·CircuitSectors + s,
//	             CircuitChallenges, n), Leaves())
//
// The last partition, when short, repeats its last sector's inputs. For WinningPoSt, sectors
// is the one challenged sector and the circuit sees it 66 times with one challenge each; for
// WindowPoSt, sectors are all the sectors proven, in ascending ID order. The result has
// NumPublicInputs() elements.
func (i Info) PublicInputs(randomness Domain, sectors []PublicSector, k int) ([]fr.Element, error) {
	if err := checkRandomness(randomness); err != nil {
		return nil, fmt.Errorf("%s public inputs: %w", i.Name, err)
	}
	all, err := i.circuitSectors(sectors)
	if err != nil {
		return nil, err
	}
	parts := i.Partitions(len(all))
	if k < 0 || k >= parts {
		return nil, fmt.Errorf("%s: partition %d out of range (%d sectors make %d partitions)", i.Name, k, len(all), parts)
	}
	chunk := all[k*i.CircuitSectors : min((k+1)*i.CircuitSectors, len(all))]
	per := 1 + i.CircuitChallenges
	out := make([]fr.Element, 0, i.NumPublicInputs())
	for s, sec := range chunk {
		commR, _ := sec.CommR.Element() // checked in circuitSectors
		out = append(out, commR)
		for n := 0; n < i.CircuitChallenges; n++ {
			ci := ChallengeIndex(i.API, k*i.CircuitSectors+s, i.CircuitChallenges, n)
			var leaf fr.Element
			leaf.SetUint64(LeafChallenge(randomness, sec.ID, ci, i.Leaves()))
			out = append(out, leaf)
		}
	}
	for len(out) < i.NumPublicInputs() {
		out = append(out, out[len(out)-per:]...)
	}
	return out, nil
}
