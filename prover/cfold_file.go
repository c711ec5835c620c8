package prover

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"strings"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// Parameters FoldC returned live in one of two files, so that a process proves with them
// without folding again:
//
//   - a folded parameters file (WriteFoldedParametersFile, OpenFoldedParametersFile): the fold's
//     header, then the whole parameters in bellperson's encoding, L holding L' and H holding K
//     (m points);
//   - a fold overlay (FoldParametersOverlay, OpenFoldOverlay): the fold's header, then L' and K
//     alone, over the parameters file it was folded from, which stays as it is (24 GiB beside
//     the 47 GiB of a 32 GiB PoRep's file, instead of a second file of 47 GiB).
//
// The header, padded with zeros to a multiple of 4 KiB so that what follows starts on a page:
//
//	offset  size  field
//	0       8     magic: "CUZKFOLD" (folded parameters file) or "CUZKFOLL" (fold overlay)
//	8       4     version, u32 big-endian: 2 (1: C folded into L alone, H as it was)
//	12      4     k, the number of inputs (One first), u32 big-endian
//	16      32    the circuit's digest (FoldDigest)
//	48      32    an overlay's base: the SHA-256 of its parameters' identity (zeros in a
//	              folded parameters file)
//	80      96·k  CFold.Inputs, bellperson's uncompressed G1 encoding
//	80+96k  32    SHA-256 of the bytes before it
//
// An overlay then holds L' and K as two sections, each a u32 big-endian count, then the points
// (96 bytes each). A bellperson reader refuses either file: its magic is no verifying key.
const (
	foldedMagic   = "CUZKFOLD"
	overlayMagic  = "CUZKFOLL"
	foldedVersion = 2
	foldedFixed   = 80 // the header's bytes before the inputs
	foldedAlign   = 4096
)

// foldHeader returns the header of a file of magic for fold f over the base identity base
// (zeros for none).
func foldHeader(magic string, f *CFold, base [32]byte) []byte {
	n := foldedFixed + len(f.Inputs)*G1UncompressedSize + sha256.Size
	hdr := make([]byte, (n+foldedAlign-1)/foldedAlign*foldedAlign)
	copy(hdr, magic)
	binary.BigEndian.PutUint32(hdr[8:], foldedVersion)
	binary.BigEndian.PutUint32(hdr[12:], uint32(len(f.Inputs)))
	copy(hdr[16:48], f.Circuit[:])
	copy(hdr[48:80], base[:])
	EncodeG1Points(hdr[foldedFixed:], f.Inputs)
	end := foldedFixed + len(f.Inputs)*G1UncompressedSize
	sum := sha256.Sum256(hdr[:end])
	copy(hdr[end:], sum[:])
	return hdr
}

// parseFoldHeader reads the header of a file of magic at the start of b: the fold, the base it
// names and the header's length.
func parseFoldHeader(b []byte, magic string, mode DecodeMode) (f *CFold, base [32]byte, n int, err error) {
	if len(b) < foldedFixed || string(b[:8]) != magic {
		kind := map[string]string{foldedMagic: "folded parameters file", overlayMagic: "fold overlay"}[magic]
		return nil, base, 0, fmt.Errorf("not a %s (no %s magic at byte 0)", kind, magic)
	}
	switch v := binary.BigEndian.Uint32(b[8:]); v {
	case foldedVersion:
	case 1:
		return nil, base, 0, fmt.Errorf("version 1 at byte 8, want %d: a fold of C into L alone, without H on the coset; fold again", foldedVersion)
	default:
		return nil, base, 0, fmt.Errorf("version %d at byte 8, want %d", v, foldedVersion)
	}
	k := int(binary.BigEndian.Uint32(b[12:]))
	end := foldedFixed + k*G1UncompressedSize
	n = (end + sha256.Size + foldedAlign - 1) / foldedAlign * foldedAlign
	if n > len(b) {
		return nil, base, 0, fmt.Errorf("header of %d inputs (byte 12) needs %d bytes, the file has %d", k, n, len(b))
	}
	if sum := sha256.Sum256(b[:end]); !bytes.Equal(sum[:], b[end:end+sha256.Size]) {
		return nil, base, 0, fmt.Errorf("header checksum at byte %d does not match its bytes 0..%d", end, end)
	}
	if i := bytes.IndexFunc(b[end+sha256.Size:n], func(r rune) bool { return r != 0 }); i >= 0 {
		return nil, base, 0, fmt.Errorf("header padding at byte %d is not zero", end+sha256.Size+i)
	}
	f = &CFold{Inputs: make([]bls12381.G1Affine, k)}
	copy(f.Circuit[:], b[16:48])
	copy(base[:], b[48:80])
	for i := range f.Inputs {
		off := foldedFixed + i*G1UncompressedSize
		if err := decodeG1Uncompressed(&f.Inputs[i], b[off:off+G1UncompressedSize], mode); err != nil {
			return nil, base, 0, &DecodeError{Section: "c_fold inputs", Index: i, Offset: int64(off), Err: err}
		}
	}
	return f, base, n, nil
}

