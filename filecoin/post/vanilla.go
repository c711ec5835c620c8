package post

import (
	"encoding/binary"
	"errors"
	"fmt"

	bin "github.com/cuzk-go/cuzk/filecoin/internal/bincode"
)

// PathElement is one level of a Merkle inclusion path (storage-proofs-core merkle/proof.rs
// PathElement): the arity−1 sibling hashes in order, and the position (0 ≤ Index < arity) the
// running hash takes among them.
type PathElement struct {
	Hashes []Domain
	Index  uint64
}

// ProofKind is the variant of a Merkle proof (merkle/proof.rs ProofData), numbered as bincode
// writes the enum tag.
type ProofKind uint32

// The three Merkle proof variants: a single tree (8-0-0), base trees under a sub-tree layer
// (8-8-0) and under sub and top layers (8-8-2).
const (
	SingleProof ProofKind = 0
	SubProof    ProofKind = 1
	TopProof    ProofKind = 2
)

// String returns the Rust variant name: "Single", "Sub" or "Top".
func (k ProofKind) String() string {
	switch k {
	case SingleProof:
		return "Single"
	case SubProof:
		return "Sub"
	case TopProof:
		return "Top"
	}
	return fmt.Sprintf("ProofKind(%d)", uint32(k))
}

// MerkleProof is an inclusion proof of one leaf in a tree-r-last (merkle/proof.rs MerkleProof).
// Base holds the base tree's levels (SingleProof's path, or base_proof); Sub is sub_proof (one
// level, SubProof and TopProof only); Top is top_proof (one level, TopProof only).
type MerkleProof struct {
	Kind ProofKind
	Base []PathElement
	Sub  []PathElement
	Top  []PathElement
	Root Domain
	Leaf Domain
}

// Path returns all levels from the leaf up, base then sub then top (MerkleProofTrait::path).
func (p *MerkleProof) Path() []PathElement {
	out := make([]PathElement, 0, len(p.Base)+len(p.Sub)+len(p.Top))
	out = append(out, p.Base...)
	out = append(out, p.Sub...)
	return append(out, p.Top...)
}

// SectorProof is the vanilla proof of one sector (storage-proofs-post fallback/vanilla.rs
// SectorProof): one inclusion proof per challenge, and the sector's comm_c and comm_r_last.
type SectorProof struct {
	InclusionProofs []MerkleProof
	CommC           Domain
	CommRLast       Domain
}

// FallbackPoStSectorProof is what a prover hands over for one sector: filecoin-proofs
// types/mod.rs FallbackPoStSectorProof { sector_id, comm_r, vanilla_proof: Proof { sectors } }.
// Sectors is vanilla_proof.sectors; filecoin-proofs generate_single_vanilla_proof makes it a
// single SectorProof.
type FallbackPoStSectorProof struct {
	SectorID uint64
	CommR    Domain
	Sectors  []SectorProof
}

// ErrFormat is wrapped by every error reporting a malformed encoding: a vanilla proof, binary
// or JSON, or a PoSt JSON document. The concrete error is a *DecodeError.
var ErrFormat = errors.New("malformed PoSt encoding")

// DecodeError says where an encoding is malformed: the field, as a path in the Rust or Go
// structure ("vanilla_proof.sectors[0].inclusion_proofs[3].Sub.base_proof.path[2].index",
// "ChallengedSectors[0].SealedCID"), and the byte offset at which that field starts in a binary
// form or at which a JSON syntax error was found (-1 when no offset applies).
type DecodeError struct {
	Field  string
	Offset int
	Err    error
}

