package post

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The JSON forms here:
//
//   - serde_json of FallbackPoStSectorProof (Rust derive(Serialize); curio
//     lib/proof/post_vproof_types.go and merkle.go mirror it): field names as in Rust, the
//     ProofData enum externally tagged ({"Sub": {...}}), a Domain as an array of 32 byte
//     values. Curio's Go types can also write a Domain as a base64 string (a []byte), which is
//     accepted on input;
//   - go-state-types proof.WindowPoStVerifyInfo / WinningPoStVerifyInfo (Lotus, Curio
//     testgolden/postpub.json): {"Randomness": base64, "Proofs": [{"PoStProof": n,
//     "ProofBytes": base64}], "ChallengedSectors": [{"SealProof": n, "SectorNumber": n,
//     "SealedCID": {"/": cid}}], "Prover": miner id};
//   - the JSON-RPC parameters of Curio's GenerateWinningPoStWithVanilla (lib/ffiselect
//     ffiselect.go: proofType, minerID, randomness, proofs, positional, go-jsonrpc encoding
//     []byte as base64): [n, n, base64, [base64 bincode…]].

// jsonDomain decodes a Domain from a JSON array of 32 integers 0..255 or a base64 string of
// 32 bytes.
func jsonDomain(raw json.RawMessage, field string) (Domain, error) {
	var d Domain
	fail := func(err error) (Domain, error) { return d, &DecodeError{Field: field, Offset: -1, Err: err} }
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return fail(errors.New("missing"))
	}
	if raw[0] == '"' {
		var b []byte
		if err := json.Unmarshal(raw, &b); err != nil {
			return fail(fmt.Errorf("base64: %v", err))
		}
		if len(b) != 32 {
			return fail(fmt.Errorf("%d bytes, want 32", len(b)))
		}
		copy(d[:], b)
		return d, nil
	}
	var a []int
	if err := json.Unmarshal(raw, &a); err != nil {
		return fail(fmt.Errorf("want an array of 32 bytes or a base64 string: %v", err))
	}
	if len(a) != 32 {
		return fail(fmt.Errorf("%d elements, want 32", len(a)))
	}
	for j, v := range a {
		if v < 0 || v > 255 {
			return fail(fmt.Errorf("element %d = %d, not a byte", j, v))
		}
		d[j] = byte(v)
	}
	return d, nil
}

// MarshalJSON writes d as serde_json writes a [u8; 32]: an array of 32 numbers.
func (d Domain) MarshalJSON() ([]byte, error) {
	a := make([]int, 32)
	for j := range d {
		a[j] = int(d[j])
	}
	return json.Marshal(a)
}

type jsonPathElement struct {
	Hashes []json.RawMessage `json:"hashes"`
	Index  *uint64           `json:"index"`
}

type jsonPath struct {
	Path *[]jsonPathElement `json:"path"`
}

type jsonProofBody struct {
	Root      json.RawMessage `json:"root"`
	Leaf      json.RawMessage `json:"leaf"`
	Path      *jsonPath       `json:"path"`
	BaseProof *jsonPath       `json:"base_proof"`
	SubProof  *jsonPath       `json:"sub_proof"`
	TopProof  *jsonPath       `json:"top_proof"`
}

type jsonMerkleProof struct {
	Data map[string]jsonProofBody `json:"data"`
}

type jsonSectorProof struct {
	InclusionProofs *[]jsonMerkleProof `json:"inclusion_proofs"`
	CommC           json.RawMessage    `json:"comm_c"`
	CommRLast       json.RawMessage    `json:"comm_r_last"`
}

type jsonFallbackProof struct {
	SectorID     *uint64         `json:"sector_id"`
	CommR        json.RawMessage `json:"comm_r"`
	VanillaProof *struct {
		Sectors *[]jsonSectorProof `json:"sectors"`
	} `json:"vanilla_proof"`
}

func missing(field string) error {
	return &DecodeError{Field: field, Offset: -1, Err: errors.New("missing")}
}

