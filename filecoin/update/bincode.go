package update

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	bin "github.com/cuzk-go/cuzk/filecoin/internal/bincode"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
)

// ErrFormat is wrapped by every error reporting a malformed PartitionProof encoding; the
// concrete error is a *DecodeError.
var ErrFormat = errors.New("malformed update partition proof encoding")

// DecodeError says where a PartitionProof encoding is malformed: the field as a path in the
// Rust structure ("challenge_proofs[3].proof_r_new.Single.path[1].index") and the byte offset
// at which it starts.
type DecodeError struct {
	Field  string
	Offset int
	Err    error
}

// Error formats the field, the offset and the cause.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("decode update partition proof %s at byte offset %d: %v", e.Field, e.Offset, e.Err)
}

// Unwrap returns ErrFormat and the cause.
func (e *DecodeError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Merkle proof variants as bincode numbers storage-proofs-core merkle/proof.rs ProofData.
const (
	singleProof uint32 = iota
	subProof
	topProof
)

var variantNames = [...]string{"Single", "Sub", "Top"}

// maxSiblings bounds a path level: arity ≤ 16.
const maxSiblings = 15

// Minimum encoded sizes, bounding counts by the bytes left.
const (
	minPathElementSize    = 8 + 8
	minMerkleProofSize    = 4 + 8 + 32 + 32
	minChallengeProofSize = 3 * minMerkleProofSize
)

// MarshalBinary returns the bincode of the proof as rust-fil-proofs serializes a
// PartitionProof (filecoin-proofs-api update.rs PartitionProofBytes, the vanilla proofs
// filecoin-ffi's GenerateUpdateVanillaProofs returns and GenerateUpdateProofWithVanilla takes):
//
//	comm_c [32] ‖ u64 #apex_leafs ‖ apex leaves [32] each ‖ u64 #challenge_proofs ‖
//	per challenge: proof_r_old ‖ proof_d_new ‖ proof_r_new
//	Merkle proof: u32 variant ‖ Single: root ‖ leaf ‖ path;  Sub: base_proof ‖ sub_proof ‖
//	root ‖ leaf;  Top: base_proof ‖ sub_proof ‖ top_proof ‖ root ‖ leaf
//	path: u64 #levels ‖ per level: u64 #hashes ‖ hashes [32] each ‖ index u64
//
// Field elements are 32 bytes little-endian (the Poseidon and SHA-256 domains' byte form).
func (pp *PartitionProof) MarshalBinary() ([]byte, error) {
	var w []byte
	put := func(x fr.Element) { b := sdr.Bytes(&x); w = append(w, b[:]...) }
	u64 := func(v uint64) { w = binary.LittleEndian.AppendUint64(w, v) }
	path := func(es []sdr.PathElement) {
		u64(uint64(len(es)))
		for _, e := range es {
			u64(uint64(len(e.Hashes)))
			for _, h := range e.Hashes {
				put(h)
			}
			u64(e.Index)
		}
	}
	proof := func(mp *sdr.MerkleProof) {
		switch {
		case mp.SubProof == nil:
			w = binary.LittleEndian.AppendUint32(w, singleProof)
			put(mp.Root)
			put(mp.Leaf)
			path(mp.BaseProof)
			return
		case mp.TopProof == nil:
			w = binary.LittleEndian.AppendUint32(w, subProof)
		default:
			w = binary.LittleEndian.AppendUint32(w, topProof)
		}
		path(mp.BaseProof)
		path(mp.SubProof)
		if mp.TopProof != nil {
			path(mp.TopProof)
		}
		put(mp.Root)
		put(mp.Leaf)
	}
	put(pp.CommC)
	u64(uint64(len(pp.ApexLeafs)))
	for _, a := range pp.ApexLeafs {
		put(a)
	}
	u64(uint64(len(pp.ChallengeProofs)))
	for i := range pp.ChallengeProofs {
		cp := &pp.ChallengeProofs[i]
		proof(&cp.ROld)
		proof(&cp.DNew)
		proof(&cp.RNew)
	}
	return w, nil
}

// reader reads the bincode of rust-fil-proofs' vanilla proofs (filecoin/internal/bincode) into
// this package's types; its errors are *DecodeError.
type reader struct{ bin.Reader }

func newReader(b []byte) *reader {
	return &reader{bin.Reader{B: b, Fail: func(field string, at int, err error) error {
		return &DecodeError{Field: field, Offset: at, Err: err}
	}}}
}

// element reads a canonical field element.
func (r *reader) element(field string) (fr.Element, error) {
	at := r.Off
	b, err := r.Bytes32(field)
	if err != nil {
		return fr.Element{}, err
	}
	x, err := fr.LittleEndian.Element(b)
	if err != nil {
		return fr.Element{}, r.Fail(field, at, fmt.Errorf("not a canonical field element: %w", err))
	}
	return x, nil
}

func (r *reader) path(field string) ([]sdr.PathElement, error) {
	n, err := r.Count(field+".path", minPathElementSize)
	if err != nil {
		return nil, err
	}
	out := make([]sdr.PathElement, n)
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
		out[i].Hashes = make([]fr.Element, h)
		for j := range out[i].Hashes {
			if out[i].Hashes[j], err = r.element(fmt.Sprintf("%s.hashes[%d]", f, j)); err != nil {
				return nil, err
			}
		}
		at = r.Off
		if out[i].Index, err = r.U64(f + ".index"); err != nil {
			return nil, err
		}
		if out[i].Index > uint64(h) {
			return nil, r.Fail(f+".index", at, fmt.Errorf("index %d for arity %d", out[i].Index, h+1))
		}
	}
	return out, nil
}

