package gpu

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// fixedBaseScalars returns n scalars: the edge cases first (0, 1, 2, r−1, r−2, small values
// around the 16-bit window's half and full width, powers of two and 2^k − 1, which exercise
// every signed-digit carry), then random ones.
func fixedBaseScalars(seed uint64, n int) []fr.Element {
	var edge []fr.Element
	add := func(b *big.Int) {
		var e fr.Element
		e.SetBigInt(b)
		edge = append(edge, e)
	}
	r := fr.Modulus()
	for _, v := range []int64{0, 1, 2, 3, 7, 255, 256, 32767, 32768, 32769, 65535, 65536, 65537} {
		add(big.NewInt(v))
	}
	for _, d := range []int64{1, 2, 32768, 65536} {
		add(new(big.Int).Sub(r, big.NewInt(d)))
	}
	for k := 1; k < 255; k += 11 {
		p := new(big.Int).Lsh(big.NewInt(1), uint(k))
		add(p)
		add(p.Sub(p, big.NewInt(1)))
	}
	out := randScalars(seed, n)
	copy(out, edge)
	return out
}

// referenceDirect is the most reference points computed one by one with gnark-crypto's
// ScalarMultiplication; more are computed with its BatchScalarMultiplication.
const referenceDirect = 4200

// wantG1 returns scalars[i]·base with gnark-crypto for the indices idx (all when nil).
func wantG1(base *bls12381.G1Affine, scalars []fr.Element, idx []int) map[int]bls12381.G1Affine {
	if idx == nil {
		idx = make([]int, len(scalars))
		for i := range idx {
			idx[i] = i
		}
	}
	out := make(map[int]bls12381.G1Affine, len(idx))
	if len(idx) <= referenceDirect {
		for _, i := range idx {
			var p bls12381.G1Affine
			var k big.Int
			p.ScalarMultiplication(base, scalars[i].BigInt(&k))
			out[i] = p
		}
		return out
	}
	sel := make([]fr.Element, len(idx))
	for j, i := range idx {
		sel[j] = scalars[i]
	}
	pts := bls12381.BatchScalarMultiplicationG1(base, sel)
	for j, i := range idx {
		out[i] = pts[j]
	}
	return out
}

func wantG2(base *bls12381.G2Affine, scalars []fr.Element, idx []int) map[int]bls12381.G2Affine {
	if idx == nil {
		idx = make([]int, len(scalars))
		for i := range idx {
			idx[i] = i
		}
	}
	out := make(map[int]bls12381.G2Affine, len(idx))
	if len(idx) <= referenceDirect {
		for _, i := range idx {
			var p bls12381.G2Affine
			var k big.Int
			p.ScalarMultiplication(base, scalars[i].BigInt(&k))
			out[i] = p
		}
		return out
	}
	sel := make([]fr.Element, len(idx))
	for j, i := range idx {
		sel[j] = scalars[i]
	}
	pts := bls12381.BatchScalarMultiplicationG2(base, sel)
	for j, i := range idx {
		out[i] = pts[j]
	}
	return out
}

// sampleIndices returns the first and last 512 indices of [0, n) and 1024 random ones.
func sampleIndices(seed uint64, n int) []int {
	r := newRandSeed(seed)
	var idx []int
	for i := 0; i < n && i < 512; i++ {
		idx = append(idx, i)
	}
	for i := max(512, n-512); i < n; i++ {
		idx = append(idx, i)
	}
	for k := 0; k < 1024; k++ {
		idx = append(idx, r.IntN(n))
	}
	return idx
}

// fixedBaseSizes are the sizes of the differential tests: 1, around a warp and the 32-point
// inversion batch, not multiples of the block, and unless -short 2·2^22 + 5, three of the
// library's device passes (CUZK_FB_CHUNK_LOG2 = 22), on both of its lanes.
func fixedBaseSizes() []int {
	s := []int{1, 2, 31, 33, 127, 129, 1000, 4099, 1<<16 + 3}
	if !testing.Short() {
		s = append(s, 2<<22+5)
	}
	return s
}

