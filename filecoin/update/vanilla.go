package update

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cupdate "github.com/cuzk-go/cuzk/filecoin/circuits/update"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
)

// ErrInvalidProof is wrapped by every error of Verify that reports a proof that does not check.
var ErrInvalidProof = errors.New("update: invalid vanilla proof")

func invalid(k int, format string, a ...any) error {
	return fmt.Errorf("%w: partition %d: %s", ErrInvalidProof, k, fmt.Sprintf(format, a...))
}

// ChallengeProof is one challenge's openings (vanilla.rs ChallengeProof): the challenged node
// in the old replica's tree R, in the new data's tree D and in the new replica's tree R.
type ChallengeProof struct {
	ROld, DNew, RNew sdr.MerkleProof
}

// PartitionProof is the vanilla proof of one partition (vanilla.rs PartitionProof): the old
// replica's comm_c, the partition's ApexLeafCount tree D nodes at the apex height, and
// ChallengeCount challenge proofs.
type PartitionProof struct {
	CommC           fr.Element
	ApexLeafs       []fr.Element
	ChallengeProofs []ChallengeProof
}

// Replica is a sector updated with new data, held in memory: the old replica's tree R and
// comm_c, the new data's tree D, the new replica's tree R, and the commitments.
type Replica struct {
	Type     ProofType
	Params   cupdate.Params
	H        int // high challenge bits rho derives from (HDefault)
	TreeROld *sdr.Tree
	TreeD    *sdr.Tree
	TreeRNew *sdr.Tree
	CommC    fr.Element

	CommROld fr.Element // Poseidon₂(CommC, root of TreeROld)
	CommDNew fr.Element // root of TreeD
	CommRNew fr.Element // Poseidon₂(CommC, root of TreeRNew)
}

// Phi returns phi = Poseidon₂(comm_d_new, comm_r_old) with the gen-randomness domain tag
// (vanilla.rs phi).
func Phi(commDNew, commROld fr.Element) fr.Element {
	return cupdate.GenRandomnessHash(commDNew, commROld)
}

// Rho returns rho = Poseidon₂(phi, high) with the gen-randomness domain tag, high the h high
// bits of a node index (vanilla.rs rho).
func Rho(phi fr.Element, high uint64) fr.Element {
	var h fr.Element
	h.SetUint64(high)
	return cupdate.GenRandomnessHash(phi, h)
}

// Encode encodes data (the new sector's nodes, fr32-padded, SectorSize/32 of them) into the
// sealed sector whose replica tree R (tree-r-last) is oldTreeR and whose comm_c is commC, as
// vanilla.rs encode_into: comm_d_new is the SHA-256 tree D root over data, and node i of the
// new replica is label_r_old[i] + data[i]·rho(i >> (ChallengeBits − h)), h = HDefault; the new
// tree R has the old one's shape.
func Encode(t ProofType, oldTreeR *sdr.Tree, commC fr.Element, data []fr.Element) (*Replica, error) {
	p, err := t.Params()
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) != p.SectorNodes {
		return nil, fmt.Errorf("update: %s: %d data nodes, want %d", t, len(data), p.SectorNodes)
	}
	if oldTreeR == nil || oldTreeR.Leaves() != p.SectorNodes || oldTreeR.Shape != t.TreeShape() {
		return nil, fmt.Errorf("update: %s: old tree R is not a %s tree of %d leaves", t, t.TreeShape(), p.SectorNodes)
	}
	r := &Replica{Type: t, Params: p, H: HDefault(p), TreeROld: oldTreeR, CommC: commC}
	rootOld := oldTreeR.Root()
	r.CommROld = sdr.CommR(&commC, &rootOld)
	if r.TreeD, err = sdr.NewTreeD(data); err != nil {
		return nil, fmt.Errorf("update: tree D: %w", err)
	}
	r.CommDNew = r.TreeD.Root()
	phi := Phi(r.CommDNew, r.CommROld)
	shr := uint(p.ChallengeBits() - r.H)
	labels := make([]fr.Element, p.SectorNodes)
	rhos := make(map[uint64]fr.Element)
	for i := range labels {
		high := uint64(i) >> shr
		rho, ok := rhos[high]
		if !ok {
			rho = Rho(phi, high)
			rhos[high] = rho
		}
		old := oldTreeR.Leaf(uint64(i))
		labels[i].Mul(&data[i], &rho).Add(&labels[i], &old)
	}
	if r.TreeRNew, err = sdr.NewTreeRC(t.TreeShape(), labels); err != nil {
		return nil, fmt.Errorf("update: new tree R: %w", err)
	}
	rootNew := r.TreeRNew.Root()
	r.CommRNew = sdr.CommR(&commC, &rootNew)
	return r, nil
}

