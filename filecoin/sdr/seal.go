package sdr

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/internal/parallel"
)

// MaxSealSize is the largest sector Seal accepts: it keeps every layer and tree in memory.
const MaxSealSize = sector.Size512MiB

// ErrUnsupported is returned for proof types or sizes this package cannot seal or prove.
var ErrUnsupported = errors.New("sdr: unsupported")

// Sealed is a sealed sector held in memory: its layers, trees and commitments.
type Sealed struct {
	Proof     sector.RegisteredSealProof
	Config    sector.Config
	Graph     *Graph
	ProverID  [32]byte
	SectorID  uint64
	Ticket    [32]byte
	ReplicaID fr.Element
	Data      []fr.Element // the unsealed nodes
	Labels    *Labels
	TreeD     *Tree // SHA-256 over Data
	TreeC     *Tree // Poseidon over column hashes
	TreeR     *Tree // Poseidon over the replica: last layer's labels + Data
	CommD     fr.Element
	CommC     fr.Element
	CommRLast fr.Element
	CommR     fr.Element // Poseidon₂(CommC, CommRLast)
}

// DataNodes reads an fr32-padded sector (32 bytes a node, little-endian, top two bits zero) as
// field elements.
func DataNodes(data []byte) ([]fr.Element, error) {
	if len(data)%32 != 0 {
		return nil, fmt.Errorf("sdr: sector data of %d bytes is not whole nodes", len(data))
	}
	out := make([]fr.Element, len(data)/32)
	for i := range out {
		b := (*[32]byte)(data[32*i:])
		if b[31]&0xc0 != 0 {
			return nil, fmt.Errorf("sdr: sector data node %d (byte offset %d) is not fr32-padded: top bits set", i, 32*i)
		}
		out[i], _ = fr.LittleEndian.Element(b)
	}
	return out, nil
}

// Seal seals data (the fr32-padded sector, SectorSize bytes) for proof type p: tree D and comm_d,
// the replica id, the SDR layers, tree C over the columns, tree R over the replica and
// comm_r = Poseidon₂(comm_c, comm_r_last) (storage-proofs-porep stacked/vanilla/proof.rs
// replicate, filecoin-proofs api/seal.rs seal_pre_commit_phase{1,2}).
func Seal(ctx context.Context, p sector.RegisteredSealProof, proverID [32]byte, sectorID uint64, ticket [32]byte, data []byte) (*Sealed, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: seal proof %v", ErrUnsupported, p)
	}
	cfg := p.Config()
	if cfg.SectorSize > MaxSealSize {
		return nil, fmt.Errorf("%w: sealing %d-byte sectors in memory (at most %d)", ErrUnsupported, cfg.SectorSize, MaxSealSize)
	}
	if uint64(len(data)) != cfg.SectorSize {
		return nil, fmt.Errorf("sdr: %d bytes of data for a %d-byte sector", len(data), cfg.SectorSize)
	}
	nodes, err := DataNodes(data)
	if err != nil {
		return nil, err
	}
	g, err := NewGraph(cfg.Nodes, p.PoRepID(), p.APIVersion())
	if err != nil {
		return nil, err
	}
	s := &Sealed{Proof: p, Config: cfg, Graph: g, ProverID: proverID, SectorID: sectorID, Ticket: ticket, Data: nodes}
	if s.TreeD, err = NewTreeD(nodes); err != nil {
		return nil, fmt.Errorf("sdr: tree D: %w", err)
	}
	s.CommD = s.TreeD.Root()
	s.ReplicaID = ReplicaID(proverID, sectorID, ticket, Bytes(&s.CommD), p.PoRepID())
	if s.Labels, err = Label(ctx, g, Bytes(&s.ReplicaID), cfg.Layers); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	columns := make([]fr.Element, cfg.Nodes)
	replica := make([]fr.Element, cfg.Nodes)
	parallel.Ranges(int(cfg.Nodes), func(lo, hi int) {
		rows := make([]fr.Element, cfg.Layers)
		for n := lo; n < hi; n++ {
			for l := range rows {
				rows[l], _ = fr.LittleEndian.Element((*[32]byte)(s.Labels.Layers[l][32*n:]))
			}
			columns[n] = poseidonNode(rows)
			replica[n].Add(&rows[cfg.Layers-1], &nodes[n])
		}
	})
	if s.TreeC, err = NewTreeRC(cfg.Shape, columns); err != nil {
		return nil, fmt.Errorf("sdr: tree C: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.TreeR, err = NewTreeRC(cfg.Shape, replica); err != nil {
		return nil, fmt.Errorf("sdr: tree R: %w", err)
	}
	s.CommC, s.CommRLast = s.TreeC.Root(), s.TreeR.Root()
	s.CommR = CommR(&s.CommC, &s.CommRLast)
	return s, nil
}

// CommR returns Poseidon₂(comm_c, comm_r_last) (filecoin-hashers PoseidonFunction::hash2).
func CommR(commC, commRLast *fr.Element) fr.Element {
	return poseidonNode([]fr.Element{*commC, *commRLast})
}

// opener opens the columns and tree paths of a sector, sealed or synthetic.
type opener interface {
	column(node uint32) Column
	proofC(node uint64) MerkleProof
	proofR(node uint64) MerkleProof
	proofD(node uint64) MerkleProof
}

