package c1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// ErrMalformed is wrapped by every error about the content of a C1 output.
var ErrMalformed = errors.New("c1: malformed SealCommitPhase1Output")

// FieldError is a malformed or inconsistent value at Field, a JSON path such as
// "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[0]".
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("c1: %s: %v", e.Field, e.Err) }

// Unwrap returns ErrMalformed and the cause.
func (e *FieldError) Unwrap() []error { return []error{ErrMalformed, e.Err} }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, a...)}
}

// SealCommitPhase1Output is filecoin-proofs-api's SealCommitPhase1Output (src/seal.rs): the
// vanilla proofs of every partition (VanillaProofs[k][i], challenge i of partition k) and the
// values that bind them.
type SealCommitPhase1Output struct {
	RegisteredProof sector.RegisteredSealProof
	VanillaProofs   [][]sdr.Proof
	CommR           fr.Element // Commitment: Poseidon₂(comm_c, comm_r_last)
	CommD           fr.Element // Commitment: tree D root
	ReplicaID       fr.Element
	Seed            [32]byte // interactive randomness
	Ticket          [32]byte
}

// vanillaVariant returns the VanillaSealProof enum variant of p's sector size: always the V1
// name ("StackedDrg32GiBV1"), for v1.1 proofs too (filecoin-proofs-api src/seal.rs).
func vanillaVariant(p sector.RegisteredSealProof) string {
	return sector.RegisteredSealProof(uint64(p) % 5).String()
}

// treeSpec is the expected shape of a Merkle proof: baseLevels levels of arity base, then one
// level of arity sub and one of arity top when non-zero.
type treeSpec struct {
	base, baseLevels, sub, top int
}

func specsFor(cfg sector.Config) (d, rc treeSpec) {
	d = treeSpec{base: 2, baseLevels: cfg.DataDepth()}
	perBase := cfg.Nodes / uint64(cfg.Shape.BaseTrees())
	levels := 0
	for n := perBase; n > 1; n /= uint64(cfg.Shape.Base) {
		levels++
	}
	rc = treeSpec{base: cfg.Shape.Base, baseLevels: levels, sub: cfg.Shape.Sub, top: cfg.Shape.Top}
	return d, rc
}

// Unmarshal parses the JSON filecoin-ffi emits for a SealCommitPhase1Output and checks it
// entirely before returning: the shape of every proof for the registered proof's sector size
// (partitions, challenges, path lengths and arities, rows, parents), every value a canonical
// field element, and Validate. Errors are *FieldError naming the JSON field, wrapping
// ErrMalformed.
func Unmarshal(data []byte) (*SealCommitPhase1Output, error) {
	var w wireOutput
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, &FieldError{Field: "(document)", Err: err}
	}
	o, err := fromWire(&w)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

func fromWire(w *wireOutput) (*SealCommitPhase1Output, error) {
	p, err := sector.ParseRegisteredSealProof(w.RegisteredProof)
	if err != nil {
		return nil, &FieldError{Field: "registered_proof", Err: err}
	}
	o := &SealCommitPhase1Output{RegisteredProof: p}
	for _, f := range []struct {
		name string
		d    *domain
		dst  *fr.Element
	}{{"comm_r", &w.CommR, &o.CommR}, {"comm_d", &w.CommD, &o.CommD}, {"replica_id", &w.ReplicaID, &o.ReplicaID}} {
		if *f.dst, err = element(f.name, f.d); err != nil {
			return nil, err
		}
	}
	if o.Seed, err = bytes32("seed", &w.Seed); err != nil {
		return nil, err
	}
	if o.Ticket, err = bytes32("ticket", &w.Ticket); err != nil {
		return nil, err
	}
	variant := vanillaVariant(p)
	if len(w.VanillaProofs) != 1 {
		return nil, fieldErr("vanilla_proofs", "%d variants, want exactly %q", len(w.VanillaProofs), variant)
	}
	parts, ok := w.VanillaProofs[variant]
	if !ok {
		for k := range w.VanillaProofs {
			return nil, fieldErr("vanilla_proofs", "variant %q for registered proof %v, want %q (wrong sector size)", k, p, variant)
		}
	}
	cfg := p.Config()
	if len(parts) != cfg.Partitions {
		return nil, fieldErr("vanilla_proofs."+variant, "%d partitions, want %d", len(parts), cfg.Partitions)
	}
	dSpec, rcSpec := specsFor(cfg)
	o.VanillaProofs = make([][]sdr.Proof, len(parts))
	for k, ps := range parts {
		kp := fmt.Sprintf("vanilla_proofs.%s[%d]", variant, k)
		if len(ps) != cfg.ChallengesPerPartition {
			return nil, fieldErr(kp, "%d challenge proofs, want %d", len(ps), cfg.ChallengesPerPartition)
		}
		o.VanillaProofs[k] = make([]sdr.Proof, len(ps))
		for i := range ps {
			if err := proofFromWire(&o.VanillaProofs[k][i], &ps[i], fmt.Sprintf("%s[%d]", kp, i), cfg.Layers, dSpec, rcSpec); err != nil {
				return nil, err
			}
		}
	}
	return o, nil
}