// WriteFoldedParametersFile writes p, parameters FoldC returned, to path as a folded parameters
// file (the format above), replacing any file there, through atomicfile.Write (a temporary file
// in the same directory, synced and renamed over path); permission 0644.
func (p *Parameters) WriteFoldedParametersFile(path string) error {
	if p.CFold == nil {
		return fmt.Errorf("write folded parameters file %s: the parameters are not folded (prover.FoldC)", path)
	}
	hdr := foldHeader(foldedMagic, p.CFold, [32]byte{})
	err := atomicfile.Write(path, func(w io.Writer) error {
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		_, err := p.writeEncoding(w)
		return err
	}, atomicfile.Overwrite())
	if err != nil {
		return fmt.Errorf("write folded parameters file %s: %w", path, err)
	}
	return nil
}

// OpenFoldedParametersFile maps the folded parameters file at path (WriteFoldedParametersFile)
// as OpenParametersFile maps a parameters file: its Parameters (and their decoded points) carry
// the fold, and prove as the parameters FoldC returned, for the circuit whose digest the header
// holds (CheckParameters refuses another). A file that is not one, or whose header is cut short,
// fails its checksum or holds a bad point, is refused with an error naming what and where.
func OpenFoldedParametersFile(path string, mode DecodeMode) (*MappedParameters, error) {
	return openMapped(path, "folded parameters file", func(b []byte) (*MappedParameters, error) { return mapFolded(b, mode) })
}

// mapFolded reads the header of a folded parameters file in b and maps the parameters after it.
func mapFolded(b []byte, mode DecodeMode) (*MappedParameters, error) {
	f, _, n, err := parseFoldHeader(b, foldedMagic, mode)
	if err != nil {
		return nil, err
	}
	m, err := MapParameters(b[n:], mode)
	if err != nil {
		return nil, fmt.Errorf("the parameters after the %d-byte header: %w", n, err)
	}
	m.fold = f
	return m, nil
}

// baseKey returns the SHA-256 of base's identity, which an overlay records.
func baseKey(base *MappedParameters) ([32]byte, error) {
	id, err := base.Identity()
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256([]byte(id)), nil
}

// FoldParametersOverlay folds the parameters mapped in base for shape (FoldC) and writes the
// fold overlay (the format above) to path, through atomicfile.Write. It decodes only H and L:
// at a 32 GiB PoRep partition it holds H, G, K, L and L' (12 GiB each) and C by columns (≈ 1
// GiB) on the heap, and, with the transforms on the CPU, 18 GiB of Jacobian points; opts as
// FoldC's.
func FoldParametersOverlay(ctx context.Context, base *MappedParameters, shape *synth.Shape, path string, opts ...FoldOption) error {
	var cfg foldConfig
	for _, o := range opts {
		o(&cfg)
	}
	if base.fold != nil {
		return fmt.Errorf("fold overlay %s: %w: the parameters are folded already", path, ErrFold)
	}
	if err := base.CheckFile(shape); err != nil {
		return fmt.Errorf("fold overlay %s: %w: %w", path, ErrFold, err)
	}
	key, err := baseKey(base)
	if err != nil {
		return fmt.Errorf("fold overlay %s: %w", path, err)
	}
	decode := func(sec primitive.Section) ([]bls12381.G1Affine, error) {
		pts := make([]bls12381.G1Affine, base.Len(sec))
		return pts, base.G1(sec, 0, pts)
	}
	h, err := decode(primitive.SectionH)
	if err != nil {
		return fmt.Errorf("fold overlay %s: %w", path, err)
	}
	f, err := foldPoints(ctx, shape, h, func() ([]bls12381.G1Affine, error) { return decode(primitive.SectionL) }, &cfg)
	if err != nil {
		return fmt.Errorf("fold overlay %s: %w", path, err)
	}
	hdr := foldHeader(overlayMagic, f.fold, key)
	err = atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if _, err := bw.Write(hdr); err != nil {
			return err
		}
		for _, pts := range [][]bls12381.G1Affine{f.l, f.h} {
			_, err := writePoints(bw, nil, len(pts), runtime.GOMAXPROCS(0)*decodeChunk, G1UncompressedSize,
				func(int, int) error { return nil }, func(dst []byte, i int) { putG1Uncompressed(dst, &pts[i]) })
			if err != nil {
				return err
			}
		}
		return bw.Flush()
	}, atomicfile.Overwrite())
	if err != nil {
		return fmt.Errorf("write fold overlay %s: %w", path, err)
	}
	return nil
}

