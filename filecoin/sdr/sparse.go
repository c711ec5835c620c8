package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// sparseTree is a Merkle tree of which only some leaves are known: every node with a known
// leaf below it is hashed from its children; every other node is a filler value, a pseudo-random
// element fixed by (tag, level, index). Paths from known leaves are then valid paths to the root,
// as in a real tree whose unknown parts had those values.
type sparseTree struct {
	arities []int // per level from the leaves
	h       hashFunc
	nodes   []map[uint64]fr.Element
	filler  func(level int, index uint64) fr.Element
	shape   sector.TreeShape
	levelsB int // base levels
}

func newSparseTree(shape sector.TreeShape, leaves uint64, known map[uint64]fr.Element, h hashFunc, filler func(int, uint64) fr.Element) (*sparseTree, error) {
	t := &sparseTree{h: h, filler: filler, shape: shape}
	perBase := leaves / uint64(shape.BaseTrees())
	for n := perBase; n > 1; n /= uint64(shape.Base) {
		if n%uint64(shape.Base) != 0 {
			return nil, fmt.Errorf("sdr: %d leaves per base tree is not a power of %d", perBase, shape.Base)
		}
		t.arities = append(t.arities, shape.Base)
	}
	t.levelsB = len(t.arities)
	if shape.Sub > 0 {
		t.arities = append(t.arities, shape.Sub)
	}
	if shape.Top > 0 {
		t.arities = append(t.arities, shape.Top)
	}
	t.nodes = []map[uint64]fr.Element{known}
	children := make([]fr.Element, 0, 16)
	for k, a := range t.arities {
		next := make(map[uint64]fr.Element)
		parents := make([]uint64, 0, len(t.nodes[k]))
		for i := range t.nodes[k] {
			if _, ok := next[i/uint64(a)]; !ok {
				next[i/uint64(a)] = fr.Element{}
				parents = append(parents, i/uint64(a))
			}
		}
		sort.Slice(parents, func(x, y int) bool { return parents[x] < parents[y] })
		for _, p := range parents {
			children = children[:0]
			for j := uint64(0); j < uint64(a); j++ {
				children = append(children, t.node(k, p*uint64(a)+j))
			}
			next[p] = h(children)
		}
		t.nodes = append(t.nodes, next)
	}
	return t, nil
}

func (t *sparseTree) node(level int, i uint64) fr.Element {
	if v, ok := t.nodes[level][i]; ok {
		return v
	}
	return t.filler(level, i)
}

func (t *sparseTree) root() fr.Element { return t.node(len(t.arities), 0) }

// proof returns the proof of known leaf i, split into base, sub and top paths as the shape has.
func (t *sparseTree) proof(i uint64) MerkleProof {
	p := MerkleProof{Root: t.root(), Leaf: t.node(0, i)}
	idx := i
	for k, a := range t.arities {
		au := uint64(a)
		base, pos := idx-idx%au, idx%au
		var sib []fr.Element
		for j := uint64(0); j < au; j++ {
			if j != pos {
				sib = append(sib, t.node(k, base+j))
			}
		}
		e := PathElement{Hashes: sib, Index: pos}
		switch {
		case k < t.levelsB:
			p.BaseProof = append(p.BaseProof, e)
		case k == t.levelsB && t.shape.Sub > 0:
			p.SubProof = append(p.SubProof, e)
		default:
			p.TopProof = append(p.TopProof, e)
		}
		idx /= au
	}
	return p
}

// prf returns a pseudo-random element below 2^254 fixed by (key, tag, a, b).
func prf(key *[32]byte, tag string, a, b uint64) fr.Element {
	h := sha256.New()
	h.Write(key[:])
	h.Write([]byte(tag))
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], a)
	binary.LittleEndian.PutUint64(buf[8:], b)
	h.Write(buf[:])
	var d [32]byte
	h.Sum(d[:0])
	return truncatedElement(&d)
}
