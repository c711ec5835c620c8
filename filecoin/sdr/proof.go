package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The vanilla proof types mirror rust-fil-proofs' (storage-proofs-core src/merkle/proof.rs,
// storage-proofs-porep src/stacked/vanilla/{params,column,column_proof,labeling_proof,
// encoding_proof}.rs) field for field, with Go names: c_x is CX, comm_d_proofs is CommDProofs.
// Every hash domain value (Sha256Domain, PoseidonDomain) is an fr.Element; its bytes are the
// element's 32-byte little-endian encoding.

// ErrInvalidProof is wrapped by every verification failure.
var ErrInvalidProof = errors.New("sdr: invalid vanilla proof")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidProof, fmt.Sprintf(format, a...))
}

// PathElement is one level of an inclusion path: the arity−1 sibling hashes in order, and Index,
// the position (0 ≤ Index < arity) of the path's node among the arity children.
type PathElement struct {
	Hashes []fr.Element
	Index  uint64
}

// MerkleProof is an inclusion proof in a tree of shape base-sub-top. BaseProof is the path inside
// the base tree (Rust SingleProof.path, or SubProof/TopProof.base_proof); SubProof and TopProof
// are the one-level paths of the sub and top layers, nil when the shape has none (Rust
// ProofData::Single, ::Sub and ::Top).
type MerkleProof struct {
	Root, Leaf fr.Element
	BaseProof  []PathElement
	SubProof   []PathElement
	TopProof   []PathElement
}

// Path returns all levels, base first.
func (p *MerkleProof) Path() []PathElement {
	out := append([]PathElement(nil), p.BaseProof...)
	out = append(out, p.SubProof...)
	return append(out, p.TopProof...)
}

// PathIndex returns the leaf index the path proves: Σ Index_k·Π_{j<k} arity_j, with arity_k =
// len(Hashes_k)+1 (merkle/proof.rs path_index).
func (p *MerkleProof) PathIndex() uint64 {
	path := p.Path()
	var idx uint64
	for k := len(path) - 1; k >= 0; k-- {
		idx = idx*uint64(len(path[k].Hashes)+1) + path[k].Index
	}
	return idx
}

// computeRoot hashes Leaf up the path with h.
func (p *MerkleProof) computeRoot(h hashFunc) (fr.Element, error) {
	cur := p.Leaf
	var buf []fr.Element
	for k, e := range p.Path() {
		arity := len(e.Hashes) + 1
		if e.Index >= uint64(arity) {
			return fr.Element{}, invalid("path level %d: index %d for arity %d", k, e.Index, arity)
		}
		buf = append(buf[:0], e.Hashes[:e.Index]...)
		buf = append(buf, cur)
		buf = append(buf, e.Hashes[e.Index:]...)
		cur = h(buf)
	}
	return cur, nil
}

// verify checks that the path hashes Leaf to Root with h and proves leaf index.
func (p *MerkleProof) verify(h hashFunc, index uint64) error {
	if got := p.PathIndex(); got != index {
		return invalid("path proves leaf %d, want %d", got, index)
	}
	r, err := p.computeRoot(h)
	if err != nil {
		return err
	}
	if !r.Equal(&p.Root) {
		return invalid("path of leaf %d does not hash to its root", index)
	}
	return nil
}

// VerifySha256 checks a binary SHA-256 (tree D) proof of leaf index.
func (p *MerkleProof) VerifySha256(index uint64) error { return p.verify(sha256Node, index) }

// VerifyPoseidon checks a Poseidon (tree C or R) proof of leaf index.
func (p *MerkleProof) VerifyPoseidon(index uint64) error { return p.verify(poseidonNode, index) }

// Column is the labels of node Index in layers 1…L, Rows[l−1] the label in layer l.
type Column struct {
	Index uint32
	Rows  []fr.Element
}

// Hash returns the column's leaf in tree C: Poseidon of arity L over the rows
// (stacked/vanilla/hash.rs hash_single_column).
func (c *Column) Hash() fr.Element { return poseidonNode(c.Rows) }