func (s *Sealed) column(node uint32) Column {
	c := Column{Index: node, Rows: make([]fr.Element, s.Config.Layers)}
	for l := range c.Rows {
		c.Rows[l], _ = fr.LittleEndian.Element((*[32]byte)(s.Labels.Layers[l][32*uint64(node):]))
	}
	return c
}

func (s *Sealed) proofC(node uint64) MerkleProof { return s.TreeC.Proof(node) }
func (s *Sealed) proofR(node uint64) MerkleProof { return s.TreeR.Proof(node) }
func (s *Sealed) proofD(node uint64) MerkleProof { return s.TreeD.Proof(node) }

// ProveChallenge returns the vanilla proof of one challenged node (params.rs Proof::from_parts).
func (s *Sealed) ProveChallenge(challenge uint64) Proof {
	return proveChallenge(s, s.Graph, s.Config.Layers, challenge)
}

func proveChallenge(o opener, g *Graph, layers int, challenge uint64) Proof {
	colProof := func(node uint32) ColumnProof {
		return ColumnProof{Column: o.column(node), InclusionProof: o.proofC(uint64(node))}
	}
	parents := g.Parents(challenge)
	rc := ReplicaColumnProof{CX: colProof(uint32(challenge))}
	for _, p := range parents[:DegreeBase] {
		rc.DrgParents = append(rc.DrgParents, colProof(p))
	}
	for _, p := range parents[DegreeBase:] {
		rc.ExpParents = append(rc.ExpParents, colProof(p))
	}
	pr := Proof{
		CommDProofs:         o.proofD(challenge),
		CommRLastProof:      o.proofR(challenge),
		ReplicaColumnProofs: rc,
	}
	for l := 1; l <= layers; l++ {
		pr.LabelingProofs = append(pr.LabelingProofs, LabelingProof{
			Parents: expectedLabelParents(&rc, l), LayerIndex: uint32(l), Node: challenge,
		})
	}
	last := pr.LabelingProofs[layers-1]
	pr.EncodingProof = EncodingProof{Parents: last.Parents, LayerIndex: last.LayerIndex, Node: last.Node}
	return pr
}

// interactive reports whether p uses interactive challenges, the only kind implemented.
func interactive(p sector.RegisteredSealProof) error {
	if len(p.Features()) != 0 {
		return fmt.Errorf("%w: %v challenges (only interactive PoRep)", ErrUnsupported, p)
	}
	return nil
}

// Prove returns the vanilla proofs of every partition for the interactive seed: proofs[k][i]
// proves challenge i of partition k (filecoin-proofs api/seal.rs seal_commit_phase1).
func (s *Sealed) Prove(ctx context.Context, seed [32]byte) ([][]Proof, error) {
	if err := interactive(s.Proof); err != nil {
		return nil, err
	}
	out := make([][]Proof, s.Config.Partitions)
	for k := range out {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, c := range InteractiveChallenges(s.Config.Nodes, &s.ReplicaID, seed, k, s.Config.ChallengesPerPartition) {
			out[k] = append(out[k], s.ProveChallenge(c))
		}
	}
	return out, nil
}

// PublicInputs are what a verifier knows of a sealed sector (params.rs PublicInputs with Tau).
type PublicInputs struct {
	Proof     sector.RegisteredSealProof
	ReplicaID fr.Element
	CommD     fr.Element
	CommR     fr.Element
	Seed      [32]byte
}

// Verify checks the vanilla proofs of all partitions (proof_scheme.rs verify_all_partitions):
// per partition comm_r = Poseidon₂(comm_c, comm_r_last) of its first proof, one proof per
// derived challenge, the same comm_c and comm_r_last throughout, and each proof's Verify.
// Errors name the partition and challenge.
func Verify(pub *PublicInputs, proofs [][]Proof) error {
	if err := interactive(pub.Proof); err != nil {
		return err
	}
	cfg := pub.Proof.Config()
	g, err := NewGraph(cfg.Nodes, pub.Proof.PoRepID(), pub.Proof.APIVersion())
	if err != nil {
		return err
	}
	if len(proofs) != cfg.Partitions {
		return invalid("%d partitions, want %d", len(proofs), cfg.Partitions)
	}
	for k, ps := range proofs {
		challenges := InteractiveChallenges(cfg.Nodes, &pub.ReplicaID, pub.Seed, k, cfg.ChallengesPerPartition)
		if len(ps) != len(challenges) {
			return invalid("partition %d: %d proofs for %d challenges", k, len(ps), len(challenges))
		}
		commC, commRLast := ps[0].CommC(), ps[0].CommRLast()
		if r := CommR(&commC, &commRLast); !r.Equal(&pub.CommR) {
			return invalid("partition %d: comm_r is not Poseidon(comm_c, comm_r_last)", k)
		}
		for i := range ps {
			c, rl := ps[i].CommC(), ps[i].CommRLast()
			if !c.Equal(&commC) || !rl.Equal(&commRLast) {
				return invalid("partition %d challenge %d: comm_c or comm_r_last differs from the partition's", k, i)
			}
		}
		// The challenges are checked in parallel; the error reported is the first in order.
		errs := make([]error, len(ps))
		parallel.Ranges(len(ps), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				errs[i] = ps[i].Verify(g, &pub.ReplicaID, &pub.CommD, challenges[i], cfg.Layers)
			}
		})
		for i, err := range errs {
			if err != nil {
				return fmt.Errorf("partition %d challenge %d (node %d): %w", k, i, challenges[i], err)
			}
		}
	}
	return nil
}
