package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// LevelWitness is one level of a Merkle path as the circuit takes it (storage-proofs-core
// gadgets/por.rs AuthPath; MerkleProofTrait::as_options): the arity−1 siblings in order and
// the position of the running hash among them.
type LevelWitness struct {
	Siblings []fr.Element
	Index    uint64
}

// pathWitness is one checked inclusion proof.
type pathWitness struct {
	Leaf   fr.Element
	Levels []LevelWitness
}

// SectorWitness is the private and public data of one sector slot of the FallbackPoSt circuit,
// field for field storage-proofs-post fallback/circuit.rs Sector (comm_r, comm_c, comm_r_last,
// leafs, paths, id). Challenge n opens leaf LeafIndices[n] (its public input), whose value is
// Leafs[n] and whose path, from the leaf up over base, sub and top layers, is Paths[n].
type SectorWitness struct {
	ID                      uint64
	CommR, CommC, CommRLast fr.Element
	LeafIndices             []uint64
	Leafs                   []fr.Element
	Paths                   [][]LevelWitness
}

// PartitionWitness checks the vanilla proofs of the sectors of partition k and returns the
// partition's CircuitSectors sector slots, as filecoin-proofs feeds the circuit
// (post_util.rs single_partition_vanilla_proofs, fallback/compound.rs circuit):
//
//   - WinningPoSt: sectors and proofs hold the one challenged sector; its ConfigChallenges
//     inclusion proofs are unrolled into 66 slots of one challenge each;
//   - WindowPoSt: sectors are all the sectors proven, in ascending ID order, and proofs their
//     vanilla proofs in any order (matched by sector ID); the partition's slots are its
//     sectors, the last one repeated when the partition is short.
//
// Every vanilla proof must pass VerifySectorProof (with the sector's position in sectors as
// its sector index), so the slots satisfy the circuit. Public inputs for the same partition
// come from Info.PublicInputs; slot s's comm_r and LeafIndices are its inputs. Slots may share
// backing arrays (padding and Winning unrolling); treat them as read-only.
func (i Info) PartitionWitness(randomness Domain, sectors []PublicSector, proofs []*FallbackPoStSectorProof, k int) ([]SectorWitness, error) {
	if _, err := i.circuitSectors(sectors); err != nil {
		return nil, err
	}
	byID := make(map[uint64]*FallbackPoStSectorProof, len(proofs))
	for j, p := range proofs {
		if p == nil {
			return nil, fmt.Errorf("%s: vanilla proof %d is nil", i.Name, j)
		}
		if _, dup := byID[p.SectorID]; dup {
			return nil, fmt.Errorf("%s: two vanilla proofs for sector %d", i.Name, p.SectorID)
		}
		byID[p.SectorID] = p
	}
	find := func(id uint64) (*FallbackPoStSectorProof, error) {
		p, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%s: no vanilla proof for sector %d", i.Name, id)
		}
		return p, nil
	}

	if i.Kind == Winning {
		if k != 0 {
			return nil, fmt.Errorf("%s: partition %d out of range (WinningPoSt has 1)", i.Name, k)
		}
		p, err := find(sectors[0].ID)
		if err != nil {
			return nil, err
		}
		w, err := i.checkSectorProof(randomness, 0, sectors[0], p)
		if err != nil {
			return nil, err
		}
		out := make([]SectorWitness, i.CircuitSectors)
		for n := range out {
			out[n] = SectorWitness{
				ID: w.ID, CommR: w.CommR, CommC: w.CommC, CommRLast: w.CommRLast,
				LeafIndices: w.LeafIndices[n : n+1], Leafs: w.Leafs[n : n+1], Paths: w.Paths[n : n+1],
			}
		}
		return out, nil
	}

	parts := i.Partitions(len(sectors))
	if k < 0 || k >= parts {
		return nil, fmt.Errorf("%s: partition %d out of range (%d sectors make %d partitions)", i.Name, k, len(sectors), parts)
	}
	first := k * i.CircuitSectors
	chunk := sectors[first:min(first+i.CircuitSectors, len(sectors))]
	out := make([]SectorWitness, 0, i.CircuitSectors)
	for s, sec := range chunk {
		p, err := find(sec.ID)
		if err != nil {
			return nil, err
		}
		w, err := i.checkSectorProof(randomness, first+s, sec, p)
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	for len(out) < i.CircuitSectors {
		out = append(out, out[len(out)-1])
	}
	return out, nil
}