// ColumnProof is a column and its inclusion proof in tree C.
type ColumnProof struct {
	Column         Column
	InclusionProof MerkleProof
}

// Verify checks that the column hashes to the proof's leaf, the proof opens node challenge and
// its root is commC (column_proof.rs verify).
func (c *ColumnProof) Verify(challenge uint32, commC *fr.Element) error {
	if c.Column.Index != challenge {
		return invalid("column of node %d, want %d", c.Column.Index, challenge)
	}
	if !c.InclusionProof.Root.Equal(commC) {
		return invalid("column %d: root is not comm_c", challenge)
	}
	if h := c.Column.Hash(); !h.Equal(&c.InclusionProof.Leaf) {
		return invalid("column %d: hash is not the tree C leaf", challenge)
	}
	return c.InclusionProof.VerifyPoseidon(uint64(challenge))
}

// ReplicaColumnProof is the challenged node's column (CX) and its 6 DRG and 8 expander parents'
// columns (params.rs ReplicaColumnProof).
type ReplicaColumnProof struct {
	CX         ColumnProof
	DrgParents []ColumnProof
	ExpParents []ColumnProof
}

// LabelingProof holds the 37 parent labels from which node Node's label in layer LayerIndex is
// computed (labeling_proof.rs).
type LabelingProof struct {
	Parents    []fr.Element
	LayerIndex uint32
	Node       uint64
}

// CreateLabel returns SHA-256(replica_id ‖ layer u32 BE ‖ node u64 BE ‖ 20 zero bytes ‖
// parents…) with the top two bits cleared, as a field element (each value its 32-byte LE
// encoding).
func (l *LabelingProof) CreateLabel(replicaID *fr.Element) fr.Element {
	h := sha256.New()
	var buf [64]byte
	fr.LittleEndian.PutElement((*[32]byte)(buf[:32]), *replicaID)
	binary.BigEndian.PutUint32(buf[32:], l.LayerIndex)
	binary.BigEndian.PutUint64(buf[36:], l.Node)
	h.Write(buf[:])
	for i := range l.Parents {
		var p [32]byte
		fr.LittleEndian.PutElement(&p, l.Parents[i])
		h.Write(p[:])
	}
	var d [32]byte
	h.Sum(d[:0])
	return truncatedElement(&d)
}

// EncodingProof holds the parents of the last layer's label, the key that encodes the data
// node (encoding_proof.rs).
type EncodingProof struct {
	Parents    []fr.Element
	LayerIndex uint32
	Node       uint64
}

// Verify checks encodedNode = key + decodedNode, the key computed as a label.
func (e *EncodingProof) Verify(replicaID, encodedNode, decodedNode *fr.Element) error {
	l := LabelingProof{Parents: e.Parents, LayerIndex: e.LayerIndex, Node: e.Node}
	key := l.CreateLabel(replicaID)
	var enc fr.Element
	enc.Add(&key, decodedNode)
	if !enc.Equal(encodedNode) {
		return invalid("node %d: replica node is not label + data", e.Node)
	}
	return nil
}

// Proof is the vanilla proof of one challenge (params.rs Proof<Tree, G>).
type Proof struct {
	CommDProofs         MerkleProof // tree D, SHA-256 binary
	CommRLastProof      MerkleProof // tree R, Poseidon
	ReplicaColumnProofs ReplicaColumnProof
	LabelingProofs      []LabelingProof // layer 1…L
	EncodingProof       EncodingProof
}

// CommRLast returns the tree R root the proof opens.
func (p *Proof) CommRLast() fr.Element { return p.CommRLastProof.Root }

// CommC returns the tree C root the proof opens.
func (p *Proof) CommC() fr.Element { return p.ReplicaColumnProofs.CX.InclusionProof.Root }

