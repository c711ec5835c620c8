package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// fpRateVariants names the variants of debugFpRate and gives the products a thread runs in
// rounds rounds (one chain or two) and whether the variant runs the Fr chain (withFr) and an Fp
// chain beside it (withFp).
var fpRateVariants = []struct {
	name           string
	chains         int
	withFr, withFp bool
}{
	{name: "integer", chains: 1}, {name: "f64", chains: 1}, {name: "integer+integer", chains: 2},
	{name: "integer+f64", chains: 2}, {name: "f64-converted", chains: 1}, {name: "integer+f64-converted", chains: 2},
	{name: "f64+f64", chains: 2}, {name: "integer/f64-alternating", chains: 1},
	{name: "fr-integer+f64", chains: 2, withFr: true, withFp: true}, {name: "fr-integer", chains: 1, withFr: true},
}

// fpRateWant returns what a variant computes from a and b in rounds rounds: a·b^rounds for one
// Fp chain, (a·b^rounds)·(b·b^rounds) for two; withFr, w·z^rounds in Fr (w and z: the low four
// words of a and b, top word cut to 62 bits) read as an Fp element, plus b^(rounds+1) with
// withFp.
func fpRateWant(a, b fp.Element, chains, rounds int, withFr, withFp bool) fp.Element {
	if withFr {
		w := fr.Element{a[0], a[1], a[2], a[3] & (1<<62 - 1)}
		z := fr.Element{b[0], b[1], b[2], b[3] & (1<<62 - 1)}
		for k := 0; k < rounds; k++ {
			w.Mul(&w, &z)
		}
		e := fp.Element{w[0], w[1], w[2], w[3]}
		if withFp {
			v := fpRateWant(b, b, 1, rounds, false, false)
			e.Add(&e, &v)
		}
		return e
	}
	u, v := a, b
	for k := 0; k < rounds; k++ {
		u.Mul(&u, &b)
		v.Mul(&v, &b)
	}
	if chains == 2 {
		u.Mul(&u, &v)
	}
	return u
}

// TestFpF64Ops checks the device's Fp product on the FP64 pipe (field 3: a·b, and a·b^16 through
// sixteen products in digit form) against gnark-crypto on the inputs of TestFpF64MulEmulated.
func TestFpF64Ops(t *testing.T) {
	d := testDevice(t)
	ba, bb := f64Inputs(t, 4096)
	raw := func(vals []byte) []fp.Element {
		out := make([]fp.Element, len(vals)/fp.Bytes)
		require.NoError(t, binary.Read(bytes.NewReader(vals), binary.LittleEndian, out))
		return out
	}
	a, b := raw(fieldWords(ba, 6)), raw(fieldWords(bb, 6))
	out := make([]fp.Element, len(a))
	for op, rounds := range []int{1, 16} {
		require.NoError(t, d.debugField(3, op, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&out[0]), len(a)))
		for i := range a {
			want := fpRateWant(a[i], b[i], 1, rounds, false, false)
			require.Equal(t, want, out[i], "FP64-pipe a·b^%d for a = %s, b = %s", rounds, a[i].String(), b[i].String())
		}
	}
}

// TestFpRateVariants checks every variant of the product-rate kernel against gnark-crypto, so
// that BenchmarkFpProductRate times products that compute the right values.
func TestFpRateVariants(t *testing.T) {
	d := testDevice(t)
	const n, rounds = 1000, 5
	a, b := make([]fp.Element, n), make([]fp.Element, n)
	for i := range a {
		a[i].MustSetRandom()
		b[i].MustSetRandom()
	}
	b[0].SetZero()
	b[1].SetOne()
	a[2].SetZero()
	out := make([]fp.Element, n)
	for v, variant := range fpRateVariants {
		_, err := d.debugFpRate(v, a, b, out, rounds)
		require.NoError(t, err)
		for i := range a {
			require.Equal(t, fpRateWant(a[i], b[i], variant.chains, rounds, variant.withFr, variant.withFp), out[i], "variant %s at %d", variant.name, i)
		}
	}
}

// BenchmarkFpProductRate times Fp product chains, 2^21 threads of 64 rounds each, for the integer
// product, the FP64-pipe product and their mix in one thread; ps/product is the kernel's time
// over the products of all threads.
func BenchmarkFpProductRate(b *testing.B) {
	d := testDevice(b)
	const n, rounds = 1 << 21, 64
	x, y := make([]fp.Element, n), make([]fp.Element, n)
	for i := range x {
		x[i].MustSetRandom()
		y[i].MustSetRandom()
	}
	out := make([]fp.Element, n)
	for v, variant := range fpRateVariants {
		b.Run(fmt.Sprintf("%d-%s", v, variant.name), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				dt, err := d.debugFpRate(v, x, y, out, rounds)
				if err != nil {
					b.Fatal(err)
				}
				total += dt
			}
			products := float64(b.N) * n * rounds * float64(variant.chains)
			b.ReportMetric(float64(total.Nanoseconds())*1e3/products, "ps/product")
			b.ReportMetric(float64(total.Nanoseconds())/1e6/float64(b.N), "kernel-ms")
		})
	}
}
