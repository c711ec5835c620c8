package stacked

import "fmt"

// porepSizes are the production PoRep shapes per sector size (filecoin-proofs constants.rs:
// LAYERS, the SectorShape trees; parameters.rs select_challenges: 2 challenges in one partition
// for the small sizes, 18 per partition of 10 for 32 and 64 GiB).
var porepSizes = map[uint64]Params{
	2 << 10:   {Layers: 2, CommDDepth: 6, TreeRC: []int{8, 8}, Challenges: 2},
	8 << 20:   {Layers: 2, CommDDepth: 18, TreeRC: []int{8, 8, 8, 8, 8, 8}, Challenges: 2},
	512 << 20: {Layers: 2, CommDDepth: 24, TreeRC: []int{8, 8, 8, 8, 8, 8, 8, 8}, Challenges: 2},
	32 << 30:  {Layers: 11, CommDDepth: 30, TreeRC: []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}, Challenges: 18},
	64 << 30:  {Layers: 11, CommDDepth: 31, TreeRC: []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2}, Challenges: 18},
}

// PoRepParams returns the partition shape of the interactive PoRep for a sector size.
func PoRepParams(sectorSize uint64) (Params, error) {
	p, ok := porepSizes[sectorSize]
	if !ok {
		return Params{}, fmt.Errorf("stacked: no PoRep shape for sector size %d", sectorSize)
	}
	p.TreeRC = append([]int(nil), p.TreeRC...)
	return p, nil
}
