package stacked

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// SealParams returns the partition shape of seal proof type p (PoRepParams of its sector size).
func SealParams(p sector.RegisteredSealProof) (Params, error) {
	if !p.Valid() {
		return Params{}, fmt.Errorf("stacked: unknown seal proof type %d", uint64(p))
	}
	return PoRepParams(p.SectorSize())
}

// FromVanilla builds the circuit of one partition from its vanilla proofs, as StackedCompound::
// circuit and From<VanillaProof> for the circuit's Proof do (stacked/circuit/proof.rs,
// params.rs): replica_id, comm_d and comm_r are the public values; comm_r_last and comm_c are the
// roots opened by the first proof (every proof must open the same ones); per challenge the
// challenged node is labeling_proofs[0].node, the data leaf is comm_d_proofs.leaf, the tree D,
// R and C paths are comm_d_proofs, comm_r_last_proof and c_x.inclusion_proof, and each of the 6
// DRG and 8 expander parents contributes its column's rows and its tree C path. The circuit
// computes the labels, the encoding and every leaf itself; the other fields of the proofs
// (c_x's rows, the labeling and encoding proofs' parents, the tree leaves other than the data
// leaf) do not enter it.
//
// Each path's levels are bound to the one node index the circuit uses for them: FromVanilla
// refuses a path that opens another node than the challenge (or, for a parent, than its
// column's index), and a proof of the wrong shape, with an error naming the challenge and field.
// It does not check the hashes: a wrong value gives a circuit that synth.Check rejects.
func FromVanilla(p Params, replicaID, commD, commR fr.Element, proofs []sdr.Proof) (*Circuit, error) {
	if len(proofs) == 0 {
		return nil, fmt.Errorf("stacked: no vanilla proofs")
	}
	if len(proofs) != p.Challenges {
		return nil, fmt.Errorf("stacked: %d vanilla proofs, the partition has %d challenges", len(proofs), p.Challenges)
	}
	c := &Circuit{
		Params: p, ReplicaID: replicaID, CommD: commD, CommR: commR,
		CommRLast: proofs[0].CommRLast(), CommC: proofs[0].CommC(),
		Challenges: make([]Challenge, len(proofs)),
	}
	for i := range proofs {
		pr := &proofs[i]
		if rl, cc := pr.CommRLast(), pr.CommC(); !rl.Equal(&c.CommRLast) || !cc.Equal(&c.CommC) {
			return nil, fmt.Errorf("stacked: challenge %d: comm_r_last_proof.root or c_x.inclusion_proof.root differs from challenge 0's (inconsistent comm_r_last or comm_c)", i)
		}
		if err := vanillaChallenge(&c.Challenges[i], p, pr); err != nil {
			return nil, fmt.Errorf("stacked: challenge %d: %w", i, err)
		}
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// vanillaChallenge maps one vanilla proof into the circuit's challenge.
func vanillaChallenge(dst *Challenge, p Params, pr *sdr.Proof) error {
	if len(pr.LabelingProofs) != p.Layers {
		return fmt.Errorf("labeling_proofs: %d, want %d (one per layer)", len(pr.LabelingProofs), p.Layers)
	}
	node := pr.LabelingProofs[0].Node
	dst.Node = node
	dst.DataLeaf = pr.CommDProofs.Leaf
	binary := make([]int, p.CommDDepth)
	for i := range binary {
		binary[i] = 2
	}
	var err error
	if dst.CommDPath, err = vanillaPath("comm_d_proofs", &pr.CommDProofs, binary, node); err != nil {
		return err
	}
	if dst.CommRLastPath, err = vanillaPath("comm_r_last_proof", &pr.CommRLastProof, p.TreeRC, node); err != nil {
		return err
	}
	if dst.CommCPath, err = vanillaPath("replica_column_proofs.c_x.inclusion_proof", &pr.ReplicaColumnProofs.CX.InclusionProof, p.TreeRC, node); err != nil {
		return err
	}
	rc := &pr.ReplicaColumnProofs
	if len(rc.DrgParents) != DRGParents || len(rc.ExpParents) != ExpParents {
		return fmt.Errorf("replica_column_proofs: %d drg_parents and %d exp_parents, want %d and %d",
			len(rc.DrgParents), len(rc.ExpParents), DRGParents, ExpParents)
	}
	for _, group := range []struct {
		name string
		src  []sdr.ColumnProof
		dst  []ParentColumn
	}{{"drg_parents", rc.DrgParents, dst.DRG[:]}, {"exp_parents", rc.ExpParents, dst.Exp[:]}} {
		for j := range group.src {
			cp := &group.src[j]
			field := fmt.Sprintf("replica_column_proofs.%s[%d]", group.name, j)
			path, err := vanillaPath(field+".inclusion_proof", &cp.InclusionProof, p.TreeRC, uint64(cp.Column.Index))
			if err != nil {
				return err
			}
			if len(cp.Column.Rows) != p.Layers {
				return fmt.Errorf("%s.column.rows: %d, want %d (one per layer)", field, len(cp.Column.Rows), p.Layers)
			}
			group.dst[j] = ParentColumn{Index: uint64(cp.Column.Index), Rows: append([]fr.Element(nil), cp.Column.Rows...), Path: path}
		}
	}
	return nil
}

// vanillaPath returns the sibling hashes of m's levels, base first, after checking that the
// levels have the given arities and the path opens node (the circuit derives every level's
// index bits from node).
func vanillaPath(field string, m *sdr.MerkleProof, arities []int, node uint64) ([][]fr.Element, error) {
	levels := m.Path()
	if len(levels) != len(arities) {
		return nil, fmt.Errorf("%s: %d levels, want %d", field, len(levels), len(arities))
	}
	for k, e := range levels {
		if len(e.Hashes) != arities[k]-1 || e.Index >= uint64(arities[k]) {
			return nil, fmt.Errorf("%s: level %d: %d siblings and index %d, want %d siblings (arity %d)", field, k, len(e.Hashes), e.Index, arities[k]-1, arities[k])
		}
	}
	if got := m.PathIndex(); got != node {
		return nil, fmt.Errorf("%s: path opens node %d, want %d", field, got, node)
	}
	out := make([][]fr.Element, len(levels))
	for k, e := range levels {
		out[k] = append([]fr.Element(nil), e.Hashes...)
	}
	return out, nil
}

// FromC1 builds the circuit of partition k of a C1 output (its VanillaProofs[k] with its
// replica_id, comm_d and comm_r), as seal_commit_phase2 does.
func FromC1(o *c1.SealCommitPhase1Output, k int) (*Circuit, error) {
	p, err := SealParams(o.RegisteredProof)
	if err != nil {
		return nil, err
	}
	if k < 0 || k >= len(o.VanillaProofs) {
		return nil, fmt.Errorf("stacked: partition %d of %d", k, len(o.VanillaProofs))
	}
	c, err := FromVanilla(p, o.ReplicaID, o.CommD, o.CommR, o.VanillaProofs[k])
	if err != nil {
		return nil, fmt.Errorf("partition %d: %w", k, err)
	}
	return c, nil
}

// PublicInputs returns the public inputs of partition k of seal proof type p, without the
// leading ONE, exactly as StackedCompound::generate_public_inputs (stacked/circuit/proof.rs)
// orders them: replica_id, comm_d, comm_r, then per challenge c of the partition (the
// interactive challenges derived from replica_id and seed): c (its tree D path, packed), the 6
// DRG parents of c, the 8 expander parents of c (each its tree C path, packed), c (the UInt64),
// c (its tree R path), c (its tree C path). Every path's bits pack into one input equal to the
// leaf index (PoRCompound::generate_public_inputs with private trees): 3 + 18·challenges
// inputs. g must be the graph of p (sdr.NewGraph); nil builds it.
func PublicInputs(p sector.RegisteredSealProof, g *sdr.Graph, replicaID, commD, commR fr.Element, seed [32]byte, k int) ([]fr.Element, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("stacked: unknown seal proof type %d", uint64(p))
	}
	if len(p.Features()) != 0 {
		return nil, fmt.Errorf("stacked: %v: only interactive PoRep challenges are supported", p)
	}
	cfg := p.Config()
	if k < 0 || k >= cfg.Partitions {
		return nil, fmt.Errorf("stacked: partition %d of %d", k, cfg.Partitions)
	}
	if g == nil {
		var err error
		if g, err = sdr.NewGraph(cfg.Nodes, p.PoRepID(), p.APIVersion()); err != nil {
			return nil, err
		}
	}
	if g.Nodes != cfg.Nodes {
		return nil, fmt.Errorf("stacked: graph of %d nodes for %v (%d nodes)", g.Nodes, p, cfg.Nodes)
	}
	challenges := sdr.InteractiveChallenges(cfg.Nodes, &replicaID, seed, k, cfg.ChallengesPerPartition)
	out := make([]fr.Element, 0, 3+18*len(challenges))
	out = append(out, replicaID, commD, commR)
	u := func(x uint64) fr.Element { var e fr.Element; e.SetUint64(x); return e }
	for _, c := range challenges {
		out = append(out, u(c))
		for _, parent := range g.Parents(c) {
			out = append(out, u(uint64(parent)))
		}
		out = append(out, u(c), u(c), u(c))
	}
	return out, nil
}