func domainOK(field string, d *domain) error {
	if !d.set {
		return fieldErr(field, "missing")
	}
	if d.bad != "" {
		return fieldErr(field, "%s", d.bad)
	}
	return nil
}

func bytes32(field string, d *domain) ([32]byte, error) {
	if err := domainOK(field, d); err != nil {
		return [32]byte{}, err
	}
	return d.b, nil
}

func element(field string, d *domain) (fr.Element, error) {
	if err := domainOK(field, d); err != nil {
		return fr.Element{}, err
	}
	e, err := fr.LittleEndian.Element(&d.b)
	if err != nil {
		return fr.Element{}, fieldErr(field, "not a canonical field element: %v", err)
	}
	return e, nil
}

func elements(field string, ds []domain, want int) ([]fr.Element, error) {
	if len(ds) != want {
		return nil, fieldErr(field, "%d values, want %d", len(ds), want)
	}
	out := make([]fr.Element, len(ds))
	for i := range ds {
		var err error
		if out[i], err = element(fmt.Sprintf("%s[%d]", field, i), &ds[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func pathFromWire(field string, ip *wireInclusionPath, arity, levels int) ([]sdr.PathElement, error) {
	if len(ip.Path) != levels {
		return nil, fieldErr(field+".path", "%d levels, want %d", len(ip.Path), levels)
	}
	out := make([]sdr.PathElement, levels)
	for l, e := range ip.Path {
		f := fmt.Sprintf("%s.path[%d]", field, l)
		hs, err := elements(f+".hashes", e.Hashes, arity-1)
		if err != nil {
			return nil, err
		}
		if e.Index >= uint64(arity) {
			return nil, fieldErr(f+".index", "%d for arity %d", e.Index, arity)
		}
		out[l] = sdr.PathElement{Hashes: hs, Index: e.Index}
	}
	return out, nil
}

func merkleFromWire(field string, w *wireMerkleProof, s treeSpec) (sdr.MerkleProof, error) {
	var m sdr.MerkleProof
	d := &w.Data
	n := 0
	for _, present := range []bool{d.Single != nil, d.Sub != nil, d.Top != nil} {
		if present {
			n++
		}
	}
	want := "Single"
	switch {
	case s.top > 0:
		want = "Top"
	case s.sub > 0:
		want = "Sub"
	}
	if n != 1 || (want == "Single") != (d.Single != nil) || (want == "Sub") != (d.Sub != nil) || (want == "Top") != (d.Top != nil) {
		return m, fieldErr(field+".data", "want exactly one %q proof for this sector size", want)
	}
	var err error
	f := field + ".data." + want
	var root, leaf *domain
	switch want {
	case "Single":
		root, leaf = &d.Single.Root, &d.Single.Leaf
		m.BaseProof, err = pathFromWire(f+".path", &d.Single.Path, s.base, s.baseLevels)
	case "Sub":
		root, leaf = &d.Sub.Root, &d.Sub.Leaf
		if m.BaseProof, err = pathFromWire(f+".base_proof", &d.Sub.BaseProof, s.base, s.baseLevels); err == nil {
			m.SubProof, err = pathFromWire(f+".sub_proof", &d.Sub.SubProof, s.sub, 1)
		}
	case "Top":
		root, leaf = &d.Top.Root, &d.Top.Leaf
		if m.BaseProof, err = pathFromWire(f+".base_proof", &d.Top.BaseProof, s.base, s.baseLevels); err == nil {
			if m.SubProof, err = pathFromWire(f+".sub_proof", &d.Top.SubProof, s.sub, 1); err == nil {
				m.TopProof, err = pathFromWire(f+".top_proof", &d.Top.TopProof, s.top, 1)
			}
		}
	}
	if err != nil {
		return m, err
	}
	if m.Root, err = element(f+".root", root); err != nil {
		return m, err
	}
	if m.Leaf, err = element(f+".leaf", leaf); err != nil {
		return m, err
	}
	return m, nil
}

func columnProofFromWire(field string, w *wireColumnProof, layers int, s treeSpec) (sdr.ColumnProof, error) {
	var c sdr.ColumnProof
	rows, err := elements(field+".column.rows", w.Column.Rows, layers)
	if err != nil {
		return c, err
	}
	c.Column = sdr.Column{Index: w.Column.Index, Rows: rows}
	c.InclusionProof, err = merkleFromWire(field+".inclusion_proof", &w.InclusionProof, s)
	return c, err
}

func labelingFromWire(field string, w *wireLabelingProof) (sdr.LabelingProof, error) {
	ps, err := elements(field+".parents", w.Parents, sdr.TotalParents)
	return sdr.LabelingProof{Parents: ps, LayerIndex: w.LayerIndex, Node: w.Node}, err
}

func proofFromWire(dst *sdr.Proof, w *wireProof, field string, layers int, dSpec, rcSpec treeSpec) error {
	var err error
	if dst.CommDProofs, err = merkleFromWire(field+".comm_d_proofs", &w.CommDProofs, dSpec); err != nil {
		return err
	}
	if dst.CommRLastProof, err = merkleFromWire(field+".comm_r_last_proof", &w.CommRLastProof, rcSpec); err != nil {
		return err
	}
	rc := &w.ReplicaColumnProofs
	rf := field + ".replica_column_proofs"
	if dst.ReplicaColumnProofs.CX, err = columnProofFromWire(rf+".c_x", &rc.CX, layers, rcSpec); err != nil {
		return err
	}
	for _, group := range []struct {
		name string
		src  []wireColumnProof
		want int
		dst  *[]sdr.ColumnProof
	}{{"drg_parents", rc.DrgParents, sdr.DegreeBase, &dst.ReplicaColumnProofs.DrgParents}, {"exp_parents", rc.ExpParents, sdr.DegreeExp, &dst.ReplicaColumnProofs.ExpParents}} {
		if len(group.src) != group.want {
			return fieldErr(rf+"."+group.name, "%d columns, want %d", len(group.src), group.want)
		}
		*group.dst = make([]sdr.ColumnProof, group.want)
		for i := range group.src {
			if (*group.dst)[i], err = columnProofFromWire(fmt.Sprintf("%s.%s[%d]", rf, group.name, i), &group.src[i], layers, rcSpec); err != nil {
				return err
			}
		}
	}
	if len(w.LabelingProofs) != layers {
		return fieldErr(field+".labeling_proofs", "%d proofs, want %d (one per layer)", len(w.LabelingProofs), layers)
	}
	dst.LabelingProofs = make([]sdr.LabelingProof, layers)
	for l := range w.LabelingProofs {
		if dst.LabelingProofs[l], err = labelingFromWire(fmt.Sprintf("%s.labeling_proofs[%d]", field, l), &w.LabelingProofs[l]); err != nil {
			return err
		}
	}
	lp, err := labelingFromWire(field+".encoding_proof", &w.EncodingProof)
	dst.EncodingProof = sdr.EncodingProof(lp)
	return err
}

// Validate checks the proofs against the output's own values (sdr.Verify): comm_r is
// Poseidon₂(comm_c, comm_r_last) of each partition, comm_d is every data path's root, each
// proof's challenge is the one derived from replica_id and seed, and every path, column, label
// and encoding holds. The error names the partition and challenge
// (vanilla_proofs.<variant>[k][i]) and the field within the proof.
func (o *SealCommitPhase1Output) Validate() error {
	pub := &sdr.PublicInputs{Proof: o.RegisteredProof, ReplicaID: o.ReplicaID, CommD: o.CommD, CommR: o.CommR, Seed: o.Seed}
	if err := sdr.Verify(pub, o.VanillaProofs); err != nil {
		return &FieldError{Field: "vanilla_proofs." + vanillaVariant(o.RegisteredProof), Err: err}
	}
	return nil
}
