package synth

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Shape files. A compiled Shape is written as a header followed by sections, all integers
// little-endian:
//
//	offset  size  field
//	0       8     magic "CUZKSHAP"
//	8       4     format version (ShapeFileVersion)
//	12      4     header size H in bytes, the header checksum included
//	16      8     NumInputs
//	24      8     NumAux
//	32      8     NumConstraints
//	40      4     colBits of the matrices
//	44      4     number of coefficients
//	48      4     chunk size in bytes (a power of two; see the checksums)
//	52      4     identity length L
//	56      L     identity (the caller's key for the circuit and its parameters)
//	…       8·3·S the section table, S = 14 sections in fixed order: kind, offset, length
//	              (each entry: 8-byte kind, 8-byte offset, 8-byte length)
//	…       4·K   CRC-32C of every chunk of every section, in section order
//	H−4     4     CRC-32C of the header's first H−4 bytes
//
// Sections start at offsets that are multiples of 64, in the order coeffs (32 bytes each, the
// canonical big-endian encoding of each coefficient), then for each of A, B, C the arrays
// described on Matrix: X.rowlen (a byte a row), X.blocks (uint32 word offsets of every RowBlock-th
// row, then the word count), X.long (the long rows' indices, then their lengths, uint32) and
// X.words (uint32), and last parallel (the layout of each CS.Parallel call: the number of calls,
// then per call the number of branches and per branch inStart, inCount, auxStart, auxCount and
// constraints, 8 bytes each). The file ends with the last section.
//
// Each section is checksummed in chunks of the chunk size (the last one shorter), so that a
// reader verifies the chunks on all cores. CRC-32C is the checksum because the standard library
// computes it with the processor's CRC32 instruction (amd64, arm64) at several GB/s a core; it
// detects every burst error up to 32 bits and is a corruption check, not an authentication: a
// file written by someone else is as trusted as its directory.
//
// The reader verifies the header, the identity, every chunk's checksum and then the structure
// (long rows and block offsets consistent with the row lengths, columns in range and increasing
// in every row, coefficient codes in the table, layouts within the counts), and recomputes the
// term counts and densities. Shape files are
// written and read on little-endian hosts only.
const ShapeFileVersion = 1

var shapeMagic = [8]byte{'C', 'U', 'Z', 'K', 'S', 'H', 'A', 'P'}

const (
	fixedHeaderSize   = 56
	sectionAlign      = 64
	shapeChunkSize    = 1 << 24
	maxIdentityLength = 1 << 16
)

var sectionNames = [...]string{"coeffs",
	"A.rowlen", "A.blocks", "A.long", "A.words",
	"B.rowlen", "B.blocks", "B.long", "B.words",
	"C.rowlen", "C.blocks", "C.long", "C.words",
	"parallel"}

const (
	numSections     = len(sectionNames)
	parallelSection = numSections - 1
)

// Parts of a matrix's sections: section 1 + 4·matrix + part.
const (
	partRowLen = iota
	partBlocks
	partLong
	partWords
)

func matrixSection(mi, part int) int { return 1 + 4*mi + part }

// Errors a shape file is refused with; a *ShapeFileError wraps one of them.
var (
	ErrShapeFileCorrupt  = errors.New("synth: shape file corrupt")
	ErrShapeFileVersion  = errors.New("synth: shape file of another format version")
	ErrShapeFileIdentity = errors.New("synth: shape file of another circuit")
)

// ShapeFileError says where a shape file was refused: the section ("header" for the header)
// and the byte offset in the file.
type ShapeFileError struct {
	Path    string // "" when reading from a reader
	Section string
	Offset  int64
	Err     error // wraps ErrShapeFileCorrupt, ErrShapeFileVersion, ErrShapeFileIdentity or an I/O error
}

