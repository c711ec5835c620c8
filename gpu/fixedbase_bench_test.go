package gpu

import (
	"context"
	"fmt"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// Points of a full 32 GiB PoRep partition's parameters (docs/benchmarks.md: 130,169,893 aux,
// 328 inputs, domain 2^27, A density 0.99997, B density 0.251): G1 = IC + L + A + B_G1 + H,
// G2 = B_G2. Rounded to the thousand; the projection is as good as that.
const (
	fullSetupG1Points = 328 + 130_169_893 + 130_166_000 + 32_672_000 + (1<<27 - 1)
	fullSetupG2Points = 32_672_000
)

var (
	benchAffineG1Sink []bls12381.G1Affine
	benchAffineG2Sink []bls12381.G2Affine
)

// BenchmarkFixedBaseG1 times k_i·G for random scalars in host memory and affine points out to
// host memory, the table resident ("table" times building it). It reports points/s and the
// seconds all G1 points of a full PoRep partition's setup would take at that rate.
func BenchmarkFixedBaseG1(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	_, _, g1, _ := bls12381.Generators()
	b.Run("table", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fb, err := d.NewFixedBaseG1(g1)
			if err != nil {
				b.Fatal(err)
			}
			if err := fb.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	fb, err := d.NewFixedBaseG1(g1)
	if err != nil {
		b.Fatal(err)
	}
	defer fb.Close()
	for logN := 20; logN <= benchMaxLog(24); logN += 2 {
		n := 1 << logN
		sc := randScalars(uint64(logN), n)
		out := make([]bls12381.G1Affine, n)
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := fb.Mul(ctx, sc, out); err != nil {
					b.Fatal(err)
				}
			}
			rate := float64(n) * float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "points/s")
			b.ReportMetric(fullSetupG1Points/rate, "s/full-partition-G1")
		})
		benchAffineG1Sink = out
	}
}

// BenchmarkFixedBaseG2 is BenchmarkFixedBaseG1 on G2.
func BenchmarkFixedBaseG2(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	_, _, _, g2 := bls12381.Generators()
	b.Run("table", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fb, err := d.NewFixedBaseG2(g2)
			if err != nil {
				b.Fatal(err)
			}
			if err := fb.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	fb, err := d.NewFixedBaseG2(g2)
	if err != nil {
		b.Fatal(err)
	}
	defer fb.Close()
	for logN := 20; logN <= benchMaxLog(24); logN += 2 {
		n := 1 << logN
		sc := randScalars(uint64(logN), n)
		out := make([]bls12381.G2Affine, n)
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := fb.Mul(ctx, sc, out); err != nil {
					b.Fatal(err)
				}
			}
			rate := float64(n) * float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "points/s")
			b.ReportMetric(fullSetupG2Points/rate, "s/full-partition-G2")
		})
		benchAffineG2Sink = out
	}
}
