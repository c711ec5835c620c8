package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/synth"
)

// deviceMulVec uploads enc and w, multiplies on the device into a buffer poisoned with
// random values around the output at offset 3, and returns the rows read back. It checks that
// the elements around the output are untouched.
func deviceMulVec(t *testing.T, d *Device, enc synth.MatrixEncoding, coeffs, w []fr.Element) []fr.Element {
	t.Helper()
	ctx := context.Background()
	m, err := d.UploadMatrix(ctx, enc, coeffs, len(w))
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, len(enc.RowLen), m.Rows())
	wb, err := d.AllocScalars(len(w))
	require.NoError(t, err)
	defer wb.Close()
	require.NoError(t, wb.Upload(ctx, 0, w))
	rows := len(enc.RowLen)
	const off = 3
	poison := randScalars(uint64(rows), rows+off+5)
	out, err := d.AllocScalars(len(poison))
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, out.Upload(ctx, 0, poison))
	require.NoError(t, m.MulVec(ctx, wb, out, off))
	got := make([]fr.Element, len(poison))
	require.NoError(t, out.Download(ctx, 0, got))
	require.Equal(t, poison[:off], got[:off], "before the output")
	require.Equal(t, poison[off+rows:], got[off+rows:], "after the output")
	return got[off : off+rows]
}

// TestMatrixMulVecMatchesCPU compares the device product with synth.Matrix.MulVec on compiled
// random circuits (escaped coefficients, long rows) and with refMulVec on random encodings
// (empty rows, rows around the heavy threshold, long rows of 255–700 words, row counts that are
// not multiples of the row block, column widths 1–30, edge values 0, 1, r−1 in w and in the
// coefficients), byte for byte.
func TestMatrixMulVecMatchesCPU(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	circuits := []*randomCircuit{
		{seed: rng.Uint64(), nVars: 1000, constraints: 3001, poolSize: 50, longEvery: 400},
		{seed: rng.Uint64(), nVars: 1<<20 + 1, constraints: 20000, poolSize: 3000, longEvery: 2000},
	}
	for _, c := range circuits {
		shape, asg := compiledCircuit(t, c)
		for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
			want := make([]fr.Element, m.NumRows())
			m.MulVec(asg.W, want, 0, m.NumRows())
			require.Equal(t, want, deviceMulVec(t, d, m.Encoding(), shape.Coeffs, asg.W), "circuit of %d variables, matrix %c", c.nVars, "ABC"[i])
		}
	}
	for _, sp := range encodingSpecs() {
		enc, coeffs := randomEncoding(rng, sp)
		w := randomWitness(rng, sp.cols)
		require.Equal(t, refMulVec(enc, coeffs, w), deviceMulVec(t, d, enc, coeffs, w), "%+v", sp)
	}
	// All rows heavy, all light, all empty.
	for _, sp := range []encodingSpec{{rows: 70, cols: 2000, colBits: 26, nCoeffs: 200, longEvery: 1}} {
		enc, coeffs := randomEncoding(rng, sp)
		w := randomWitness(rng, sp.cols)
		require.Equal(t, refMulVec(enc, coeffs, w), deviceMulVec(t, d, enc, coeffs, w), "%+v", sp)
	}
	empty := synth.MatrixEncoding{RowLen: make([]uint8, 40), BlockPtr: []uint32{0, 0, 0}, ColBits: 3}
	require.Equal(t, make([]fr.Element, 40), deviceMulVec(t, d, empty, []fr.Element{fr.One(), fr.One()}, randomWitness(rng, 5)))
}

