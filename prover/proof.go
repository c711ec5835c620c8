package prover

import (
	"fmt"
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
