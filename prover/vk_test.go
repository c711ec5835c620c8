package prover

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// randVK returns a verifying key of random points with nIC IC points.
func randVK(seed uint64, nIC int) *VerifyingKey {
	g1 := randG1(seed, 3+nIC)
	g2 := randG2(seed+1, 3)
	return &VerifyingKey{
		AlphaG1: g1[0], BetaG1: g1[1], DeltaG1: g1[2],
		BetaG2: g2[0], GammaG2: g2[1], DeltaG2: g2[2],
		IC: g1[3:],
	}
}

func vkEqual(a, b *VerifyingKey) bool {
	if !a.AlphaG1.Equal(&b.AlphaG1) || !a.BetaG1.Equal(&b.BetaG1) || !a.BetaG2.Equal(&b.BetaG2) ||
		!a.GammaG2.Equal(&b.GammaG2) || !a.DeltaG1.Equal(&b.DeltaG1) || !a.DeltaG2.Equal(&b.DeltaG2) ||
		len(a.IC) != len(b.IC) {
		return false
	}
	for i := range a.IC {
		if !a.IC[i].Equal(&b.IC[i]) {
			return false
		}
	}
	return true
}

// wantDecodeErr checks that err is a *DecodeError wrapping ErrFormat with the given
// section, index and offset, and that the message names them.
func wantDecodeErr(t *testing.T, err error, section string, index int, off int64) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrFormat) {
		t.Fatalf("want *DecodeError wrapping ErrFormat, got %v", err)
	}
	if de.Section != section || de.Index != index || de.Offset != off {
		t.Fatalf("got section %q index %d offset %d, want %q %d %d (%v)",
			de.Section, de.Index, de.Offset, section, index, off, err)
	}
	if !strings.Contains(err.Error(), section) {
		t.Fatalf("message %q does not name section %q", err, section)
	}
}

func TestVerifyingKeyRoundTrip(t *testing.T) {
	for _, nIC := range []int{0, 1, 5} {
		vk := randVK(10, nIC)
		b, err := vk.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 868+96*nIC || len(b) != vk.EncodedSize() {
			t.Fatalf("|IC|=%d: encoded %d bytes, want %d", nIC, len(b), 868+96*nIC)
		}
		if got := binary.BigEndian.Uint32(b[864:]); got != uint32(nIC) {
			t.Fatalf("IC count field %d, want %d", got, nIC)
		}
		var buf bytes.Buffer
		if n, err := vk.WriteTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("WriteTo: n=%d err=%v", n, err)
		}
		for _, mode := range []DecodeMode{Checked, Unchecked} {
			got, err := UnmarshalVerifyingKey(b, mode)
			if err != nil || !vkEqual(got, vk) {
				t.Fatalf("|IC|=%d %s: err %v", nIC, mode, err)
			}
		}
		var got VerifyingKey
		if err := got.UnmarshalBinary(b); err != nil || !vkEqual(&got, vk) {
			t.Fatalf("UnmarshalBinary: %v", err)
		}
	}
	// Infinity in the fixed fields is read by bellperson, so Unchecked reads it and it
	// round-trips; Checked refuses it (TestVerifyingKeyDegenerate).
	vk := randVK(11, 2)
	vk.BetaG1 = bls12381.G1Affine{}
	b, _ := vk.MarshalBinary()
	if got, err := UnmarshalVerifyingKey(b, Unchecked); err != nil || !vkEqual(got, vk) {
		t.Fatalf("infinity beta_g1: %v", err)
	}
}

// TestVerifyingKeyDegenerate checks that Checked mode refuses each of the six fixed points
// at infinity, in memory and from a file, naming the field and its offset.
func TestVerifyingKeyDegenerate(t *testing.T) {
	fields := []struct {
		section string
		off     int64
		set     func(vk *VerifyingKey)
	}{
		{"vk.alpha_g1", 0, func(vk *VerifyingKey) { vk.AlphaG1 = bls12381.G1Affine{} }},
		{"vk.beta_g1", 96, func(vk *VerifyingKey) { vk.BetaG1 = bls12381.G1Affine{} }},
		{"vk.beta_g2", 192, func(vk *VerifyingKey) { vk.BetaG2 = bls12381.G2Affine{} }},
		{"vk.gamma_g2", 384, func(vk *VerifyingKey) { vk.GammaG2 = bls12381.G2Affine{} }},
		{"vk.delta_g1", 576, func(vk *VerifyingKey) { vk.DeltaG1 = bls12381.G1Affine{} }},
		{"vk.delta_g2", 672, func(vk *VerifyingKey) { vk.DeltaG2 = bls12381.G2Affine{} }},
	}
	for _, f := range fields {
		vk := randVK(14, 2)
		f.set(vk)
		b, err := vk.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		_, err = UnmarshalVerifyingKey(b, Checked)
		wantDecodeErr(t, err, f.section, -1, f.off)
		if !errors.Is(err, errInfinity) {
			t.Fatalf("%s: want the infinity cause, got %v", f.section, err)
		}
		_, err = ReadVerifyingKey(bytes.NewReader(b), Checked)
		wantDecodeErr(t, err, f.section, -1, f.off)
	}
}

