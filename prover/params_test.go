package prover

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// randParams returns parameters of random points with the given section sizes.
func randParams(seed uint64, nIC, nH, nL, nA, nB1, nB2 int) *Parameters {
	g1 := randG1(seed, nH+nL+nA+nB1)
	return &Parameters{
		VK:  *randVK(seed+100, nIC),
		H:   g1[:nH],
		L:   g1[nH : nH+nL],
		A:   g1[nH+nL : nH+nL+nA],
		BG1: g1[nH+nL+nA:],
		BG2: randG2(seed+200, nB2),
	}
}

func encodeParams(t testing.TB, p *Parameters) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := p.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n != p.EncodedSize() {
		t.Fatalf("WriteTo reported %d bytes, wrote %d, EncodedSize %d", n, buf.Len(), p.EncodedSize())
	}
	return buf.Bytes()
}

// sectionOffsets returns, for a small encoding, the offset of each section's count.
func sectionOffsets(p *Parameters) map[string]int {
	off := p.VK.EncodedSize()
	m := map[string]int{}
	for _, s := range []struct {
		name string
		n    int
		size int
	}{{"h", len(p.H), 96}, {"l", len(p.L), 96}, {"a", len(p.A), 96}, {"b_g1", len(p.BG1), 96}, {"b_g2", len(p.BG2), 192}} {
		m[s.name] = off
		off += 4 + s.n*s.size
	}
	return m
}

func TestParametersRoundTrip(t *testing.T) {
	p := randParams(20, 3, 7, 5, 6, 4, 3)
	b := encodeParams(t, p)
	for _, mode := range []DecodeMode{Checked, Unchecked} {
		q, err := DecodeParameters(b, mode)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if again := encodeParams(t, q); !bytes.Equal(again, b) {
			t.Fatalf("%s: write→read→write changed the bytes", mode)
		}
		if !vkEqual(&q.VK, &p.VK) || len(q.H) != 7 || len(q.BG2) != 3 || !q.BG2[2].Equal(&p.BG2[2]) || !q.A[5].Equal(&p.A[5]) {
			t.Fatalf("%s: decoded parameters differ", mode)
		}
	}
	// Trailing bytes (an MPC transcript) are ignored.
	withTail := append(append([]byte(nil), b...), bytes.Repeat([]byte{0xAB}, 1000)...)
	if q, err := DecodeParameters(withTail, Checked); err != nil || !bytes.Equal(encodeParams(t, q), b) {
		t.Fatalf("trailing transcript: %v", err)
	}
	// Empty sections.
	e := randParams(21, 1, 0, 0, 0, 0, 0)
	eb := encodeParams(t, e)
	if q, err := DecodeParameters(eb, Checked); err != nil || len(q.H)+len(q.BG2) != 0 {
		t.Fatalf("empty sections: %v", err)
	}
}

func TestParametersFile(t *testing.T) {
	// More than one decode chunk per section to exercise the parallel split.
	n := decodeChunk + 123
	if testing.Short() {
		n = 300
	}
	p := randParams(22, 4, n, 17, n/2, 9, 5)
	path := filepath.Join(t.TempDir(), "test.params")
	if err := p.WriteParametersFile(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, encodeParams(t, p)) {
		t.Fatal("file differs from WriteTo output")
	}
	q, err := ReadParametersFile(path, Checked)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeParams(t, q), raw) {
		t.Fatal("read→write changed the bytes")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %d entries", len(entries))
	}
	if _, err := ReadParametersFile(filepath.Join(t.TempDir(), "none"), Checked); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.params")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadParametersFile(empty, Checked)
	wantDecodeErr(t, err, "vk.alpha_g1", -1, 0)
	if err := p.WriteParametersFile(filepath.Join(t.TempDir(), "no", "such", "dir")); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

