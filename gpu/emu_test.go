package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/synth"
)

// The tests here run the source of the SpMV and witness kernels (csrc/src/spmv.cuh,
// witness.cuh) on the host through csrc/emu (one thread per CUDA thread, warps in lockstep), so
// that the kernels' indexing, warp scans, escapes, long rows and checks are tested without a
// GPU. They need a C++17 compiler (g++) and skip without one.

var (
	emuOnce sync.Once
	emuPath string
	emuErr  error
)

// kernelsEmu builds csrc/emu once per test binary and returns the program's path.
func kernelsEmu(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build the host emulation of the kernels")
	}
	emuOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cuzk-emu")
		if err != nil {
			emuErr = err
			return
		}
		emuPath = filepath.Join(dir, "kernels_emu")
		out, err := exec.Command("g++", "-std=c++17", "-O1", "-pthread", "-o", emuPath, "../csrc/emu/main.cpp").CombinedOutput()
		if err != nil {
			emuErr = fmt.Errorf("build csrc/emu: %v\n%s", err, out)
		}
	})
	require.NoError(t, emuErr)
	return emuPath
}

func elementBytes(x []fr.Element) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), fr.Bytes*len(x))
}

// runEmu runs the emulation in mode on input and returns "OK" and the bytes after it, or the
// emulation's "BAD …" line.
func runEmu(t *testing.T, mode string, input []byte) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(in, input, 0o600))
	msg, err := exec.Command(kernelsEmu(t), mode, in, out).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	res, err := os.ReadFile(out)
	require.NoError(t, err)
	if !bytes.HasPrefix(res, []byte("OK  ")) {
		return string(res), nil
	}
	return "OK", res[4:]
}

// elements returns the first n elements of b and the bytes after them.
func elements(t *testing.T, b []byte, n int) ([]fr.Element, []byte) {
	t.Helper()
	require.GreaterOrEqual(t, len(b), n*fr.Bytes, "emulation output")
	vals := make([]fr.Element, n)
	copy(elementBytes(vals), b)
	return vals, b[n*fr.Bytes:]
}

// emuProducts are the emulated SpMV's outputs: the product without and with w's classes (each
// with one poisoned element before and after), the number of others witness_classify counted,
// and its class words with one poisoned word after them.
type emuProducts struct {
	plain, classed []fr.Element
	others         uint64
	classes        []uint64
}

func emuMulVec(t *testing.T, enc synth.MatrixEncoding, coeffs, w []fr.Element) (string, emuProducts) {
	var b bytes.Buffer
	for _, v := range []int{len(enc.RowLen), len(w), enc.ColBits, len(enc.LongRows), len(enc.Words), len(coeffs), len(w)} {
		require.NoError(t, binary.Write(&b, binary.LittleEndian, uint64(v)))
	}
	b.Write(enc.RowLen)
	for _, a := range [][]uint32{enc.BlockPtr, enc.LongRows, enc.LongLens, enc.Words} {
		require.NoError(t, binary.Write(&b, binary.LittleEndian, a))
	}
	b.Write(elementBytes(coeffs))
	b.Write(elementBytes(w))
	st, res := runEmu(t, "spmv", b.Bytes())
	var p emuProducts
	if st != "OK" {
		return st, p
	}
	rows := len(enc.RowLen)
	p.plain, res = elements(t, res, rows+2)
	p.classed, res = elements(t, res, rows+2)
	words := (len(w)+31)/32 + 1
	require.Len(t, res, 8+8*words, "emulation output after the products")
	p.others = binary.LittleEndian.Uint64(res)
	p.classes = make([]uint64, words)
	for i := range p.classes {
		p.classes[i] = binary.LittleEndian.Uint64(res[8+8*i:])
	}
	return st, p
}

func emuDecode(t *testing.T, cw *synth.CompactWitness) (string, []fr.Element) {
	var b bytes.Buffer
	require.NoError(t, binary.Write(&b, binary.LittleEndian, []uint64{uint64(cw.N), uint64(len(cw.Others))}))
	require.NoError(t, binary.Write(&b, binary.LittleEndian, cw.Classes))
	b.Write(elementBytes(cw.Others))
	require.NoError(t, binary.Write(&b, binary.LittleEndian, cw.BlockOthers))
	st, res := runEmu(t, "witness", b.Bytes())
	if st != "OK" {
		return st, nil
	}
	vals, rest := elements(t, res, cw.N+2)
	require.Empty(t, rest, "emulation output after the witness")
	return st, vals
}