// Error formats the field, the offset when known, and the cause.
func (e *DecodeError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("decode JSON field %s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("decode %s at byte offset %d: %v", e.Field, e.Offset, e.Err)
}

// Unwrap returns ErrFormat and the cause.
func (e *DecodeError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// maxSiblings bounds the hashes of one path element: arity ≤ 16 (filecoin-hashers poseidon.rs
// multi_node accepts arities 1, 2, 4, 8, 16).
const maxSiblings = 15

// bincode reads the bincode of rust-fil-proofs' vanilla proofs (filecoin/internal/bincode) into
// this package's types; its errors are *DecodeError.
type bincode struct{ bin.Reader }

func newBincode(b []byte) *bincode {
	return &bincode{bin.Reader{B: b, Fail: func(field string, at int, err error) error {
		return &DecodeError{Field: field, Offset: at, Err: err}
	}}}
}

func (r *bincode) domain(field string) (Domain, error) {
	b, err := r.Bytes32(field)
	if err != nil {
		return Domain{}, err
	}
	return Domain(*b), nil
}

// Minimum encoded sizes, for bounding counts.
const (
	minPathElementSize = 8 + 8           // empty hashes, index
	minMerkleProofSize = 4 + 8 + 32 + 32 // tag, empty path, root, leaf
	minSectorProofSize = 8 + 32 + 32     // empty inclusion_proofs, comm_c, comm_r_last
)

func (r *bincode) path(field string) ([]PathElement, error) {
	n, err := r.Count(field+".path", minPathElementSize)
	if err != nil {
		return nil, err
	}
	out := make([]PathElement, n)
	for i := range out {
		f := fmt.Sprintf("%s.path[%d]", field, i)
		at := r.Off
		h, err := r.Count(f+".hashes", 32)
		if err != nil {
			return nil, err
		}
		if h > maxSiblings {
			return nil, r.Fail(f+".hashes length", at, fmt.Errorf("%d siblings, at most %d (arity ≤ 16)", h, maxSiblings))
		}
		out[i].Hashes = make([]Domain, h)
		for j := range out[i].Hashes {
			if out[i].Hashes[j], err = r.domain(fmt.Sprintf("%s.hashes[%d]", f, j)); err != nil {
				return nil, err
			}
		}
		if out[i].Index, err = r.U64(f + ".index"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *bincode) merkleProof(field string) (MerkleProof, error) {
	var p MerkleProof
	at := r.Off
	tag, err := r.U32(field + ".data variant")
	if err != nil {
		return p, err
	}
	p.Kind = ProofKind(tag)
	f := field + "." + p.Kind.String()
	switch p.Kind {
	case SingleProof: // SingleProof { root, leaf, path }
		if p.Root, err = r.domain(f + ".root"); err != nil {
			return p, err
		}
		if p.Leaf, err = r.domain(f + ".leaf"); err != nil {
			return p, err
		}
		p.Base, err = r.path(f + ".path")
		return p, err
	case SubProof, TopProof: // { base_proof, sub_proof, [top_proof,] root, leaf }
		if p.Base, err = r.path(f + ".base_proof"); err != nil {
			return p, err
		}
		if p.Sub, err = r.path(f + ".sub_proof"); err != nil {
			return p, err
		}
		if p.Kind == TopProof {
			if p.Top, err = r.path(f + ".top_proof"); err != nil {
				return p, err
			}
		}
		if p.Root, err = r.domain(f + ".root"); err != nil {
			return p, err
		}
		p.Leaf, err = r.domain(f + ".leaf")
		return p, err
	}
	return p, r.Fail(field+".data variant", at, fmt.Errorf("unknown ProofData variant %d (want 0 Single, 1 Sub, 2 Top)", tag))
}

// DecodeSectorProof decodes the bincode of a FallbackPoStSectorProof, the vanilla proof bytes
// filecoin-ffi's GenerateSingleVanillaProof returns and GenerateWinningPoStWithVanilla /
// GenerateWindowPoStWithVanilla take (rust-filecoin-proofs-api post.rs: bincode::serialize /
// deserialize):
//
//	sector_id u64 ‖ comm_r [32] ‖ u64 #sectors ‖ per sector:
//	  u64 #inclusion_proofs ‖ per proof: u32 variant ‖ fields ‖ comm_c [32] ‖ comm_r_last [32]
//	Single: root ‖ leaf ‖ path;  Sub: base_proof ‖ sub_proof ‖ root ‖ leaf;
//	Top: base_proof ‖ sub_proof ‖ top_proof ‖ root ‖ leaf
//	path: u64 #levels ‖ per level: u64 #hashes ‖ hashes [32] each ‖ index u64
//
// (storage-proofs-core merkle/proof.rs; curio lib/proof/post_vproof_bin_decode.go reads the
// same layout). Every count is bounded by the bytes left, so a corrupt count cannot force a
// large allocation; errors are *DecodeError with the field and byte offset. Unlike Rust's
// bincode::deserialize, trailing bytes are an error.
func DecodeSectorProof(b []byte) (*FallbackPoStSectorProof, error) {
	r := newBincode(b)
	var p FallbackPoStSectorProof
	var err error
	if p.SectorID, err = r.U64("sector_id"); err != nil {
		return nil, err
	}
	if p.CommR, err = r.domain("comm_r"); err != nil {
		return nil, err
	}
	n, err := r.Count("vanilla_proof.sectors", minSectorProofSize)
	if err != nil {
		return nil, err
	}
	p.Sectors = make([]SectorProof, n)
	for s := range p.Sectors {
		f := fmt.Sprintf("vanilla_proof.sectors[%d]", s)
		m, err := r.Count(f+".inclusion_proofs", minMerkleProofSize)
		if err != nil {
			return nil, err
		}
		sp := &p.Sectors[s]
		sp.InclusionProofs = make([]MerkleProof, m)
		for c := range sp.InclusionProofs {
			if sp.InclusionProofs[c], err = r.merkleProof(fmt.Sprintf("%s.inclusion_proofs[%d]", f, c)); err != nil {
				return nil, err
			}
		}
		if sp.CommC, err = r.domain(f + ".comm_c"); err != nil {
			return nil, err
		}
		if sp.CommRLast, err = r.domain(f + ".comm_r_last"); err != nil {
			return nil, err
		}
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return &p, nil
}

func appendPath(b []byte, path []PathElement) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(path)))
	for _, e := range path {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(e.Hashes)))
		for _, h := range e.Hashes {
			b = append(b, h[:]...)
		}
		b = binary.LittleEndian.AppendUint64(b, e.Index)
	}
	return b
}

