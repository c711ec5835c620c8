package prover

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// vkFixedSize is the size in bytes of a verifying key without its IC points:
// alpha_g1, beta_g1, delta_g1 (3·96) + beta_g2, gamma_g2, delta_g2 (3·192) + the u32 IC count.
const vkFixedSize = 3*G1UncompressedSize + 3*G2UncompressedSize + 4

// EncodedSize returns the length in bytes of the bellperson encoding of vk:
// 868 + 96·|IC|.
func (vk *VerifyingKey) EncodedSize() int {
	return vkFixedSize + G1UncompressedSize*len(vk.IC)
}

// appendVK appends the bellperson encoding of vk to dst:
// alpha_g1 ‖ beta_g1 ‖ beta_g2 ‖ gamma_g2 ‖ delta_g1 ‖ delta_g2 (uncompressed) ‖
// u32-BE |IC| ‖ IC points (uncompressed).
// Layout: bellperson src/groth16/verifying_key.rs, VerifyingKey::write.
func appendVK(dst []byte, vk *VerifyingKey) ([]byte, error) {
	if uint64(len(vk.IC)) > math.MaxUint32 {
		return nil, fmt.Errorf("encode verifying key: %d IC points exceed the u32 count", len(vk.IC))
	}
	n := len(dst)
	need := vk.EncodedSize()
	if cap(dst)-n < need {
		nd := make([]byte, n, n+need)
		copy(nd, dst)
		dst = nd
	}
	dst = dst[:n+need]
	b := dst[n:]
	off := 0
	putG1 := func(p *bls12381.G1Affine) { putG1Uncompressed(b[off:], p); off += G1UncompressedSize }
	putG2 := func(p *bls12381.G2Affine) { putG2Uncompressed(b[off:], p); off += G2UncompressedSize }
	putG1(&vk.AlphaG1)
	putG1(&vk.BetaG1)
	putG2(&vk.BetaG2)
	putG2(&vk.GammaG2)
	putG1(&vk.DeltaG1)
	putG2(&vk.DeltaG2)
	binary.BigEndian.PutUint32(b[off:], uint32(len(vk.IC)))
	off += 4
	for i := range vk.IC {
		putG1(&vk.IC[i])
	}
	return dst, nil
}

// MarshalBinary returns the bellperson encoding of vk (EncodedSize bytes).
func (vk *VerifyingKey) MarshalBinary() ([]byte, error) {
	return appendVK(nil, vk)
}

// WriteTo writes the bellperson encoding of vk to w and returns the number of bytes written.
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	b, err := vk.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	if err != nil {
		return int64(n), fmt.Errorf("write verifying key: %w", err)
	}
	return int64(n), nil
}

// UnmarshalBinary sets vk from exactly one bellperson-encoded verifying key, in Checked mode.
func (vk *VerifyingKey) UnmarshalBinary(b []byte) error {
	v, err := UnmarshalVerifyingKey(b, Checked)
	if err != nil {
		return err
	}
	*vk = *v
	return nil
}

// MaxICPoints bounds the IC count that ReadVerifyingKey and ReadVerifyingKeyFile accept:
// 2^20 points (one per public input plus one), a 96 MiB key, far above any Filecoin or Zcash
// circuit. UnmarshalVerifyingKey, whose input is already in memory, only requires that the
// count fit the input.
const MaxICPoints = 1 << 20

// UnmarshalVerifyingKey decodes a bellperson-encoded verifying key that occupies all of b
// (868 + 96·|IC| bytes). Malformed input returns a *DecodeError wrapping ErrFormat. IC points
// at infinity are rejected, as bellperson does; in Checked mode alpha_g1, beta_g1, beta_g2,
// gamma_g2, delta_g1 and delta_g2 at infinity are rejected too (bellperson documents them as
// never infinity, and with gamma = delta = infinity any proof with A = alpha, B = beta would
// verify for every input).
func UnmarshalVerifyingKey(b []byte, mode DecodeMode) (*VerifyingKey, error) {
	vk, n, err := decodeVK(b, mode)
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, decodeErr("trailing", -1, int64(n),
			fmt.Errorf("%d unexpected bytes after the verifying key", len(b)-n))
	}
	return vk, nil
}

// ReadVerifyingKey reads one bellperson-encoded verifying key from r and decodes it like
// UnmarshalVerifyingKey, leaving any bytes after it unread. It reads the 868 fixed bytes,
// checks the IC count against MaxICPoints, then reads exactly 96·|IC| bytes, so an endless
// or oversized r costs at most 868 + 96·MaxICPoints bytes, and memory grows only with the
// bytes actually read. A short r gives a *DecodeError wrapping io.ErrUnexpectedEOF.
func ReadVerifyingKey(r io.Reader, mode DecodeMode) (*VerifyingKey, error) {
	b := make([]byte, vkFixedSize)
	if n, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			// Decode the prefix to name the field that is cut short.
			_, _, derr := decodeVK(b[:n], mode)
			return nil, derr
		}
		return nil, fmt.Errorf("read verifying key: %w", err)
	}
	count := binary.BigEndian.Uint32(b[vkFixedSize-4:])
	if count > MaxICPoints {
		return nil, decodeErr("ic", -1, vkFixedSize-4,
			fmt.Errorf("count %d exceeds the limit of %d points: %w", count, MaxICPoints, errTooLarge))
	}
	var buf bytes.Buffer
	buf.Write(b)
	want := int64(count) * G1UncompressedSize
	if n, err := io.Copy(&buf, io.LimitReader(r, want)); err != nil {
		return nil, fmt.Errorf("read verifying key: %w", err)
	} else if n < want {
		return nil, decodeErr("ic", -1, vkFixedSize-4, fmt.Errorf(
			"count %d needs %d bytes but only %d follow: %w", count, want, n, errShort))
	}
	return UnmarshalVerifyingKey(buf.Bytes(), mode)
}

