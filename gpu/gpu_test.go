package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

func TestDeviceProperties(t *testing.T) {
	d := testDevice(t)
	p, err := d.Properties()
	if err != nil {
		t.Fatal(err)
	}
	if p.Name == "" || p.TotalMem == 0 || p.Multiprocessor == 0 || p.FreeMem > p.TotalMem || p.PoolFreeMem > p.FreeMem {
		t.Fatalf("implausible properties %+v", p)
	}
	t.Logf("%+v", p)
	// An MSM's scratch comes from the memory pool, which keeps it: afterwards the pool holds
	// some unused, counted in FreeMem.
	pts := g1Points(1 << 16)
	bases, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	if _, err := bases.MSM(context.Background(), randScalars(1, len(pts))); err != nil {
		t.Fatal(err)
	}
	if p, err = d.Properties(); err != nil || p.PoolFreeMem == 0 || p.PoolFreeMem > p.FreeMem || p.FreeMem > p.TotalMem {
		t.Fatalf("after an MSM: properties %+v (err %v), want the pool's unused memory in (0, FreeMem]", p, err)
	}
	lib, _ := Load()
	if _, err := lib.Device(lib.DeviceCount()); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Device(count) error = %v, want ErrNoDevice", err)
	}
}

func TestDeviceLockHonoursContext(t *testing.T) {
	d := testDevice(t)
	if err := d.Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Lock(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock on held device with cancelled ctx = %v, want context.Canceled", err)
	}
	d.Unlock()
	if err := d.Lock(context.Background()); err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	d.Unlock()
}

// fieldElem is the part of a gnark-crypto field element's API that TestFieldOps compares with.
type fieldElem[E any] interface {
	*E
	Mul(a, b *E) *E
	Add(a, b *E) *E
	Sub(a, b *E) *E
	Square(a *E) *E
	Neg(a *E) *E
	Inverse(a *E) *E
	String() string
}

// checkFieldOps runs the device's field ops 0..ops−1 (a·b, a+b, a−b, a², −a, 1/a) on field
// (0 Fr, 1 Fp, 2 Fp2) and compares every result with gnark-crypto's.
func checkFieldOps[E comparable, P fieldElem[E]](t *testing.T, d *Device, name string, field, ops int, a, b []E) {
	t.Helper()
	out := make([]E, len(a))
	for op := 0; op < ops; op++ {
		if err := d.debugField(field, op, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&out[0]), len(a)); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			var want E
			w := P(&want)
			switch op {
			case 0:
				w.Mul(&a[i], &b[i])
			case 1:
				w.Add(&a[i], &b[i])
			case 2:
				w.Sub(&a[i], &b[i])
			case 3:
				w.Square(&a[i])
			case 4:
				w.Neg(&a[i])
			case 5:
				w.Inverse(&a[i])
			}
			if out[i] != want {
				t.Fatalf("%s op %d at %d: got %v want %v", name, op, i, P(&out[i]).String(), w.String())
			}
		}
	}
}

func TestFieldOps(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	const n = 512

	a := randScalars(rng.Uint64(), n)
	b := randScalars(rng.Uint64(), n)
	a[0].SetZero()
	b[1].SetZero()
	a[2] = rMinusOne()
	b[2] = rMinusOne()
	a[3].SetOne()
	checkFieldOps(t, d, "Fr", 0, 6, a, b)

	// Fp, and the same words read as n Fp2 elements.
	pa := make([]fp.Element, 2*n)
	pb := make([]fp.Element, 2*n)
	for i := range pa {
		pa[i].MustSetRandom()
		pb[i].MustSetRandom()
	}
	pa[0].SetZero()
	pb[1].SetZero()
	pa[3].SetOne()
	checkFieldOps(t, d, "Fp", 1, 6, pa, pb)
	ea := unsafe.Slice((*bls12381.E2)(unsafe.Pointer(&pa[0])), n)
	eb := unsafe.Slice((*bls12381.E2)(unsafe.Pointer(&pb[0])), n)
	checkFieldOps(t, d, "Fp2", 2, 5, ea, eb)
}

// nttCases are the four index orders; gnark reference built from DIF/DIT
// and BitReverse.
var nttOrders = []struct {
	name        string
	inBR, outBR bool
}{
	{"N2R", false, true}, {"R2N", true, false}, {"N2N", false, false}, {"R2R", true, true},
}

