package gpu

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// fieldEdgeInputs returns raw Montgomery values < p, of limbs 64-bit words, that stress the
// carry chains: 0, 1, p − k for small k, p − 2^(32j), values whose 64-bit words are all ones
// below p's top word, multiples of 2^(32j) (a low 32-bit word of zero makes a reduction row's
// multiplier m zero), and 2^(bits−1) − 1 for bits = the bit length of p.
func fieldEdgeInputs(p *big.Int, limbs int) []*big.Int {
	var out []*big.Int
	add := func(v *big.Int) {
		if v.Sign() >= 0 && v.Cmp(p) < 0 {
			out = append(out, v)
		}
	}
	add(big.NewInt(0))
	add(big.NewInt(1))
	for k := int64(1); k <= 64; k++ {
		add(new(big.Int).Sub(p, big.NewInt(k)))
	}
	for j := 0; j < 2*limbs; j++ {
		pow := new(big.Int).Lsh(big.NewInt(1), uint(32*j))
		add(new(big.Int).Sub(p, pow))
		add(pow)
		add(new(big.Int).Mul(pow, big.NewInt(0x9e3779b9)))
		if j%2 == 0 {
			add(new(big.Int).Lsh(new(big.Int).SetUint64(^uint64(0)), uint(32*j)))
		}
	}
	add(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(p.BitLen()-1)), big.NewInt(1)))
	return out
}

// fieldRandomInputs returns n random values < p of limbs 64-bit words; a third of them with
// most words all ones and a sixth with random 32-bit halves zeroed, for long carry and borrow
// runs and zero multipliers.
func fieldRandomInputs(rng *rand.Rand, p *big.Int, limbs, n int) []*big.Int {
	out := make([]*big.Int, 0, n)
	for len(out) < n {
		w := make([]big.Word, limbs)
		for j := range w {
			w[j] = big.Word(rng.Uint64())
			switch {
			case len(out)%3 == 1 && rng.Uint64N(4) != 0:
				w[j] = big.Word(^uint64(0))
			case len(out)%6 == 2 && rng.Uint64N(2) == 0:
				w[j] &= big.Word(0xffffffff) << (32 * rng.Uint64N(2))
			}
		}
		v := new(big.Int).SetBits(w)
		if v.BitLen() > p.BitLen() {
			v.Rsh(v, uint(v.BitLen()-p.BitLen()))
		}
		if v.Cmp(p) < 0 {
			out = append(out, v)
		}
	}
	return out
}

// fieldWords writes each value as limbs little-endian 64-bit words (gnark's raw layout).
func fieldWords(vals []*big.Int, limbs int) []byte {
	out := make([]byte, 0, 8*limbs*len(vals))
	for _, v := range vals {
		var w [8]byte
		for j := 0; j < limbs; j++ {
			word := new(big.Int).Rsh(v, uint(64*j))
			binary.LittleEndian.PutUint64(w[:], word.Uint64())
			out = append(out, w[:]...)
		}
	}
	return out
}

// deviceMulEmulated runs field.cuh's device arithmetic of field ("fp" or "fr") on the host with
// the PTX carry instructions emulated (csrc/emu/field_check.cpp) over the n elements of a and b
// (raw words, size bytes an element), checks that the emulation saw no carry dropped, and
// returns, in the same layout, six arrays: a·a (the device's square) and a·b (mul_device),
// a·b + a·a with one reduction (mul_sum_device), a + b (add_device), a − b (sub_device) and
// the host's a·b (mul_portable).
func deviceMulEmulated(t *testing.T, field string, size, n int, a, b []byte) [6][]byte {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build the host emulation of the field arithmetic")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "field_check")
	out, err := exec.Command("g++", "-std=c++17", "-O1", "-o", bin, "../csrc/emu/field_check.cpp").CombinedOutput()
	require.NoError(t, err, "build csrc/emu/field_check.cpp: %s", out)
	var in bytes.Buffer
	require.NoError(t, binary.Write(&in, binary.LittleEndian, uint64(n)))
	in.Write(a)
	in.Write(b)
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(inPath, in.Bytes(), 0o600))
	msg, err := exec.Command(bin, field, inPath, outPath).CombinedOutput()
	require.NoError(t, err, "field_check %s: %s", field, msg)
	res, err := os.ReadFile(outPath)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(res, []byte("OK  ")), "field_check: %q", res[:min(len(res), 64)])
	var arrays [6][]byte
	require.Len(t, res, 4+len(arrays)*n*size+8)
	dropped := binary.LittleEndian.Uint64(res[4+len(arrays)*n*size:])
	require.Zero(t, dropped, "carries dropped by the device arithmetic")
	for k := range arrays {
		arrays[k] = res[4+k*n*size : 4+(k+1)*n*size]
	}
	return arrays
}