func fromJSONPath(p *jsonPath, field string) ([]PathElement, error) {
	if p == nil || p.Path == nil {
		return nil, missing(field + ".path")
	}
	out := make([]PathElement, len(*p.Path))
	for l, e := range *p.Path {
		f := fmt.Sprintf("%s.path[%d]", field, l)
		if e.Index == nil {
			return nil, missing(f + ".index")
		}
		if len(e.Hashes) > maxSiblings {
			return nil, &DecodeError{Field: f + ".hashes", Offset: -1, Err: fmt.Errorf("%d siblings, at most %d", len(e.Hashes), maxSiblings)}
		}
		out[l].Index = *e.Index
		out[l].Hashes = make([]Domain, len(e.Hashes))
		for j, h := range e.Hashes {
			d, err := jsonDomain(h, fmt.Sprintf("%s.hashes[%d]", f, j))
			if err != nil {
				return nil, err
			}
			out[l].Hashes[j] = d
		}
	}
	return out, nil
}

// UnmarshalSectorProofJSON decodes the serde_json form of a FallbackPoStSectorProof. Errors are
// *DecodeError values naming the JSON field (Offset −1); syntax errors give the byte offset.
func UnmarshalSectorProofJSON(b []byte) (*FallbackPoStSectorProof, error) {
	var j jsonFallbackProof
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, jsonErr(err)
	}
	var p FallbackPoStSectorProof
	var err error
	if j.SectorID == nil {
		return nil, missing("sector_id")
	}
	p.SectorID = *j.SectorID
	if p.CommR, err = jsonDomain(j.CommR, "comm_r"); err != nil {
		return nil, err
	}
	if j.VanillaProof == nil || j.VanillaProof.Sectors == nil {
		return nil, missing("vanilla_proof.sectors")
	}
	for s, js := range *j.VanillaProof.Sectors {
		f := fmt.Sprintf("vanilla_proof.sectors[%d]", s)
		var sp SectorProof
		if js.InclusionProofs == nil {
			return nil, missing(f + ".inclusion_proofs")
		}
		for c, jm := range *js.InclusionProofs {
			fc := fmt.Sprintf("%s.inclusion_proofs[%d].data", f, c)
			if len(jm.Data) != 1 {
				return nil, &DecodeError{Field: fc, Offset: -1, Err: fmt.Errorf("%d variants, want one of Single, Sub, Top", len(jm.Data))}
			}
			var mp MerkleProof
			for name, body := range jm.Data {
				fv := fc + "." + name
				switch name {
				case "Single":
					mp.Kind = SingleProof
					if mp.Base, err = fromJSONPath(body.Path, fv+".path"); err != nil {
						return nil, err
					}
				case "Sub", "Top":
					mp.Kind = SubProof
					if mp.Base, err = fromJSONPath(body.BaseProof, fv+".base_proof"); err != nil {
						return nil, err
					}
					if mp.Sub, err = fromJSONPath(body.SubProof, fv+".sub_proof"); err != nil {
						return nil, err
					}
					if name == "Top" {
						mp.Kind = TopProof
						if mp.Top, err = fromJSONPath(body.TopProof, fv+".top_proof"); err != nil {
							return nil, err
						}
					}
				default:
					return nil, &DecodeError{Field: fc, Offset: -1, Err: fmt.Errorf("unknown variant %q (want Single, Sub or Top)", name)}
				}
				if mp.Root, err = jsonDomain(body.Root, fv+".root"); err != nil {
					return nil, err
				}
				if mp.Leaf, err = jsonDomain(body.Leaf, fv+".leaf"); err != nil {
					return nil, err
				}
			}
			sp.InclusionProofs = append(sp.InclusionProofs, mp)
		}
		if sp.CommC, err = jsonDomain(js.CommC, f+".comm_c"); err != nil {
			return nil, err
		}
		if sp.CommRLast, err = jsonDomain(js.CommRLast, f+".comm_r_last"); err != nil {
			return nil, err
		}
		p.Sectors = append(p.Sectors, sp)
	}
	return &p, nil
}

// jsonErr turns an encoding/json error into a DecodeError naming the field or offset.
func jsonErr(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return &DecodeError{Field: te.Field, Offset: -1, Err: err}
	case errors.As(err, &se):
		return &DecodeError{Field: "(syntax)", Offset: int(se.Offset), Err: err}
	}
	return &DecodeError{Field: "(document)", Offset: -1, Err: err}
}

type jsonPathOut struct {
	Path []jsonPathElementOut `json:"path"`
}

type jsonPathElementOut struct {
	Hashes []Domain `json:"hashes"`
	Index  uint64   `json:"index"`
}

