package post

import (
	"fmt"
	"math/bits"
)

// TreeShape is the arity of tree R's levels: a base tree of arity Base over the leaves, then
// optionally one level of arity Sub (0: none) and one of arity Top (0: none), as rust-fil-proofs
// LCTree<_, Base, Sub, Top>.
type TreeShape struct {
	Base, Sub, Top int
}

// Arities returns the arity of each level from the leaves up for a tree over leaves nodes
// (storage-proofs-core merkle base_path_length: log_Base(leaves / (Sub·Top)) base levels).
func (t TreeShape) Arities(leaves uint64) ([]int, error) {
	n := leaves
	for _, a := range []int{t.Sub, t.Top} {
		if a == 0 {
			continue
		}
		if n%uint64(a) != 0 {
			return nil, fmt.Errorf("post: %d leaves do not split into %d subtrees", leaves, a)
		}
		n /= uint64(a)
	}
	if t.Base < 2 || t.Base&(t.Base-1) != 0 || n == 0 || n&(n-1) != 0 {
		return nil, fmt.Errorf("post: %d leaves do not form a tree of shape %d-%d-%d", leaves, t.Base, t.Sub, t.Top)
	}
	lb := bits.TrailingZeros(uint(t.Base))
	ln := bits.TrailingZeros64(n)
	if ln%lb != 0 {
		return nil, fmt.Errorf("post: %d base leaves are not a power of %d", n, t.Base)
	}
	var out []int
	for i := 0; i < ln/lb; i++ {
		out = append(out, t.Base)
	}
	if t.Sub > 0 {
		out = append(out, t.Sub)
	}
	if t.Top > 0 {
		out = append(out, t.Top)
	}
	return out, nil
}

// NodeSize is the size of a tree node in bytes (storage-proofs-core util NODE_SIZE).
const NodeSize = 32

// sectorShapes is filecoin-proofs constants.rs SectorShape*: the tree R shape per sector size.
var sectorShapes = map[uint64]TreeShape{
	2 << 10:   {8, 0, 0},
	4 << 10:   {8, 2, 0},
	16 << 10:  {8, 8, 0},
	32 << 10:  {8, 8, 2},
	8 << 20:   {8, 0, 0},
	16 << 20:  {8, 2, 0},
	512 << 20: {8, 0, 0},
	1 << 30:   {8, 2, 0},
	32 << 30:  {8, 8, 0},
	64 << 30:  {8, 8, 2},
}

// windowSectorCount is filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT.
var windowSectorCount = map[uint64]int{
	2 << 10: 2, 4 << 10: 2, 16 << 10: 2, 32 << 10: 2, 8 << 20: 2, 16 << 20: 2, 512 << 20: 2,
	1 << 30: 2, 32 << 30: 2349, 64 << 30: 2300,
}

// Proof-wide constants of filecoin-proofs constants.rs.
const (
	WinningChallengeCount = 66 // WINNING_POST_CHALLENGE_COUNT
	WindowChallengeCount  = 10 // WINDOW_POST_CHALLENGE_COUNT
)

// Params are the parameters of one FallbackPoSt circuit (fallback::SetupParams).
type Params struct {
	SectorSize     uint64 // bytes
	Tree           TreeShape
	ChallengeCount int // challenges per sector
	SectorCount    int // sectors per partition
}

// Leaves returns the number of tree R leaves, SectorSize / NodeSize.
func (p Params) Leaves() uint64 { return p.SectorSize / NodeSize }

// Arities returns the arity of each tree R level from the leaves up.
func (p Params) Arities() ([]int, error) { return p.Tree.Arities(p.Leaves()) }

// Validate reports whether p describes a circuit.
func (p Params) Validate() error {
	if p.ChallengeCount < 1 || p.SectorCount < 1 {
		return fmt.Errorf("post: %d challenges and %d sectors per partition", p.ChallengeCount, p.SectorCount)
	}
	_, err := p.Arities()
	return err
}

// shapeFor returns the tree shape of a production sector size.
func shapeFor(sectorSize uint64) (TreeShape, error) {
	t, ok := sectorShapes[sectorSize]
	if !ok {
		return TreeShape{}, fmt.Errorf("post: unknown sector size %d", sectorSize)
	}
	return t, nil
}

// WinningParams returns the WinningPoSt parameters for a sector size: 66 one-challenge
// "sectors", the one sector repeated (filecoin-proofs parameters.rs winning_post_setup_params
// with WINNING_POST_CHALLENGE_COUNT = 66 and WINNING_POST_SECTOR_COUNT = 1).
func WinningParams(sectorSize uint64) (Params, error) {
	t, err := shapeFor(sectorSize)
	if err != nil {
		return Params{}, err
	}
	return Params{SectorSize: sectorSize, Tree: t, ChallengeCount: 1, SectorCount: WinningChallengeCount}, nil
}

// WindowParams returns the WindowPoSt parameters for a sector size: 10 challenges per sector and
// WINDOW_POST_SECTOR_COUNT sectors per partition.
func WindowParams(sectorSize uint64) (Params, error) {
	t, err := shapeFor(sectorSize)
	if err != nil {
		return Params{}, err
	}
	return Params{SectorSize: sectorSize, Tree: t, ChallengeCount: WindowChallengeCount, SectorCount: windowSectorCount[sectorSize]}, nil
}