// gnarkNTT applies gnark's transform with the given orders.
func gnarkNTT(dom *fft.Domain, a []fr.Element, inverse, coset, inBR, outBR bool) {
	var opts []fft.Option
	if coset {
		opts = append(opts, fft.OnCoset())
	}
	run := func(dec fft.Decimation) {
		if inverse {
			dom.FFTInverse(a, dec, opts...)
		} else {
			dom.FFT(a, dec, opts...)
		}
	}
	switch {
	case !inBR && outBR:
		run(fft.DIF)
	case inBR && !outBR:
		run(fft.DIT)
	case !inBR && !outBR:
		run(fft.DIF)
		fft.BitReverse(a)
	default:
		run(fft.DIT)
		fft.BitReverse(a)
	}
}

func TestNTTMatchesGnark(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	maxLog := 20
	if testing.Short() {
		maxLog = 12
	}
	ctx := context.Background()
	for logN := 1; logN <= maxLog; logN++ {
		n := 1 << logN
		dom := fft.NewDomain(uint64(n))
		for _, inv := range []bool{false, true} {
			for _, coset := range []bool{false, true} {
				for _, o := range nttOrders {
					if logN > 14 && (o.name == "R2R") {
						continue // the order permutations are covered at smaller sizes
					}
					a := randScalars(rng.Uint64(), n)
					want := append([]fr.Element(nil), a...)
					gnarkNTT(dom, want, inv, coset, o.inBR, o.outBR)
					cfg := NTTConfig{Inverse: inv, Coset: coset, InputBitReversed: o.inBR, OutputBitReversed: o.outBR}
					if err := d.NTT(ctx, a, cfg); err != nil {
						t.Fatal(err)
					}
					for i := range a {
						if a[i] != want[i] {
							t.Fatalf("2^%d inverse=%v coset=%v %s: mismatch at %d", logN, inv, coset, o.name, i)
						}
					}
				}
			}
		}
	}
}

func TestNTTRoundTripDevice(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	ctx := context.Background()
	maxLog := 20
	if testing.Short() {
		maxLog = 14
	}
	buf := testScalars(t, d, 3+1<<maxLog)
	for _, logN := range []int{1, 2, 5, 10, 11, 13, 17, maxLog} {
		if logN > maxLog {
			continue
		}
		n := 1 << logN
		a := randScalars(rng.Uint64(), n)
		if err := buf.Upload(ctx, 3, a); err != nil {
			t.Fatal(err)
		}
		for _, coset := range []bool{false, true} {
			fwd := NTTConfig{Coset: coset, OutputBitReversed: true}
			inv := NTTConfig{Coset: coset, Inverse: true, InputBitReversed: true}
			if err := buf.NTT(ctx, 3, logN, fwd); err != nil {
				t.Fatal(err)
			}
			if err := buf.NTT(ctx, 3, logN, inv); err != nil {
				t.Fatal(err)
			}
		}
		got := make([]fr.Element, n)
		if err := buf.Download(ctx, 3, got); err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i] != got[i] {
				t.Fatalf("2^%d round trip mismatch at %d", logN, i)
			}
		}
	}
	if err := buf.NTT(ctx, 4, maxLog, NTTConfig{}); err == nil {
		t.Fatal("NTT past the end of the buffer succeeded")
	}
}

// msmSizes are the differential sizes: n = 1, 2, 3, 1000, 2^10..2^20 and
// non-powers of two.
func msmSizes() []int {
	s := []int{1, 2, 3, 1000}
	maxLog := 20
	if testing.Short() {
		maxLog = 12
	}
	for k := 10; k <= maxLog; k++ {
		s = append(s, 1<<k)
		if k%3 == 1 {
			s = append(s, 1<<k+(1<<(k-1))+7)
		}
	}
	return s
}

type scalarKind int

const (
	kindRandom scalarKind = iota
	kindZero
	kindRMinus1
	kindBits
	kindMostlyBits
	kindSmall
)

func (k scalarKind) String() string {
	return [...]string{"random", "zero", "r-1", "bits", "mostly-bits", "small"}[k]
}

// g1MSMKinds lists the scalar kinds the G1 MSM tests run at n scalars: every kind up to 2^14
// (and at 1000), the random and bit kinds above.
func g1MSMKinds(n int) []scalarKind {
	kinds := []scalarKind{kindRandom, kindBits, kindMostlyBits}
	if n <= 1<<14 || n == 1000 {
		kinds = append(kinds, kindZero, kindRMinus1, kindSmall)
	}
	return kinds
}