// TestMulVecsMatchesCPU multiplies a compiled random circuit's three matrices with one w in one
// call, on both sides of the share of w's elements that are neither 0 nor 1 above which the
// library reads w whole for every term (3/4): mostly 0/1 (and r−1), 60 % others (randomWitness),
// all others, all 0/1, and compares each with synth.Matrix.MulVec. It also checks the call's
// refusals: an output given twice, w as an output, mismatched lists.
func TestMulVecsMatchesCPU(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	shape, asg := compiledCircuit(t, &randomCircuit{seed: rng.Uint64(), nVars: 30000, constraints: 20000, poolSize: 300, longEvery: 700})
	mats := make([]*Matrix, 3)
	outs := make([]*Scalars, 3)
	for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
		dm, err := d.UploadMatrix(ctx, m.Encoding(), shape.Coeffs, len(asg.W))
		require.NoError(t, err)
		defer dm.Close()
		mats[i] = dm
		out, err := d.AllocScalars(shape.NumConstraints)
		require.NoError(t, err)
		defer out.Close()
		outs[i] = out
	}
	wb, err := d.AllocScalars(len(asg.W))
	require.NoError(t, err)
	defer wb.Close()
	witnesses := map[string][]fr.Element{
		"the circuit's": asg.W, "2 % others": mixWitness(rng, len(asg.W), "mixed"), "60 % others": randomWitness(rng, len(asg.W)),
		"all others": randScalars(rng.Uint64(), len(asg.W)), "all 0/1": mixWitness(rng, len(asg.W), "bits"),
	}
	got := make([]fr.Element, shape.NumConstraints)
	for name, w := range witnesses {
		require.NoError(t, wb.Upload(ctx, 0, w))
		require.NoError(t, MulVecs(ctx, wb, mats, outs, 0), name)
		for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
			want := make([]fr.Element, m.NumRows())
			m.MulVec(w, want, 0, m.NumRows())
			require.NoError(t, outs[i].Download(ctx, 0, got))
			require.Equal(t, want, got, "w %s, matrix %c", name, "ABC"[i])
		}
	}
	require.ErrorContains(t, MulVecs(ctx, wb, mats, []*Scalars{outs[0], outs[1], outs[0]}, 0), "matrices 0 and 2 have the same output")
	require.ErrorContains(t, MulVecs(ctx, wb, mats[:1], []*Scalars{wb}, 0), "same buffer")
	require.ErrorContains(t, MulVecs(ctx, wb, mats, outs[:2], 0), "3 matrices and 2 outputs")
	require.ErrorContains(t, MulVecs(ctx, wb, nil, nil, 0), "0 matrices")
	// One matrix twice, into two outputs.
	require.NoError(t, MulVecs(ctx, wb, []*Matrix{mats[2], mats[2]}, outs[:2], 0))
}

// TestMulVecsRefusesBadArguments checks, without a GPU, MulVecs's refusals that come before any
// library call (TestMulVecsMatchesCPU checks the repeated and shared outputs and the lists on the
// device): buffers on another device, a w shorter than a matrix's columns, an output range past
// its buffer, a cancelled context, a closed matrix.
func TestMulVecsRefusesBadArguments(t *testing.T) {
	d0, d1 := &Device{index: 0}, &Device{index: 1}
	m := &Matrix{dev: d0, rows: 10, cols: 20, h: 1}
	w := &Scalars{dev: d0, n: 20, h: 1}
	out := &Scalars{dev: d0, n: 12, h: 1}
	ctx := context.Background()
	mulVecs := func(w *Scalars, m *Matrix, out *Scalars, off int) error {
		return MulVecs(ctx, w, []*Matrix{m}, []*Scalars{out}, off)
	}
	require.ErrorContains(t, mulVecs(&Scalars{dev: d1, n: 20, h: 1}, m, out, 0), "matrix 0 on device 0, w on 1, its output on 0")
	require.ErrorContains(t, mulVecs(w, m, &Scalars{dev: d1, n: 12, h: 1}, 0), "its output on 1")
	require.ErrorContains(t, mulVecs(&Scalars{dev: d0, n: 19, h: 1}, m, out, 0), "w has 19 elements, matrix 0 reads 20")
	require.ErrorContains(t, mulVecs(w, m, out, 3), "[3, 13) of 12 scalars: out of range")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, MulVecs(cancelled, w, []*Matrix{m}, []*Scalars{out}, 0), context.Canceled)
	require.ErrorIs(t, mulVecs(w, &Matrix{dev: d0, rows: 10, cols: 20}, out, 0), ErrClosed)
}

