package prover

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// Identity returns the identity under which devices keep p's points resident: p.ID when set,
// else "sha256:" and the hex SHA-256 of the verifying key's bellperson encoding, the five
// sections' lengths and each section's first and last point, and for parameters with C folded
// into L the fold (writeFoldIdentity). Two setups differ in δ with overwhelming probability, so
// reading the same parameters file twice gives one identity and one upload; set ID to name
// parameters explicitly.
func (p *Parameters) Identity() string {
	if p.ID != "" {
		return p.ID
	}
	if p.mapped != nil {
		return p.mapped.id
	}
	h := sha256.New()
	if vk, err := p.VK.MarshalBinary(); err == nil {
		h.Write(vk)
	}
	var buf [8]byte
	g1 := func(pts []bls12381.G1Affine) {
		binary.BigEndian.PutUint64(buf[:], uint64(len(pts)))
		h.Write(buf[:])
		if len(pts) > 0 {
			for _, q := range []*bls12381.G1Affine{&pts[0], &pts[len(pts)-1]} {
				b := q.RawBytes()
				h.Write(b[:])
			}
		}
	}
	g1(p.H)
	g1(p.L)
	g1(p.A)
	g1(p.BG1)
	binary.BigEndian.PutUint64(buf[:], uint64(len(p.BG2)))
	h.Write(buf[:])
	if len(p.BG2) > 0 {
		for _, q := range []*bls12381.G2Affine{&p.BG2[0], &p.BG2[len(p.BG2)-1]} {
			b := q.RawBytes()
			h.Write(b[:])
		}
	}
	writeFoldIdentity(h, p.CFold)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// writeFoldIdentity adds fold f (nil: none, nothing written) to an identity's hash: the circuit's
// digest and the inputs' points. Folded parameters may share every point the identity reads with
// the parameters they were folded from (L'_k = L_k for an aux variable k absent from C, as a
// boolean's is), so without it a device would keep one of the two L for both.
func writeFoldIdentity(h hash.Hash, f *CFold) {
	if f == nil {
		return
	}
	h.Write([]byte("C folded into L"))
	h.Write(f.Circuit[:])
	for i := range f.Inputs {
		b := f.Inputs[i].RawBytes()
		h.Write(b[:])
	}
}

// SRS returns p's point arrays under its identity, for primitive.Device.Resident; for mapped
// parameters, the mapped file as the SRS's Source.
func (p *Parameters) SRS() *primitive.SRS {
	if p.mapped != nil {
		return &primitive.SRS{ID: p.Identity(), Source: p.mapped}
	}
	return &primitive.SRS{ID: p.Identity(), H: p.H, L: p.L, A: p.A, BG1: p.BG1, BG2: p.BG2}
}
