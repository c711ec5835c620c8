package prover

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/prover/primitive"
)

// Parameters file layout (bellperson src/groth16/params.rs, Parameters::write and ::read):
//
//	vk (868 + 96·|IC| bytes, see VerifyingKey)
//	u32-BE |H|    ‖ H    points, G1 uncompressed (96 B each)
//	u32-BE |L|    ‖ L    points, G1 uncompressed
//	u32-BE |A|    ‖ A    points, G1 uncompressed
//	u32-BE |B_G1| ‖ B_G1 points, G1 uncompressed
//	u32-BE |B_G2| ‖ B_G2 points, G2 uncompressed (192 B each)
//
// followed by anything (the Zcash and Filecoin files carry an MPC transcript). bellperson
// rejects points at infinity in all five sections, in both its checked and unchecked reads,
// and so does DecodeParameters.

// decodeChunk is the number of points one goroutine decodes or encodes at a time.
const decodeChunk = 1 << 13

// growLimit bounds the memory spent on points not yet validated: a section's slice grows by
// doubling and is only allocated at its full count once the points validated so far fill at
// least 1/growLimit of it.
const growLimit = 8

// paramSection describes one point section of a parameters encoding.
type paramSection struct {
	name  string
	start int // byte offset of the first point
	count int
	size  int // bytes per point
}

// DecodeParameters decodes bellperson-encoded parameters from b. Bytes after the b_g2
// section are ignored. The section counts are first checked against len(b); then the
// sections are decoded in file order, in batches of GOMAXPROCS·decodeChunk points decoded in
// parallel. A section's slice grows with the points validated so far (doubling, and at most
// growLimit times their number plus one batch), so a file whose counts match its size but
// whose points are garbage, such as a large sparse file, fails at its first bad batch with
// little memory spent. On malformed input it returns a *DecodeError (wrapping ErrFormat) for
// the lowest-offset fault; it never panics.
func DecodeParameters(b []byte, mode DecodeMode) (*Parameters, error) {
	vk, secs, err := parseLayout(b, mode)
	if err != nil {
		return nil, err
	}
	p := &Parameters{VK: *vk}
	g1, g2 := pointDecoders(mode)
	for i, dst := range [4]*[]bls12381.G1Affine{&p.H, &p.L, &p.A, &p.BG1} {
		if *dst, err = decodeSection(b, secs[i], g1); err != nil {
			return nil, err
		}
	}
	if p.BG2, err = decodeSection(b, secs[4], g2); err != nil {
		return nil, err
	}
	return p, nil
}

// parseLayout decodes the verifying key of a parameters encoding and locates its five point
// sections (h, l, a, b_g1, b_g2, in file order), checking their counts against len(b).
func parseLayout(b []byte, mode DecodeMode) (*VerifyingKey, [5]paramSection, error) {
	secs := [5]paramSection{
		{name: "h", size: G1UncompressedSize},
		{name: "l", size: G1UncompressedSize},
		{name: "a", size: G1UncompressedSize},
		{name: "b_g1", size: G1UncompressedSize},
		{name: "b_g2", size: G2UncompressedSize},
	}
	vk, off, err := decodeVK(b, mode)
	if err != nil {
		return nil, secs, err
	}
	for i := range secs {
		n, err := readCount(b, off, secs[i].name, secs[i].size)
		if err != nil {
			return nil, secs, err
		}
		secs[i].start = off + 4
		secs[i].count = n
		off = secs[i].start + n*secs[i].size
	}
	return vk, secs, nil
}

// pointDecoders returns the decoders of one G1 and one G2 point of a parameters section:
// uncompressed, checked as mode says, never the point at infinity.
func pointDecoders(mode DecodeMode) (g1 func(*bls12381.G1Affine, []byte) error, g2 func(*bls12381.G2Affine, []byte) error) {
	g1 = func(q *bls12381.G1Affine, at []byte) error {
		if err := decodeG1Uncompressed(q, at, mode); err != nil {
			return err
		}
		if q.IsInfinity() {
			return errInfinity
		}
		return nil
	}
	g2 = func(q *bls12381.G2Affine, at []byte) error {
		if err := decodeG2Uncompressed(q, at, mode); err != nil {
			return err
		}
		if q.IsInfinity() {
			return errInfinity
		}
		return nil
	}
	return g1, g2
}