// TestVerifyingKeyForgedProofRefused builds the key that makes Groth16 unsound: with
// gamma_g2 = delta_g2 = infinity the check e(A,B) = e(α,β)·e(Σ x_i·IC_i, γ)·e(C, δ) reduces to
// e(A,B) = e(α,β), so A = α, B = β verifies for every input. Checked loading refuses the key.
func TestVerifyingKeyForgedProofRefused(t *testing.T) {
	vk := randVK(15, 3)
	vk.GammaG2 = bls12381.G2Affine{}
	vk.DeltaG2 = bls12381.G2Affine{}
	forged := &Proof{A: vk.AlphaG1, B: vk.BetaG2, C: vk.IC[0]}
	// The forgery is real: verification with the key as given accepts arbitrary inputs.
	if pvk, err := PrepareVerifyingKey(vk); err == nil {
		var x fr.Element
		x.SetUint64(12345)
		if err := Verify(pvk, forged, []fr.Element{x, x}); err != nil {
			t.Logf("verifier already refuses the forgery: %v", err)
		}
	}
	b, _ := vk.MarshalBinary()
	_, err := UnmarshalVerifyingKey(b, Checked)
	wantDecodeErr(t, err, "vk.gamma_g2", -1, 384)
	path := filepath.Join(t.TempDir(), "forged.vk")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVerifyingKeyFile(path, Checked); !errors.Is(err, errInfinity) {
		t.Fatalf("ReadVerifyingKeyFile accepted a key with gamma = delta = infinity: %v", err)
	}
}

// endlessReader yields its pattern forever, like /dev/zero, counting the bytes handed out.
type endlessReader struct {
	pattern []byte
	pos     int
	n       int64
}

func (e *endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[e.pos]
		e.pos = (e.pos + 1) % len(e.pattern)
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadVerifyingKeyBounded reads keys from endless readers: zeros (/dev/zero), a valid
// key followed by endless bytes, and a header claiming 2^32−1 IC points followed by endless
// valid points. Each fails after a bounded read.
func TestReadVerifyingKeyBounded(t *testing.T) {
	vk := randVK(16, 2)
	good, _ := vk.MarshalBinary()

	zeros := &endlessReader{pattern: []byte{0}}
	_, err := ReadVerifyingKey(zeros, Checked)
	wantDecodeErr(t, err, "vk.alpha_g1", -1, 0)
	if zeros.n > vkFixedSize {
		t.Fatalf("read %d bytes of zeros", zeros.n)
	}

	// A valid key, then more: ReadVerifyingKey stops at the key's end.
	tail := &endlessReader{pattern: good}
	got, err := ReadVerifyingKey(tail, Checked)
	if err != nil || !vkEqual(got, vk) || tail.n != int64(len(good)) {
		t.Fatalf("key followed by more bytes: err %v, read %d of %d", err, tail.n, len(good))
	}

	// A huge IC count is refused before anything past the header is read.
	huge := append([]byte(nil), good[:vkFixedSize]...)
	binary.BigEndian.PutUint32(huge[vkFixedSize-4:], 0xFFFFFFFF)
	hr := &endlessReader{pattern: append(huge, good[vkFixedSize:]...)}
	_, err = ReadVerifyingKey(hr, Checked)
	wantDecodeErr(t, err, "ic", -1, vkFixedSize-4)
	if !errors.Is(err, errTooLarge) || hr.n != vkFixedSize {
		t.Fatalf("huge count: err %v after %d bytes", err, hr.n)
	}

	// Truncated IC points.
	_, err = ReadVerifyingKey(bytes.NewReader(good[:len(good)-1]), Checked)
	wantDecodeErr(t, err, "ic", -1, vkFixedSize-4)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated: want unexpected EOF, got %v", err)
	}
	// A truncated header names the field cut short.
	_, err = ReadVerifyingKey(bytes.NewReader(good[:200]), Checked)
	wantDecodeErr(t, err, "vk.beta_g2", -1, 192)

	// The file reader refuses anything after the key, /dev/zero included.
	path := filepath.Join(t.TempDir(), "tail.vk")
	if err := os.WriteFile(path, append(append([]byte(nil), good...), 0), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadVerifyingKeyFile(path, Checked)
	wantDecodeErr(t, err, "trailing", -1, int64(len(good)))
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err = ReadVerifyingKeyFile("/dev/zero", Checked)
		wantDecodeErr(t, err, "vk.alpha_g1", -1, 0)
	}
}