// TestFixedBaseG1MatchesGnark compares k·P on the device with gnark-crypto for gnark's
// generator and a random base, affine points equal limb for limb (gnark's memory layout).
func TestFixedBaseG1MatchesGnark(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	_, _, gen, _ := bls12381.Generators()
	var other bls12381.G1Affine
	other.ScalarMultiplication(&gen, big.NewInt(0x1234567890abcdef))
	for name, base := range map[string]bls12381.G1Affine{"generator": gen, "random base": other} {
		fb, err := d.NewFixedBaseG1(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range fixedBaseSizes() {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				seed := uint64(n)*7919 + 1
				scalars := fixedBaseScalars(seed, n)
				got := make([]bls12381.G1Affine, n)
				if err := fb.Mul(ctx, scalars, got); err != nil {
					t.Fatal(err)
				}
				var idx []int
				if n > 1<<17 {
					idx = sampleIndices(seed, n)
				}
				for i, w := range wantG1(&base, scalars, idx) {
					if got[i] != w {
						t.Fatalf("point %d (scalar %s): got %s, want %s", i, scalars[i].String(), got[i].String(), w.String())
					}
				}
			})
		}
		if err := fb.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixedBaseG2MatchesGnark is TestFixedBaseG1MatchesGnark on G2.
func TestFixedBaseG2MatchesGnark(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	_, _, _, gen := bls12381.Generators()
	var other bls12381.G2Affine
	other.ScalarMultiplication(&gen, big.NewInt(0x1234567890abcdef))
	for name, base := range map[string]bls12381.G2Affine{"generator": gen, "random base": other} {
		fb, err := d.NewFixedBaseG2(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range fixedBaseSizes() {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				seed := uint64(n)*7919 + 2
				scalars := fixedBaseScalars(seed, n)
				got := make([]bls12381.G2Affine, n)
				if err := fb.Mul(ctx, scalars, got); err != nil {
					t.Fatal(err)
				}
				var idx []int
				if n > 1<<14 {
					idx = sampleIndices(seed, n)
				}
				for i, w := range wantG2(&base, scalars, idx) {
					if got[i] != w {
						t.Fatalf("point %d (scalar %s): got %s, want %s", i, scalars[i].String(), got[i].String(), w.String())
					}
				}
			})
		}
		if err := fb.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixedBaseCallChunks makes Mul split its input into many library calls (1000 points
// each) and checks the points against gnark-crypto.
func TestFixedBaseCallChunks(t *testing.T) {
	d := testDevice(t)
	defer func(c int) { fixedBaseChunk = c }(fixedBaseChunk)
	fixedBaseChunk = 1000
	_, _, g1, g2 := bls12381.Generators()
	scalars := fixedBaseScalars(11, 4099)
	f1, err := d.NewFixedBaseG1(g1)
	if err != nil {
		t.Fatal(err)
	}
	defer f1.Close()
	f2, err := d.NewFixedBaseG2(g2)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	p1 := make([]bls12381.G1Affine, len(scalars))
	p2 := make([]bls12381.G2Affine, len(scalars))
	if err := f1.Mul(context.Background(), scalars, p1); err != nil {
		t.Fatal(err)
	}
	if err := f2.Mul(context.Background(), scalars, p2); err != nil {
		t.Fatal(err)
	}
	for i, w := range wantG1(&g1, scalars, nil) {
		if p1[i] != w {
			t.Fatalf("G1 point %d differs", i)
		}
	}
	for i, w := range wantG2(&g2, scalars, sampleIndices(11, len(scalars))) {
		if p2[i] != w {
			t.Fatalf("G2 point %d differs", i)
		}
	}
}

// TestMulGeneratorsMatchGnark checks Device.MulG1/MulG2, gnark's generators, on a few scalars.
func TestMulGeneratorsMatchGnark(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	scalars := fixedBaseScalars(5, 300)
	_, _, g1, g2 := bls12381.Generators()
	p1, err := d.MulG1(ctx, scalars)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := d.MulG2(ctx, scalars)
	if err != nil {
		t.Fatal(err)
	}
	w1, w2 := wantG1(&g1, scalars, nil), wantG2(&g2, scalars, nil)
	for i := range scalars {
		if p1[i] != w1[i] || p2[i] != w2[i] {
			t.Fatalf("scalar %d (%s): G1 equal %v, G2 equal %v", i, scalars[i].String(), p1[i] == w1[i], p2[i] == w2[i])
		}
	}
	if p, err := d.MulG1(ctx, nil); err != nil || len(p) != 0 {
		t.Fatalf("no scalars: %d points, %v", len(p), err)
	}
}

// TestFixedBaseInfinityBase checks that the point at infinity as base gives infinity.
func TestFixedBaseInfinityBase(t *testing.T) {
	d := testDevice(t)
	fb, err := d.NewFixedBaseG1(bls12381.G1Affine{})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	scalars := fixedBaseScalars(9, 100)
	got := make([]bls12381.G1Affine, len(scalars))
	for i := range got {
		got[i].X.SetOne()
	}
	if err := fb.Mul(context.Background(), scalars, got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !got[i].IsInfinity() {
			t.Fatalf("point %d: %s, want infinity", i, got[i].String())
		}
	}
}

// TestFixedBaseRejects checks the errors: a scalar whose limbs are ≥ r (named by its index), a
// base off the curve, an output of the wrong length, a cancelled context and a closed handle.
func TestFixedBaseRejects(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	_, _, g1, _ := bls12381.Generators()
	fb, err := d.NewFixedBaseG1(g1)
	if err != nil {
		t.Fatal(err)
	}
	scalars := fixedBaseScalars(3, 1000)
	for i, w := range fr.Modulus().Bits() {
		scalars[700][i] = uint64(w) // r itself: not a valid fr.Element
	}
	scalars[900] = scalars[700]
	out := make([]bls12381.G1Affine, len(scalars))
	err = fb.Mul(ctx, scalars, out)
	var de *DeviceError
	if !errors.As(err, &de) || de.Code != CodeInvalid || !bytes.Contains([]byte(err.Error()), []byte("scalar 700 ")) {
		t.Fatalf("scalar ≥ r: got %v, want an invalid-argument error naming scalar 700", err)
	}
	if err := fb.Mul(ctx, scalars[:3], out[:2]); err == nil {
		t.Fatal("3 scalars, 2 outputs: no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := fb.Mul(cancelled, scalars[:3], out[:3]); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v", err)
	}
	if err := fb.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fb.Mul(ctx, scalars[:3], out[:3]); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: got %v, want ErrClosed", err)
	}
	if err := fb.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	off := g1
	off.Y.Add(&off.Y, &off.X)
	if _, err := d.NewFixedBaseG1(off); err == nil {
		t.Fatal("base off the curve: no error")
	}
}

// TestInsecureSetupWithGPU checks that devsetup's setup with the device's fixed-base
// multiplication gives parameters byte-identical to its CPU tables, and that they prove.
func TestInsecureSetupWithGPU(t *testing.T) {
	d := testDevice(t)
	for _, logN := range []int{10, 12} {
		t.Run(fmt.Sprintf("2^%d", logN), func(t *testing.T) {
			c := &circuits.Scalable{Constraints: 1<<logN - 6, Inputs: 5, Seed: 13}
			shape, err := synth.Compile(c)
			if err != nil {
				t.Fatal(err)
			}
			tw, err := devsetup.NewToxicWaste(rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			cpu, err := devsetup.InsecureSetup(shape, tw)
			if err != nil {
				t.Fatal(err)
			}
			onGPU, err := devsetup.InsecureSetup(shape, tw, devsetup.WithFixedBase(d))
			if err != nil {
				t.Fatal(err)
			}
			var a, b bytes.Buffer
			if _, err := cpu.WriteTo(&a); err != nil {
				t.Fatal(err)
			}
			if _, err := onGPU.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("parameters made with the GPU differ from the CPU's")
			}
			ctx := context.Background()
			asg, err := synth.Synthesize(ctx, shape, c)
			if err != nil {
				t.Fatal(err)
			}
			proof, err := prover.ProvePartition(ctx, onGPU, asg)
			if err != nil {
				t.Fatal(err)
			}
			pvk, err := prover.PrepareVerifyingKey(&onGPU.VK)
			if err != nil {
				t.Fatal(err)
			}
			if err := prover.Verify(pvk, proof, c.PublicInputs()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