// TestMatrixMulVecPoRep compares the device's A·w, B·w, C·w with the CPU's on the PoRep-shaped
// tiny circuit with its real witness, shipped compactly.
func TestMatrixMulVecPoRep(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	cfg := porep.Small
	cfg.Challenges = 1
	s, err := porep.NewSector(cfg, [32]byte{1, 2, 3})
	require.NoError(t, err)
	shape, asg := compiledCircuit(t, s.Circuit(0))
	cw, err := synth.EncodeWitness(asg.W)
	require.NoError(t, err)
	wb, err := d.AllocScalars(len(asg.W))
	require.NoError(t, err)
	defer wb.Close()
	require.NoError(t, wb.UploadWitness(ctx, 0, cw))
	gotW := make([]fr.Element, len(asg.W))
	require.NoError(t, wb.Download(ctx, 0, gotW))
	require.Equal(t, asg.W, gotW, "decoded witness")
	out, err := d.AllocScalars(shape.NumConstraints)
	require.NoError(t, err)
	defer out.Close()
	got := make([]fr.Element, shape.NumConstraints)
	for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
		dm, err := d.UploadMatrix(ctx, m.Encoding(), shape.Coeffs, len(asg.W))
		require.NoError(t, err)
		require.NoError(t, dm.MulVec(ctx, wb, out, 0))
		require.NoError(t, dm.Close())
		require.NoError(t, out.Download(ctx, 0, got))
		want := [][]fr.Element{asg.A, asg.B, asg.C}[i][:shape.NumConstraints]
		require.Equal(t, want, got, "matrix %c", "ABC"[i])
	}
}