// Challenges returns partition k's ChallengeCount challenged nodes (vanilla.rs Challenges):
// digest j = Poseidon₂(comm_r_new, k·DigestsPerPartition + j) with the gen-randomness tag;
// each digest's low bits give ⌊254 / b⌋ challenges of b = ChallengeBits − PartitionBits bits
// (least significant first), each with k in its top PartitionBits bits.
func Challenges(p cupdate.Params, commRNew fr.Element, k int) []uint64 {
	b := p.ChallengeBits() - p.PartitionBits()
	perDigest := 254 / b
	out := make([]uint64, 0, p.ChallengeCount)
	for j := 0; len(out) < p.ChallengeCount; j++ {
		var idx fr.Element
		idx.SetUint64(uint64(k*p.DigestsPerPartition() + j))
		digest := cupdate.GenRandomnessHash(commRNew, idx)
		limbs := digest.Bits()
		for n := 0; n < perDigest && len(out) < p.ChallengeCount; n++ {
			var c uint64
			for i := 0; i < b; i++ {
				bit := n*b + i
				c |= (limbs[bit/64] >> uint(bit%64) & 1) << uint(i)
			}
			out = append(out, c|uint64(k)<<uint(b))
		}
	}
	return out
}

// apexHeight is the tree D height of the apex leaves: ChallengeBits − PartitionBits −
// ApexLeafBits.
func apexHeight(p cupdate.Params) int {
	return p.ChallengeBits() - p.PartitionBits() - p.ApexLeafBits()
}

// PartitionProof returns partition k's vanilla proof (vanilla.rs prove_inner).
func (r *Replica) PartitionProof(k int) (*PartitionProof, error) {
	p := r.Params
	if k < 0 || k >= p.PartitionCount {
		return nil, fmt.Errorf("update: %s: partition %d out of %d", r.Type, k, p.PartitionCount)
	}
	pp := &PartitionProof{CommC: r.CommC, ApexLeafs: make([]fr.Element, p.ApexLeafCount)}
	a := apexHeight(p)
	for j := range pp.ApexLeafs {
		// The apex leaf is the tree D node at height a above leaf (k·ApexLeafCount + j)·2^a.
		mp := r.TreeD.Proof(uint64(k*p.ApexLeafCount+j) << uint(a))
		cur := mp.Leaf
		for _, e := range mp.BaseProof[:a] {
			cur = merkle.Sha256Node([]fr.Element{cur, e.Hashes[0]})
		}
		pp.ApexLeafs[j] = cur
	}
	for _, c := range Challenges(p, r.CommRNew, k) {
		pp.ChallengeProofs = append(pp.ChallengeProofs, ChallengeProof{
			ROld: r.TreeROld.Proof(c), DNew: r.TreeD.Proof(c), RNew: r.TreeRNew.Proof(c),
		})
	}
	return pp, nil
}

