package c1

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

func dom(x *fr.Element) domain { return domain{b: sdr.Bytes(x), set: true} }

func doms(xs []fr.Element) []domain {
	out := make([]domain, len(xs))
	for i := range xs {
		out[i] = dom(&xs[i])
	}
	return out
}

func pathToWire(p []sdr.PathElement) wireInclusionPath {
	out := wireInclusionPath{Path: make([]wirePathElement, len(p))}
	for i, e := range p {
		out.Path[i] = wirePathElement{Hashes: doms(e.Hashes), Index: e.Index}
	}
	return out
}

func merkleToWire(m *sdr.MerkleProof) wireMerkleProof {
	var w wireMerkleProof
	switch {
	case m.TopProof != nil:
		w.Data.Top = &wireTopProof{BaseProof: pathToWire(m.BaseProof), SubProof: pathToWire(m.SubProof), TopProof: pathToWire(m.TopProof), Root: dom(&m.Root), Leaf: dom(&m.Leaf)}
	case m.SubProof != nil:
		w.Data.Sub = &wireSubProof{BaseProof: pathToWire(m.BaseProof), SubProof: pathToWire(m.SubProof), Root: dom(&m.Root), Leaf: dom(&m.Leaf)}
	default:
		w.Data.Single = &wireSingleProof{Root: dom(&m.Root), Leaf: dom(&m.Leaf), Path: pathToWire(m.BaseProof)}
	}
	return w
}

func columnProofToWire(c *sdr.ColumnProof) wireColumnProof {
	return wireColumnProof{
		Column:         wireColumn{Index: c.Column.Index, Rows: doms(c.Column.Rows)},
		InclusionProof: merkleToWire(&c.InclusionProof),
	}
}

func columnProofsToWire(cs []sdr.ColumnProof) []wireColumnProof {
	out := make([]wireColumnProof, len(cs))
	for i := range cs {
		out[i] = columnProofToWire(&cs[i])
	}
	return out
}

func proofToWire(p *sdr.Proof) wireProof {
	w := wireProof{
		CommDProofs:    merkleToWire(&p.CommDProofs),
		CommRLastProof: merkleToWire(&p.CommRLastProof),
		ReplicaColumnProofs: wireReplicaColumnProof{
			CX:         columnProofToWire(&p.ReplicaColumnProofs.CX),
			DrgParents: columnProofsToWire(p.ReplicaColumnProofs.DrgParents),
			ExpParents: columnProofsToWire(p.ReplicaColumnProofs.ExpParents),
		},
		EncodingProof: wireLabelingProof{Parents: doms(p.EncodingProof.Parents), LayerIndex: p.EncodingProof.LayerIndex, Node: p.EncodingProof.Node},
	}
	for _, l := range p.LabelingProofs {
		w.LabelingProofs = append(w.LabelingProofs, wireLabelingProof{Parents: doms(l.Parents), LayerIndex: l.LayerIndex, Node: l.Node})
	}
	return w
}

// Marshal returns o as the JSON filecoin-ffi emits: serde_json's compact form with Rust's field
// order, every 32-byte value an array of numbers.
func Marshal(o *SealCommitPhase1Output) ([]byte, error) {
	if !o.RegisteredProof.Valid() {
		return nil, fmt.Errorf("c1: marshal: registered proof %v", o.RegisteredProof)
	}
	parts := make([][]wireProof, len(o.VanillaProofs))
	for k, ps := range o.VanillaProofs {
		parts[k] = make([]wireProof, len(ps))
		for i := range ps {
			parts[k][i] = proofToWire(&ps[i])
		}
	}
	w := wireOutput{
		RegisteredProof: o.RegisteredProof.String(),
		VanillaProofs:   map[string][][]wireProof{vanillaVariant(o.RegisteredProof): parts},
		CommR:           dom(&o.CommR),
		CommD:           dom(&o.CommD),
		ReplicaID:       dom(&o.ReplicaID),
		Seed:            domain{b: o.Seed, set: true},
		Ticket:          domain{b: o.Ticket, set: true},
	}
	return json.Marshal(&w)
}

// Commit2In is the lotus-bench / Curio wrapper of a C1 output: Phase1Out holds the C1 JSON
// (base64 in the wrapper's JSON), SectorSize the sector size in bytes, e.g.
// {"SectorNum":1,"Phase1Out":"<base64>","SectorSize":34359738368}.
type Commit2In struct {
	SectorNum  int64
	Phase1Out  []byte
	SectorSize uint64
}

// UnmarshalCommit2In parses the wrapper and its C1 output (Unmarshal) and checks that SectorSize
// is the registered proof's.
func UnmarshalCommit2In(data []byte) (*Commit2In, *SealCommitPhase1Output, error) {
	var in Commit2In
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, nil, &FieldError{Field: "(Commit2In)", Err: err}
	}
	if len(in.Phase1Out) == 0 {
		return nil, nil, fieldErr("Phase1Out", "missing")
	}
	o, err := Unmarshal(in.Phase1Out)
	if err != nil {
		return nil, nil, fmt.Errorf("Phase1Out: %w", err)
	}
	if want := o.RegisteredProof.SectorSize(); in.SectorSize != want {
		return nil, nil, fieldErr("SectorSize", "%d, but Phase1Out's registered proof %v has %d-byte sectors", in.SectorSize, o.RegisteredProof, want)
	}
	return &in, o, nil
}

// MarshalCommit2In wraps o for sector number sectorNum.
func MarshalCommit2In(sectorNum int64, o *SealCommitPhase1Output) ([]byte, error) {
	p1, err := Marshal(o)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&Commit2In{SectorNum: sectorNum, Phase1Out: p1, SectorSize: sector.RegisteredSealProof.SectorSize(o.RegisteredProof)})
}

// Synthetic returns a well-formed C1 output for proof type p made of sdr.SyntheticProofs:
// every check of Unmarshal passes and the PoRep circuit's relations hold, but no real sector
// stands behind it. The ticket is zero; key fixes every value.
func Synthetic(ctx context.Context, p sector.RegisteredSealProof, key [32]byte) (*SealCommitPhase1Output, error) {
	pub, proofs, err := sdr.SyntheticProofs(ctx, p, key)
	if err != nil {
		return nil, err
	}
	return &SealCommitPhase1Output{RegisteredProof: p, VanillaProofs: proofs, CommR: pub.CommR, CommD: pub.CommD, ReplicaID: pub.ReplicaID, Seed: pub.Seed}, nil
}

// Commit1 returns the C1 output of sealed sector s for the interactive seed: its vanilla proofs
// of every partition with its commitments (filecoin-proofs api/seal.rs seal_commit_phase1).
func Commit1(ctx context.Context, s *sdr.Sealed, seed [32]byte) (*SealCommitPhase1Output, error) {
	proofs, err := s.Prove(ctx, seed)
	if err != nil {
		return nil, err
	}
	return &SealCommitPhase1Output{RegisteredProof: s.Proof, VanillaProofs: proofs, CommR: s.CommR, CommD: s.CommD, ReplicaID: s.ReplicaID, Seed: seed, Ticket: s.Ticket}, nil
}
