package prover

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

func randProof(seed uint64) *Proof {
	g1 := randG1(seed, 2)
	return &Proof{A: g1[0], B: randG2(seed+1, 1)[0], C: g1[1]}
}

func TestProofRoundTrip(t *testing.T) {
	for seed := range uint64(8) {
		p := randProof(40 + seed)
		b := p.Bytes()
		if b[0]&flagCompressed == 0 || b[48]&flagCompressed == 0 || b[144]&flagCompressed == 0 {
			t.Fatal("compressed flags missing")
		}
		var q Proof
		if err := q.SetBytes(b[:]); err != nil {
			t.Fatal(err)
		}
		if !q.A.Equal(&p.A) || !q.B.Equal(&p.B) || !q.C.Equal(&p.C) {
			t.Fatal("round trip changed the proof")
		}
		mb, err := p.MarshalBinary()
		if err != nil || !bytes.Equal(mb, b[:]) {
			t.Fatal("MarshalBinary differs from Bytes")
		}
		var r Proof
		if err := r.UnmarshalBinary(mb); err != nil || r != q {
			t.Fatalf("UnmarshalBinary: %v", err)
		}
	}
}

func TestProofDecodeErrors(t *testing.T) {
	p := randProof(50)
	good := p.Bytes()
	mod := fpModulusBytes()
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good[:]...)
		f(b)
		return b
	}
	nb1 := g1NotInSubgroup(t)
	nb2 := g2NotInSubgroup(t)
	c1, c2 := nb1.Bytes(), nb2.Bytes()
	cases := []struct {
		name    string
		b       []byte
		section string
		off     int64
		cause   error
	}{
		{"short", good[:191], "proof", 0, nil},
		{"long", append(good[:], 0), "proof", 0, nil},
		{"a uncompressed flag", mut(func(b []byte) { b[0] &^= flagCompressed }), "proof.a", 0, errCompressedFlag},
		{"a x = p", mut(func(b []byte) { copy(b[0:48], mod[:]); b[0] |= flagCompressed }), "proof.a", 0, errNonCanonical},
		{"a infinity", mut(func(b []byte) { clear(b[0:48]); b[0] = flagCompressed | flagInfinity }), "proof.a", 0, errInfinity},
		{"a not in subgroup", mut(func(b []byte) { copy(b[0:48], c1[:]) }), "proof.a", 0, errNotInSubgroup},
		{"b uncompressed flag", mut(func(b []byte) { b[48] &^= flagCompressed }), "proof.b", 48, errCompressedFlag},
		{"b x.c0 = p", mut(func(b []byte) { copy(b[96:144], mod[:]) }), "proof.b", 48, errNonCanonical},
		{"b infinity", mut(func(b []byte) { clear(b[48:144]); b[48] = flagCompressed | flagInfinity }), "proof.b", 48, errInfinity},
		{"b not in subgroup", mut(func(b []byte) { copy(b[48:144], c2[:]) }), "proof.b", 48, errNotInSubgroup},
		{"c infinity with bits", mut(func(b []byte) { b[144] |= flagInfinity }), "proof.c", 144, errInfinityBits},
		{"c not in subgroup", mut(func(b []byte) { copy(b[144:192], c1[:]) }), "proof.c", 144, errNotInSubgroup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := *p
			err := q.SetBytes(c.b)
			wantDecodeErr(t, err, c.section, -1, c.off)
			if c.cause != nil && !errors.Is(err, c.cause) {
				t.Fatalf("want cause %v, got %v", c.cause, err)
			}
			if q != *p {
				t.Fatal("SetBytes modified the proof on error")
			}
		})
	}
	// Every single-bit flip either fails to decode or decodes to a different proof.
	for bit := range ProofSize * 8 {
		b := mut(func(b []byte) { b[bit/8] ^= 1 << (bit % 8) })
		var q Proof
		if err := q.SetBytes(b); err == nil && q == *p {
			t.Fatalf("bit %d: flipped encoding decodes to the same proof", bit)
		}
	}
}