// PartitionProofs returns the vanilla proofs of every partition, in order.
func (r *Replica) PartitionProofs() ([]*PartitionProof, error) {
	out := make([]*PartitionProof, r.Params.PartitionCount)
	for k := range out {
		var err error
		if out[k], err = r.PartitionProof(k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkShape checks that mp has the levels and arities of a tree of arities (leaves up).
func checkShape(mp *sdr.MerkleProof, arities []int) error {
	path := mp.Path()
	if len(path) != len(arities) {
		return fmt.Errorf("%d path levels, want %d", len(path), len(arities))
	}
	for l, e := range path {
		if len(e.Hashes) != arities[l]-1 {
			return fmt.Errorf("path level %d has %d siblings, want %d", l, len(e.Hashes), arities[l]-1)
		}
	}
	return nil
}

// Verify checks partition k's vanilla proof against the public inputs, as vanilla.rs verify
// with h = HDefault: the apex-leaf and challenge counts, comm_r_old and comm_r_new =
// Poseidon₂(comm_c, root) of the first challenge's tree R roots, and per challenge the three
// openings (index, root, path), the encoding label_r_new = label_r_old + label_d_new·rho, and
// that the tree D path's siblings at the apex heights belong to the apex tree. It also checks
// that every path has the shape of its tree, which the circuit needs. A proof that does not
// check is an error wrapping ErrInvalidProof that names the partition, challenge and tree.
func Verify(t ProofType, k int, commROld, commDNew, commRNew fr.Element, pp *PartitionProof) error {
	p, err := t.Params()
	if err != nil {
		return err
	}
	if k < 0 || k >= p.PartitionCount {
		return fmt.Errorf("update: %s: partition %d out of %d", t, k, p.PartitionCount)
	}
	if pp == nil {
		return invalid(k, "no proof")
	}
	if len(pp.ApexLeafs) != p.ApexLeafCount {
		return invalid(k, "%d apex leaves, want %d", len(pp.ApexLeafs), p.ApexLeafCount)
	}
	if len(pp.ChallengeProofs) != p.ChallengeCount {
		return invalid(k, "%d challenge proofs, want %d", len(pp.ChallengeProofs), p.ChallengeCount)
	}
	apexTree := [][]fr.Element{pp.ApexLeafs}
	for l := 0; l < p.ApexLeafBits(); l++ {
		prev := apexTree[l]
		row := make([]fr.Element, len(prev)/2)
		for i := range row {
			row[i] = merkle.Sha256Node(prev[2*i : 2*i+2])
		}
		apexTree = append(apexTree, row)
	}
	rootROld, rootRNew := pp.ChallengeProofs[0].ROld.Root, pp.ChallengeProofs[0].RNew.Root
	if c := sdr.CommR(&pp.CommC, &rootROld); !c.Equal(&commROld) {
		return invalid(k, "Poseidon(comm_c, tree R old root) is not comm_r_old")
	}
	if c := sdr.CommR(&pp.CommC, &rootRNew); !c.Equal(&commRNew) {
		return invalid(k, "Poseidon(comm_c, tree R new root) is not comm_r_new")
	}
	phi := Phi(commDNew, commROld)
	shr := uint(p.ChallengeBits() - HDefault(p))
	arities := p.Arities()
	dArities := make([]int, p.ChallengeBits())
	for i := range dArities {
		dArities[i] = 2
	}
	a := apexHeight(p)
	for i, c := range Challenges(p, commRNew, k) {
		cp := &pp.ChallengeProofs[i]
		for _, o := range []struct {
			name    string
			mp      *sdr.MerkleProof
			root    fr.Element
			arities []int
			verify  func(uint64) error
		}{
			{"tree R old", &cp.ROld, rootROld, arities, cp.ROld.VerifyPoseidon},
			{"tree D new", &cp.DNew, commDNew, dArities, cp.DNew.VerifySha256},
			{"tree R new", &cp.RNew, rootRNew, arities, cp.RNew.VerifyPoseidon},
		} {
			if err := checkShape(o.mp, o.arities); err != nil {
				return invalid(k, "challenge %d (node %d): %s: %v", i, c, o.name, err)
			}
			if !o.mp.Root.Equal(&o.root) {
				return invalid(k, "challenge %d (node %d): %s: wrong root", i, c, o.name)
			}
			if err := o.verify(c); err != nil {
				return invalid(k, "challenge %d (node %d): %s: %v", i, c, o.name, err)
			}
		}
		rho := Rho(phi, c>>shr)
		var want fr.Element
		want.Mul(&cp.DNew.Leaf, &rho).Add(&want, &cp.ROld.Leaf)
		if !want.Equal(&cp.RNew.Leaf) {
			return invalid(k, "challenge %d (node %d): new replica label is not label_r_old + data·rho", i, c)
		}
		path := cp.DNew.Path()
		for l := 0; l < p.ApexLeafBits(); l++ {
			sib := path[a+l].Hashes[0]
			found := false
			for _, x := range apexTree[l] {
				if x.Equal(&sib) {
					found = true
					break
				}
			}
			if !found {
				return invalid(k, "challenge %d (node %d): tree D path level %d is not in the apex tree", i, c, a+l)
			}
		}
	}
	return nil
}

// Circuit returns the EmptySectorUpdate circuit of partition k proving pp, with h = HDefault.
// pp should have passed Verify; the circuit checks its witness's shape again.
func (pp *PartitionProof) Circuit(t ProofType, k int, commROld, commDNew, commRNew fr.Element) (*cupdate.Circuit, error) {
	p, err := t.Params()
	if err != nil {
		return nil, err
	}
	if len(pp.ChallengeProofs) == 0 {
		return nil, fmt.Errorf("update: partition %d: no challenge proofs", k)
	}
	c := &cupdate.Circuit{
		Params: p, K: k, H: HDefault(p), CommROld: commROld, CommDNew: commDNew, CommRNew: commRNew,
		CommC: pp.CommC, RootROld: pp.ChallengeProofs[0].ROld.Root, RootRNew: pp.ChallengeProofs[0].RNew.Root,
		ApexLeafs: pp.ApexLeafs,
	}
	siblings := func(mp *sdr.MerkleProof) [][]fr.Element {
		path := mp.Path()
		out := make([][]fr.Element, len(path))
		for l, e := range path {
			out[l] = e.Hashes
		}
		return out
	}
	for _, cp := range pp.ChallengeProofs {
		d := siblings(&cp.DNew)
		pathD := make([]fr.Element, len(d))
		for l, s := range d {
			if len(s) != 1 {
				return nil, fmt.Errorf("update: partition %d: tree D path level %d has %d siblings, want 1", k, l, len(s))
			}
			pathD[l] = s[0]
		}
		c.Challenges = append(c.Challenges, cupdate.ChallengeProof{
			LeafROld: cp.ROld.Leaf, PathROld: siblings(&cp.ROld),
			LeafDNew: cp.DNew.Leaf, PathDNew: pathD,
			PathRNew: siblings(&cp.RNew),
		})
	}
	return c, nil
}