func makeScalars(seed uint64, n int, k scalarKind) []fr.Element {
	s := randScalars(seed, n)
	r := newRandSeed(seed)
	for i := range s {
		switch k {
		case kindZero:
			s[i].SetZero()
		case kindRMinus1:
			s[i] = rMinusOne()
		case kindBits:
			s[i].SetUint64(r.Uint64() & 1)
		case kindMostlyBits:
			if r.Uint64N(10) != 0 {
				s[i].SetUint64(r.Uint64() & 1)
			}
		case kindSmall:
			s[i].SetUint64(r.Uint64N(5))
		}
	}
	return s
}

// TestCompactMatchesHost compacts random scalars by random bitmaps on the device and compares
// with the host's gather; bits past n are set and must be ignored, and the destination is
// poisoned to catch writes outside the compacted range.
func TestCompactMatchesHost(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	ctx := context.Background()
	const srcOff, dstOff = 5, 3
	for _, n := range []int{1, 63, 64, 65, 1000, 100003} {
		for _, p := range []float64{0, 0.01, 0.5, 0.997, 1} {
			t.Run(fmt.Sprintf("n=%d/p=%v", n, p), func(t *testing.T) {
				src := randScalars(rng.Uint64(), srcOff+n)
				mask := make([]uint64, (n+63)/64)
				var want []fr.Element
				for i := range n {
					if rng.Float64() < p {
						mask[i/64] |= 1 << (i % 64)
						want = append(want, src[srcOff+i])
					}
				}
				if n%64 != 0 {
					mask[len(mask)-1] |= ^uint64(0) << (n % 64) // past n: ignored
				}
				poison := randScalars(rng.Uint64(), dstOff+n+2)
				sb := testScalars(t, d, len(src))
				db := testScalars(t, d, len(poison))
				if err := sb.Upload(ctx, 0, src); err != nil {
					t.Fatal(err)
				}
				if err := db.Upload(ctx, 0, poison); err != nil {
					t.Fatal(err)
				}
				got, err := db.CompactFrom(ctx, dstOff, sb, srcOff, n, mask)
				if err != nil {
					t.Fatal(err)
				}
				if got != len(want) {
					t.Fatalf("compacted %d scalars, want %d", got, len(want))
				}
				out := make([]fr.Element, len(poison))
				if err := db.Download(ctx, 0, out); err != nil {
					t.Fatal(err)
				}
				for i := range out {
					w := poison[i]
					if i >= dstOff && i < dstOff+len(want) {
						w = want[i-dstOff]
					}
					if out[i] != w {
						t.Fatalf("element %d of the destination: got %v, want %v", i, out[i].String(), w.String())
					}
				}
				if len(want) > 0 {
					if _, err := db.CompactFrom(ctx, len(poison)-len(want)+1, sb, srcOff, n, mask); err == nil {
						t.Fatal("compaction past the end of the destination succeeded")
					}
				}
			})
		}
	}

	// Bad calls are refused before any device work.
	x := testScalars(t, d, 100)
	y := testScalars(t, d, 100)
	for _, c := range []struct {
		name string
		call func() (int, error)
		want string
	}{
		{"same buffer", func() (int, error) { return x.CompactFrom(ctx, 0, x, 0, 10, []uint64{1}) }, "distinct"},
		{"short mask", func() (int, error) { return y.CompactFrom(ctx, 0, x, 0, 100, []uint64{1}) }, "mask of 1 words"},
		{"source range", func() (int, error) { return y.CompactFrom(ctx, 0, x, 50, 60, []uint64{1, 1}) }, "out of range"},
		{"destination offset", func() (int, error) { return y.CompactFrom(ctx, 101, x, 0, 10, []uint64{1}) }, "out of range"},
	} {
		if _, err := c.call(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// quotientCases calls check for log n = 1..12 (20 without -short) with a, b, c of n+1 random
// scalars each, 0, 1 and r − 1 planted among the first n (element n lies past the domain and
// must stay as it is), and a random zInv.
func quotientCases(t *testing.T, check func(logN int, vecs [][]fr.Element, zInv fr.Element)) {
	rng := newRand(t)
	maxLog := 20
	if testing.Short() {
		maxLog = 12
	}
	one := fr.NewElement(1)
	for logN := 1; logN <= maxLog; logN++ {
		n := 1 << logN
		vecs := make([][]fr.Element, 3)
		for i := range vecs {
			vecs[i] = randScalars(rng.Uint64(), n+1)
			for _, e := range []fr.Element{{}, one, rMinusOne()} {
				vecs[i][rng.IntN(n)] = e
			}
		}
		check(logN, vecs, randScalars(rng.Uint64(), 1)[0])
	}
}

// TestQuotientStepsMatchHost runs the quotient's two element-wise steps on the device — Mul and
// Quotient (a difference, a product and a bit reversal) — against the host's, on random
// scalars with 0, 1 and r−1 planted, over sizes on both sides of the tiled reversal
// (2^8). Buffers are one element longer than the range, and that element must stay put.
func TestQuotientStepsMatchHost(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	quotientCases(t, func(logN int, vecs [][]fr.Element, zInv fr.Element) {
		n := 1 << logN
		a, b, c := vecs[0], vecs[1], vecs[2]
		want := make([]fr.Element, n+1)
		for i := range n {
			want[i].Mul(&a[i], &b[i]).Sub(&want[i], &c[i]).Mul(&want[i], &zInv)
		}
		fft.BitReverse(want[:n])
		want[n] = a[n]

		bufs := make([]*Scalars, 3)
		for i, v := range vecs {
			buf := testScalars(t, d, n+1)
			if err := buf.Upload(ctx, 0, v); err != nil {
				t.Fatal(err)
			}
			bufs[i] = buf
		}
		if err := bufs[0].Mul(ctx, bufs[1], n); err != nil {
			t.Fatal(err)
		}
		if err := bufs[0].Quotient(ctx, bufs[2], logN, zInv); err != nil {
			t.Fatal(err)
		}
		got := make([]fr.Element, n+1)
		if err := bufs[0].Download(ctx, 0, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("2^%d: element %d: got %v, want %v", logN, i, got[i].String(), want[i].String())
			}
		}
	})

	// Bad calls are refused before any device work.
	x := testScalars(t, d, 8)
	y := testScalars(t, d, 4)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"mul, same buffer", x.Mul(ctx, x, 4), "distinct"},
		{"mul, range", x.Mul(ctx, y, 5), "out of range"},
		{"quotient, same buffer", x.Quotient(ctx, x, 2, fr.Element{}), "distinct"},
		{"quotient, range", x.Quotient(ctx, y, 3, fr.Element{}), "out of range"},
		{"quotient, size", x.Quotient(ctx, y, 0, fr.Element{}), "outside [1, 28]"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

// TestGroth16HMatchesSteps checks the one-call quotient against the same recipe run a step at a
// time on the device (quotientSteps: NTT, Mul and Quotient, each checked against gnark-crypto and
// the host above), on the cosets of quotientShifts; and the call without c (folded parameters:
// four transforms, â·b̂ in natural order) against the steps that stop there.
func TestGroth16HMatchesSteps(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	quotientCases(t, func(logN int, vecs [][]fr.Element, random fr.Element) {
		for name, shift := range quotientShifts(t, logN, random) {
			groth16HMatchesSteps(t, d, logN, vecs, name, shift, false)
			groth16HMatchesSteps(t, d, logN, vecs, name, shift, true)
		}
	})

	// Bad calls are refused before any device work.
	x, y, z := testScalars(t, d, 8), testScalars(t, d, 8), testScalars(t, d, 4)
	seven := fr.NewElement(7)
	for _, c := range []struct {
		name    string
		a, b, c *Scalars
		logN    int
		shift   fr.Element
		want    string
	}{
		{"a and b the same", x, x, y, 2, seven, "distinct"},
		{"b and c the same", x, y, y, 2, seven, "distinct"},
		{"range", x, y, z, 3, seven, "out of range"},
		{"size", x, y, z, 0, seven, "outside [1, 28]"},
		{"size too large", x, y, z, MaxLogNTT + 1, seven, "outside [1, 28]"},
		{"zero shift", x, y, z, 2, fr.Element{}, "shift is zero"},
		{"shift in the domain", x, y, z, 2, fr.NewElement(1), "g^n = 1"},
	} {
		_, err := c.a.Groth16H(ctx, c.b, c.c, c.logN, c.shift)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// groth16HMatchesSteps runs the quotient of vecs on the coset shift·⟨ω⟩ both ways and compares
// them element for element; the element past the domain must stay put. Folded, neither gets c
// (vecs[2] is uploaded to the c buffer all the same, to show that it is not read) and both stop
// at â·b̂.
func groth16HMatchesSteps(t *testing.T, d *Device, logN int, vecs [][]fr.Element, name string, shift fr.Element, folded bool) {
	ctx := context.Background()
	n := 1 << logN
	if folded {
		name += ", folded"
	}
	var results [2][]fr.Element
	for r := range results {
		bufs := make([]*Scalars, 3)
		for i, v := range vecs {
			bufs[i] = testScalars(t, d, n+1)
			if err := bufs[i].Upload(ctx, 0, v); err != nil {
				t.Fatal(err)
			}
		}
		c := bufs[2]
		if folded {
			c = nil
		}
		if r == 0 {
			if err := quotientSteps(ctx, bufs[0], bufs[1], c, logN, shift); err != nil {
				t.Fatal(err)
			}
		} else {
			took, err := bufs[0].Groth16H(ctx, bufs[1], c, logN, shift)
			if err != nil {
				t.Fatal(err)
			}
			if took <= 0 {
				t.Fatalf("2^%d shift %s: device time %v, want positive", logN, name, took)
			}
		}
		results[r] = make([]fr.Element, n+1)
		if err := bufs[0].Download(ctx, 0, results[r]); err != nil {
			t.Fatal(err)
		}
	}
	// The one call leaves plain integers, h bit-reversed; the steps Montgomery form, natural order.
	for i := range results[1][:n] {
		results[1][i].SetBigInt(limbsInt(results[1][i][:]))
	}
	if !folded {
		copy(results[1], bitRevOrder(results[1][:n], logN))
	}
	if results[1][n] != vecs[0][n] {
		t.Fatalf("2^%d shift %s: the element past the domain changed", logN, name)
	}
	for i := range results[0] {
		if results[1][i] != results[0][i] {
			t.Fatalf("2^%d shift %s: element %d: one call %v, steps %v", logN, name, i, results[1][i].String(),
				results[0][i].String())
		}
	}
}

// TestMSMsMatchOneAtATime checks a batch of G1 and G2 MSMs (one scalar buffer shared by several
// jobs, offsets, mostly 0/1 and random scalars) against the same MSMs run one call each, and the
// refusal of bad jobs before any runs.
func TestMSMsMatchOneAtATime(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	const n1, n2 = 1 << 12, 1 << 10
	g1, err := d.UploadG1Bases(g1Points(n1))
	if err != nil {
		t.Fatal(err)
	}
	defer g1.Close()
	g2, err := d.UploadG2Bases(g2Points(n2))
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	sc := randScalars(newRand(t).Uint64(), n1+100)
	for i := 0; i < len(sc); i += 3 { // mostly bits, as a witness
		sc[i].SetUint64(uint64(i/3) & 1)
	}
	s := testScalars(t, d, len(sc))
	if err := s.Upload(ctx, 0, sc); err != nil {
		t.Fatal(err)
	}
	jobs := []MSMJob{
		{G1: g1, Scalars: s, N: n1},
		{G1: g1, Scalars: s, Off: 100, N: n1 - 7},
		{G2: g2, Scalars: s, Off: 3, N: n2},
		{G1: g1, Scalars: s, Off: 50, N: 1},
		{G1: g1, Scalars: s, Off: 9, N: n1 - 1, BitRev: 12},
		{G2: g2, Scalars: s, Off: 20, N: n2, BitRev: 10},
	}
	res, err := d.MSMs(ctx, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(jobs) {
		t.Fatalf("%d results for %d jobs", len(res), len(jobs))
	}
	for i, j := range jobs {
		if res[i].Time <= 0 {
			t.Errorf("job %d: device time %v, want positive", i, res[i].Time)
		}
		if j.BitRev != 0 {
			// The same scalars put in the bases' order, one call.
			r := testScalars(t, d, j.N)
			if err := r.Upload(ctx, 0, bitRevOrder(sc[j.Off:j.Off+j.N], j.BitRev)); err != nil {
				t.Fatal(err)
			}
			j.Scalars, j.Off = r, 0
		}
		if j.G1 != nil {
			want, err := j.G1.MSMDevice(ctx, j.Scalars, j.Off, j.N)
			if err != nil {
				t.Fatal(err)
			}
			if !res[i].G1.Equal(&want) {
				t.Errorf("job %d (G1): the batch's result differs from the single call's", i)
			}
		} else {
			want, err := j.G2.MSMDevice(ctx, j.Scalars, j.Off, j.N)
			if err != nil {
				t.Fatal(err)
			}
			if !res[i].G2.Equal(&want) {
				t.Errorf("job %d (G2): the batch's result differs from the single call's", i)
			}
		}
	}

	for _, c := range []struct {
		name string
		job  MSMJob
		want string
	}{
		{"no bases", MSMJob{Scalars: s, N: 1}, "job 1: want exactly one of G1 and G2 bases"},
		{"both bases", MSMJob{G1: g1, G2: g2, Scalars: s, N: 1}, "job 1: want exactly one"},
		{"no scalars", MSMJob{G1: g1, N: 1}, "job 1: no scalars"},
		{"no points", MSMJob{G1: g1, Scalars: s}, "job 1: 0 scalars for 4096 bases"},
		{"more scalars than bases", MSMJob{G2: g2, Scalars: s, N: n2 + 1}, "job 1: 1025 scalars for 1024 bases"},
		{"past the scalars", MSMJob{G1: g1, Scalars: s, Off: 200, N: n1}, "out of range"},
		{"bit reversal of another size", MSMJob{G1: g1, Scalars: s, N: 100, BitRev: 12}, "job 1: 100 scalars in the order of 12 bits reversed"},
		{"bit reversal too wide", MSMJob{G1: g1, Scalars: s, N: 100, BitRev: 31}, "job 1: 100 scalars in the order of 31 bits"},
	} {
		_, err := d.MSMs(ctx, []MSMJob{jobs[0], c.job})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
	closed := testScalars(t, d, 8)
	closed.Close()
	if _, err := d.MSMs(ctx, []MSMJob{{G1: g1, Scalars: closed, N: 8}}); !errors.Is(err, ErrClosed) {
		t.Errorf("closed scalars: got error %v, want ErrClosed", err)
	}
}

func TestMSMG1MatchesGnark(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	ctx := context.Background()
	sizes := msmSizes()
	maxN := sizes[len(sizes)-1]
	for _, s := range sizes {
		maxN = max(maxN, s)
	}
	pts := specialG1Points(maxN)
	bases, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	for _, n := range sizes {
		for _, k := range g1MSMKinds(n) {
			t.Run(fmt.Sprintf("n=%d/%v", n, k), func(t *testing.T) {
				checkG1MSM(t, ctx, bases, pts, makeScalars(rng.Uint64(), n, k))
			})
		}
	}
	// scalars from a device buffer, with an offset
	n := min(maxN, 5000)
	checkG1MSMDevice(t, ctx, d, bases, pts, makeScalars(rng.Uint64(), n, kindMostlyBits))
	if _, err := bases.MSM(ctx, make([]fr.Element, maxN+1)); err == nil {
		t.Fatal("MSM with more scalars than bases succeeded")
	}
}

func TestMSMG2MatchesGnark(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	ctx := context.Background()
	sizes := msmSizes()
	maxN := 0
	for _, s := range sizes {
		maxN = max(maxN, s)
	}
	pts := g2Points(maxN)
	pts[1] = bls12381.G2Affine{}
	if maxN > 10 {
		pts[5] = pts[4]
		pts[7].Neg(&pts[6])
	}
	bases, err := d.UploadG2Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	for _, n := range sizes {
		kinds := []scalarKind{kindRandom, kindBits}
		if n <= 1<<12 || n == 1000 {
			kinds = append(kinds, kindZero, kindRMinus1, kindMostlyBits)
		}
		for _, k := range kinds {
			t.Run(fmt.Sprintf("n=%d/%v", n, k), func(t *testing.T) {
				sc := makeScalars(rng.Uint64(), n, k)
				var want bls12381.G2Affine
				if _, err := want.MultiExp(pts[:n], sc, ecc.MultiExpConfig{}); err != nil {
					t.Fatal(err)
				}
				got, err := bases.MSM(ctx, sc)
				if err != nil {
					t.Fatal(err)
				}
				var ga bls12381.G2Affine
				ga.FromJacobian(&got)
				if ga != want {
					t.Fatalf("G2 MSM n=%d %v: got %s want %s", n, k, ga.String(), want.String())
				}
			})
		}
	}
}

func TestClosedHandles(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	pts := g1Points(4)
	b, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := b.MSM(ctx, make([]fr.Element, 4)); !errors.Is(err, ErrClosed) {
		t.Fatalf("MSM after Close = %v, want ErrClosed", err)
	}
	s, err := d.AllocScalars(8)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Upload(ctx, 0, make([]fr.Element, 8)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Upload after Close = %v, want ErrClosed", err)
	}
}