func TestVerifyingKeyFile(t *testing.T) {
	vk := randVK(12, 3)
	path := filepath.Join(t.TempDir(), "k.vk")
	b, _ := vk.MarshalBinary()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadVerifyingKeyFile(path, Checked)
	if err != nil || !vkEqual(got, vk) {
		t.Fatalf("ReadVerifyingKeyFile: %v", err)
	}
	if _, err := ReadVerifyingKeyFile(filepath.Join(t.TempDir(), "missing.vk"), Checked); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(path, b[:500], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadVerifyingKeyFile(path, Checked)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), path) {
		t.Fatalf("truncated file: %v", err)
	}
}

func TestVerifyingKeyDecodeErrors(t *testing.T) {
	vk := randVK(13, 3)
	good, _ := vk.MarshalBinary()
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	fields := []struct {
		section string
		off     int64
	}{
		{"vk.alpha_g1", 0}, {"vk.beta_g1", 96}, {"vk.beta_g2", 192}, {"vk.gamma_g2", 384},
		{"vk.delta_g1", 576}, {"vk.delta_g2", 672},
	}
	for _, f := range fields {
		// A set sort flag is invalid for any uncompressed point.
		b := mut(func(b []byte) { b[f.off] |= flagSort })
		_, err := UnmarshalVerifyingKey(b, Checked)
		wantDecodeErr(t, err, f.section, -1, f.off)
		// Truncation inside the field.
		_, err = UnmarshalVerifyingKey(good[:f.off+10], Checked)
		wantDecodeErr(t, err, f.section, -1, f.off)
		if !errors.Is(err, errShort) {
			t.Fatalf("%s truncated: want unexpected EOF cause, got %v", f.section, err)
		}
	}
	// The IC count, then IC points by index.
	_, err := UnmarshalVerifyingKey(good[:866], Checked)
	wantDecodeErr(t, err, "ic", -1, 864)
	_, err = UnmarshalVerifyingKey(good[:868+96*2+5], Checked)
	wantDecodeErr(t, err, "ic", -1, 864) // count 3 does not fit
	b := mut(func(b []byte) { b[868+96*2+95] ^= 1 })
	_, err = UnmarshalVerifyingKey(b, Checked)
	wantDecodeErr(t, err, "ic", 2, 868+96*2)
	if !errors.Is(err, errNotOnCurve) {
		t.Fatalf("want off-curve cause, got %v", err)
	}
	// An IC point at infinity is rejected, as bellperson does.
	b = mut(func(b []byte) {
		clear(b[868+96 : 868+192])
		b[868+96] = flagInfinity
	})
	_, err = UnmarshalVerifyingKey(b, Checked)
	wantDecodeErr(t, err, "ic", 1, 868+96)
	// A huge count is rejected before allocating.
	b = mut(func(b []byte) { binary.BigEndian.PutUint32(b[864:], 0xFFFFFFFF) })
	allocs := testing.AllocsPerRun(5, func() { _, _ = UnmarshalVerifyingKey(b, Checked) })
	_, err = UnmarshalVerifyingKey(b, Checked)
	wantDecodeErr(t, err, "ic", -1, 864)
	if allocs > 30 {
		t.Fatalf("%v allocations for a rejected count", allocs)
	}
	// Trailing bytes.
	_, err = UnmarshalVerifyingKey(append(append([]byte(nil), good...), 0), Checked)
	wantDecodeErr(t, err, "trailing", -1, int64(len(good)))
	// Every strict prefix fails with ErrFormat, never a panic.
	for n := range len(good) {
		if _, err := UnmarshalVerifyingKey(good[:n], Unchecked); !errors.Is(err, ErrFormat) {
			t.Fatalf("prefix %d: %v", n, err)
		}
	}
	// Non-subgroup IC point: Checked rejects, Unchecked accepts.
	nb := g1NotInSubgroup(t)
	raw := nb.RawBytes()
	b = mut(func(b []byte) { copy(b[868:], raw[:]) })
	_, err = UnmarshalVerifyingKey(b, Checked)
	wantDecodeErr(t, err, "ic", 0, 868)
	if _, err := UnmarshalVerifyingKey(b, Unchecked); err != nil {
		t.Fatalf("unchecked: %v", err)
	}
}
