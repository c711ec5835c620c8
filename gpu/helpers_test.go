package gpu

import (
	"context"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"
)

// testDevice returns device 0 or skips the test when libcuzk.so or a device
// is absent.
func testDevice(tb testing.TB) *Device {
	tb.Helper()
	lib, err := Load()
	if err != nil {
		tb.Skipf("no GPU library: %v", err)
	}
	if lib.DeviceCount() == 0 {
		tb.Skip("no CUDA device")
	}
	d, err := lib.Device(0)
	if err != nil {
		tb.Skipf("no CUDA device: %v", err)
	}
	return d
}

// newRand returns a generator seeded freshly (logged for reproduction).
func newRand(tb testing.TB) *rand.Rand {
	seed := rand.Uint64()
	tb.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// rMinus1Top is the top limb of r; values with a smaller top limb are < r.
var rTop = fr.Modulus().Bits()[3]

// randScalars fills n uniformly random-looking Fr elements (valid Montgomery
// representations, i.e. < r) quickly, in parallel.
func randScalars(seed uint64, n int) []fr.Element {
	out := make([]fr.Element, n)
	workers := runtime.GOMAXPROCS(0)
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := lo; i < hi; i++ {
				out[i][0] = r.Uint64()
				out[i][1] = r.Uint64()
				out[i][2] = r.Uint64()
				out[i][3] = r.Uint64N(uint64(rTop))
			}
		}(w, lo, hi)
	}
	wg.Wait()
	return out
}

var (
	g1Once  sync.Once
	g1Cache []bls12381.G1Affine
	g2Once  sync.Once
	g2Cache []bls12381.G2Affine
)

const randomBases = 1 << 20

// g1Points returns n affine points: random multiples of the generator for
// the first 2^20, then repeating.
func g1Points(n int) []bls12381.G1Affine {
	g1Once.Do(func() {
		_, _, g, _ := bls12381.Generators()
		sc := randScalars(rand.Uint64(), randomBases)
		g1Cache = bls12381.BatchScalarMultiplicationG1(&g, sc)
	})
	out := make([]bls12381.G1Affine, n)
	for i := 0; i < n; i += randomBases {
		copy(out[i:], g1Cache)
	}
	return out
}

// specialG1Points returns g1Points(n) with special bases planted: infinity at 1 (and at n − 1
// past 10 points), a duplicate (5 = 4) and a point with its negation (7 = −6).
func specialG1Points(n int) []bls12381.G1Affine {
	pts := g1Points(n)
	pts[1] = bls12381.G1Affine{}
	if n > 10 {
		pts[5] = pts[4]
		pts[7].Neg(&pts[6])
		pts[n-1] = bls12381.G1Affine{}
	}
	return pts
}

