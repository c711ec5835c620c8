package merkle

import (
	"crypto/sha256"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// HashFunc hashes Arity children into their parent.
type HashFunc func(children []fr.Element) fr.Element

// FrToBytes returns the 32-byte little-endian encoding of x (Filecoin's fr_into_bytes).
func FrToBytes(x *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *x)
	return b
}

// TrimmedSha256 returns SHA-256 of data with the two top bits of the last byte cleared, read as
// a little-endian Fr (Filecoin's Sha256Domain after trim_to_fr32).
func TrimmedSha256(data []byte) fr.Element {
	d := sha256.Sum256(data)
	d[31] &= 0x3f
	e, _ := fr.LittleEndian.Element(&d) // < 2^254 < r
	return e
}

// Sha256Node is Filecoin's binary SHA-256 tree node of left and right.
func Sha256Node(children []fr.Element) fr.Element {
	var buf [64]byte
	l, r := FrToBytes(&children[0]), FrToBytes(&children[1])
	copy(buf[:32], l[:])
	copy(buf[32:], r[:])
	return TrimmedSha256(buf[:])
}

// PoseidonNode returns a HashFunc hashing with p.
func PoseidonNode(p *poseidon.Params) HashFunc {
	return func(children []fr.Element) fr.Element {
		h, err := p.Hash(children)
		if err != nil {
			panic(err) // arity fixed by the tree
		}
		return h
	}
}

// Tree is a sparse Merkle tree of arity Arity and depth Depth (Arity^Depth leaves) whose leaves
// past the first len(Levels[0]) are Default[0]; Default[k] is the node at level k over
// default leaves only.
type Tree struct {
	Arity, Depth int
	Levels       [][]fr.Element // Levels[0] the real leaves, Levels[Depth] the root
	Default      []fr.Element
}

// NewTree builds the tree of arity and depth over leaves, padding with defaultLeaf.
func NewTree(arity, depth int, leaves []fr.Element, defaultLeaf fr.Element, h HashFunc) (*Tree, error) {
	if arity < 2 || depth < 1 {
		return nil, fmt.Errorf("merkle: arity %d depth %d", arity, depth)
	}
	capacity := 1
	for i := 0; i < depth; i++ {
		if capacity > (1<<62)/arity {
			return nil, fmt.Errorf("merkle: arity %d depth %d too large", arity, depth)
		}
		capacity *= arity
	}
	if len(leaves) == 0 || len(leaves) > capacity {
		return nil, fmt.Errorf("merkle: %d leaves for a tree of %d", len(leaves), capacity)
	}
	t := &Tree{Arity: arity, Depth: depth, Default: make([]fr.Element, depth+1)}
	t.Default[0] = defaultLeaf
	children := make([]fr.Element, arity)
	for k := 1; k <= depth; k++ {
		for i := range children {
			children[i] = t.Default[k-1]
		}
		t.Default[k] = h(children)
	}
	t.Levels = append(t.Levels, append([]fr.Element(nil), leaves...))
	for k := 1; k <= depth; k++ {
		prev := t.Levels[k-1]
		n := (len(prev) + arity - 1) / arity
		level := make([]fr.Element, n)
		for i := range level {
			for j := range children {
				children[j] = t.node(k-1, i*arity+j)
			}
			level[i] = h(children)
		}
		t.Levels = append(t.Levels, level)
	}
	return t, nil
}

func (t *Tree) node(level, i int) fr.Element {
	if i < len(t.Levels[level]) {
		return t.Levels[level][i]
	}
	return t.Default[level]
}

// Root returns the root.
func (t *Tree) Root() fr.Element { return t.Levels[t.Depth][0] }

// Leaf returns leaf i.
func (t *Tree) Leaf(i uint64) fr.Element { return t.node(0, int(i)) }

// Path returns the siblings of leaf i, level by level from the leaves: Arity−1 per level, in
// order, skipping the node on the path.
func (t *Tree) Path(i uint64) [][]fr.Element {
	path := make([][]fr.Element, t.Depth)
	idx := int(i)
	for k := 0; k < t.Depth; k++ {
		base := idx - idx%t.Arity
		sib := make([]fr.Element, 0, t.Arity-1)
		for j := 0; j < t.Arity; j++ {
			if base+j != idx {
				sib = append(sib, t.node(k, base+j))
			}
		}
		path[k] = sib
		idx /= t.Arity
	}
	return path
}

// RootFromPath recomputes the root from a leaf, its index and its path.
func RootFromPath(arity int, leaf fr.Element, index uint64, path [][]fr.Element, h HashFunc) fr.Element {
	cur := leaf
	children := make([]fr.Element, arity)
	for _, sib := range path {
		pos := int(index % uint64(arity))
		copy(children, sib[:pos])
		children[pos] = cur
		copy(children[pos+1:], sib[pos:])
		cur = h(children)
		index /= uint64(arity)
	}
	return cur
}
