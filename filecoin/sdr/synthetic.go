package sdr

import (
	"context"
	"sort"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// syntheticSector holds only what the challenges open: the columns of the challenged nodes and
// their parents, the data and replica leaves of the challenged nodes, and sparse trees over them.
type syntheticSector struct {
	columns      map[uint32][]fr.Element
	treeC, treeR *sparseTree
	treeD        *sparseTree
}

func (s *syntheticSector) column(node uint32) Column {
	return Column{Index: node, Rows: append([]fr.Element(nil), s.columns[node]...)}
}
func (s *syntheticSector) proofC(node uint64) MerkleProof { return s.treeC.proof(node) }
func (s *syntheticSector) proofR(node uint64) MerkleProof { return s.treeR.proof(node) }
func (s *syntheticSector) proofD(node uint64) MerkleProof { return s.treeD.proof(node) }

// SyntheticProofs returns vanilla proofs of every partition of proof type p, and their public
// inputs, that Verify accepts, without sealing a sector: the replica id and the seed are derived
// from key, the challenges from them as usual; the challenged nodes' parents get pseudo-random
// columns, the challenged nodes' labels are computed from their parents layer by layer, their data
// leaves are pseudo-random; trees C, R and D are sparse (nodes off the opened paths are
// pseudo-random fillers). Such proofs satisfy every relation the PoRep circuit checks, so they
// give a well-formed C1 of any size, 32 and 64 GiB included, in seconds. They are not the proofs
// of any real sector.
func SyntheticProofs(ctx context.Context, p sector.RegisteredSealProof, key [32]byte) (*PublicInputs, [][]Proof, error) {
	if err := interactive(p); err != nil {
		return nil, nil, err
	}
	cfg := p.Config()
	g, err := NewGraph(cfg.Nodes, p.PoRepID(), p.APIVersion())
	if err != nil {
		return nil, nil, err
	}
	pub := &PublicInputs{Proof: p, ReplicaID: prf(&key, "replica_id", 0, 0)}
	seed := Bytes(ptr(prf(&key, "seed", 0, 0)))
	pub.Seed = seed

	var challenges []uint64
	perPartition := make([][]uint64, cfg.Partitions)
	isChallenge := map[uint64]bool{}
	for k := range perPartition {
		perPartition[k] = InteractiveChallenges(cfg.Nodes, &pub.ReplicaID, seed, k, cfg.ChallengesPerPartition)
		for _, c := range perPartition[k] {
			if !isChallenge[c] {
				isChallenge[c] = true
				challenges = append(challenges, c)
			}
		}
	}
	sort.Slice(challenges, func(i, j int) bool { return challenges[i] < challenges[j] })

	s := &syntheticSector{columns: map[uint32][]fr.Element{}}
	parents := make(map[uint64][Degree]uint32, len(challenges))
	for _, c := range challenges {
		ps := g.Parents(c)
		parents[c] = ps
		for _, q := range ps {
			if isChallenge[uint64(q)] || s.columns[q] != nil {
				continue
			}
			rows := make([]fr.Element, cfg.Layers)
			for l := range rows {
				rows[l] = prf(&key, "label", uint64(q), uint64(l))
			}
			s.columns[q] = rows
		}
	}
	for _, c := range challenges {
		s.columns[uint32(c)] = make([]fr.Element, cfg.Layers)
	}
	// Layer by layer, challenges in increasing order: a DRG parent precedes its child, and
	// expander parents are read in the previous layer.
	replicaID := pub.ReplicaID
	for l := 1; l <= cfg.Layers; l++ {
		for _, c := range challenges {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			ps := parents[c]
			n := DegreeBase
			if l > 1 {
				n = Degree
			}
			lp := LabelingProof{Parents: make([]fr.Element, TotalParents), LayerIndex: uint32(l), Node: c}
			for i := range lp.Parents {
				j := i % n
				row := l - 1
				if j >= DegreeBase {
					row = l - 2
				}
				lp.Parents[i] = s.columns[ps[j]][row]
			}
			s.columns[uint32(c)][l-1] = lp.CreateLabel(&replicaID)
		}
	}

	colLeaves := make(map[uint64]fr.Element, len(s.columns))
	for n, rows := range s.columns {
		colLeaves[uint64(n)] = poseidonNode(rows)
	}
	dataLeaves := make(map[uint64]fr.Element, len(challenges))
	replicaLeaves := make(map[uint64]fr.Element, len(challenges))
	for _, c := range challenges {
		d := prf(&key, "data", c, 0)
		dataLeaves[c] = d
		var r fr.Element
		r.Add(&s.columns[uint32(c)][cfg.Layers-1], &d)
		replicaLeaves[c] = r
	}
	filler := func(tag string) func(int, uint64) fr.Element {
		return func(level int, i uint64) fr.Element { return prf(&key, tag, uint64(level), i) }
	}
	if s.treeC, err = newSparseTree(cfg.Shape, cfg.Nodes, colLeaves, poseidonNode, filler("tree_c")); err != nil {
		return nil, nil, err
	}
	if s.treeR, err = newSparseTree(cfg.Shape, cfg.Nodes, replicaLeaves, poseidonNode, filler("tree_r")); err != nil {
		return nil, nil, err
	}
	if s.treeD, err = newSparseTree(sector.TreeShape{Base: 2}, cfg.Nodes, dataLeaves, sha256Node, filler("tree_d")); err != nil {
		return nil, nil, err
	}
	pub.CommD = s.treeD.root()
	commC, commRLast := s.treeC.root(), s.treeR.root()
	pub.CommR = CommR(&commC, &commRLast)

	proofs := make([][]Proof, cfg.Partitions)
	for k, cs := range perPartition {
		for _, c := range cs {
			proofs[k] = append(proofs[k], proveChallenge(s, g, cfg.Layers, c))
		}
	}
	return pub, proofs, nil
}

func ptr(x fr.Element) *fr.Element { return &x }