// TestMatrixUploadRefusesBadEncodings checks that the library refuses broken encodings naming
// the row, and that the device stays usable after each refusal.
func TestMatrixUploadRefusesBadEncodings(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	// Escape code 31 and 20 coefficients: no valid escape, inline codes up to 19.
	sp := encodingSpec{rows: 300, cols: 1000, colBits: 27, nCoeffs: 20, longEvery: 20}
	fresh := func() (synth.MatrixEncoding, []fr.Element) { return randomEncoding(newRandSeed(7), sp) }
	enc0, _ := fresh()
	require.NotEmpty(t, enc0.LongRows)
	// unlisted is the first row of a block from block 2 on that is not long.
	unlisted := 64
	for enc0.RowLen[unlisted] == synth.LongRow {
		unlisted += 32
	}
	const colMask = 1<<27 - 1
	cases := []struct {
		name, msg string
		spoil     func(enc *synth.MatrixEncoding, coeffs []fr.Element)
	}{
		{"column", "has a column beyond w", func(enc *synth.MatrixEncoding, _ []fr.Element) {
			_, k := firstTermRow(*enc)
			enc.Words[k] = enc.Words[k]&^colMask | 1000
		}},
		{"code", "coefficient code beyond", func(enc *synth.MatrixEncoding, _ []fr.Element) {
			_, k := firstTermRow(*enc)
			enc.Words[k] = 25<<27 | enc.Words[k]&colMask
		}},
		{"escape", "escape without a valid coefficient index", func(enc *synth.MatrixEncoding, _ []fr.Element) {
			_, k := firstTermRow(*enc)
			enc.Words[k] = 31<<27 | enc.Words[k]&colMask
		}},
		{"block", "row lengths disagree with the next block", func(enc *synth.MatrixEncoding, _ []fr.Element) {
			r, _ := firstTermRow(*enc)
			enc.RowLen[r]--
		}},
		{"unlisted", fmt.Sprintf("row %d is marked long (255) but not in the long-row list", unlisted), func(enc *synth.MatrixEncoding, _ []fr.Element) {
			enc.RowLen[unlisted] = synth.LongRow
		}},
		{"block offsets", "block_ptr", func(enc *synth.MatrixEncoding, _ []fr.Element) {
			enc.BlockPtr[len(enc.BlockPtr)-1]++
		}},
		{"coefficient", "coefficient 5 is not below r", func(_ *synth.MatrixEncoding, coeffs []fr.Element) {
			coeffs[5] = fr.Element{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			enc, coeffs := fresh()
			tc.spoil(&enc, coeffs)
			m, err := d.UploadMatrix(ctx, enc, coeffs, sp.cols)
			if err == nil {
				m.Close()
			}
			require.Error(t, err)
			var de *DeviceError
			require.True(t, errors.As(err, &de), "%v", err)
			require.Equal(t, CodeInvalid, de.Code, "%v", err)
			require.Contains(t, err.Error(), tc.msg)
			t.Log(err)
		})
	}
	// The device still works.
	enc, coeffs := fresh()
	w := randomWitness(rng, sp.cols)
	require.Equal(t, refMulVec(enc, coeffs, w), deviceMulVec(t, d, enc, coeffs, w))
}

// TestWitnessDecodeMatchesCPU compares the device's decoding of compact witnesses with the
// original elements (synth.CompactWitness.Decode is checked against them in synth) for sizes
// around the 512-element block and mixes from all-zero to all-other, at an offset in a buffer
// whose other elements must stay as they were.
func TestWitnessDecodeMatchesCPU(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	for _, n := range []int{1, 31, 32, 33, 511, 512, 513, 1024, 100003} {
		for _, mix := range witnessMixes {
			w := mixWitness(rng, n, mix)
			cw, err := synth.EncodeWitness(w)
			require.NoError(t, err)
			cpu := make([]fr.Element, n)
			require.NoError(t, cw.Decode(cpu))
			require.Equal(t, w, cpu)
			const off = 5
			poison := randScalars(uint64(n), n+off+3)
			buf, err := d.AllocScalars(len(poison))
			require.NoError(t, err)
			require.NoError(t, buf.Upload(ctx, 0, poison))
			require.NoError(t, buf.UploadWitness(ctx, off, cw))
			got := make([]fr.Element, len(poison))
			require.NoError(t, buf.Download(ctx, 0, got))
			require.NoError(t, buf.Close())
			require.Equal(t, w, got[off:off+n], "n %d, %s", n, mix)
			require.Equal(t, poison[:off], got[:off])
			require.Equal(t, poison[off+n:], got[off+n:])
		}
	}
}

// TestWitnessDecodeRefusesBadEncodings checks the refusals: class 3, a block count that
// disagrees with the block's classes, arrays that do not fit N.
func TestWitnessDecodeRefusesBadEncodings(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	w := randomWitness(rng, 2000)
	w[1999] = rMinusOne() // a class set in the last elements
	// bad is an element of class 0 or 1 from 1000 on: class 3 there leaves its block's count right.
	bad := 1000
	for !w[bad].IsZero() && !w[bad].IsOne() {
		bad++
	}
	buf, err := d.AllocScalars(len(w))
	require.NoError(t, err)
	defer buf.Close()
	fresh := func() *synth.CompactWitness {
		cw, err := synth.EncodeWitness(w)
		require.NoError(t, err)
		return cw
	}
	cases := []struct {
		name, msg string
		spoil     func(cw *synth.CompactWitness)
	}{
		{"class 3", fmt.Sprintf("element %d has class 3", bad), func(cw *synth.CompactWitness) { cw.Classes[bad/32] |= 3 << (2 * (bad % 32)) }},
		{"count", "block 1 has another number", func(cw *synth.CompactWitness) {
			// Element 600 (block 1) becomes 0; if it was an other, make element 601 one instead.
			c := cw.Classes[600/32] >> (2 * (600 % 32)) & 3
			cw.Classes[600/32] &^= 3 << (2 * (600 % 32))
			if c != synth.WitnessOther {
				cw.Classes[600/32] |= synth.WitnessOther << (2 * (600 % 32))
			}
		}},
		{"block counts", "block_others", func(cw *synth.CompactWitness) { cw.BlockOthers[1] = cw.BlockOthers[2] + 1 }},
		{"beyond N", "beyond element", func(cw *synth.CompactWitness) { cw.N -= 3 }},
		{"lengths", "class words", func(cw *synth.CompactWitness) { cw.Classes = cw.Classes[:10] }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cw := fresh()
			tc.spoil(cw)
			err := buf.UploadWitness(ctx, 0, cw)
			require.ErrorIs(t, err, synth.ErrCompactWitness)
			require.Contains(t, err.Error(), tc.msg)
			t.Log(err)
		})
	}
	require.NoError(t, buf.UploadWitness(ctx, 0, fresh()))
	got := make([]fr.Element, len(w))
	require.NoError(t, buf.Download(ctx, 0, got))
	require.Equal(t, w, got)
}

var benchScalarsSink []fr.Element

// benchPoRep returns the compiled PoRep-shaped circuit of the given size (porep.Sizes names)
// and its assignment.
func benchPoRep(b *testing.B, name string) (*synth.Shape, *synth.Assignment) {
	for _, sz := range porep.Sizes() {
		if sz.Name == name {
			s, err := porep.NewSector(sz.Cfg, [32]byte{9})
			require.NoError(b, err)
			return compiledCircuit(b, s.Circuit(0))
		}
	}
	b.Fatalf("no PoRep size %q", name)
	return nil, nil
}

// benchPoRepSizes lists the sizes to benchmark: tiny and 2^24, and the full 32 GiB partition
// (130 M constraints; about 30 GB of host memory) with CUZK_BENCH_PARTITION=1.
func benchPoRepSizes() []string {
	sizes := []string{"tiny", "2^24"}
	if os.Getenv("CUZK_BENCH_PARTITION") == "1" {
		sizes = append(sizes, "partition")
	}
	return sizes
}