func toJSONPath(p []PathElement) jsonPathOut {
	out := jsonPathOut{Path: make([]jsonPathElementOut, len(p))}
	for l, e := range p {
		out.Path[l] = jsonPathElementOut{Hashes: e.Hashes, Index: e.Index}
		if e.Hashes == nil {
			out.Path[l].Hashes = []Domain{}
		}
	}
	return out
}

// MarshalJSON writes p in the serde_json form UnmarshalSectorProofJSON reads.
func (p *FallbackPoStSectorProof) MarshalJSON() ([]byte, error) {
	type body struct {
		BaseProof *jsonPathOut `json:"base_proof,omitempty"`
		SubProof  *jsonPathOut `json:"sub_proof,omitempty"`
		TopProof  *jsonPathOut `json:"top_proof,omitempty"`
		Root      Domain       `json:"root"`
		Leaf      Domain       `json:"leaf"`
		Path      *jsonPathOut `json:"path,omitempty"`
	}
	type merkle struct {
		Data map[string]body `json:"data"`
	}
	type sector struct {
		InclusionProofs []merkle `json:"inclusion_proofs"`
		CommC           Domain   `json:"comm_c"`
		CommRLast       Domain   `json:"comm_r_last"`
	}
	type vanilla struct {
		Sectors []sector `json:"sectors"`
	}
	out := struct {
		SectorID     uint64  `json:"sector_id"`
		CommR        Domain  `json:"comm_r"`
		VanillaProof vanilla `json:"vanilla_proof"`
	}{SectorID: p.SectorID, CommR: p.CommR, VanillaProof: vanilla{Sectors: []sector{}}}
	for s, sp := range p.Sectors {
		so := sector{InclusionProofs: []merkle{}, CommC: sp.CommC, CommRLast: sp.CommRLast}
		for c, mp := range sp.InclusionProofs {
			b := body{Root: mp.Root, Leaf: mp.Leaf}
			base := toJSONPath(mp.Base)
			switch mp.Kind {
			case SingleProof:
				b.Path = &base
			case SubProof, TopProof:
				sub := toJSONPath(mp.Sub)
				b.BaseProof, b.SubProof = &base, &sub
				if mp.Kind == TopProof {
					top := toJSONPath(mp.Top)
					b.TopProof = &top
				}
			default:
				return nil, fmt.Errorf("encode vanilla_proof.sectors[%d].inclusion_proofs[%d]: unknown variant %d", s, c, uint32(mp.Kind))
			}
			so.InclusionProofs = append(so.InclusionProofs, merkle{Data: map[string]body{mp.Kind.String(): b}})
		}
		out.VanillaProof.Sectors = append(out.VanillaProof.Sectors, so)
	}
	return json.Marshal(out)
}

// VerifyInfo is go-state-types' WindowPoStVerifyInfo / WinningPoStVerifyInfo: what a verifier
// of one PoSt knows.
type VerifyInfo struct {
	Randomness Domain
	Proofs     []VerifyInfoProof
	Sectors    []VerifyInfoSector
	Prover     uint64 // miner actor id
}

// VerifyInfoProof is one go-state-types proof.PoStProof: a proof type and its bytes (a SNARK,
// or in Curio's golden data a vanilla proof; empty when JSON null).
type VerifyInfoProof struct {
	Type  ProofType
	Bytes []byte
}

// VerifyInfoSector is one go-state-types proof.SectorInfo with its comm_r read from the CID.
type VerifyInfoSector struct {
	SealProof int64
	Number    uint64
	SealedCID string
	CommR     Domain
}