// ReadVerifyingKeyFile reads and decodes a bellperson .vk file with ReadVerifyingKey and
// requires that nothing follow the key: a longer file, such as /dev/zero, is rejected after
// one extra byte.
func ReadVerifyingKeyFile(path string, mode DecodeMode) (*VerifyingKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read verifying key file: %w", err)
	}
	defer f.Close()
	vk, err := ReadVerifyingKey(f, mode)
	if err == nil {
		err = requireEOF(f, int64(vk.EncodedSize()))
	}
	if err != nil {
		return nil, fmt.Errorf("read verifying key file %s: %w", path, err)
	}
	return vk, nil
}

// requireEOF returns a "trailing" *DecodeError at offset off unless r is at its end.
func requireEOF(r io.Reader, off int64) error {
	var one [1]byte
	n, err := io.ReadFull(r, one[:])
	if n > 0 {
		return decodeErr("trailing", -1, off, errors.New("unexpected bytes after the encoding"))
	}
	if err != io.EOF {
		return fmt.Errorf("read past the encoding: %w", err)
	}
	return nil
}

// decodeVK decodes a verifying key at the start of b and returns it with the number of
// bytes consumed. Offsets in errors are relative to the start of b.
func decodeVK(b []byte, mode DecodeMode) (*VerifyingKey, int, error) {
	vk := new(VerifyingKey)
	off := 0
	g1 := func(section string, p *bls12381.G1Affine) error {
		if len(b)-off < G1UncompressedSize {
			return decodeErr(section, -1, int64(off), errShort)
		}
		if err := decodeG1Uncompressed(p, b[off:], mode); err != nil {
			return decodeErr(section, -1, int64(off), err)
		}
		if mode == Checked && p.IsInfinity() {
			return decodeErr(section, -1, int64(off), errInfinity)
		}
		off += G1UncompressedSize
		return nil
	}
	g2 := func(section string, p *bls12381.G2Affine) error {
		if len(b)-off < G2UncompressedSize {
			return decodeErr(section, -1, int64(off), errShort)
		}
		if err := decodeG2Uncompressed(p, b[off:], mode); err != nil {
			return decodeErr(section, -1, int64(off), err)
		}
		if mode == Checked && p.IsInfinity() {
			return decodeErr(section, -1, int64(off), errInfinity)
		}
		off += G2UncompressedSize
		return nil
	}
	if err := g1("vk.alpha_g1", &vk.AlphaG1); err != nil {
		return nil, 0, err
	}
	if err := g1("vk.beta_g1", &vk.BetaG1); err != nil {
		return nil, 0, err
	}
	if err := g2("vk.beta_g2", &vk.BetaG2); err != nil {
		return nil, 0, err
	}
	if err := g2("vk.gamma_g2", &vk.GammaG2); err != nil {
		return nil, 0, err
	}
	if err := g1("vk.delta_g1", &vk.DeltaG1); err != nil {
		return nil, 0, err
	}
	if err := g2("vk.delta_g2", &vk.DeltaG2); err != nil {
		return nil, 0, err
	}
	count, err := readCount(b, off, "ic", G1UncompressedSize)
	if err != nil {
		return nil, 0, err
	}
	ic := paramSection{name: "ic", start: off + 4, count: count, size: G1UncompressedSize}
	vk.IC, err = decodeSection(b, ic, func(q *bls12381.G1Affine, at []byte) error {
		if err := decodeG1Uncompressed(q, at, mode); err != nil {
			return err
		}
		if q.IsInfinity() {
			return errInfinity
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return vk, ic.start + count*G1UncompressedSize, nil
}

// readCount reads the u32-BE element count of section at b[off:] and checks, before anything
// is allocated, that count·elemSize bytes follow it.
func readCount(b []byte, off int, section string, elemSize int) (int, error) {
	if len(b)-off < 4 {
		return 0, decodeErr(section, -1, int64(off), fmt.Errorf("read count: %w", errShort))
	}
	count := uint64(binary.BigEndian.Uint32(b[off:]))
	rest := uint64(len(b) - off - 4)
	if count*uint64(elemSize) > rest {
		return 0, decodeErr(section, -1, int64(off), fmt.Errorf(
			"count %d needs %d bytes but only %d remain: %w",
			count, count*uint64(elemSize), rest, errShort))
	}
	return int(count), nil
}
