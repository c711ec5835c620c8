package prover

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
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
	vk, off, err := decodeVK(b, mode)
	if err != nil {
		return nil, err
	}
	secs := [5]paramSection{
		{name: "h", size: G1UncompressedSize},
		{name: "l", size: G1UncompressedSize},
		{name: "a", size: G1UncompressedSize},
		{name: "b_g1", size: G1UncompressedSize},
		{name: "b_g2", size: G2UncompressedSize},
	}
	for i := range secs {
		n, err := readCount(b, off, secs[i].name, secs[i].size)
		if err != nil {
			return nil, err
		}
		secs[i].start = off + 4
		secs[i].count = n
		off = secs[i].start + n*secs[i].size
	}

	p := &Parameters{VK: *vk}
	g1 := func(q *bls12381.G1Affine, at []byte) error {
		if err := decodeG1Uncompressed(q, at, mode); err != nil {
			return err
		}
		if q.IsInfinity() {
			return errInfinity
		}
		return nil
	}
	g2 := func(q *bls12381.G2Affine, at []byte) error {
		if err := decodeG2Uncompressed(q, at, mode); err != nil {
			return err
		}
		if q.IsInfinity() {
			return errInfinity
		}
		return nil
	}
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

// decodeSection decodes the s.count points of section s from b with decode, in batches of
// GOMAXPROCS·decodeChunk points, each batch split across GOMAXPROCS goroutines in chunks of
// at most decodeChunk. The slice grows as batches validate (see growLimit). It returns the
// lowest-offset fault as a *DecodeError; batches after a faulty one are not decoded.
func decodeSection[T any](b []byte, s paramSection, decode func(p *T, at []byte) error) ([]T, error) {
	workers := runtime.GOMAXPROCS(0)
	batch := workers * decodeChunk
	var pts []T
	for lo := 0; lo < s.count; lo += batch {
		hi := min(lo+batch, s.count)
		pts = growPoints(pts, hi, s.count)
		var (
			mu       sync.Mutex
			firstErr *DecodeError
		)
		// A batch smaller than a full one (a small section, or the last batch) is still
		// spread over every goroutine.
		chunk := min(decodeChunk, (hi-lo+workers-1)/workers)
		var wg sync.WaitGroup
		for c := lo; c < hi; c += chunk {
			ce := min(c+chunk, hi)
			wg.Go(func() {
				for i := c; i < ce; i++ {
					at := s.start + i*s.size
					if err := decode(&pts[i], b[at:at+s.size]); err != nil {
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
			return nil, firstErr
		}
	}
	if pts == nil {
		pts = []T{}
	}
	return pts, nil
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
	n += int64(len(p.H)+len(p.L)+len(p.A)+len(p.BG1)) * G1UncompressedSize
	n += int64(len(p.BG2)) * G2UncompressedSize
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
func (p *Parameters) WriteTo(w io.Writer) (int64, error) {
	for _, s := range []struct {
		name string
		n    int
	}{{"h", len(p.H)}, {"l", len(p.L)}, {"a", len(p.A)}, {"b_g1", len(p.BG1)}, {"b_g2", len(p.BG2)}} {
		if uint64(s.n) > math.MaxUint32 {
			return 0, fmt.Errorf("encode parameters section %q: %d points exceed the u32 count", s.name, s.n)
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
	for _, s := range []struct {
		name string
		pts  []bls12381.G1Affine
	}{{"h", p.H}, {"l", p.L}, {"a", p.A}, {"b_g1", p.BG1}} {
		pts := s.pts
		buf, err = writeSection(bw, buf, len(pts), G1UncompressedSize, func(dst []byte, i int) {
			putG1Uncompressed(dst, &pts[i])
		})
		if err != nil {
			return cw.n, fmt.Errorf("write parameters section %q: %w", s.name, err)
		}
	}
	_, err = writeSection(bw, buf, len(p.BG2), G2UncompressedSize, func(dst []byte, i int) {
		putG2Uncompressed(dst, &p.BG2[i])
	})
	if err != nil {
		return cw.n, fmt.Errorf("write parameters section %q: %w", "b_g2", err)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("write parameters: %w", err)
	}
	return cw.n, nil
}

// writeSection writes the u32-BE count n, then the n points encoded by put, in batches that
// are encoded in parallel into buf (reused and returned).
func writeSection(w io.Writer, buf []byte, n, size int, put func(dst []byte, i int)) ([]byte, error) {
	var cnt [4]byte
	binary.BigEndian.PutUint32(cnt[:], uint32(n))
	if _, err := w.Write(cnt[:]); err != nil {
		return buf, err
	}
	workers := runtime.GOMAXPROCS(0)
	batch := workers * decodeChunk
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		need := (hi - lo) * size
		if cap(buf) < need {
			buf = make([]byte, need)
		}
		buf = buf[:need]
		// A batch smaller than a full one (a small section, or the last batch) is still
		// spread over every goroutine.
		chunk := min(decodeChunk, (hi-lo+workers-1)/workers)
		var wg sync.WaitGroup
		for c := lo; c < hi; c += chunk {
			ce := min(c+chunk, hi)
			wg.Go(func() {
				for i := c; i < ce; i++ {
					put(buf[(i-lo)*size:], i)
				}
			})
		}
		wg.Wait()
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