func TestParametersDecodeErrors(t *testing.T) {
	p := randParams(23, 2, 5, 4, 3, 3, 2)
	good := encodeParams(t, p)
	offs := sectionOffsets(p)
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	sizes := map[string]int{"h": 96, "l": 96, "a": 96, "b_g1": 96, "b_g2": 192}
	for _, sec := range []string{"h", "l", "a", "b_g1", "b_g2"} {
		co := offs[sec]
		// Truncated inside the count.
		_, err := DecodeParameters(good[:co+2], Checked)
		wantDecodeErr(t, err, sec, -1, int64(co))
		// Truncated inside the last point: the count no longer fits.
		_, err = DecodeParameters(good[:co+4+sizes[sec]], Checked)
		wantDecodeErr(t, err, sec, -1, int64(co))
		// A corrupt count that cannot fit is rejected before allocating.
		b := mut(func(b []byte) { binary.BigEndian.PutUint32(b[co:], 0xFFFFFFF0) })
		_, err = DecodeParameters(b, Checked)
		wantDecodeErr(t, err, sec, -1, int64(co))
		// A corrupt point (off the curve) at index 1.
		at := co + 4 + sizes[sec]
		b = mut(func(b []byte) { b[at+sizes[sec]-1] ^= 1 })
		_, err = DecodeParameters(b, Unchecked)
		wantDecodeErr(t, err, sec, 1, int64(at))
		// A point at infinity at index 1 (bellperson rejects it).
		b = mut(func(b []byte) { clear(b[at : at+sizes[sec]]); b[at] = flagInfinity })
		_, err = DecodeParameters(b, Checked)
		wantDecodeErr(t, err, sec, 1, int64(at))
		if !errors.Is(err, errInfinity) {
			t.Fatalf("%s: want infinity cause, got %v", sec, err)
		}
	}
	// Errors in the vk are reported as such.
	_, err := DecodeParameters(good[:700], Checked)
	wantDecodeErr(t, err, "vk.delta_g2", -1, 672)
	// Non-subgroup point: Checked rejects, Unchecked accepts.
	nb := g1NotInSubgroup(t)
	raw := nb.RawBytes()
	at := offs["l"] + 4 + 3*96
	b := mut(func(b []byte) { copy(b[at:], raw[:]) })
	_, err = DecodeParameters(b, Checked)
	wantDecodeErr(t, err, "l", 3, int64(at))
	if _, err := DecodeParameters(b, Unchecked); err != nil {
		t.Fatalf("unchecked: %v", err)
	}
	nb2 := g2NotInSubgroup(t)
	raw2 := nb2.RawBytes()
	at = offs["b_g2"] + 4
	b = mut(func(b []byte) { copy(b[at:], raw2[:]) })
	_, err = DecodeParameters(b, Checked)
	wantDecodeErr(t, err, "b_g2", 0, int64(at))
	// Every strict prefix fails with ErrFormat and no panic.
	for n := range len(good) {
		if _, err := DecodeParameters(good[:n], Unchecked); !errors.Is(err, ErrFormat) {
			t.Fatalf("prefix %d: %v", n, err)
		}
	}
}

// repeatH returns p with its H section replaced by n points cycling through the current ones:
// a large section at the cost of a few random points.
func repeatH(p *Parameters, n int) *Parameters {
	h := make([]bls12381.G1Affine, n)
	for i := range h {
		h[i] = p.H[i%len(p.H)]
	}
	p.H = h
	return p
}

// TestParametersLowestOffsetError checks that with faults in several chunks and batches the
// reported one is the first in the file, independent of goroutine scheduling.
func TestParametersLowestOffsetError(t *testing.T) {
	batch := runtime.GOMAXPROCS(0) * decodeChunk
	n := 2*batch + 10
	p := repeatH(randParams(24, 1, 16, 1, 1, 1, 1), n)
	good := encodeParams(t, p)
	h0 := sectionOffsets(p)["h"] + 4
	b := append([]byte(nil), good...)
	idx := []int{n - 1, batch + 1, decodeChunk + 3, 2}
	for _, i := range idx {
		b[h0+i*96+95] ^= 1
	}
	for range 3 {
		_, err := DecodeParameters(b, Unchecked)
		wantDecodeErr(t, err, "h", 2, int64(h0+2*96))
	}
	// Without the first fault, the next one in the same batch; then one in a later batch.
	b[h0+2*96+95] ^= 1
	_, err := DecodeParameters(b, Unchecked)
	wantDecodeErr(t, err, "h", decodeChunk+3, int64(h0+(decodeChunk+3)*96))
	b[h0+(decodeChunk+3)*96+95] ^= 1
	_, err = DecodeParameters(b, Unchecked)
	wantDecodeErr(t, err, "h", batch+1, int64(h0+(batch+1)*96))
}

