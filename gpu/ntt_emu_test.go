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

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"
)

// The tests here run the NTT pass kernels' source (csrc/src/ntt.cuh) on the host through
// csrc/emu/ntt_main.cpp — the same plan, tables and per-block code as the library, each CUDA
// thread a host thread — and compare with gnark-crypto's fft.Domain FFT and FFTInverse. They
// need a C++17 compiler (g++) and skip without one.

// nttEmuConfig is one build of the emulation: pass size, diagonal-table size and stages per
// step in bits (CUZK_NTT_PASS_BITS, CUZK_NTT_DIAG_BITS, CUZK_NTT_RADIX_BITS), and a run's full
// diagonal table in bits (ntt_twiddles.full; 0 for none). Small pass and table sizes give
// several passes and the two-lookup diagonal at sizes the emulation runs quickly.
type nttEmuConfig struct{ passBits, diagBits, radixBits, fullLog int }

var nttEmuBuilds sync.Map // nttEmuConfig → *nttEmuBuild

type nttEmuBuild struct {
	once sync.Once
	path string
	err  error
}

// nttEmu builds csrc/emu/ntt_main.cpp for c once per test binary and returns the program's path.
func nttEmu(t *testing.T, c nttEmuConfig) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build the host emulation of the kernels")
	}
	c.fullLog = 0 // a run's choice, not the build's
	v, _ := nttEmuBuilds.LoadOrStore(c, &nttEmuBuild{})
	b := v.(*nttEmuBuild)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "cuzk-ntt-emu")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "ntt_emu")
		out, err := exec.Command("g++", "-std=c++17", "-O1", "-pthread",
			fmt.Sprintf("-DCUZK_NTT_PASS_BITS=%d", c.passBits), fmt.Sprintf("-DCUZK_NTT_DIAG_BITS=%d", c.diagBits),
			fmt.Sprintf("-DCUZK_NTT_RADIX_BITS=%d", c.radixBits),
			"-o", b.path, "../csrc/emu/ntt_main.cpp").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("build csrc/emu/ntt_main.cpp: %v\n%s", err, out)
		}
	})
	require.NoError(t, b.err)
	return b.path
}

// nttEmuCase is one transform for the emulation, or with more steps a chain of them on one array
// (ntt_run_chain), and its expected result.
type nttEmuCase struct {
	name  string
	cfg   NTTConfig
	scale *fr.Element  // cfg's inverse scaled by scale·n⁻¹ (ntt_extra's inv_scale), or by n⁻¹
	more  []nttEmuStep // the transforms after cfg's
	input []fr.Element
	want  []fr.Element
}

// nttEmuStep is a transform of a chain after its first, with ntt_extra's additions: times, when
// given, multiplies its output, minus is subtracted from it (the chain's last), and an inverse
// without coset scales by scale·n⁻¹.
type nttEmuStep struct {
	cfg          NTTConfig
	times, minus []fr.Element
	scale        *fr.Element
}

// runNTTEmu transforms every case's input in one run of the emulation and compares with want.
func runNTTEmu(t *testing.T, c nttEmuConfig, cases []nttEmuCase) {
	t.Helper()
	var b bytes.Buffer
	put := func(v ...uint64) { require.NoError(t, binary.Write(&b, binary.LittleEndian, v)) }
	flag := func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	}
	put(uint64(len(cases)))
	total := 0
	for _, k := range cases {
		logN, err := logLen(len(k.input))
		require.NoError(t, err)
		steps := append([]nttEmuStep{{cfg: k.cfg, scale: k.scale}}, k.more...)
		put(uint64(logN), uint64(len(steps)))
		for _, st := range steps {
			put(flag(st.cfg.Inverse), flag(st.cfg.Coset), flag(st.cfg.InputBitReversed), flag(st.cfg.OutputBitReversed),
				flag(st.times != nil), flag(st.minus != nil))
			put(st.cfg.Shift[:]...)
			var scale fr.Element // zero: one
			if st.scale != nil {
				scale = *st.scale
			}
			put(scale[:]...)
		}
		b.Write(elementBytes(k.input))
		for _, st := range steps {
			if st.times != nil {
				b.Write(elementBytes(st.times))
			}
		}
		for _, st := range steps {
			if st.minus != nil {
				b.Write(elementBytes(st.minus))
			}
		}
		total += len(k.input)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(in, b.Bytes(), 0o600))
	args := []string{in, out}
	if c.fullLog > 0 {
		args = append(args, fmt.Sprint(c.fullLog))
	}
	msg, err := exec.Command(nttEmu(t, c), args...).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	res, err := os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(res, []byte("OK  ")), "emulation output %q", res[:min(len(res), 64)])
	require.Len(t, res, 4+total*fr.Bytes)
	got := make([]fr.Element, total)
	copy(elementBytes(got), res[4:])
	for _, k := range cases {
		n := len(k.input)
		for i := range n {
			if got[i] != k.want[i] {
				t.Fatalf("%+v %s: element %d differs from gnark", c, k.name, i)
			}
		}
		got = got[n:]
	}
}