// AppendBinary appends the bincode of p (the layout DecodeSectorProof reads) to b.
func (p *FallbackPoStSectorProof) AppendBinary(b []byte) ([]byte, error) {
	b = binary.LittleEndian.AppendUint64(b, p.SectorID)
	b = append(b, p.CommR[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.Sectors)))
	for s, sp := range p.Sectors {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(sp.InclusionProofs)))
		for c, mp := range sp.InclusionProofs {
			b = binary.LittleEndian.AppendUint32(b, uint32(mp.Kind))
			switch mp.Kind {
			case SingleProof:
				b = append(b, mp.Root[:]...)
				b = append(b, mp.Leaf[:]...)
				b = appendPath(b, mp.Base)
			case SubProof, TopProof:
				b = appendPath(b, mp.Base)
				b = appendPath(b, mp.Sub)
				if mp.Kind == TopProof {
					b = appendPath(b, mp.Top)
				}
				b = append(b, mp.Root[:]...)
				b = append(b, mp.Leaf[:]...)
			default:
				return nil, fmt.Errorf("encode vanilla_proof.sectors[%d].inclusion_proofs[%d]: unknown variant %d", s, c, uint32(mp.Kind))
			}
		}
		b = append(b, sp.CommC[:]...)
		b = append(b, sp.CommRLast[:]...)
	}
	return b, nil
}

// MarshalBinary returns the bincode of p.
func (p *FallbackPoStSectorProof) MarshalBinary() ([]byte, error) { return p.AppendBinary(nil) }
