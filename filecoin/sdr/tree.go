package sdr

import (
	"fmt"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/internal/parallel"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// hashFunc hashes the children of one node.
type hashFunc func(children []fr.Element) fr.Element

func sha256Node(children []fr.Element) fr.Element { return merkle.Sha256Node(children) }

// poseidonNode returns Poseidon of arity len(children) with the MerkleTree domain tag
// (filecoin-hashers poseidon.rs multi_node).
func poseidonNode(children []fr.Element) fr.Element {
	h, err := poseidonParams(len(children)).Hash(children)
	if err != nil {
		panic(err) // arity fixed by the caller
	}
	return h
}

var poseidonByArity [37]atomic.Pointer[poseidon.Params]

// poseidonParams returns the shared Poseidon constants of arity without taking a lock after the
// first call.
func poseidonParams(arity int) *poseidon.Params {
	if p := poseidonByArity[arity].Load(); p != nil {
		return p
	}
	p := poseidon.Must(arity)
	poseidonByArity[arity].Store(p)
	return p
}

// fullTree is a complete Merkle tree of one arity: levels[0] the leaves (a power of the
// arity), levels[len−1] the root alone.
type fullTree struct {
	arity  int
	levels [][]fr.Element
}

// buildFullTree hashes leaves (len a power of arity, at least 1) up to the root, each level in
// parallel. leaves is kept, not copied.
func buildFullTree(arity int, leaves []fr.Element, h hashFunc) (*fullTree, error) {
	n := len(leaves)
	for m := n; m > 1; m /= arity {
		if m%arity != 0 {
			return nil, fmt.Errorf("sdr: %d leaves is not a power of %d", n, arity)
		}
	}
	t := &fullTree{arity: arity, levels: [][]fr.Element{leaves}}
	for cur := leaves; len(cur) > 1; {
		next := make([]fr.Element, len(cur)/arity)
		parallel.Ranges(len(next), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				next[i] = h(cur[i*arity : (i+1)*arity])
			}
		})
		t.levels = append(t.levels, next)
		cur = next
	}
	return t, nil
}

func (t *fullTree) root() fr.Element { return t.levels[len(t.levels)-1][0] }

// path returns the inclusion path of leaf i: per level the arity−1 siblings in order and the
// position of the node among its siblings.
func (t *fullTree) path(i uint64) []PathElement {
	path := make([]PathElement, 0, len(t.levels)-1)
	a := uint64(t.arity)
	for k := 0; k < len(t.levels)-1; k++ {
		base, pos := i-i%a, i%a
		sib := make([]fr.Element, 0, t.arity-1)
		for j := uint64(0); j < a; j++ {
			if j != pos {
				sib = append(sib, t.levels[k][base+j])
			}
		}
		path = append(path, PathElement{Hashes: sib, Index: pos})
		i /= a
	}
	return path
}

// Tree is a SHA-256 binary tree (tree D) or a Poseidon tree of a TreeShape (trees C and R):
// Shape.BaseTrees() base trees of arity Shape.Base over consecutive equal slices of the leaves,
// then a sub layer of arity Shape.Sub over the base roots and a top layer of arity Shape.Top over
// the sub roots (storage-proofs-core merkle/tree.rs MerkleTreeWrapper with its compound trees).
type Tree struct {
	Shape    sector.TreeShape
	bases    []*fullTree
	subRoots []fr.Element // one per sub tree, when Shape.Sub > 0
	root     fr.Element
	h        hashFunc
}

// NewTreeD builds the binary SHA-256 tree over leaves (filecoin-hashers sha256.rs: a node is
// SHA-256(left ‖ right) with the top two bits of the digest cleared).
func NewTreeD(leaves []fr.Element) (*Tree, error) {
	return newTree(sector.TreeShape{Base: 2}, leaves, sha256Node)
}

// NewTreeRC builds a Poseidon tree of shape over leaves (tree C or tree R).
func NewTreeRC(shape sector.TreeShape, leaves []fr.Element) (*Tree, error) {
	return newTree(shape, leaves, poseidonNode)
}

func newTree(shape sector.TreeShape, leaves []fr.Element, h hashFunc) (*Tree, error) {
	nb := shape.BaseTrees()
	if len(leaves) == 0 || len(leaves)%nb != 0 {
		return nil, fmt.Errorf("sdr: %d leaves for %d base trees", len(leaves), nb)
	}
	t := &Tree{Shape: shape, h: h}
	per := len(leaves) / nb
	roots := make([]fr.Element, nb)
	for b := 0; b < nb; b++ {
		ft, err := buildFullTree(shape.Base, leaves[b*per:(b+1)*per], h)
		if err != nil {
			return nil, err
		}
		t.bases = append(t.bases, ft)
		roots[b] = ft.root()
	}
	if shape.Sub == 0 {
		t.root = roots[0]
		return t, nil
	}
	for s := 0; s < nb/shape.Sub; s++ {
		t.subRoots = append(t.subRoots, h(roots[s*shape.Sub:(s+1)*shape.Sub]))
	}
	if shape.Top == 0 {
		t.root = t.subRoots[0]
	} else {
		t.root = h(t.subRoots)
	}
	return t, nil
}

// Root returns the root.
func (t *Tree) Root() fr.Element { return t.root }

// Leaves returns the number of leaves.
func (t *Tree) Leaves() uint64 { return uint64(len(t.bases) * len(t.bases[0].levels[0])) }

// Leaf returns leaf i.
func (t *Tree) Leaf(i uint64) fr.Element {
	per := uint64(len(t.bases[0].levels[0]))
	return t.bases[i/per].levels[0][i%per]
}

// Proof returns the inclusion proof of leaf i (i < Leaves()).
func (t *Tree) Proof(i uint64) MerkleProof {
	per := uint64(len(t.bases[0].levels[0]))
	b := i / per
	p := MerkleProof{Root: t.root, Leaf: t.Leaf(i), BaseProof: t.bases[b].path(i % per)}
	if t.Shape.Sub == 0 {
		return p
	}
	sub := uint64(t.Shape.Sub)
	s := b / sub
	p.SubProof = []PathElement{siblings(t.bases, s*sub, sub, b%sub)}
	if t.Shape.Top > 0 {
		var sib []fr.Element
		for j, r := range t.subRoots {
			if uint64(j) != s {
				sib = append(sib, r)
			}
		}
		p.TopProof = []PathElement{{Hashes: sib, Index: s}}
	}
	return p
}

func siblings(bases []*fullTree, first, n, pos uint64) PathElement {
	var sib []fr.Element
	for j := uint64(0); j < n; j++ {
		if j != pos {
			sib = append(sib, bases[first+j].root())
		}
	}
	return PathElement{Hashes: sib, Index: pos}
}
