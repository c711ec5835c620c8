package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	fpost "github.com/cuzk-go/cuzk/filecoin/post"
)

// ParamsFor returns the circuit parameters of a registered PoSt proof type: WinningParams or
// WindowParams of its sector size. Their SectorCount and ChallengeCount equal info's
// CircuitSectors and CircuitChallenges (checked), so a partition from
// info.PartitionWitness fills the circuit exactly.
func ParamsFor(info fpost.Info) (Params, error) {
	var p Params
	var err error
	if info.Kind == fpost.Winning {
		p, err = WinningParams(info.SectorSize)
	} else {
		p, err = WindowParams(info.SectorSize)
	}
	if err != nil {
		return Params{}, fmt.Errorf("%s: %w", info.Name, err)
	}
	if p.SectorCount != info.CircuitSectors || p.ChallengeCount != info.CircuitChallenges ||
		p.Tree != (TreeShape{info.Shape.Base, info.Shape.Sub, info.Shape.Top}) {
		return Params{}, fmt.Errorf("%s: circuit tables (%d sectors × %d challenges, tree %v) disagree with the proof type (%d × %d, tree %v)",
			info.Name, p.SectorCount, p.ChallengeCount, p.Tree, info.CircuitSectors, info.CircuitChallenges, info.Shape)
	}
	return p, nil
}

// SectorsFromWitness turns the sector slots of one partition, as filecoin/post's
// Info.PartitionWitness returns them from checked vanilla proofs, into the circuit's Sectors.
// Each challenge's per-level indices must spell its leaf index, Σ_l Index_l · Π_{j<l} arity_j
// (merkle/proof.rs path_index), since the circuit derives the index bits from LeafIndex alone;
// a slot that disagrees is an error naming the slot, challenge and level. The result shares the
// witnesses' sibling arrays; treat it as read-only.
func SectorsFromWitness(ws []fpost.SectorWitness) ([]Sector, error) {
	out := make([]Sector, len(ws))
	for s := range ws {
		w := &ws[s]
		if len(w.Leafs) != len(w.LeafIndices) || len(w.Paths) != len(w.LeafIndices) {
			return nil, fmt.Errorf("post: slot %d (sector %d): %d leaf indices, %d leaves, %d paths",
				s, w.ID, len(w.LeafIndices), len(w.Leafs), len(w.Paths))
		}
		sec := Sector{CommR: w.CommR, CommC: w.CommC, CommRLast: w.CommRLast, Challenges: make([]Challenge, len(w.LeafIndices))}
		for c, idx := range w.LeafIndices {
			path := make([][]fr.Element, len(w.Paths[c]))
			spelled, mul := uint64(0), uint64(1)
			for l, lv := range w.Paths[c] {
				arity := uint64(len(lv.Siblings) + 1)
				if lv.Index >= arity {
					return nil, fmt.Errorf("post: slot %d (sector %d) challenge %d level %d: index %d, arity %d",
						s, w.ID, c, l, lv.Index, arity)
				}
				spelled += lv.Index * mul
				mul *= arity
				path[l] = lv.Siblings
			}
			if spelled != idx {
				return nil, fmt.Errorf("post: slot %d (sector %d) challenge %d: path indices spell leaf %d, challenged leaf is %d",
					s, w.ID, c, spelled, idx)
			}
			sec.Challenges[c] = Challenge{LeafIndex: idx, Leaf: w.Leafs[c], Path: path}
		}
		out[s] = sec
	}
	return out, nil
}