// BenchmarkMatVecGPU times A·w, B·w and C·w on the device (resident matrices, w in device
// memory) on the PoRep-shaped circuit, the three products per iteration in one MulVecs call
// (the evaluation's). It reports ms per iteration and GB/s of the plain traffic model of
// docs/gpu-kernels.md (matrix arrays read, one 32-byte read of w per term and one 32-byte write
// per row: with w's classes most of those reads do not happen, so the figure is an equivalent
// rate); the first iteration's results are compared with the CPU's.
func BenchmarkMatVecGPU(b *testing.B) {
	d := testDevice(b)
	for _, name := range benchPoRepSizes() {
		benchMatVec(b, d, name)
	}
}

// benchMatVec sets up BenchmarkMatVecGPU's size name and runs it.
func benchMatVec(b *testing.B, d *Device, name string) {
	ctx := context.Background()
	shape, asg := benchPoRep(b, name)
	wb, err := d.AllocScalars(len(asg.W))
	require.NoError(b, err)
	defer wb.Close()
	require.NoError(b, wb.Upload(ctx, 0, asg.W))
	var outs [3]*Scalars
	var mats [3]*Matrix
	traffic := 0
	for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
		start := time.Now()
		mats[i], err = d.UploadMatrix(ctx, m.Encoding(), shape.Coeffs, len(asg.W))
		require.NoError(b, err)
		defer mats[i].Close()
		b.Logf("%s: upload of %c: %d bytes in %v", name, "ABC"[i], m.Bytes(), time.Since(start))
		outs[i], err = d.AllocScalars(shape.NumConstraints)
		require.NoError(b, err)
		defer outs[i].Close()
		traffic += m.Bytes() + 32*m.NumTerms() + 32*m.NumRows()
	}
	got := make([]fr.Element, shape.NumConstraints)
	require.NoError(b, MulVecs(ctx, wb, mats[:], outs[:], 0))
	for i := range mats {
		require.NoError(b, outs[i].Download(ctx, 0, got))
		require.Equal(b, [][]fr.Element{asg.A, asg.B, asg.C}[i][:shape.NumConstraints], got, "%s: matrix %c", name, "ABC"[i])
	}
	benchScalarsSink = got
	b.Run(name, func(b *testing.B) {
		for range b.N {
			if err := MulVecs(ctx, wb, mats[:], outs[:], 0); err != nil {
				b.Fatal(err)
			}
		}
		sec := b.Elapsed().Seconds() / float64(b.N)
		b.ReportMetric(sec*1e3, "ms")
		b.ReportMetric(float64(traffic)/sec/1e9, "GB/s")
		b.ReportMetric(float64(shape.NumConstraints), "rows")
	})
}

// BenchmarkWitnessDecodeGPU times shipping the PoRep-shaped circuit's w to the device: compact
// (synth.CompactWitness, decoded on the device) against whole (32 bytes an element through the
// pinned staging). It reports ms, the bytes crossing the link per element, and GB/s of decoded
// elements (32 bytes each).
func BenchmarkWitnessDecodeGPU(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	for _, name := range benchPoRepSizes() {
		_, asg := benchPoRep(b, name)
		cw, err := synth.EncodeWitness(asg.W)
		require.NoError(b, err)
		wb, err := d.AllocScalars(len(asg.W))
		require.NoError(b, err)
		n := float64(len(asg.W))
		report := func(b *testing.B, linkBytes int) {
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(sec*1e3, "ms")
			b.ReportMetric(float64(linkBytes)/n, "B/elem")
			b.ReportMetric(32*n/sec/1e9, "GB/s")
		}
		b.Run(fmt.Sprintf("%s/compact", name), func(b *testing.B) {
			for range b.N {
				if err := wb.UploadWitness(ctx, 0, cw); err != nil {
					b.Fatal(err)
				}
			}
			report(b, cw.Bytes())
		})
		b.Run(fmt.Sprintf("%s/whole", name), func(b *testing.B) {
			for range b.N {
				if err := wb.Upload(ctx, 0, asg.W); err != nil {
					b.Fatal(err)
				}
			}
			report(b, 32*len(asg.W))
		})
		require.NoError(b, wb.Close())
	}
}