// foldSection is a section that folded parameters replace: which, its name in errors (name as a
// DecodeError's section, what for people) and its point count over base.
type foldSection struct {
	s          primitive.Section
	name, what string
	want       int
}

// foldSections are the sections a fold overlay holds, in its order: L' (one point per aux
// variable, as L) and K (H's m − 1 points and one more).
func foldSections(base *MappedParameters) [2]foldSection {
	return [2]foldSection{
		{primitive.SectionL, "l", "L'", base.Len(primitive.SectionL)},
		{primitive.SectionH, "h", "K (H on the coset)", base.Len(primitive.SectionH) + 1},
	}
}

// OpenFoldOverlay maps the fold overlay at path over base, the parameters it was folded from
// (FoldParametersOverlay): the result reads A, B_G1 and B_G2 from base and L' and K from the
// overlay, carries the fold, and proves as FoldC's parameters would. base must stay open while
// the result is used; closing the result unmaps the overlay only. An overlay folded from other
// parameters, or that is damaged, is refused with an error naming what and where.
func OpenFoldOverlay(base *MappedParameters, path string, mode DecodeMode) (*MappedParameters, error) {
	return openMapped(path, "fold overlay", func(b []byte) (*MappedParameters, error) { return overlay(base, b, mode) })
}

// overlay maps the fold overlay in b over base.
func overlay(base *MappedParameters, b []byte, mode DecodeMode) (*MappedParameters, error) {
	f, key, n, err := parseFoldHeader(b, overlayMagic, mode)
	if err != nil {
		return nil, err
	}
	want, err := baseKey(base)
	if err != nil {
		return nil, err
	}
	if key != want {
		id, _ := base.Identity()
		return nil, fmt.Errorf("folded from other parameters (base %s… at byte 48, these are %s)",
			hex.EncodeToString(key[:8]), strings.TrimPrefix(id, "sha256:")[:16])
	}
	m := &MappedParameters{VK: base.VK, b: b, secs: base.secs, sb: base.sb, mode: mode, fold: f, base: base}
	off := n
	for _, sec := range foldSections(base) {
		count, err := readCount(b, off, sec.name, G1UncompressedSize)
		if err != nil {
			return nil, err
		}
		if count != sec.want {
			return nil, fmt.Errorf("%s has %d points (byte %d), want %d for these parameters", sec.what, count, off, sec.want)
		}
		m.secs[sec.s] = paramSection{name: sec.name, start: off + 4, count: count, size: G1UncompressedSize}
		m.sb[sec.s] = b
		off += 4 + count*G1UncompressedSize
	}
	if off != len(b) {
		return nil, fmt.Errorf("%d bytes after K at byte %d", len(b)-off, off)
	}
	m.g1, m.g2 = pointDecoders(mode)
	return m, nil
}

// WithFold returns base with fold f over it as a fold overlay would map it (OpenFoldOverlay),
// from points held in memory: K from h and L' from l, each its points in bellperson's
// uncompressed G1 encoding (EncodeG1Points, 96 bytes a point), or base's L where l is nil. It
// serves folds that never reach a file (devsetup.RandomFold); l and h must not change while the
// result is used, and base must stay open. Counts that do not fit base are refused.
func (base *MappedParameters) WithFold(f *CFold, l, h []byte) (*MappedParameters, error) {
	if base.fold != nil {
		return nil, fmt.Errorf("%w: the parameters are folded already", ErrFold)
	}
	m := &MappedParameters{VK: base.VK, b: base.b, secs: base.secs, sb: base.sb, mode: base.mode, fold: f, base: base}
	for i, sec := range foldSections(base) {
		b := [...][]byte{l, h}[i]
		if b == nil && sec.s == primitive.SectionL {
			continue
		}
		if len(b) != sec.want*G1UncompressedSize {
			return nil, fmt.Errorf("%w: %s has %d bytes, want %d points of %d", ErrFold, sec.what, len(b), sec.want, G1UncompressedSize)
		}
		m.secs[sec.s] = paramSection{name: sec.name, count: sec.want, size: G1UncompressedSize}
		m.sb[sec.s] = b
	}
	m.g1, m.g2 = pointDecoders(base.mode)
	return m, nil
}