func (e *ShapeFileError) Error() string {
	where := ""
	if e.Path != "" {
		where = e.Path + ": "
	}
	return fmt.Sprintf("synth: shape file %ssection %s at byte %d: %v", where, e.Section, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *ShapeFileError) Unwrap() error { return e.Err }

func corrupt(section string, off int64, format string, args ...any) error {
	return &ShapeFileError{Section: section, Offset: off, Err: fmt.Errorf("%w: %s", ErrShapeFileCorrupt, fmt.Sprintf(format, args...))}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

var errBigEndian = errors.New("synth: shape files are read and written on little-endian hosts only")

func u32Bytes(s []uint32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}

// shapeSections returns the sections' contents of s, in file order.
func shapeSections(s *Shape) [numSections][]byte {
	coeffs := make([]byte, 0, fr.Bytes*len(s.Coeffs))
	for i := range s.Coeffs {
		b := s.Coeffs[i].Bytes()
		coeffs = append(coeffs, b[:]...)
	}
	var par []byte
	par = binary.LittleEndian.AppendUint64(par, uint64(len(s.parallel)))
	for _, call := range s.parallel {
		par = binary.LittleEndian.AppendUint64(par, uint64(len(call)))
		for _, l := range call {
			for _, v := range []int{l.inStart, l.inCount, l.auxStart, l.auxCount, l.constraints} {
				par = binary.LittleEndian.AppendUint64(par, uint64(v))
			}
		}
	}
	var secs [numSections][]byte
	secs[0] = coeffs
	for mi, m := range []*Matrix{&s.A, &s.B, &s.C} {
		secs[matrixSection(mi, partRowLen)] = m.rowLen
		secs[matrixSection(mi, partBlocks)] = u32Bytes(m.blockPtr)
		secs[matrixSection(mi, partLong)] = u32Bytes(append(slices.Clip(m.longRows), m.longLens...))
		secs[matrixSection(mi, partWords)] = u32Bytes(m.words)
	}
	secs[parallelSection] = par
	return secs
}

// chunkRange is chunk c of a section of n bytes.
type chunkRange struct{ section, lo, hi int }

func chunksOf(lengths [numSections]int) []chunkRange {
	var cs []chunkRange
	for i, n := range lengths {
		for lo := 0; lo < n; lo += shapeChunkSize {
			cs = append(cs, chunkRange{i, lo, min(lo+shapeChunkSize, n)})
		}
	}
	return cs
}

func align(n int64) int64 { return (n + sectionAlign - 1) &^ (sectionAlign - 1) }

// WriteShape writes s to w in the shape file format (see ShapeFileVersion), under identity:
// the caller's key for the circuit and its parameters, which ReadShape requires back.
func WriteShape(w io.Writer, s *Shape, identity string) error {
	if !littleEndian {
		return errBigEndian
	}
	if len(identity) > maxIdentityLength {
		return fmt.Errorf("synth: write shape: identity of %d bytes, at most %d", len(identity), maxIdentityLength)
	}
	secs := shapeSections(s)
	var lengths [numSections]int
	for i := range secs {
		lengths[i] = len(secs[i])
	}
	chunks := chunksOf(lengths)
	crcs := make([]uint32, len(chunks))
	forEachPiece(len(chunks), func(c int) {
		ch := chunks[c]
		crcs[c] = crc32.Checksum(secs[ch.section][ch.lo:ch.hi], castagnoli)
	})
	headerSize := int64(fixedHeaderSize + len(identity) + 24*numSections + 4*len(chunks) + 4)
	h := make([]byte, 0, headerSize)
	h = append(h, shapeMagic[:]...)
	h = binary.LittleEndian.AppendUint32(h, ShapeFileVersion)
	h = binary.LittleEndian.AppendUint32(h, uint32(headerSize))
	h = binary.LittleEndian.AppendUint64(h, uint64(s.NumInputs))
	h = binary.LittleEndian.AppendUint64(h, uint64(s.NumAux))
	h = binary.LittleEndian.AppendUint64(h, uint64(s.NumConstraints))
	h = binary.LittleEndian.AppendUint32(h, uint32(s.A.colBits))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(s.Coeffs)))
	h = binary.LittleEndian.AppendUint32(h, shapeChunkSize)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(identity)))
	h = append(h, identity...)
	off := align(headerSize)
	var offsets [numSections]int64
	for i := range secs {
		offsets[i] = off
		h = binary.LittleEndian.AppendUint64(h, uint64(i+1))
		h = binary.LittleEndian.AppendUint64(h, uint64(off))
		h = binary.LittleEndian.AppendUint64(h, uint64(len(secs[i])))
		off = align(off + int64(len(secs[i])))
	}
	for _, c := range crcs {
		h = binary.LittleEndian.AppendUint32(h, c)
	}
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	bw := bufio.NewWriterSize(w, 1<<20)
	pos := int64(0)
	write := func(b []byte) error {
		n, err := bw.Write(b)
		pos += int64(n)
		return err
	}
	var zeros [sectionAlign]byte
	if err := write(h); err != nil {
		return fmt.Errorf("synth: write shape header: %w", err)
	}
	for i, sec := range secs {
		if err := write(zeros[:offsets[i]-pos]); err != nil {
			return fmt.Errorf("synth: write shape section %s: %w", sectionNames[i], err)
		}
		if err := write(sec); err != nil {
			return fmt.Errorf("synth: write shape section %s: %w", sectionNames[i], err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("synth: write shape: %w", err)
	}
	return nil
}

// WriteShapeFile writes s to path atomically: to a temporary file in the same directory,
// synced, then renamed over path (and the directory synced), so that path holds either the old
// file or the complete new one.
func WriteShapeFile(path string, s *Shape, identity string) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("synth: write shape file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = WriteShape(f, s, identity); err != nil {
		return fmt.Errorf("synth: write shape file %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("synth: sync shape file %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("synth: close shape file %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("synth: rename shape file into %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// ReadShapeFile reads the shape file at path, written under identity; see ReadShape.
func ReadShapeFile(path, identity string) (*Shape, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("synth: read shape file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("synth: read shape file: %w", err)
	}
	s, err := ReadShape(f, fi.Size(), identity)
	if fe := (*ShapeFileError)(nil); errors.As(err, &fe) {
		fe.Path = path
	}
	return s, err
}

// ReadShape reads a shape written by WriteShape under identity from r, of size bytes. It
// reads and verifies the sections on all cores. A file of another format version, another
// identity, a wrong checksum or an inconsistent structure is refused with a *ShapeFileError
// naming the section and byte offset; nothing of it is trusted before it is verified.
func ReadShape(r io.ReaderAt, size int64, identity string) (*Shape, error) {
	if !littleEndian {
		return nil, errBigEndian
	}
	fixed := make([]byte, fixedHeaderSize)
	if err := readAt(r, fixed, 0, size, "header"); err != nil {
		return nil, err
	}
	if [8]byte(fixed[:8]) != shapeMagic {
		return nil, corrupt("header", 0, "magic %q, want %q", fixed[:8], shapeMagic[:])
	}
	if v := binary.LittleEndian.Uint32(fixed[8:]); v != ShapeFileVersion {
		return nil, &ShapeFileError{Section: "header", Offset: 8, Err: fmt.Errorf("%w: version %d, this reader reads %d", ErrShapeFileVersion, v, ShapeFileVersion)}
	}
	headerSize := int64(binary.LittleEndian.Uint32(fixed[12:]))
	idLen := int64(binary.LittleEndian.Uint32(fixed[52:]))
	if idLen > maxIdentityLength {
		return nil, corrupt("header", 52, "identity of %d bytes, at most %d", idLen, maxIdentityLength)
	}
	minHeader := fixedHeaderSize + idLen + 24*int64(numSections) + 4
	if headerSize < minHeader || headerSize > size || headerSize > minHeader+4*(size/shapeChunkSize+int64(numSections)) {
		return nil, corrupt("header", 12, "header size %d inconsistent with a file of %d bytes", headerSize, size)
	}
	h := make([]byte, headerSize)
	if err := readAt(r, h, 0, size, "header"); err != nil {
		return nil, err
	}
	if got, want := crc32.Checksum(h[:headerSize-4], castagnoli), binary.LittleEndian.Uint32(h[headerSize-4:]); got != want {
		return nil, corrupt("header", headerSize-4, "checksum %08x, stored %08x", got, want)
	}
	if id := string(h[fixedHeaderSize : fixedHeaderSize+idLen]); id != identity {
		return nil, &ShapeFileError{Section: "header", Offset: fixedHeaderSize, Err: fmt.Errorf("%w: identity %q, want %q", ErrShapeFileIdentity, id, identity)}
	}
	u64 := func(off int64) uint64 { return binary.LittleEndian.Uint64(h[off:]) }
	nIn, nAux, nRows := u64(16), u64(24), u64(32)
	colBits := uint(binary.LittleEndian.Uint32(h[40:]))
	nCoeffs := uint64(binary.LittleEndian.Uint32(h[44:]))
	if c := binary.LittleEndian.Uint32(h[48:]); c != shapeChunkSize {
		return nil, corrupt("header", 48, "chunk size %d, want %d", c, shapeChunkSize)
	}
	// Counts: bounded by the file size before anything is allocated from them.
	if nIn < 1 || nIn+nAux > 1<<maxColBits || nIn+nAux < nIn {
		return nil, corrupt("header", 16, "%d inputs and %d aux variables", nIn, nAux)
	}
	if want := max(uint(bits32Len(nIn+nAux-1)), 1); colBits < want || colBits > maxColBits {
		return nil, corrupt("header", 40, "%d column bits for %d variables", colBits, nIn+nAux)
	}
	if nRows >= uint64(size)/4 || nCoeffs < 2 || nCoeffs > uint64(size)/fr.Bytes {
		return nil, corrupt("header", 32, "%d constraints and %d coefficients in a file of %d bytes", nRows, nCoeffs, size)
	}
	// The section table.
	var offsets [numSections]int64
	var lengths [numSections]int
	tab := fixedHeaderSize + idLen
	end := align(headerSize)
	for i := range numSections {
		e := tab + 24*int64(i)
		kind, off, n := u64(e), u64(e+8), u64(e+16)
		if kind != uint64(i+1) {
			return nil, corrupt("header", e, "section %d is of kind %d, want %d (%s)", i, kind, i+1, sectionNames[i])
		}
		if off != uint64(end) || n > uint64(size) || off+n > uint64(size) {
			return nil, corrupt("header", e+8, "section %s at %d, %d bytes: want offset %d within %d bytes", sectionNames[i], off, n, end, size)
		}
		offsets[i], lengths[i] = int64(off), int(n)
		end = align(int64(off + n))
		if i == numSections-1 {
			end = int64(off + n)
		}
	}
	if end != size {
		return nil, corrupt("header", tab, "sections end at %d in a file of %d bytes", end, size)
	}
	want := func(i int, n uint64) error {
		if uint64(lengths[i]) != n {
			return corrupt("header", tab+24*int64(i)+16, "section %s of %d bytes, want %d", sectionNames[i], lengths[i], n)
		}
		return nil
	}
	if err := want(0, fr.Bytes*nCoeffs); err != nil {
		return nil, err
	}
	nBlocks := (nRows + RowBlock - 1) / RowBlock
	for mi := range 3 {
		if err := want(matrixSection(mi, partRowLen), nRows); err != nil {
			return nil, err
		}
		if err := want(matrixSection(mi, partBlocks), 4*(nBlocks+1)); err != nil {
			return nil, err
		}
		for part, unit := range map[int]int{partLong: 8, partWords: 4} {
			if i := matrixSection(mi, part); lengths[i]%unit != 0 {
				return nil, corrupt("header", tab+24*int64(i)+16, "section %s of %d bytes, not a multiple of %d", sectionNames[i], lengths[i], unit)
			}
		}
	}
	chunks := chunksOf(lengths)
	if headerSize != fixedHeaderSize+idLen+24*int64(numSections)+4*int64(len(chunks))+4 {
		return nil, corrupt("header", 12, "header size %d for %d chunks", headerSize, len(chunks))
	}
	crcOff := tab + 24*int64(numSections)

	// Read and verify every chunk on all cores, straight into the arrays.
	var dst [numSections][]byte
	var mats [3]Matrix
	dst[0] = make([]byte, lengths[0])
	for mi := range mats {
		m := &mats[mi]
		m.rowLen = make([]byte, nRows)
		m.blockPtr = make([]uint32, nBlocks+1)
		long := make([]uint32, lengths[matrixSection(mi, partLong)]/4)
		if len(long) > 0 { // nil otherwise, as Compile leaves them
			m.longRows, m.longLens = long[:len(long)/2:len(long)/2], long[len(long)/2:]
		}
		m.words = make([]uint32, lengths[matrixSection(mi, partWords)]/4)
		dst[matrixSection(mi, partRowLen)] = m.rowLen
		dst[matrixSection(mi, partBlocks)] = u32Bytes(m.blockPtr)
		dst[matrixSection(mi, partLong)] = u32Bytes(long)
		dst[matrixSection(mi, partWords)] = u32Bytes(m.words)
	}
	dst[parallelSection] = make([]byte, lengths[parallelSection])
	coeffBytes, par := dst[0], dst[parallelSection]
	errs := make([]error, len(chunks))
	forEachPiece(len(chunks), func(c int) {
		ch := chunks[c]
		b := dst[ch.section][ch.lo:ch.hi]
		off := offsets[ch.section] + int64(ch.lo)
		if err := readAt(r, b, off, size, sectionNames[ch.section]); err != nil {
			errs[c] = err
			return
		}
		if got, want := crc32.Checksum(b, castagnoli), binary.LittleEndian.Uint32(h[crcOff+4*int64(c):]); got != want {
			errs[c] = corrupt(sectionNames[ch.section], off, "checksum of bytes %d..%d of the section is %08x, stored %08x", ch.lo, ch.hi, got, want)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	// The structure.
	s := &Shape{NumInputs: int(nIn), NumAux: int(nAux), NumConstraints: int(nRows), Coeffs: make([]fr.Element, nCoeffs)}
	for i := range s.Coeffs {
		if err := s.Coeffs[i].SetBytesCanonical(coeffBytes[fr.Bytes*i : fr.Bytes*(i+1)]); err != nil {
			return nil, corrupt("coeffs", offsets[0]+int64(fr.Bytes*i), "coefficient %d: %v", i, err)
		}
	}
	if !s.Coeffs[0].Equal(&frOne) || !s.Coeffs[1].Equal(&frMinus1) {
		return nil, corrupt("coeffs", offsets[0], "the table does not start with 1, −1")
	}
	s.ADensityAux, s.BDensityInput, s.BDensityAux = NewDensity(int(nAux)), NewDensity(int(nIn)), NewDensity(int(nAux))
	for mi, m := range []*Matrix{&s.A, &s.B, &s.C} {
		*m = mats[mi]
		m.colBits, m.coeffs = colBits, s.Coeffs
		var offs [4]int64
		for part := range offs {
			offs[part] = offsets[matrixSection(mi, part)]
		}
		n, err := s.verifyMatrix(mi, offs)
		if err != nil {
			return nil, err
		}
		m.terms = n
	}
	if err := s.readLayouts(par, offsets[parallelSection]); err != nil {
		return nil, err
	}
	return s, nil
}

func bits32Len(x uint64) int {
	n := 0
	for ; x != 0; x >>= 1 {
		n++
	}
	return n
}

// readAt fills b from r at off, an error naming section if the file is short or unreadable.
func readAt(r io.ReaderAt, b []byte, off, size int64, section string) error {
	if off+int64(len(b)) > size {
		return corrupt(section, off, "%d bytes needed, the file has %d", len(b), size)
	}
	if _, err := r.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return corrupt(section, off, "truncated: %v", err)
		}
		return &ShapeFileError{Section: section, Offset: off, Err: err}
	}
	return nil
}

// verifyMatrix checks matrix mi of s: its long rows (increasing, marked in rowLen, at least
// LongRow words), its block offsets, then every row on all cores (within its block, columns in
// range and strictly increasing, coefficient codes in the table, escapes canonical); it marks the
// densities and returns the number of terms. offs are the file offsets of the matrix's sections
// by part.
func (s *Shape) verifyMatrix(mi int, offs [4]int64) (int, error) {
	m := []*Matrix{&s.A, &s.B, &s.C}[mi]
	name := func(part int) string { return sectionNames[matrixSection(mi, part)] }
	nRows := s.NumConstraints
	nBlocks := len(m.blockPtr) - 1
	if m.blockPtr[0] != 0 {
		return 0, corrupt(name(partBlocks), offs[partBlocks], "first block at word %d, want 0", m.blockPtr[0])
	}
	if last := m.blockPtr[nBlocks]; int(last) != len(m.words) {
		return 0, corrupt(name(partBlocks), offs[partBlocks]+4*int64(nBlocks), "last offset %d, want %d words", last, len(m.words))
	}
	for b := 1; b <= nBlocks; b++ {
		if m.blockPtr[b] < m.blockPtr[b-1] {
			return 0, corrupt(name(partBlocks), offs[partBlocks]+4*int64(b), "block %d at word %d, before block %d at %d", b, m.blockPtr[b], b-1, m.blockPtr[b-1])
		}
	}
	if n := bytes.Count(m.rowLen, []byte{LongRow}); n != len(m.longRows) {
		return 0, corrupt(name(partRowLen), offs[partRowLen], "%d rows marked long, %d listed", n, len(m.longRows))
	}
	for i, r := range m.longRows {
		at := offs[partLong] + 4*int64(i)
		if int(r) >= nRows || m.rowLen[r] != LongRow || i > 0 && r <= m.longRows[i-1] {
			return 0, corrupt(name(partLong), at, "long row %d: row %d not increasing, beyond %d rows or not marked", i, r, nRows)
		}
		if m.longLens[i] < LongRow {
			return 0, corrupt(name(partLong), at+4*int64(len(m.longRows)), "long row %d: %d words", r, m.longLens[i])
		}
	}
	nIn := uint32(s.NumInputs)
	nVars := uint32(s.NumInputs + s.NumAux)
	mask, esc := uint32(1)<<m.colBits-1, m.escape()
	auxDens := s.ADensityAux
	if mi == 1 {
		auxDens = s.BDensityAux
	}
	nPieces := (nRows + pieceRows - 1) / pieceRows
	errs := make([]error, nPieces)
	terms := make([]int, nPieces)
	forEachPiece(nPieces, func(p int) {
		lo, hi := p*pieceRows, min((p+1)*pieceRows, nRows)
		long, _ := slices.BinarySearch(m.longRows, uint32(lo))
		c := cursor{k: m.blockPtr[lo/RowBlock], long: long}
		n := 0
		for r := lo; r < hi; r++ {
			if r%RowBlock == 0 && c.k != m.blockPtr[r/RowBlock] {
				errs[p] = corrupt(name(partBlocks), offs[partBlocks]+4*int64(r/RowBlock), "block %d at word %d, its rows start at %d", r/RowBlock, m.blockPtr[r/RowBlock], c.k)
				return
			}
			start := c.k
			end := uint64(start) + uint64(m.rowLength(r, &c))
			if end > uint64(m.blockPtr[min(r/RowBlock+1, nBlocks)]) {
				errs[p] = corrupt(name(partRowLen), offs[partRowLen]+int64(r), "row %d ends at word %d, beyond its block's end %d", r, end, m.blockPtr[min(r/RowBlock+1, nBlocks)])
				return
			}
			prev := int64(-1)
			for k := start; uint64(k) < end; k++ {
				x := m.words[k]
				col, code := x&mask, x>>m.colBits
				at := offs[partWords] + 4*int64(k)
				if col >= nVars || int64(col) <= prev {
					errs[p] = corrupt(name(partWords), at, "row %d: column %d after %d, %d variables", r, col, prev, nVars)
					return
				}
				prev = int64(col)
				if code == esc {
					k++
					if uint64(k) >= end || m.words[k] < esc || int(m.words[k]) >= len(s.Coeffs) {
						errs[p] = corrupt(name(partWords), at, "row %d: escaped coefficient missing, below the escape code or not in the table of %d", r, len(s.Coeffs))
						return
					}
				} else if int(code) >= len(s.Coeffs) {
					errs[p] = corrupt(name(partWords), at, "row %d: coefficient %d not in the table of %d", r, code, len(s.Coeffs))
					return
				}
				n++
				switch {
				case mi == 2:
				case col >= nIn:
					auxDens.setAtomic(int(col - nIn))
				case mi == 1:
					s.BDensityInput.setAtomic(int(col))
				}
			}
			c.k = uint32(end)
		}
		// Pieces are whole blocks (pieceRows is a multiple of RowBlock), except the last.
		if b := (hi + RowBlock - 1) / RowBlock; c.k != m.blockPtr[b] {
			errs[p] = corrupt(name(partBlocks), offs[partBlocks]+4*int64(b), "block %d at word %d, the rows before end at %d", b, m.blockPtr[b], c.k)
			return
		}
		terms[p] = n
	})
	total := 0
	for p := range errs {
		if errs[p] != nil {
			return 0, errs[p]
		}
		total += terms[p]
	}
	return total, nil
}

// readLayouts decodes the parallel section: every call's branches must be contiguous and lie
// within the shape's counts.
func (s *Shape) readLayouts(b []byte, off int64) error {
	pos := 0
	next := func() (uint64, bool) {
		if pos+8 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(b[pos:])
		pos += 8
		return v, true
	}
	calls, ok := next()
	if !ok || calls > uint64(len(b))/8 {
		return corrupt("parallel", off, "%d calls in %d bytes", calls, len(b))
	}
	limit := uint64(math.MaxInt32)
	for c := uint64(0); c < calls; c++ {
		at := off + int64(pos)
		n, ok := next()
		if !ok || n > uint64(len(b)-pos)/40 {
			return corrupt("parallel", at, "call %d: %d branches in the %d bytes left", c, n, len(b)-pos)
		}
		call := make([]branchLayout, n)
		for i := range call {
			at := off + int64(pos)
			var v [5]uint64
			for j := range v {
				v[j], _ = next()
				if v[j] > limit {
					return corrupt("parallel", at, "call %d branch %d: value %d out of range", c, i, v[j])
				}
			}
			l := branchLayout{int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4])}
			if l.inStart+l.inCount > s.NumInputs || l.auxStart+l.auxCount > s.NumAux || l.constraints > s.NumConstraints ||
				i > 0 && (l.inStart != call[i-1].inStart+call[i-1].inCount || l.auxStart != call[i-1].auxStart+call[i-1].auxCount) {
				return corrupt("parallel", at, "call %d branch %d: inputs %d+%d, aux %d+%d not contiguous or beyond %d inputs, %d aux", c, i, l.inStart, l.inCount, l.auxStart, l.auxCount, s.NumInputs, s.NumAux)
			}
			call[i] = l
		}
		s.parallel = append(s.parallel, call)
	}
	if pos != len(b) {
		return corrupt("parallel", off+int64(pos), "%d bytes left over", len(b)-pos)
	}
	return nil
}

// ShapeFileName returns the file name LoadOrCompile uses for key: "shape-" and the first 16
// bytes of SHA-256(key) in hex, ".cuzkshape".
func ShapeFileName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "shape-" + hex.EncodeToString(sum[:16]) + ".cuzkshape"
}

// LoadOrCompile returns the shape of circuit from the cache directory dir, where it is stored
// under key: the caller's name for the circuit and every parameter that changes its shape
// (e.g. "porep-32GiB-v1"; change it when the circuit's code changes). A missing file is
// compiled and stored; a file that is refused (corrupt, another format version, another key) is
// logged with its reason, compiled again and replaced. A nil logger discards the messages. An
// error is returned only when compiling fails; a shape that cannot be stored is still returned,
// after a warning.
func LoadOrCompile(dir, key string, circuit Circuit, logger *slog.Logger) (*Shape, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	path := filepath.Join(dir, ShapeFileName(key))
	s, err := ReadShapeFile(path, key)
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		logger.Warn("synth: shape cache refused, compiling again", "path", path, "key", key, "err", err)
	}
	s, err = Compile(circuit)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		logger.Warn("synth: shape cache not stored", "path", path, "err", err)
		return s, nil
	}
	if err := WriteShapeFile(path, s, key); err != nil {
		logger.Warn("synth: shape cache not stored", "path", path, "err", err)
		return s, nil
	}
	logger.Info("synth: shape compiled and cached", "path", path, "key", key, "bytes", s.Bytes())
	return s, nil
}