// mulInputs returns the edge inputs paired with themselves reversed, then n random pairs.
func mulInputs(t *testing.T, p *big.Int, limbs int) (a, b []*big.Int) {
	a = fieldEdgeInputs(p, limbs)
	for i := range a {
		b = append(b, a[len(a)-1-i])
	}
	n := 20000
	if testing.Short() {
		n = 4000
	}
	rng := newRand(t)
	return append(a, fieldRandomInputs(rng, p, limbs, n)...), append(b, fieldRandomInputs(rng, p, limbs, n)...)
}

// fieldOps is what the checks need of a gnark-crypto field element type.
type fieldOps[T any] interface {
	*T
	Square(*T) *T
	Mul(*T, *T) *T
	Add(*T, *T) *T
	Sub(*T, *T) *T
}

// deviceOpNames names field_check's six outputs, in its order.
var deviceOpNames = [6]string{"square", "product", "sum of two products", "sum", "difference", "host product"}

// gnarkDeviceOps returns gnark-crypto's results for field_check's six outputs on x and y, in
// its order: x², x·y, x·y + x², x + y, x − y and x·y.
func gnarkDeviceOps[T any, PT fieldOps[T]](x, y *T) [6]T {
	var w [6]T
	PT(&w[0]).Square(x)
	PT(&w[1]).Mul(x, y)
	PT(&w[2]).Add(&w[1], &w[0])
	PT(&w[3]).Add(x, y)
	PT(&w[4]).Sub(x, y)
	w[5] = w[1]
	return w
}

// checkDeviceMul compares field's device product, sum of two products, sum and difference (T:
// gnark's fp.Element, fr.Element or bls12381.E2, raw words), emulated on the host, and its host
// product, with gnark-crypto's Square, Mul, Add and Sub on the elements of rawA and rawB.
func checkDeviceMul[T any, PT fieldOps[T]](t *testing.T, field string, rawA, rawB []byte) {
	var zero T
	size := binary.Size(zero)
	res := deviceMulEmulated(t, field, size, len(rawA)/size, rawA, rawB)
	elems := func(buf []byte) []T {
		out := make([]T, len(buf)/size)
		require.NoError(t, binary.Read(bytes.NewReader(buf), binary.LittleEndian, out))
		return out
	}
	xs, ys := elems(rawA), elems(rawB)
	var got [6][]T
	for k := range got {
		got[k] = elems(res[k])
	}
	for i := range xs {
		want := gnarkDeviceOps[T, PT](&xs[i], &ys[i])
		for k := range want {
			require.Equal(t, want[k], got[k][i], "%s %s of %x and %x", field, deviceOpNames[k], xs[i], ys[i])
		}
	}
	t.Logf("%d %s squares, products, sums of two products, sums, differences and host products match gnark", len(xs), field)
}