// TestProofInfinityEncodes documents that Bytes encodes infinity (0xc0…) even though
// SetBytes rejects it, as bellman does.
func TestProofInfinityEncodes(t *testing.T) {
	var p Proof
	p.B = randG2(51, 1)[0]
	p.C = randG1(52, 1)[0]
	p.A = bls12381.G1Affine{}
	b := p.Bytes()
	if b[0] != flagCompressed|flagInfinity {
		t.Fatalf("infinity byte 0x%x", b[0])
	}
	var q Proof
	wantDecodeErr(t, q.SetBytes(b[:]), "proof.a", -1, 0)
}

// TestDecodeProofs checks the N×192 decoder: lengths, and that a fault names the element,
// the proof index and the byte offset from the start of the file.
func TestDecodeProofs(t *testing.T) {
	var all []byte
	for i := range 3 {
		b := randProof(60 + uint64(i)).Bytes()
		all = append(all, b[:]...)
	}
	ps, err := DecodeProofs(all)
	if err != nil || len(ps) != 3 {
		t.Fatalf("got %d proofs, %v", len(ps), err)
	}
	for i := range ps {
		if b := ps[i].Bytes(); !bytes.Equal(b[:], all[i*ProofSize:(i+1)*ProofSize]) {
			t.Fatalf("proof %d differs", i)
		}
	}
	for _, n := range []int{0, 1, ProofSize - 1, ProofSize + 1, 3*ProofSize - 1} {
		_, err := DecodeProofs(all[:n])
		wantDecodeErr(t, err, "proofs", -1, int64(n/ProofSize*ProofSize))
	}
	bad := append([]byte(nil), all...)
	bad[2*ProofSize+proofOffB+5] ^= 1 // B's x moves off the curve or out of the subgroup
	_, err = DecodeProofs(bad)
	wantDecodeErr(t, err, "proof.b", 2, 2*ProofSize+proofOffB)
}

// TestReadProofsBounded reads proofs from an endless reader (/dev/zero-like) and from
// readers just over and at the limit.
func TestReadProofsBounded(t *testing.T) {
	good := randProof(70).Bytes()
	zeros := &endlessReader{pattern: []byte{0}}
	_, err := ReadProofs(zeros, 4)
	wantDecodeErr(t, err, "proofs", -1, 4*ProofSize)
	if !errors.Is(err, errTooLarge) || zeros.n > 4*ProofSize+1 {
		t.Fatalf("endless reader: %v after %d bytes", err, zeros.n)
	}
	// The default limit holds for an endless stream of valid proofs too.
	valid := &endlessReader{pattern: good[:]}
	_, err = ReadProofs(valid, 0)
	wantDecodeErr(t, err, "proofs", -1, MaxProofs*ProofSize)
	if valid.n > MaxProofs*ProofSize+1 {
		t.Fatalf("read %d bytes with the default limit", valid.n)
	}
	two := append(append([]byte(nil), good[:]...), good[:]...)
	if ps, err := ReadProofs(bytes.NewReader(two), 2); err != nil || len(ps) != 2 {
		t.Fatalf("at the limit: %d proofs, %v", len(ps), err)
	}
	path := filepath.Join(t.TempDir(), "proof.bin")
	if err := os.WriteFile(path, two, 0o600); err != nil {
		t.Fatal(err)
	}
	if ps, err := ReadProofsFile(path, 2); err != nil || len(ps) != 2 {
		t.Fatalf("file: %d proofs, %v", len(ps), err)
	}
	if _, err := ReadProofsFile(path, 1); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), path) {
		t.Fatalf("file over the limit: %v", err)
	}
	if _, err := ReadProofsFile(filepath.Join(t.TempDir(), "none"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadProofsFile("/dev/zero", 10)
		wantDecodeErr(t, err, "proofs", -1, 10*ProofSize)
	}
}