func BenchmarkDecodeParameters(b *testing.B) {
	// 2^14 H points and proportional other sections: about 5 MB.
	p := randParams(30, 8, 1<<14, 1<<13, 1<<13, 1<<12, 1<<12)
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	enc := buf.Bytes()
	for _, mode := range []DecodeMode{Checked, Unchecked} {
		b.Run(mode.String(), func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				q, err := DecodeParameters(enc, mode)
				if err != nil {
					b.Fatal(err)
				}
				sinkParams = q
			}
		})
	}
}

func BenchmarkWriteParameters(b *testing.B) {
	p := randParams(31, 8, 1<<14, 1<<13, 1<<13, 1<<12, 1<<12)
	b.SetBytes(p.EncodedSize())
	for b.Loop() {
		var cw countWriter
		cw.w = discard{}
		if _, err := p.WriteTo(&cw); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

var sinkParams *Parameters

// TestParametersSparseFileFailsFast decodes a 30 GB sparse file whose counts match its size
// but whose points are holes (zeros, not on the curve): the decoder must report the first
// point with its section, index and offset without allocating the sections up front.
func TestParametersSparseFileFailsFast(t *testing.T) {
	vk := randVK(25, 2)
	vkb, _ := vk.MarshalBinary()
	const nH = 30_000_000_000 / G1UncompressedSize // 30 GB of H points
	size := int64(len(vkb)) + 4 + nH*G1UncompressedSize + 4*4
	path := filepath.Join(t.TempDir(), "sparse.params")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var cnt [4]byte
	binary.BigEndian.PutUint32(cnt[:], nH)
	if _, err := f.Write(append(vkb, cnt[:]...)); err != nil {
		t.Fatal(err)
	}
	// The four later counts stay zero: they lie in the hole at the end of the file.
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = ReadParametersFile(path, Unchecked)
	runtime.ReadMemStats(&after)
	wantDecodeErr(t, err, "h", 0, int64(len(vkb)+4))
	if !strings.Contains(err.Error(), fmt.Sprintf("h[0] at byte offset %d", len(vkb)+4)) {
		t.Fatalf("message does not give section, index and offset: %v", err)
	}
	// One batch of G1 points is GOMAXPROCS·decodeChunk·96 bytes; allow a few.
	limit := uint64(4*runtime.GOMAXPROCS(0)*decodeChunk*G1UncompressedSize + 64<<20)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > limit {
		t.Fatalf("decoding a sparse file allocated %d bytes, want at most %d", grew, limit)
	}
}

// TestParametersGrowth checks that sections larger than one batch decode through the
// growing slices with every point in place.
func TestParametersGrowth(t *testing.T) {
	for _, c := range []struct{ n, count, want int }{
		{10, 100, 10}, // the first batch: exactly n
		{100, 100, 100},
		{20, 1000, 20},
	} {
		if got := cap(growPoints[int](nil, c.n, c.count)); got != c.want {
			t.Fatalf("growPoints(nil, %d, %d): cap %d, want %d", c.n, c.count, got, c.want)
		}
	}
	// 100 of 100·growLimit points validated: the full count comes next.
	p := growPoints(make([]int, 100), 110, 100*growLimit)
	if cap(p) != 100*growLimit || len(p) != 110 {
		t.Fatalf("len %d cap %d, want 110 %d", len(p), cap(p), 100*growLimit)
	}
	// Capacity 100 of 10000: doubling.
	p = growPoints(make([]int, 100), 110, 10000)
	if cap(p) != 200 {
		t.Fatalf("cap %d, want 200", cap(p))
	}
	// A section of three batches and a bit, through the growing slice.
	n := 3*runtime.GOMAXPROCS(0)*decodeChunk + 7
	prm := repeatH(randParams(26, 1, 16, 1, 1, 1, 1), n)
	b := encodeParams(t, prm)
	q, err := DecodeParameters(b, Unchecked)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeParams(t, q), b) {
		t.Fatal("re-encoding differs")
	}
}