// checkPoison checks the outputs' poisoned neighbours and returns the outputs.
func checkPoison(t *testing.T, got []fr.Element, n int) []fr.Element {
	t.Helper()
	require.Len(t, got, n+2)
	const poison = 0xdeadbeefdeadbeef
	require.Equal(t, fr.Element{poison, poison, poison, poison}, got[0], "before the output")
	require.Equal(t, fr.Element{poison, poison, poison, poison}, got[n+1], "after the output")
	return got[1 : n+1]
}

// TestKernelsEmulatedMulVec runs the SpMV kernels' source on the host against refMulVec and
// synth.Matrix.MulVec: the random encodings of the GPU test and, without -short, a compiled
// circuit with escapes and the first 40,000 rows of PoRep tiny's A.
func TestKernelsEmulatedMulVec(t *testing.T) {
	rng := newRand(t)
	check := func(name string, enc synth.MatrixEncoding, coeffs, w, want []fr.Element) {
		st, got := emuMulVec(t, enc, coeffs, w)
		require.Equal(t, "OK", st, name)
		require.Equal(t, want, checkPoison(t, got.plain, len(enc.RowLen)), name+", without classes")
		require.Equal(t, want, checkPoison(t, got.classed, len(enc.RowLen)), name+", with classes")
		cw, err := synth.EncodeWitness(w)
		require.NoError(t, err)
		require.Equal(t, append(cw.Classes, 0xdeadbeefdeadbeef), got.classes, name+": class words")
		require.Equal(t, uint64(len(cw.Others)), got.others, name+": others")
	}
	specs := encodingSpecs()
	if testing.Short() {
		specs = specs[:5]
	}
	for _, sp := range append(specs, encodingSpec{rows: 70, cols: 2000, colBits: 26, nCoeffs: 200, longEvery: 1}) {
		enc, coeffs := randomEncoding(rng, sp)
		w := randomWitness(rng, sp.cols)
		check(fmt.Sprintf("%+v", sp), enc, coeffs, w, refMulVec(enc, coeffs, w))
	}
	empty := synth.MatrixEncoding{RowLen: make([]uint8, 40), BlockPtr: []uint32{0, 0, 0}, ColBits: 3}
	check("empty rows", empty, []fr.Element{fr.One(), fr.One()}, randomWitness(rng, 5), make([]fr.Element, 40))
	if testing.Short() {
		return
	}
	shape, asg := compiledCircuit(t, &randomCircuit{seed: rng.Uint64(), nVars: 1<<20 + 1, constraints: 3000, poolSize: 3000, longEvery: 500})
	for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
		want := make([]fr.Element, m.NumRows())
		m.MulVec(asg.W, want, 0, m.NumRows())
		check(fmt.Sprintf("random circuit, %c", "ABC"[i]), m.Encoding(), shape.Coeffs, asg.W, want)
	}
	cfg := porep.Small
	cfg.Challenges = 1
	s, err := porep.NewSector(cfg, [32]byte{1, 2, 3})
	require.NoError(t, err)
	shape, asg = compiledCircuit(t, s.Circuit(0))
	const rows = 40000 // a multiple of the row block
	enc := shape.A.Encoding()
	enc.RowLen, enc.BlockPtr = enc.RowLen[:rows], enc.BlockPtr[:rows/synth.RowBlock+1]
	enc.Words = enc.Words[:enc.BlockPtr[rows/synth.RowBlock]]
	n := 0
	for n < len(enc.LongRows) && enc.LongRows[n] < rows {
		n++
	}
	enc.LongRows, enc.LongLens = enc.LongRows[:n], enc.LongLens[:n]
	require.Positive(t, n, "long rows among the first rows")
	want := make([]fr.Element, rows)
	shape.A.MulVec(asg.W, want, 0, rows)
	check("porep tiny, A", enc, shape.Coeffs, asg.W, want)
}