// ParseVerifyInfo reads the JSON of a WindowPoStVerifyInfo or WinningPoStVerifyInfo. The
// randomness must be 32 bytes and every SealedCID a sealed-sector CID; errors name the field.
func ParseVerifyInfo(b []byte) (*VerifyInfo, error) {
	var j struct {
		Randomness []byte
		Proofs     []struct {
			PoStProof  *int64
			ProofBytes []byte
		}
		ChallengedSectors []struct {
			SealProof    *int64
			SectorNumber *uint64
			SealedCID    *struct {
				Root string `json:"/"`
			}
		}
		Prover *uint64
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, jsonErr(err)
	}
	field := func(name string, err error) error { return &DecodeError{Field: name, Offset: -1, Err: err} }
	var v VerifyInfo
	if len(j.Randomness) != 32 {
		return nil, field("Randomness", fmt.Errorf("%d bytes, want 32", len(j.Randomness)))
	}
	copy(v.Randomness[:], j.Randomness)
	if j.Prover == nil {
		return nil, missing("Prover")
	}
	v.Prover = *j.Prover
	for k, p := range j.Proofs {
		if p.PoStProof == nil {
			return nil, missing(fmt.Sprintf("Proofs[%d].PoStProof", k))
		}
		if _, err := Lookup(ProofType(*p.PoStProof)); err != nil {
			return nil, field(fmt.Sprintf("Proofs[%d].PoStProof", k), err)
		}
		v.Proofs = append(v.Proofs, VerifyInfoProof{Type: ProofType(*p.PoStProof), Bytes: p.ProofBytes})
	}
	for k, s := range j.ChallengedSectors {
		f := fmt.Sprintf("ChallengedSectors[%d]", k)
		if s.SealProof == nil || s.SectorNumber == nil || s.SealedCID == nil {
			return nil, missing(f + ".SealProof, SectorNumber or SealedCID")
		}
		commR, err := CommRFromCID(s.SealedCID.Root)
		if err != nil {
			return nil, field(f+".SealedCID", err)
		}
		v.Sectors = append(v.Sectors, VerifyInfoSector{SealProof: *s.SealProof, Number: *s.SectorNumber, SealedCID: s.SealedCID.Root, CommR: commR})
	}
	return &v, nil
}

// PublicSectors returns the challenged sectors as PublicSectors, in the order given.
func (v *VerifyInfo) PublicSectors() []PublicSector {
	out := make([]PublicSector, len(v.Sectors))
	for k, s := range v.Sectors {
		out[k] = PublicSector{ID: s.Number, CommR: s.CommR}
	}
	return out
}

// WinningVanillaRequest is the input of filecoin-ffi GenerateWinningPoStWithVanilla
// (proofType, minerID, randomness, proofs), each proof the bincode of a
// FallbackPoStSectorProof.
type WinningVanillaRequest struct {
	Type       ProofType
	MinerID    uint64
	Randomness Domain
	Proofs     []*FallbackPoStSectorProof
}

// ParseWinningVanillaRequest reads the JSON-RPC parameter array Curio's ffiselect sends for
// GenerateWinningPoStWithVanilla, [proofType, minerID, randomness (base64), [proof (base64
// bincode), …]], and decodes every proof. Errors name the parameter and, inside a proof, the
// field and byte offset.
func ParseWinningVanillaRequest(b []byte) (*WinningVanillaRequest, error) {
	var params []json.RawMessage
	if err := json.Unmarshal(b, &params); err != nil {
		return nil, jsonErr(err)
	}
	if len(params) != 4 {
		return nil, &DecodeError{Field: "params", Offset: -1, Err: fmt.Errorf("%d parameters, want 4 (proofType, minerID, randomness, proofs)", len(params))}
	}
	var r WinningVanillaRequest
	var pt int64
	if err := json.Unmarshal(params[0], &pt); err != nil {
		return nil, &DecodeError{Field: "params[0] proofType", Offset: -1, Err: err}
	}
	info, err := Lookup(ProofType(pt))
	if err != nil {
		return nil, &DecodeError{Field: "params[0] proofType", Offset: -1, Err: err}
	}
	if info.Kind != Winning {
		return nil, &DecodeError{Field: "params[0] proofType", Offset: -1, Err: fmt.Errorf("%s is not a WinningPoSt type", info.Name)}
	}
	r.Type = info.Type
	if err := json.Unmarshal(params[1], &r.MinerID); err != nil {
		return nil, &DecodeError{Field: "params[1] minerID", Offset: -1, Err: err}
	}
	var rnd []byte
	if err := json.Unmarshal(params[2], &rnd); err != nil || len(rnd) != 32 {
		if err == nil {
			err = fmt.Errorf("%d bytes, want 32", len(rnd))
		}
		return nil, &DecodeError{Field: "params[2] randomness", Offset: -1, Err: err}
	}
	copy(r.Randomness[:], rnd)
	var proofs [][]byte
	if err := json.Unmarshal(params[3], &proofs); err != nil {
		return nil, &DecodeError{Field: "params[3] proofs", Offset: -1, Err: err}
	}
	for k, pb := range proofs {
		p, err := DecodeSectorProof(pb)
		if err != nil {
			return nil, fmt.Errorf("params[3] proofs[%d]: %w", k, err)
		}
		r.Proofs = append(r.Proofs, p)
	}
	return &r, nil
}
