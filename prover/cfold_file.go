package prover

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
)

// A folded parameters file holds parameters FoldC returned, so that a process proves with them
// without folding again: a header, then the parameters in bellperson's encoding (L holding
// L_k + Q_k), starting on a 4 KiB boundary. The header:
//
//	offset  size  field
//	0       8     magic "CUZKFOLD"
//	8       4     version, u32 big-endian: 1
//	12      4     k, the number of inputs (One first), u32 big-endian
//	16      32    the circuit's digest (FoldDigest)
//	48      96·k  CFold.Inputs, bellperson's uncompressed G1 encoding
//	48+96k  32    SHA-256 of the bytes before it
//	…             zeros up to the next multiple of 4096
//
// A bellperson reader refuses the file (its magic is no verifying key), so its L is never taken
// for the setup's.
const (
	foldedMagic   = "CUZKFOLD"
	foldedVersion = 1
	foldedFixed   = 48 // the header's bytes before the inputs
	foldedAlign   = 4096
)

// foldedHeaderLen returns the length of the header of a file with k inputs, padding included.
func foldedHeaderLen(k int) int {
	n := foldedFixed + k*G1UncompressedSize + sha256.Size
	return (n + foldedAlign - 1) / foldedAlign * foldedAlign
}

// WriteFoldedParametersFile writes p, parameters FoldC returned, to path as a folded parameters
// file (the format above), replacing any file there, through atomicfile.Write (a temporary file
// in the same directory, synced and renamed over path); permission 0644.
func (p *Parameters) WriteFoldedParametersFile(path string) error {
	f := p.CFold
	if f == nil {
		return fmt.Errorf("write folded parameters file %s: the parameters are not folded (prover.FoldC)", path)
	}
	hdr := make([]byte, foldedHeaderLen(len(f.Inputs)))
	copy(hdr, foldedMagic)
	binary.BigEndian.PutUint32(hdr[8:], foldedVersion)
	binary.BigEndian.PutUint32(hdr[12:], uint32(len(f.Inputs)))
	copy(hdr[16:48], f.Circuit[:])
	EncodeG1Points(hdr[foldedFixed:], f.Inputs)
	end := foldedFixed + len(f.Inputs)*G1UncompressedSize
	sum := sha256.Sum256(hdr[:end])
	copy(hdr[end:], sum[:])
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
	b, release, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("open folded parameters file: %w", err)
	}
	m, err := mapFolded(b, mode)
	if err != nil {
		if rerr := release(); rerr != nil {
			err = fmt.Errorf("%w (and %v)", err, rerr)
		}
		return nil, fmt.Errorf("open folded parameters file %s: %w", path, err)
	}
	m.release = release
	return m, nil
}

// mapFolded reads the header of a folded parameters file in b and maps the parameters after it.
func mapFolded(b []byte, mode DecodeMode) (*MappedParameters, error) {
	if len(b) < foldedFixed || string(b[:8]) != foldedMagic {
		return nil, errors.New("not a folded parameters file (no CUZKFOLD magic at byte 0)")
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != foldedVersion {
		return nil, fmt.Errorf("folded parameters version %d at byte 8, want %d", v, foldedVersion)
	}
	k := int(binary.BigEndian.Uint32(b[12:]))
	hl := foldedHeaderLen(k)
	if hl > len(b) {
		return nil, fmt.Errorf("header of %d inputs (byte 12) needs %d bytes, the file has %d", k, hl, len(b))
	}
	end := foldedFixed + k*G1UncompressedSize
	if sum := sha256.Sum256(b[:end]); !bytes.Equal(sum[:], b[end:end+sha256.Size]) {
		return nil, fmt.Errorf("header checksum at byte %d does not match its bytes 0..%d", end, end)
	}
	if i := bytes.IndexFunc(b[end+sha256.Size:hl], func(r rune) bool { return r != 0 }); i >= 0 {
		return nil, fmt.Errorf("header padding at byte %d is not zero", end+sha256.Size+i)
	}
	f := &CFold{Inputs: make([]bls12381.G1Affine, k)}
	copy(f.Circuit[:], b[16:48])
	for i := range f.Inputs {
		off := foldedFixed + i*G1UncompressedSize
		if err := decodeG1Uncompressed(&f.Inputs[i], b[off:off+G1UncompressedSize], mode); err != nil {
			return nil, &DecodeError{Section: "c_fold inputs", Index: i, Offset: int64(off), Err: err}
		}
	}
	m, err := MapParameters(b[hl:], mode)
	if err != nil {
		return nil, fmt.Errorf("the parameters after the %d-byte header: %w", hl, err)
	}
	m.fold = f
	return m, nil
}