// TestKernelsEmulatedChecks runs spmv_check on the host on the broken encodings of
// TestMatrixUploadRefusesBadEncodings and expects the row and reason the library reports.
func TestKernelsEmulatedChecks(t *testing.T) {
	sp := encodingSpec{rows: 300, cols: 1000, colBits: 27, nCoeffs: 20, longEvery: 20}
	const colMask = 1<<27 - 1
	enc0, _ := randomEncoding(newRandSeed(7), sp)
	r0, _ := firstTermRow(enc0)
	unlisted := 64
	for enc0.RowLen[unlisted] == synth.LongRow {
		unlisted += 32
	}
	// Reasons of spmv.cuh: 1 unlisted long row, 2 block, 3 column, 4 code, 5 escape.
	cases := []struct {
		name, want string
		spoil      func(enc *synth.MatrixEncoding)
	}{
		{"column", fmt.Sprintf("BAD %d 3", r0), func(enc *synth.MatrixEncoding) {
			_, k := firstTermRow(*enc)
			enc.Words[k] = enc.Words[k]&^colMask | 1000
		}},
		{"code", fmt.Sprintf("BAD %d 4", r0), func(enc *synth.MatrixEncoding) {
			_, k := firstTermRow(*enc)
			enc.Words[k] = 25<<27 | enc.Words[k]&colMask
		}},
		{"escape", fmt.Sprintf("BAD %d 5", r0), func(enc *synth.MatrixEncoding) {
			_, k := firstTermRow(*enc)
			enc.Words[k] = 31<<27 | enc.Words[k]&colMask
		}},
		{"block", fmt.Sprintf("BAD %d 2", r0/32*32), func(enc *synth.MatrixEncoding) { enc.RowLen[r0]-- }},
		{"unlisted", fmt.Sprintf("BAD %d 1", unlisted), func(enc *synth.MatrixEncoding) { enc.RowLen[unlisted] = synth.LongRow }},
	}
	for _, tc := range cases {
		enc, coeffs := randomEncoding(newRandSeed(7), sp)
		tc.spoil(&enc)
		st, _ := emuMulVec(t, enc, coeffs, randomWitness(newRandSeed(1), sp.cols))
		require.Equal(t, tc.want, st, tc.name)
	}
}

// TestKernelsEmulatedWitness runs the witness kernel on the host against the encoded elements,
// and on a class 3 and a wrong block count.
func TestKernelsEmulatedWitness(t *testing.T) {
	rng := newRand(t)
	for _, n := range []int{1, 33, 511, 512, 513, 1500} {
		for _, mix := range witnessMixes {
			w := mixWitness(rng, n, mix)
			cw, err := synth.EncodeWitness(w)
			require.NoError(t, err)
			st, got := emuDecode(t, cw)
			require.Equal(t, "OK", st)
			require.Equal(t, w, checkPoison(t, got, n), "n %d, %s", n, mix)
		}
	}
	w := randomWitness(rng, 2000)
	bad := 1000
	for !w[bad].IsZero() && !w[bad].IsOne() {
		bad++
	}
	cw, err := synth.EncodeWitness(w)
	require.NoError(t, err)
	cw.Classes[bad/32] |= 3 << (2 * (bad % 32))
	st, _ := emuDecode(t, cw)
	require.Equal(t, fmt.Sprintf("BAD %d 1", bad), st)
	cw, err = synth.EncodeWitness(w)
	require.NoError(t, err)
	cw.BlockOthers[1]++ // block 0 claims one more other, block 1 one fewer
	st, _ = emuDecode(t, cw)
	require.Equal(t, "BAD 0 2", st)
}

// firstTermRow returns the first row from row 40 on that has terms and is not long, and its first
// word.
func firstTermRow(enc synth.MatrixEncoding) (int, int) {
	k := int(enc.BlockPtr[1])
	long := 0
	for r := 32; ; r++ {
		n := int(enc.RowLen[r])
		if enc.RowLen[r] == synth.LongRow {
			for enc.LongRows[long] < uint32(r) {
				long++
			}
			n = int(enc.LongLens[long])
		}
		if r >= 40 && n > 0 && n < synth.LongRow {
			return r, k
		}
		k += n
	}
}