// checkG1MSM fails t unless bases.MSM(sc) is gnark's MultiExp over pts[:len(sc)] and sc.
func checkG1MSM(t *testing.T, ctx context.Context, bases *G1Bases, pts []bls12381.G1Affine, sc []fr.Element) {
	t.Helper()
	n := len(sc)
	var want, ga bls12381.G1Affine
	if _, err := want.MultiExp(pts[:n], sc, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	got, err := bases.MSM(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	ga.FromJacobian(&got)
	if ga != want {
		t.Fatalf("G1 MSM n=%d: got %s want %s", n, ga.String(), want.String())
	}
}

// checkG2MSM fails t unless bases.MSM(sc) is gnark's MultiExp over pts[:len(sc)] and sc.
func checkG2MSM(t *testing.T, ctx context.Context, bases *G2Bases, pts []bls12381.G2Affine, sc []fr.Element) {
	t.Helper()
	n := len(sc)
	var want, ga bls12381.G2Affine
	if _, err := want.MultiExp(pts[:n], sc, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	got, err := bases.MSM(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	ga.FromJacobian(&got)
	if ga != want {
		t.Fatalf("G2 MSM n=%d: got %s want %s", n, ga.String(), want.String())
	}
}

// deviceScalarOff is the offset at which checkG1MSMDevice places its scalars in their buffer.
const deviceScalarOff = 9

// checkG1MSMDevice uploads sc at deviceScalarOff of a device buffer (freed when the test ends),
// fails t unless bases.MSMDevice over them is gnark's MultiExp over pts[:len(sc)], and returns
// the buffer.
func checkG1MSMDevice(t *testing.T, ctx context.Context, d *Device, bases *G1Bases, pts []bls12381.G1Affine, sc []fr.Element) *Scalars {
	t.Helper()
	n := len(sc)
	buf := testScalars(t, d, n+deviceScalarOff)
	if err := buf.Upload(ctx, deviceScalarOff, sc); err != nil {
		t.Fatal(err)
	}
	got, err := bases.MSMDevice(ctx, buf, deviceScalarOff, n)
	if err != nil {
		t.Fatal(err)
	}
	var want, ga bls12381.G1Affine
	if _, err := want.MultiExp(pts[:n], sc, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	ga.FromJacobian(&got)
	if ga != want {
		t.Fatalf("G1 MSMDevice n=%d at offset %d: got %s want %s", n, deviceScalarOff, ga.String(), want.String())
	}
	return buf
}

func g2Points(n int) []bls12381.G2Affine {
	g2Once.Do(func() {
		_, _, _, g := bls12381.Generators()
		sc := randScalars(rand.Uint64(), randomBases)
		g2Cache = bls12381.BatchScalarMultiplicationG2(&g, sc)
	})
	out := make([]bls12381.G2Affine, n)
	for i := 0; i < n; i += randomBases {
		copy(out[i:], g2Cache)
	}
	return out
}

func rMinusOne() fr.Element {
	var x fr.Element
	x.SetBigInt(new(big.Int).Sub(fr.Modulus(), big.NewInt(1)))
	return x
}

func newRandSeed(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d)) }

// testScalars allocates n scalars on d, freed when the test ends.
func testScalars(tb testing.TB, d *Device, n int) *Scalars {
	tb.Helper()
	s, err := d.AllocScalars(n)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// quotientSteps runs Groth16's quotient on a, b, c over 2^logN a step at a time on the coset
// shift·⟨ω⟩, as prover/groth16.go's quotient does: three inverse transforms to bit-reversed order,
// two coset transforms back, a·b, an inverse coset transform, Quotient with 1/(shift^n − 1). With
// c nil (folded parameters) it stops at a·b, the product of the values on the coset.
func quotientSteps(ctx context.Context, a, b, c *Scalars, logN int, shift fr.Element) error {
	for _, x := range []*Scalars{a, b, c} {
		if x == nil {
			continue
		}
		if err := x.NTT(ctx, 0, logN, NTTConfig{Inverse: true, OutputBitReversed: true}); err != nil {
			return err
		}
	}
	for _, x := range []*Scalars{a, b} {
		if err := x.NTT(ctx, 0, logN, NTTConfig{Coset: true, InputBitReversed: true, Shift: shift}); err != nil {
			return err
		}
	}
	if err := a.Mul(ctx, b, 1<<logN); err != nil || c == nil {
		return err
	}
	if err := a.NTT(ctx, 0, logN, NTTConfig{Inverse: true, Coset: true, OutputBitReversed: true, Shift: shift}); err != nil {
		return err
	}
	var zInv fr.Element
	zInv.Exp(shift, new(big.Int).Lsh(big.NewInt(1), uint(logN)))
	zInv.Sub(&zInv, new(fr.Element).SetOne()).Inverse(&zInv)
	return a.Quotient(ctx, c, logN, zInv)
}

// quotientShifts are the coset shifts the quotient's tests run on 2^logN: ω_{2n} (the prover's,
// merged into the transforms' twiddles), 7 (gnark's default) and a random one.
func quotientShifts(tb testing.TB, logN int, random fr.Element) map[string]fr.Element {
	psi, err := fft.Generator(2 << logN)
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]fr.Element{"ω_2n": psi, "7": fr.NewElement(7), "random": random}
}

// bitRevOrder returns x in the order of b bits reversed: out[rev(i)] = x[i] for i < len(x) ≤ 2^b,
// with len(x) = 2^b or 2^b − 1 (rev then maps [0, len(x)) onto itself).
func bitRevOrder[T any](x []T, b int) []T {
	out := make([]T, len(x))
	for i := range x {
		out[bits.Reverse64(uint64(i))>>(64-b)] = x[i]
	}
	return out
}

// buildEmulation builds the host emulation csrc/emu/NAME.cpp (g++, C++17) into a temporary
// directory of t and returns the program's path; it skips t without g++.
func buildEmulation(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build the host emulation csrc/emu/" + name + ".cpp")
	}
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("g++", "-std=c++17", "-O1", "-pthread", "-o", bin, "../csrc/emu/"+name+".cpp").CombinedOutput()
	require.NoError(t, err, "build csrc/emu/%s.cpp: %s", name, out)
	return bin
}