// nttGnarkCases are the transforms of random inputs of 2^1..2^maxLog, forward and inverse, in
// the four index orders: without coset, on gnark's default coset (7), on the coset of shift 5,
// and on the coset ω_{2n}·⟨ω⟩ (the plan's merged coset).
func nttGnarkCases(t *testing.T, maxLog int) []nttEmuCase {
	rng := newRand(t)
	var cases []nttEmuCase
	for logN := 1; logN <= maxLog; logN++ {
		n := 1 << logN
		psi, err := fft.Generator(uint64(2 * n))
		require.NoError(t, err)
		variants := []struct {
			label string
			coset bool
			shift fr.Element // zero: gnark's default
		}{{"coset=false", false, fr.Element{}}, {"coset=true", true, fr.Element{}},
			{"shift 5", true, fr.NewElement(5)}, {"shift ω_2n", true, psi}}
		for _, v := range variants {
			dom := fft.NewDomain(uint64(n))
			if !v.shift.IsZero() {
				dom = fft.NewDomain(uint64(n), fft.WithShift(v.shift))
			}
			for _, inv := range []bool{false, true} {
				for _, o := range nttOrders {
					a := randScalars(rng.Uint64(), n)
					want := append([]fr.Element(nil), a...)
					gnarkNTT(dom, want, inv, v.coset, o.inBR, o.outBR)
					cases = append(cases, nttEmuCase{
						name: fmt.Sprintf("2^%d inverse=%v %s %s", logN, inv, v.label, o.name),
						cfg: NTTConfig{Inverse: inv, Coset: v.coset, InputBitReversed: o.inBR, OutputBitReversed: o.outBR,
							Shift: v.shift},
						input: a, want: want,
					})
				}
			}
		}
	}
	return cases
}

