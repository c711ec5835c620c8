package prover

import (
	"runtime"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Encoded sizes in bytes of BLS12-381 points in the zcash/bellperson encoding: big-endian
// coordinates, G2 coordinates as c1‖c0, and three flag bits in the top of byte 0
// (0x80 compressed, 0x40 infinity, 0x20 y is the lexicographically larger root).
const (
	G1UncompressedSize = 96
	G2UncompressedSize = 192
	G1CompressedSize   = 48
	G2CompressedSize   = 96
)

// Flag bits in byte 0 of a zcash-encoded point.
const (
	flagCompressed = 0x80
	flagInfinity   = 0x40
	flagSort       = 0x20
	flagMask       = flagCompressed | flagInfinity | flagSort
)

// DecodeMode selects how much validation point decoding performs. The zero value is Checked.
type DecodeMode uint8

const (
	// Checked verifies, for every point: the flag bits, that each coordinate is canonical
	// (< p), that the point is on the curve, and that it lies in the prime-order subgroup
	// (G1 or G2). Use it for any file not produced by a trusted party.
	Checked DecodeMode = iota
	// Unchecked verifies the flag bits, canonical coordinates and the curve equation
	// (a few field multiplications per point), but skips the subgroup check, which dominates
	// the cost. A point on the curve but outside the subgroup (the cofactor part) is accepted;
	// proving with such a point yields a proof that does not verify rather than an unsound
	// one, but only use Unchecked on parameter files whose digest you have checked.
	Unchecked
)

// String returns "checked" or "unchecked".
func (m DecodeMode) String() string {
	switch m {
	case Checked:
		return "checked"
	case Unchecked:
		return "unchecked"
	}
	return "DecodeMode(?)"
}

// readFp parses 48 big-endian bytes as a canonical base-field element; the flag bits must
// already be cleared by the caller where they share the byte.
func readFp(z *fp.Element, b []byte) error {
	v, err := fp.BigEndian.Element((*[fp.Bytes]byte)(b[:fp.Bytes]))
	if err != nil {
		return errNonCanonical
	}
	*z = v
	return nil
}

// isZero reports whether every byte of b is zero.
func isZero(b []byte) bool {
	var acc byte
	for _, c := range b {
		acc |= c
	}
	return acc == 0
}

// uncompressedFlags checks the flag bits of an uncompressed encoding of size bytes at the start
// of b and reports whether it is the point at infinity (0x40 followed by zeros).
func uncompressedFlags(b []byte, size int) (infinity bool, err error) {
	if len(b) < size {
		return false, errShort
	}
	flags := b[0] & flagMask
	switch {
	case flags&flagCompressed != 0:
		return false, errCompressedFlag
	case flags&flagSort != 0:
		return false, errSortFlag
	case flags&flagInfinity != 0:
		if b[0]&^flagMask != 0 || !isZero(b[1:size]) {
			return false, errInfinityBits
		}
		return true, nil
	}
	return false, nil
}

// decodeG1Uncompressed sets p from the 96-byte uncompressed encoding x‖y in b. Infinity is
// the byte 0x40 followed by zeros. It never panics: a short b returns errShort.
func decodeG1Uncompressed(p *bls12381.G1Affine, b []byte, mode DecodeMode) error {
	if inf, err := uncompressedFlags(b, G1UncompressedSize); err != nil || inf {
		if inf {
			p.X.SetZero()
			p.Y.SetZero()
		}
		return err
	}
	if err := readFlaggedFp(&p.X, b); err != nil {
		return err
	}
	if err := readFp(&p.Y, b[fp.Bytes:2*fp.Bytes]); err != nil {
		return err
	}
	// (0,0) is not on the curve (0 ≠ 4) but is gnark-crypto's in-memory infinity: the curve
	// check below rejects it, which is why Unchecked keeps the curve check.
	if p.IsInfinity() || !p.IsOnCurve() {
		return errNotOnCurve
	}
	if mode == Checked && !p.IsInSubGroup() {
		return errNotInSubgroup
	}
	return nil
}

// decodeG2Uncompressed sets p from the 192-byte uncompressed encoding
// x.c1‖x.c0‖y.c1‖y.c0 in b.
func decodeG2Uncompressed(p *bls12381.G2Affine, b []byte, mode DecodeMode) error {
	if inf, err := uncompressedFlags(b, G2UncompressedSize); err != nil || inf {
		if inf {
			p.X.SetZero()
			p.Y.SetZero()
		}
		return err
	}
	if err := readFlaggedFp(&p.X.A1, b); err != nil {
		return err
	}
	if err := readFp(&p.X.A0, b[fp.Bytes:2*fp.Bytes]); err != nil {
		return err
	}
	if err := readFp(&p.Y.A1, b[2*fp.Bytes:3*fp.Bytes]); err != nil {
		return err
	}
	if err := readFp(&p.Y.A0, b[3*fp.Bytes:4*fp.Bytes]); err != nil {
		return err
	}
	if p.IsInfinity() || !p.IsOnCurve() {
		return errNotOnCurve
	}
	if mode == Checked && !p.IsInSubGroup() {
		return errNotInSubgroup
	}
	return nil
}

// g1B is the curve constant b = 4 of E: y² = x³ + 4.
var g1B = func() (b fp.Element) { b.SetUint64(4); return }()

// g2B is the twist constant b' = 4(1+u) of E': y² = x³ + 4(1+u).
var g2B = func() (b bls12381.E2) { b.A0.SetUint64(4); b.A1.SetUint64(4); return }()

// compressedFlags checks the flag bits of a compressed encoding of size bytes at the start of b,
// returns them and reports whether it is the point at infinity (0xc0 followed by zeros), which
// only allowInfinity accepts.
func compressedFlags(b []byte, size int, allowInfinity bool) (flags byte, infinity bool, err error) {
	if len(b) < size {
		return 0, false, errShort
	}
	flags = b[0] & flagMask
	if flags&flagCompressed == 0 {
		return 0, false, errCompressedFlag
	}
	if flags&flagInfinity != 0 {
		if flags&flagSort != 0 || b[0]&^flagMask != 0 || !isZero(b[1:size]) {
			return 0, false, errInfinityBits
		}
		if !allowInfinity {
			return 0, false, errInfinity
		}
		return flags, true, nil
	}
	return flags, false, nil
}

// readFlaggedFp reads the first field element of b, whose top three bits hold the flags.
func readFlaggedFp(z *fp.Element, b []byte) error {
	var xb [fp.Bytes]byte
	copy(xb[:], b[:fp.Bytes])
	xb[0] &^= flagMask
	return readFp(z, xb[:])
}

// decodeG1Compressed sets p from the 48-byte compressed encoding in b: x with flags, y
// recovered as the square root selected by the sort flag. The point is on the curve by
// construction; mode decides the subgroup check. allowInfinity=false rejects 0xc0‖0….
func decodeG1Compressed(p *bls12381.G1Affine, b []byte, mode DecodeMode, allowInfinity bool) error {
	flags, inf, err := compressedFlags(b, G1CompressedSize, allowInfinity)
	if err != nil || inf {
		if inf {
			p.X.SetZero()
			p.Y.SetZero()
		}
		return err
	}
	if err := readFlaggedFp(&p.X, b); err != nil {
		return err
	}
	var y2, y fp.Element
	y2.Square(&p.X).Mul(&y2, &p.X).Add(&y2, &g1B)
	if y.Sqrt(&y2) == nil {
		return errNoSqrt
	}
	if y.LexicographicallyLargest() != (flags&flagSort != 0) {
		y.Neg(&y)
	}
	p.Y = y
	if mode == Checked && !p.IsInSubGroup() {
		return errNotInSubgroup
	}
	return nil
}

// decodeG2Compressed sets p from the 96-byte compressed encoding x.c1‖x.c0 in b.
func decodeG2Compressed(p *bls12381.G2Affine, b []byte, mode DecodeMode, allowInfinity bool) error {
	flags, inf, err := compressedFlags(b, G2CompressedSize, allowInfinity)
	if err != nil || inf {
		if inf {
			p.X.SetZero()
			p.Y.SetZero()
		}
		return err
	}
	if err := readFlaggedFp(&p.X.A1, b); err != nil {
		return err
	}
	if err := readFp(&p.X.A0, b[fp.Bytes:2*fp.Bytes]); err != nil {
		return err
	}
	var y2, y, chk bls12381.E2
	y2.Square(&p.X).Mul(&y2, &p.X).Add(&y2, &g2B)
	// Verify the root rather than trust Sqrt on a non-residue.
	y.Sqrt(&y2)
	if !chk.Square(&y).Equal(&y2) {
		return errNoSqrt
	}
	if y.LexicographicallyLargest() != (flags&flagSort != 0) {
		y.Neg(&y)
	}
	p.Y = y
	if mode == Checked && !p.IsInSubGroup() {
		return errNotInSubgroup
	}
	return nil
}

// putG1Uncompressed writes the 96-byte uncompressed encoding of p into dst[:96].
// gnark-crypto's RawBytes is the zcash encoding (checked against external vectors).
func putG1Uncompressed(dst []byte, p *bls12381.G1Affine) {
	raw := p.RawBytes()
	copy(dst[:G1UncompressedSize], raw[:])
}

// putG2Uncompressed writes the 192-byte uncompressed encoding of p into dst[:192].
func putG2Uncompressed(dst []byte, p *bls12381.G2Affine) {
	raw := p.RawBytes()
	copy(dst[:G2UncompressedSize], raw[:])
}

// EncodeG1Points writes the uncompressed encodings of pts (G1UncompressedSize bytes each, as a
// parameters file stores them) into dst[:len(pts)·G1UncompressedSize], on all cores.
func EncodeG1Points(dst []byte, pts []bls12381.G1Affine) {
	encodeParallel(dst, len(pts), G1UncompressedSize, func(d []byte, i int) { putG1Uncompressed(d, &pts[i]) })
}

// EncodeG2Points is EncodeG1Points on G2 (G2UncompressedSize bytes a point).
func EncodeG2Points(dst []byte, pts []bls12381.G2Affine) {
	encodeParallel(dst, len(pts), G2UncompressedSize, func(d []byte, i int) { putG2Uncompressed(d, &pts[i]) })
}

// encodeParallel calls put(dst[i·size:], i) for i < n, split across GOMAXPROCS goroutines in
// chunks of at most decodeChunk (a small n is still spread over every goroutine).
func encodeParallel(dst []byte, n, size int, put func(dst []byte, i int)) {
	workers := runtime.GOMAXPROCS(0)
	chunk := max(1, min(decodeChunk, (n+workers-1)/workers))
	var wg sync.WaitGroup
	for c := 0; c < n; c += chunk {
		ce := min(c+chunk, n)
		wg.Go(func() {
			for i := c; i < ce; i++ {
				put(dst[i*size:], i)
			}
		})
	}
	wg.Wait()
}