func (r *reader) merkleProof(field string) (sdr.MerkleProof, error) {
	var p sdr.MerkleProof
	at := r.Off
	tag, err := r.U32(field + ".data variant")
	if err != nil {
		return p, err
	}
	if tag > topProof {
		return p, r.Fail(field+".data variant", at, fmt.Errorf("unknown ProofData variant %d (want 0 Single, 1 Sub, 2 Top)", tag))
	}
	f := field + "." + variantNames[tag]
	if tag == singleProof {
		if p.Root, err = r.element(f + ".root"); err != nil {
			return p, err
		}
		if p.Leaf, err = r.element(f + ".leaf"); err != nil {
			return p, err
		}
		p.BaseProof, err = r.path(f + ".path")
		return p, err
	}
	if p.BaseProof, err = r.path(f + ".base_proof"); err != nil {
		return p, err
	}
	if p.SubProof, err = r.path(f + ".sub_proof"); err != nil {
		return p, err
	}
	if tag == topProof {
		if p.TopProof, err = r.path(f + ".top_proof"); err != nil {
			return p, err
		}
	}
	if p.Root, err = r.element(f + ".root"); err != nil {
		return p, err
	}
	p.Leaf, err = r.element(f + ".leaf")
	return p, err
}

// DecodePartitionProof decodes the bincode of a PartitionProof (see MarshalBinary). Every count
// is bounded by the bytes left, so a corrupt count cannot force a large allocation; errors are
// *DecodeError with the field and byte offset; trailing bytes are an error.
func DecodePartitionProof(b []byte) (*PartitionProof, error) {
	r := newReader(b)
	pp := &PartitionProof{}
	var err error
	if pp.CommC, err = r.element("comm_c"); err != nil {
		return nil, err
	}
	n, err := r.Count("apex_leafs", 32)
	if err != nil {
		return nil, err
	}
	pp.ApexLeafs = make([]fr.Element, n)
	for i := range pp.ApexLeafs {
		if pp.ApexLeafs[i], err = r.element(fmt.Sprintf("apex_leafs[%d]", i)); err != nil {
			return nil, err
		}
	}
	if n, err = r.Count("challenge_proofs", minChallengeProofSize); err != nil {
		return nil, err
	}
	pp.ChallengeProofs = make([]ChallengeProof, n)
	for i := range pp.ChallengeProofs {
		cp := &pp.ChallengeProofs[i]
		f := fmt.Sprintf("challenge_proofs[%d]", i)
		if cp.ROld, err = r.merkleProof(f + ".proof_r_old"); err != nil {
			return nil, err
		}
		if cp.DNew, err = r.merkleProof(f + ".proof_d_new"); err != nil {
			return nil, err
		}
		if cp.RNew, err = r.merkleProof(f + ".proof_r_new"); err != nil {
			return nil, err
		}
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return pp, nil
}