// nttChainCases are the quotient's chains of transforms of one array at 2^1..2^maxLog on the coset
// ω_{2n}·⟨ω⟩ (vector.cu's groth16_h): an inverse N→R scaled by a random s besides n⁻¹ and the
// coset transform R→N of its output (b's); an inverse N→R, the coset transform with its output
// multiplied by another array and the inverse coset transform N→R with another array subtracted
// from its output (a's, the subtraction on the last pass's store where ntt_set_minus allows, else
// a pass of its own); and the scaled inverse alone, to bit-reversed (c's) and to natural order;
// each against gnark's transforms one after the other.
func nttChainCases(t *testing.T, maxLog int) []nttEmuCase {
	rng := newRand(t)
	var cases []nttEmuCase
	for logN := 1; logN <= maxLog; logN++ {
		n := 1 << logN
		psi, err := fft.Generator(uint64(2 * n))
		require.NoError(t, err)
		dom, coset := fft.NewDomain(uint64(n)), fft.NewDomain(uint64(n), fft.WithShift(psi))
		toBitrev := NTTConfig{Inverse: true, OutputBitReversed: true}
		fwd := NTTConfig{Coset: true, InputBitReversed: true, Shift: psi}
		inv := NTTConfig{Inverse: true, Coset: true, OutputBitReversed: true, Shift: psi}
		scale := randScalars(rng.Uint64(), 1)[0]
		scaled := func(v []fr.Element) {
			for i := range v {
				v[i].Mul(&v[i], &scale)
			}
		}
		x := randScalars(rng.Uint64(), n)
		want := append([]fr.Element(nil), x...)
		gnarkNTT(dom, want, true, false, false, true)
		scaled(want)
		gnarkNTT(coset, want, false, true, true, false)
		cases = append(cases, nttEmuCase{name: fmt.Sprintf("2^%d chain inverse N2R scaled, coset ω_2n R2N", logN),
			cfg: toBitrev, scale: &scale, more: []nttEmuStep{{cfg: fwd}}, input: x, want: want})
		times, minus := randScalars(rng.Uint64(), n), randScalars(rng.Uint64(), n)
		y := randScalars(rng.Uint64(), n)
		want = append([]fr.Element(nil), y...)
		gnarkNTT(dom, want, true, false, false, true)
		gnarkNTT(coset, want, false, true, true, false)
		for i := range want {
			want[i].Mul(&want[i], &times[i])
		}
		gnarkNTT(coset, want, true, true, false, true)
		for i := range want {
			want[i].Sub(&want[i], &minus[i])
		}
		cases = append(cases, nttEmuCase{name: fmt.Sprintf("2^%d chain inverse N2R, coset ω_2n R2N times, inverse coset N2R minus", logN),
			cfg: toBitrev, more: []nttEmuStep{{cfg: fwd, times: times}, {cfg: inv, minus: minus}}, input: y, want: want})
		for _, outBitrev := range []bool{true, false} {
			z := randScalars(rng.Uint64(), n)
			want = append([]fr.Element(nil), z...)
			gnarkNTT(dom, want, true, false, false, outBitrev)
			scaled(want)
			cases = append(cases, nttEmuCase{name: fmt.Sprintf("2^%d inverse scaled, to bit-reversed order %v", logN, outBitrev),
				cfg: NTTConfig{Inverse: true, OutputBitReversed: outBitrev}, scale: &scale, input: z, want: want})
		}
	}
	return cases
}

// TestNTTEmulatedMatchesGnark runs the pass kernels on 2^1..2^12 (-short: 2^8, five runs) in the
// library's build (2^10-element blocks, radix-4 steps, one-lookup diagonals up to 2^18: one and
// two passes), with radix-8 steps, and in builds that reach several passes and the two-lookup
// diagonal at these sizes: 2^4- and 2^5-element blocks with one-lookup diagonals up to 2^3
// (three passes at 2^12), 2^11-element blocks with diagonals up to 2^6; from two passes on the
// ω_{2n} coset's row factor rides inside one pass's DFTs (ntt_ring), in the four orders and both
// directions, an inverse's n⁻¹ then on a diagonal's table. Two runs take a full diagonal table of 2^12 elements (ω_{2^13}'s, so that the smaller sizes read it
// with a shift): with 2^4-element blocks and diagonals up to 2^3, where n⁻¹ of an inverse rides
// on the second diagonal's two-lookup table, and up to 2^8, where it rides on its one-lookup
// table (-short: 2^3-element blocks and a table of 2^8, diagonals up to 2^3 and 2^5).
func TestNTTEmulatedMatchesGnark(t *testing.T) {
	maxLog := 12
	configs := []nttEmuConfig{{10, 18, 2, 0}, {10, 18, 3, 0}, {4, 3, 2, 0}, {5, 3, 3, 0}, {11, 6, 3, 0}, {4, 3, 2, 12},
		{4, 8, 2, 12}}
	if testing.Short() {
		maxLog, configs = 8, []nttEmuConfig{{10, 18, 2, 0}, {4, 3, 2, 0}, {5, 3, 3, 0}, {3, 3, 2, 8}, {3, 5, 2, 8}}
	}
	for _, c := range configs {
		t.Run(fmt.Sprintf("pass%d-diag%d-radix%d-full%d", c.passBits, c.diagBits, 1<<c.radixBits, c.fullLog), func(t *testing.T) {
			cases := append(nttGnarkCases(t, maxLog), nttChainCases(t, maxLog)...)
			if maxLog < 10 {
				// The tiled bit reversal pairs distinct tiles from 2^10 on (none at 2^8 and 2^9).
				for _, k := range nttGnarkCases(t, 10) {
					if k.name == "2^10 inverse=false coset=false N2N" || k.name == "2^10 inverse=true coset=true R2R" {
						cases = append(cases, k)
					}
				}
			}
			runNTTEmu(t, c, cases)
		})
	}
}