// decodeSection decodes the s.count points of section s from b with decode, in batches of
// GOMAXPROCS·decodeChunk points, each batch split across GOMAXPROCS goroutines in chunks of
// at most decodeChunk. The slice grows as batches validate (see growLimit). It returns the
// lowest-offset fault as a *DecodeError; batches after a faulty one are not decoded.
func decodeSection[T any](b []byte, s paramSection, decode func(p *T, at []byte) error) ([]T, error) {
	batch := runtime.GOMAXPROCS(0) * decodeChunk
	var pts []T
	for lo := 0; lo < s.count; lo += batch {
		hi := min(lo+batch, s.count)
		pts = growPoints(pts, hi, s.count)
		if err := decodeRange(b, s, lo, pts[lo:hi], decode); err != nil {
			return nil, err
		}
	}
	if pts == nil {
		pts = []T{}
	}
	return pts, nil
}

// decodeRange decodes points lo … lo+len(dst)−1 of section s into dst, split across
// GOMAXPROCS goroutines in chunks of at most decodeChunk, and returns the lowest-offset fault
// as a *DecodeError (nil when there is none). The caller checked the range against s.count.
func decodeRange[T any](b []byte, s paramSection, lo int, dst []T, decode func(p *T, at []byte) error) error {
	workers := runtime.GOMAXPROCS(0)
	hi := lo + len(dst)
	var (
		mu       sync.Mutex
		firstErr *DecodeError
	)
	// A range smaller than a full batch (a small section, or the last batch) is still spread
	// over every goroutine.
	chunk := max(1, min(decodeChunk, (hi-lo+workers-1)/workers))
	var wg sync.WaitGroup
	for c := lo; c < hi; c += chunk {
		ce := min(c+chunk, hi)
		wg.Go(func() {
			for i := c; i < ce; i++ {
				at := s.start + i*s.size
				if err := decode(&dst[i-lo], b[at:at+s.size]); err != nil {
					e := decodeErr(s.name, i, int64(at), err)
					mu.Lock()
					if firstErr == nil || e.Offset < firstErr.Offset {
						firstErr = e
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return nil
}

// growPoints returns pts resliced to n points, reallocating when n exceeds its capacity: to
// twice the capacity (at least n), or to the section's full count once that is at most
// growLimit times the current capacity. The points of the old length are kept.
func growPoints[T any](pts []T, n, count int) []T {
	if n <= cap(pts) {
		return pts[:n]
	}
	c := max(2*cap(pts), n)
	if c >= count || cap(pts)*growLimit >= count {
		c = count
	}
	grown := make([]T, n, c)
	copy(grown, pts)
	return grown
}

// ReadParametersFile memory-maps the bellperson parameters file at path (a plain read on
// systems without mmap), decodes it with DecodeParameters, and unmaps it: the returned
// Parameters hold their own decoded points. The file must not be truncated while it is read.
func ReadParametersFile(path string, mode DecodeMode) (*Parameters, error) {
	b, release, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("read parameters file: %w", err)
	}
	p, err := DecodeParameters(b, mode)
	if rerr := release(); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("read parameters file %s: %w", path, err)
	}
	return p, nil
}

// EncodedSize returns the length in bytes of the bellperson encoding of p:
// the vk, then 5 counts of 4 bytes, 96 bytes per G1 point and 192 per G2 point.
func (p *Parameters) EncodedSize() int64 {
	n := int64(p.VK.EncodedSize()) + 5*4
	for sec := primitive.SectionH; sec <= primitive.SectionBG1; sec++ {
		n += int64(p.Len(sec)) * G1UncompressedSize
	}
	n += int64(p.Len(primitive.SectionBG2)) * G2UncompressedSize
	return n
}

// countWriter counts the bytes that reach the underlying writer.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// WriteTo streams the bellperson encoding of p to w through a buffer, encoding each batch
// of points in parallel, and returns the number of bytes written (EncodedSize on success).
// Mapped parameters are decoded a batch at a time and written as decoded parameters would be.
// Parameters with C folded into L (FoldC) are refused: bellperson's format has no place for the
// fold, and their L is no longer the setup's.
func (p *Parameters) WriteTo(w io.Writer) (int64, error) {
	if p.CFold != nil {
		return 0, fmt.Errorf("encode parameters: C is folded into L (prover.FoldC), which bellperson's format cannot say: write them with WriteFoldedParametersFile, or write the parameters before folding")
	}
	return p.writeEncoding(w)
}

// writeEncoding is WriteTo without the refusal of folded parameters (whose file holds the
// encoding after a header of its own: WriteFoldedParametersFile).
func (p *Parameters) writeEncoding(w io.Writer) (int64, error) {
	for sec := primitive.SectionH; sec <= primitive.SectionBG2; sec++ {
		if n := p.Len(sec); uint64(n) > math.MaxUint32 {
			return 0, fmt.Errorf("encode parameters section %q: %d points exceed the u32 count", sec, n)
		}
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	vkb, err := p.VK.MarshalBinary()
	if err != nil {
		return 0, err
	}
	if _, err := bw.Write(vkb); err != nil {
		return cw.n, fmt.Errorf("write parameters vk: %w", err)
	}
	var buf []byte
	for sec := primitive.SectionH; sec <= primitive.SectionBG2; sec++ {
		if buf, err = p.writeSection(bw, buf, sec); err != nil {
			return cw.n, fmt.Errorf("write parameters section %q: %w", sec, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("write parameters: %w", err)
	}
	return cw.n, nil
}

// writeSection writes section sec of p with writePoints: from its slice, or, for mapped
// parameters, from batches decoded one at a time.
func (p *Parameters) writeSection(w io.Writer, buf []byte, sec primitive.Section) ([]byte, error) {
	n := p.Len(sec)
	batch := min(n, runtime.GOMAXPROCS(0)*decodeChunk)
	if sec == primitive.SectionBG2 {
		pts, lo, load := p.BG2, 0, func(int, int) error { return nil }
		if p.mapped != nil {
			pts = make([]bls12381.G2Affine, batch)
			load = func(from, to int) error { lo = from; return p.mapped.G2(from, pts[:to-from]) }
		}
		return writePoints(w, buf, n, batch, G2UncompressedSize, load, func(dst []byte, i int) {
			putG2Uncompressed(dst, &pts[i-lo])
		})
	}
	pts, lo, load := p.g1Slice(sec), 0, func(int, int) error { return nil }
	if p.mapped != nil {
		pts = make([]bls12381.G1Affine, batch)
		load = func(from, to int) error { lo = from; return p.mapped.G1(sec, from, pts[:to-from]) }
	}
	return writePoints(w, buf, n, batch, G1UncompressedSize, load, func(dst []byte, i int) {
		putG1Uncompressed(dst, &pts[i-lo])
	})
}

// writePoints writes the u32-BE count n, then the n points in batches of at most batch: load
// readies points lo … hi−1 of a batch, then put encodes them, in parallel, into buf (reused and
// returned).
func writePoints(w io.Writer, buf []byte, n, batch, size int, load func(lo, hi int) error, put func(dst []byte, i int)) ([]byte, error) {
	var cnt [4]byte
	binary.BigEndian.PutUint32(cnt[:], uint32(n))
	if _, err := w.Write(cnt[:]); err != nil {
		return buf, err
	}
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		if err := load(lo, hi); err != nil {
			return buf, err
		}
		need := (hi - lo) * size
		if cap(buf) < need {
			buf = make([]byte, need)
		}
		buf = buf[:need]
		encodeParallel(buf, hi-lo, size, func(dst []byte, j int) { put(dst, lo+j) })
		if _, err := w.Write(buf); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// WriteParametersFile writes p to path in bellperson's encoding, replacing any file there,
// through atomicfile.Write: a temporary file in the same directory, synced and renamed over
// path, so a reader never sees a partial file; permission 0644.
func (p *Parameters) WriteParametersFile(path string) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := p.WriteTo(w)
		return err
	}, atomicfile.Overwrite())
	if err != nil {
		return fmt.Errorf("write parameters file %s: %w", path, err)
	}
	return nil
}

// MappedParameters is a bellperson parameters file kept in its encoding: the verifying key is
// decoded, the five point sections stay where they are (a read-only mapping of the file, or a
// caller's bytes) and are decoded on demand, a range or a chunk at a time, by whoever needs
// them — a GPU uploading them chunk by chunk, or a CPU prover. The points then cost the heap
// only the chunk being decoded; the mapping's pages are page cache, which DropPages takes out of
// the process's resident set once a section is uploaded.
//
// Decoding checks each point as DecodeParameters does (mode, and never the point at infinity)
// and reports a bad point as a *DecodeError naming its section, index and file offset. The
// section counts are checked against the file's length when it is opened, the points only when
// decoded. Methods are safe for concurrent use; Close must not run concurrently with the others.
type MappedParameters struct {
	VK VerifyingKey

	b       []byte
	secs    [5]paramSection
	sb      [5][]byte         // the bytes each section's offsets refer to: b, or an overlay's base's
	base    *MappedParameters // an overlay's (OpenFoldOverlay), which must stay open
	mode    DecodeMode
	release func() error
	g1      func(*bls12381.G1Affine, []byte) error
	g2      func(*bls12381.G2Affine, []byte) error
	fold    *CFold // the fold of a folded parameters file (OpenFoldedParametersFile); nil otherwise

	paramsOnce sync.Once
	params     *Parameters // Parameters' result, the same on every call
	id         string      // its identity
	paramsErr  error

	hostOnce sync.Once
	host     *Parameters // every point decoded, for a CPU prover (hostPoints)
	hostErr  error
	onHeap   atomic.Bool // host is set
}

// OpenParametersFile maps the bellperson parameters file at path read-only (a plain read on
// systems without mmap) and decodes its verifying key. The file must not be modified or
// truncated while it is open. Close unmaps it.
func OpenParametersFile(path string, mode DecodeMode) (*MappedParameters, error) {
	return openMapped(path, "parameters file", func(b []byte) (*MappedParameters, error) { return MapParameters(b, mode) })
}

// openMapped maps the file at path and builds mapped parameters over its bytes with build; on
// failure it unmaps the file and names it and what it should have been.
func openMapped(path, what string, build func(b []byte) (*MappedParameters, error)) (*MappedParameters, error) {
	b, release, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", what, err)
	}
	m, err := build(b)
	if err != nil {
		if rerr := release(); rerr != nil {
			err = fmt.Errorf("%w (and %v)", err, rerr)
		}
		return nil, fmt.Errorf("open %s %s: %w", what, path, err)
	}
	m.release = release
	return m, nil
}

// MapParameters is OpenParametersFile over an encoding already in memory; b must not change
// while m is used.
func MapParameters(b []byte, mode DecodeMode) (*MappedParameters, error) {
	vk, secs, err := parseLayout(b, mode)
	if err != nil {
		return nil, err
	}
	m := &MappedParameters{VK: *vk, b: b, secs: secs, mode: mode}
	for i := range m.sb {
		m.sb[i] = b
	}
	m.g1, m.g2 = pointDecoders(mode)
	return m, nil
}

// Close releases the mapping; m is not used afterwards.
func (m *MappedParameters) Close() error {
	m.b, m.sb = nil, [5][]byte{}
	if m.release == nil {
		return nil
	}
	r := m.release
	m.release = nil
	return r()
}

// Len returns the number of points of section sec.
func (m *MappedParameters) Len(sec primitive.Section) int {
	if sec < primitive.SectionH || sec > primitive.SectionBG2 {
		return 0
	}
	return m.secs[sec].count
}

// Bytes returns the size of the point sections in the file, in bytes: what DecodeParameters
// would put on the heap (96 per G1 point, 192 per G2 point).
func (m *MappedParameters) Bytes() int64 {
	var n int64
	for _, s := range m.secs {
		n += int64(s.count) * int64(s.size)
	}
	return n
}

// section returns sec's layout, checking that it is a section of kind g2 (or G1) and that
// [off, off+n) lies in it.
func (m *MappedParameters) section(sec primitive.Section, g2 bool, off, n int) (paramSection, error) {
	if err := m.open(); err != nil {
		return paramSection{}, err
	}
	if sec < primitive.SectionH || sec > primitive.SectionBG2 || (sec == primitive.SectionBG2) != g2 {
		return paramSection{}, fmt.Errorf("prover: section %v is not a %s section", sec, map[bool]string{false: "G1", true: "G2"}[g2])
	}
	s := m.secs[sec]
	if off < 0 || n < 0 || off > s.count-n {
		return paramSection{}, fmt.Errorf("prover: points %d..%d of section %q, which has %d", off, off+n, s.name, s.count)
	}
	return s, nil
}

// open reports whether m's bytes, and an overlay's base's, are still mapped.
func (m *MappedParameters) open() error {
	switch {
	case m.b == nil:
		return errors.New("prover: mapped parameters are closed")
	case m.base != nil && m.base.b == nil:
		return errors.New("prover: the parameters under the fold overlay are closed")
	}
	return nil
}

// G1 decodes points off … off+len(dst)−1 of the G1 section sec (H, L, A or B_G1) into dst, on
// all cores.
func (m *MappedParameters) G1(sec primitive.Section, off int, dst []bls12381.G1Affine) error {
	s, err := m.section(sec, false, off, len(dst))
	if err != nil {
		return err
	}
	return decodeRange(m.sb[sec], s, off, dst, m.g1)
}

// G2 decodes points off … off+len(dst)−1 of B_G2 into dst, on all cores.
func (m *MappedParameters) G2(off int, dst []bls12381.G2Affine) error {
	s, err := m.section(primitive.SectionBG2, true, off, len(dst))
	if err != nil {
		return err
	}
	return decodeRange(m.sb[primitive.SectionBG2], s, off, dst, m.g2)
}

// EachG1 decodes the G1 section sec in chunks of at most len(buf) points into buf and calls f
// with each chunk's first index and its points, in order; buf is reused, so f must copy what it
// keeps. It stops at the first error, of decoding or of f.
func (m *MappedParameters) EachG1(sec primitive.Section, buf []bls12381.G1Affine, f func(off int, pts []bls12381.G1Affine) error) error {
	return eachChunk(m.Len(sec), len(buf), func(off, n int) error {
		if err := m.G1(sec, off, buf[:n]); err != nil {
			return err
		}
		return f(off, buf[:n])
	})
}

// EachG2 is EachG1 for B_G2.
func (m *MappedParameters) EachG2(buf []bls12381.G2Affine, f func(off int, pts []bls12381.G2Affine) error) error {
	return eachChunk(m.Len(primitive.SectionBG2), len(buf), func(off, n int) error {
		if err := m.G2(off, buf[:n]); err != nil {
			return err
		}
		return f(off, buf[:n])
	})
}

// eachChunk calls f(off, n) for consecutive chunks of at most chunk of count items.
func eachChunk(count, chunk int, f func(off, n int) error) error {
	if chunk < 1 && count > 0 {
		return errors.New("prover: decode chunks: empty buffer")
	}
	for off := 0; off < count; off += chunk {
		if err := f(off, min(chunk, count-off)); err != nil {
			return err
		}
	}
	return nil
}

// DropPages takes section sec's pages out of the process's resident set (Linux:
// madvise(MADV_DONTNEED) on the mapping; they stay in the page cache and are read again if
// decoded later). Call it once the section is uploaded. Elsewhere, and for parameters from
// MapParameters, it does nothing.
func (m *MappedParameters) DropPages(sec primitive.Section) error {
	return m.DropRange(sec, 0, m.Len(sec))
}

// DropRange is DropPages for points off … off+n−1 of section sec: the whole pages inside their
// bytes leave the resident set (a page shared with a neighbouring point stays).
func (m *MappedParameters) DropRange(sec primitive.Section, off, n int) error {
	if m.release == nil || m.open() != nil || sec < primitive.SectionH || sec > primitive.SectionBG2 {
		return nil
	}
	s := m.secs[sec]
	if off < 0 || n < 0 || off > s.count-n {
		return fmt.Errorf("prover: drop points %d..%d of section %q, which has %d", off, off+n, s.name, s.count)
	}
	return dropPages(m.sb[sec][s.start+off*s.size : s.start+(off+n)*s.size])
}

// Unchecked reports whether m decodes in Unchecked mode (primitive.PointSource): then a GPU
// decodes its points on the device, from Encoded. In Checked mode the subgroup check stays on
// the host, and a GPU uploads points decoded there (slower: the host decode is the upload's
// bottleneck).
func (m *MappedParameters) Unchecked() bool { return m.mode == Unchecked }

// Encoded returns the file's bytes of points off … off+n−1 of section sec (96 bytes per G1
// point, 192 per B_G2 point; primitive.PointSource), a slice of the mapping that must not be
// modified, after asking the system to map their pages in (Linux: madvise
// MADV_POPULATE_READ, else MADV_WILLNEED).
func (m *MappedParameters) Encoded(sec primitive.Section, off, n int) ([]byte, error) {
	s, err := m.section(sec, sec == primitive.SectionBG2, off, n)
	if err != nil {
		return nil, err
	}
	b := m.sb[sec][s.start+off*s.size : s.start+(off+n)*s.size]
	if m.release != nil {
		prefetchPages(b)
	}
	return b, nil
}

// Decode decodes every point: the Parameters DecodeParameters returns for the same bytes.
func (m *MappedParameters) Decode() (*Parameters, error) {
	if err := m.open(); err != nil {
		return nil, err
	}
	p := &Parameters{VK: m.VK, CFold: m.fold}
	var err error
	for i, dst := range [4]*[]bls12381.G1Affine{&p.H, &p.L, &p.A, &p.BG1} {
		if *dst, err = decodeSection(m.sb[i], m.secs[i], m.g1); err != nil {
			return nil, err
		}
	}
	if p.BG2, err = decodeSection(m.sb[4], m.secs[4], m.g2); err != nil {
		return nil, err
	}
	return p, nil
}

// Identity returns the identity Parameters.Identity gives the decoded parameters, without
// decoding more than each section's first and last point: the same SHA-256, over the verifying
// key's encoding, then per section its length (u64 big-endian) and its first and last points'
// RawBytes (identity.go).
func (m *MappedParameters) Identity() (string, error) {
	if m.b == nil {
		return "", errors.New("prover: mapped parameters are closed")
	}
	h := sha256.New()
	if vk, err := m.VK.MarshalBinary(); err == nil {
		h.Write(vk)
	}
	var buf [8]byte
	for sec := primitive.SectionH; sec <= primitive.SectionBG2; sec++ {
		n := m.Len(sec)
		binary.BigEndian.PutUint64(buf[:], uint64(n))
		h.Write(buf[:])
		if n == 0 {
			continue
		}
		for _, i := range []int{0, n - 1} {
			if sec == primitive.SectionBG2 {
				var q [1]bls12381.G2Affine
				if err := m.G2(i, q[:]); err != nil {
					return "", err
				}
				b := q[0].RawBytes()
				h.Write(b[:])
			} else {
				var q [1]bls12381.G1Affine
				if err := m.G1(sec, i, q[:]); err != nil {
					return "", err
				}
				b := q[0].RawBytes()
				h.Write(b[:])
			}
		}
	}
	writeFoldIdentity(h, m.fold)
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