// TestScalarsCopyFrom copies between buffers and within one, and refuses overlapping ranges.
func TestScalarsCopyFrom(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	src := randomWitness(rng, 1000)
	dst := randomWitness(rng, 700)
	a, err := d.AllocScalars(len(src))
	require.NoError(t, err)
	defer a.Close()
	b, err := d.AllocScalars(len(dst))
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, a.Upload(ctx, 0, src))
	require.NoError(t, b.Upload(ctx, 0, dst))
	require.NoError(t, b.CopyFrom(ctx, 100, a, 300, 500))
	copy(dst[100:600], src[300:800])
	require.NoError(t, a.CopyFrom(ctx, 0, a, 500, 400))
	copy(src[:400], src[500:900])
	got := make([]fr.Element, len(dst))
	require.NoError(t, b.Download(ctx, 0, got))
	require.Equal(t, dst, got)
	got = make([]fr.Element, len(src))
	require.NoError(t, a.Download(ctx, 0, got))
	require.Equal(t, src, got)
	require.ErrorContains(t, a.CopyFrom(ctx, 0, a, 100, 200), "overlap")
	require.Error(t, b.CopyFrom(ctx, 600, a, 0, 101))
}

// TestShapeEvaluate compares Shape.Evaluate, with w shipped compactly, against synth.Synthesize's
// A, B, C zero-padded to the domain, on a random circuit of four inputs and on PoRep tiny.
func TestShapeEvaluate(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	cfg := porep.Small
	cfg.Challenges = 1
	sector, err := porep.NewSector(cfg, [32]byte{4})
	require.NoError(t, err)
	for _, c := range []synth.Circuit{
		&randomCircuit{seed: rng.Uint64(), nVars: 5000, constraints: 7000, poolSize: 100, longEvery: 500},
		sector.Circuit(0),
	} {
		shape, asg := compiledCircuit(t, c)
		n := shape.DomainSize()
		ds, err := d.UploadShape(ctx, shape)
		require.NoError(t, err)
		require.Equal(t, shape.NumRows(), ds.NumRows())
		cw, err := synth.EncodeWitness(asg.W)
		require.NoError(t, err)
		bufs := make([]*Scalars, 4) // w, a, b, c
		for i := range bufs {
			size := n + 7
			if i == 0 {
				size = len(asg.W)
			}
			bufs[i], err = d.AllocScalars(size)
			require.NoError(t, err)
			require.NoError(t, bufs[i].Upload(ctx, 0, randScalars(uint64(i), size)))
		}
		require.NoError(t, bufs[0].UploadWitness(ctx, 0, cw))
		require.NoError(t, ds.Evaluate(ctx, bufs[0], bufs[1], bufs[2], bufs[3], n))
		for i, want := range [][]fr.Element{asg.A, asg.B, asg.C} {
			padded := make([]fr.Element, n)
			copy(padded, want)
			got := make([]fr.Element, n)
			require.NoError(t, bufs[i+1].Download(ctx, 0, got))
			require.Equal(t, padded, got, "%c of %d inputs, %d rows", "ABC"[i], shape.NumInputs, shape.NumRows())
		}
		require.Error(t, ds.Evaluate(ctx, bufs[0], bufs[1], bufs[2], bufs[3], shape.NumRows()-1))
		// Without c (C folded into L): A and B as before, c's buffer untouched.
		stale := randScalars(9, n+7)
		require.NoError(t, bufs[3].Upload(ctx, 0, stale))
		for _, b := range bufs[1:3] {
			require.NoError(t, b.Upload(ctx, 0, randScalars(10, n+7)))
		}
		require.NoError(t, ds.Evaluate(ctx, bufs[0], bufs[1], bufs[2], nil, n))
		for i, want := range [][]fr.Element{asg.A, asg.B} {
			padded := make([]fr.Element, n)
			copy(padded, want)
			got := make([]fr.Element, n)
			require.NoError(t, bufs[i+1].Download(ctx, 0, got))
			require.Equal(t, padded, got, "%c without c", "AB"[i])
		}
		got := make([]fr.Element, n+7)
		require.NoError(t, bufs[3].Download(ctx, 0, got))
		require.Equal(t, stale, got, "c's buffer without c")
		for _, b := range bufs {
			require.NoError(t, b.Close())
		}
		require.NoError(t, ds.Close())
		require.ErrorIs(t, ds.Evaluate(ctx, bufs[0], bufs[1], bufs[2], bufs[3], n), ErrClosed)
	}
}
