package prover

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Byte offsets of the proof elements in the 192-byte encoding A‖B‖C.
const (
	proofOffA = 0
	proofOffB = G1CompressedSize
	proofOffC = G1CompressedSize + G2CompressedSize
)

// Bytes returns bellperson's 192-byte encoding of p: A (G1, 48 B) ‖ B (G2, 96 B) ‖ C (G1,
// 48 B), each compressed in the zcash encoding (flag bits 0x80 compressed, 0x40 infinity,
// 0x20 larger y; G2 x as c1‖c0).
func (p *Proof) Bytes() [ProofSize]byte {
	var out [ProofSize]byte
	a := p.A.Bytes()
	b := p.B.Bytes()
	c := p.C.Bytes()
	copy(out[proofOffA:], a[:])
	copy(out[proofOffB:], b[:])
	copy(out[proofOffC:], c[:])
	return out
}

// MarshalBinary returns Bytes as a slice.
func (p *Proof) MarshalBinary() ([]byte, error) {
	b := p.Bytes()
	return b[:], nil
}

// UnmarshalBinary is SetBytes.
func (p *Proof) UnmarshalBinary(b []byte) error { return p.SetBytes(b) }

// SetBytes sets p from exactly ProofSize bytes, strictly: each element must carry the
// compression flag, have a canonical x below the field modulus, decompress to a point on the
// curve, lie in the prime-order subgroup, and not be the point at infinity (bellman's
// Proof::read rejects infinity too). On failure p is unchanged and the error is a
// *DecodeError naming "proof.a", "proof.b" or "proof.c" and its byte offset.
func (p *Proof) SetBytes(b []byte) error {
	if len(b) != ProofSize {
		return decodeErr("proof", -1, 0, fmt.Errorf("length %d, want %d", len(b), ProofSize))
	}
	var q Proof
	if err := decodeG1Compressed(&q.A, b[proofOffA:], Checked, false); err != nil {
		return decodeErr("proof.a", -1, proofOffA, err)
	}
	if err := decodeG2Compressed(&q.B, b[proofOffB:], Checked, false); err != nil {
		return decodeErr("proof.b", -1, proofOffB, err)
	}
	if err := decodeG1Compressed(&q.C, b[proofOffC:], Checked, false); err != nil {
		return decodeErr("proof.c", -1, proofOffC, err)
	}
	*p = q
	return nil
}

// MaxProofs bounds the proofs that ReadProofs accepts when the caller gives no smaller limit:
// 2^16 proofs of 192 bytes, 12 MiB, far above the partitions of any Filecoin proof.
const MaxProofs = 1 << 16

// DecodeProofs decodes b as a concatenation of N ≥ 1 proofs of ProofSize bytes each (the
// partition order of a Filecoin multi-partition proof), each decoded strictly as by SetBytes.
// A length that is not a positive multiple of ProofSize is a *DecodeError for section
// "proofs"; a faulty proof is a *DecodeError naming its element ("proof.a", "proof.b",
// "proof.c"), its index and its byte offset from the start of b.
func DecodeProofs(b []byte) ([]Proof, error) {
	if len(b) == 0 || len(b)%ProofSize != 0 {
		return nil, decodeErr("proofs", -1, int64(len(b)/ProofSize*ProofSize), fmt.Errorf(
			"length %d is not a positive multiple of %d: %w", len(b), ProofSize, errShort))
	}
	out := make([]Proof, len(b)/ProofSize)
	for i := range out {
		at := i * ProofSize
		if err := out[i].SetBytes(b[at : at+ProofSize]); err != nil {
			var de *DecodeError
			if errors.As(err, &de) {
				return nil, decodeErr(de.Section, i, int64(at)+de.Offset, de.Err)
			}
			return nil, err
		}
	}
	return out, nil
}

// ReadProofs reads r to its end and decodes it with DecodeProofs, reading at most
// maxProofs·ProofSize + 1 bytes: a longer r (an endless one such as /dev/zero included) is a
// *DecodeError for section "proofs" at offset maxProofs·ProofSize wrapping ErrFormat. maxProofs
// ≤ 0 means MaxProofs.
func ReadProofs(r io.Reader, maxProofs int) ([]Proof, error) {
	if maxProofs <= 0 {
		maxProofs = MaxProofs
	}
	limit := int64(maxProofs) * ProofSize
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read proofs: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, decodeErr("proofs", -1, limit, fmt.Errorf(
			"more than %d proofs of %d bytes: %w", maxProofs, ProofSize, errTooLarge))
	}
	return DecodeProofs(b)
}

// ReadProofsFile reads the proofs file at path with ReadProofs.
func ReadProofsFile(path string, maxProofs int) ([]Proof, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read proofs file: %w", err)
	}
	defer f.Close()
	ps, err := ReadProofs(f, maxProofs)
	if err != nil {
		return nil, fmt.Errorf("read proofs file %s: %w", path, err)
	}
	return ps, nil
}