// checkPrimeDeviceMul runs checkDeviceMul on mulInputs for the prime field of modulus p.
func checkPrimeDeviceMul[T any, PT fieldOps[T]](t *testing.T, field string, p *big.Int) {
	var zero T
	limbs := binary.Size(zero) / 8
	a, b := mulInputs(t, p, limbs)
	checkDeviceMul[T, PT](t, field, fieldWords(a, limbs), fieldWords(b, limbs))
}

// TestFpDeviceMulEmulated checks the device Fp product against gnark-crypto.
func TestFpDeviceMulEmulated(t *testing.T) {
	checkPrimeDeviceMul[fp.Element](t, "fp", fp.Modulus())
}

// TestFrDeviceMulEmulated checks the device Fr product, whose reduction is specialised to Fr's
// low limbs 1 and 2^32 − 1, against gnark-crypto.
func TestFrDeviceMulEmulated(t *testing.T) {
	checkPrimeDeviceMul[fr.Element](t, "fr", fr.Modulus())
}

// TestFpLazyDeviceMulEmulated checks the redundant form of the device Fp arithmetic, which the
// G1 MSM uses (values below 2p, products without their final subtraction, sums and differences
// reduced by 2p), against gnark-crypto: the Fp inputs with p added to a of every pair i with
// i mod 4 < 2 and to b where i mod 4 is even, so that every combination occurs and the edges
// reach p (zero) and 2p − 1. Every output must lie below 2p and equal gnark's result modulo p.
func TestFpLazyDeviceMulEmulated(t *testing.T) {
	const limbs = 6
	p := fp.Modulus()
	twoP := new(big.Int).Lsh(p, 1)
	a, b := mulInputs(t, p, limbs)
	lift := func(vals []*big.Int, lifted func(i int) bool) []*big.Int {
		out := make([]*big.Int, len(vals))
		for i, v := range vals {
			out[i] = v
			if lifted(i) {
				out[i] = new(big.Int).Add(v, p)
			}
		}
		return out
	}
	la := lift(a, func(i int) bool { return i%4 < 2 })
	lb := lift(b, func(i int) bool { return i%2 == 0 })
	res := deviceMulEmulated(t, "fplazy", 8*limbs, len(a), fieldWords(la, limbs), fieldWords(lb, limbs))
	element := func(v *big.Int) fp.Element { // raw Montgomery words, v < p
		var e fp.Element
		for j := range e {
			e[j] = new(big.Int).Rsh(v, uint(64*j)).Uint64()
		}
		return e
	}
	for i := range a {
		x, y := element(a[i]), element(b[i])
		want := gnarkDeviceOps[fp.Element](&x, &y)
		for k := range res {
			w := res[k][i*8*limbs : (i+1)*8*limbs]
			got := new(big.Int)
			for j := limbs - 1; j >= 0; j-- {
				got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(binary.LittleEndian.Uint64(w[8*j:])))
			}
			require.Negative(t, got.Cmp(twoP), "fplazy %s of %x and %x: %x is not below 2p", deviceOpNames[k], la[i], lb[i], got)
			require.Equal(t, want[k], element(got.Mod(got, p)), "fplazy %s of %x and %x", deviceOpNames[k], la[i], lb[i])
		}
	}
	t.Logf("%d fplazy squares, products, sums of two products, sums, differences and host products below 2p and equal to gnark's mod p", len(a))
}

// TestFp2DeviceMulEmulated checks the device Fp2 product, whose two reductions are shared
// between Karatsuba's three wide products, against gnark-crypto's E2: every coordinate of a and b
// an Fp edge or random input, so that a0·b0 − a1·b1 takes both signs and some coordinates are 0.
func TestFp2DeviceMulEmulated(t *testing.T) {
	xs, ys := mulInputs(t, fp.Modulus(), 6)
	n := len(xs)
	var a, b []*big.Int
	for i := range n {
		a = append(a, xs[i], ys[(i+1)%n])
		b = append(b, ys[i], xs[(i+7)%n])
	}
	checkDeviceMul[bls12381.E2](t, "fp2", fieldWords(a, 6), fieldWords(b, 6))
}