// Verify checks the proof of challenge against g, replicaID and commD for layers layers
// (params.rs Proof::verify, and stricter: every Merkle path is hashed to its root).
func (p *Proof) Verify(g *Graph, replicaID, commD *fr.Element, challenge uint64, layers int) error {
	if challenge >= g.Nodes {
		return invalid("challenge %d ≥ %d nodes", challenge, g.Nodes)
	}
	if !p.CommDProofs.Root.Equal(commD) {
		return invalid("comm_d_proofs: root is not comm_d")
	}
	if err := p.CommDProofs.VerifySha256(challenge); err != nil {
		return fmt.Errorf("comm_d_proofs: %w", err)
	}
	rc := &p.ReplicaColumnProofs
	if len(rc.DrgParents) != DegreeBase || len(rc.ExpParents) != DegreeExp {
		return invalid("%d drg and %d exp parent columns, want %d and %d", len(rc.DrgParents), len(rc.ExpParents), DegreeBase, DegreeExp)
	}
	commC := p.CommC()
	if err := rc.CX.Verify(uint32(challenge), &commC); err != nil {
		return fmt.Errorf("replica_column_proofs.c_x: %w", err)
	}
	parents := g.Parents(challenge)
	cols := append(append([]ColumnProof(nil), rc.DrgParents...), rc.ExpParents...)
	for i := range cols {
		if len(cols[i].Column.Rows) != layers {
			return invalid("parent column %d has %d rows, want %d", i, len(cols[i].Column.Rows), layers)
		}
		if err := cols[i].Verify(parents[i], &commC); err != nil {
			return fmt.Errorf("replica_column_proofs parent %d: %w", i, err)
		}
	}
	if len(rc.CX.Column.Rows) != layers || len(p.LabelingProofs) != layers {
		return invalid("%d rows and %d labeling proofs, want %d", len(rc.CX.Column.Rows), len(p.LabelingProofs), layers)
	}
	if err := p.CommRLastProof.VerifyPoseidon(challenge); err != nil {
		return fmt.Errorf("comm_r_last_proof: %w", err)
	}
	for l := 1; l <= layers; l++ {
		lp := &p.LabelingProofs[l-1]
		want := expectedLabelParents(rc, l)
		if lp.LayerIndex != uint32(l) || lp.Node != challenge || len(lp.Parents) != len(want) {
			return invalid("labeling proof %d: layer %d node %d with %d parents", l, lp.LayerIndex, lp.Node, len(lp.Parents))
		}
		for i := range want {
			if !lp.Parents[i].Equal(&want[i]) {
				return invalid("labeling proof %d: parent %d is not its column's label", l, i)
			}
		}
		label := lp.CreateLabel(replicaID)
		if !label.Equal(&rc.CX.Column.Rows[l-1]) {
			return invalid("labeling proof %d: label does not match the column", l)
		}
	}
	last := p.LabelingProofs[layers-1]
	ep := &p.EncodingProof
	if ep.LayerIndex != last.LayerIndex || ep.Node != last.Node || len(ep.Parents) != len(last.Parents) {
		return invalid("encoding proof differs from the last labeling proof")
	}
	for i := range ep.Parents {
		if !ep.Parents[i].Equal(&last.Parents[i]) {
			return invalid("encoding proof parent %d differs from the last labeling proof", i)
		}
	}
	return ep.Verify(replicaID, &p.CommRLastProof.Leaf, &p.CommDProofs.Leaf)
}

// expectedLabelParents returns the 37 parent labels of layer l: the DRG parents' labels in layer l,
// then (from layer 2 on) the expander parents' labels in layer l−1, repeated cyclically to 37
// (params.rs Proof::from_parts).
func expectedLabelParents(rc *ReplicaColumnProof, l int) []fr.Element {
	base := make([]fr.Element, 0, DegreeBase+DegreeExp)
	for _, c := range rc.DrgParents {
		base = append(base, c.Column.Rows[l-1])
	}
	if l > 1 {
		for _, c := range rc.ExpParents {
			base = append(base, c.Column.Rows[l-2])
		}
	}
	out := make([]fr.Element, TotalParents)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out
}
