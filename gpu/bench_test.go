package gpu

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

var (
	benchG1Sink bls12381.G1Jac
	benchG2Sink bls12381.G2Jac
)

// benchMaxLog reads CUZK_BENCH_MAXLOG (default def) to bound benchmark sizes.
func benchMaxLog(def int) int {
	if v, err := strconv.Atoi(os.Getenv("CUZK_BENCH_MAXLOG")); err == nil && v > 0 {
		return min(v, def)
	}
	return def
}

// BenchmarkMSMG1 times Σ s_i·P_i with resident bases, for random and 0/1
// scalars, with scalars in device memory ("dev") or host memory ("host").
func BenchmarkMSMG1(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(26)
	pts := g1Points(1 << maxLog)
	bases, err := d.UploadG1Bases(pts)
	if err != nil {
		b.Fatal(err)
	}
	defer bases.Close()
	buf, err := d.AllocScalars(1 << maxLog)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	for logN := 20; logN <= maxLog; logN++ {
		n := 1 << logN
		for _, k := range []scalarKind{kindRandom, kindBits} {
			sc := makeScalars(uint64(logN), n, k)
			if err := buf.Upload(ctx, 0, sc); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("2^%d/%v/dev", logN, k), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if benchG1Sink, err = bases.MSMDevice(ctx, buf, 0, n); err != nil {
						b.Fatal(err)
					}
				}
			})
			if logN == 20 || logN == 24 || logN == 26 {
				b.Run(fmt.Sprintf("2^%d/%v/host", logN, k), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if benchG1Sink, err = bases.MSM(ctx, sc); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkMSMG1Shift times G1 MSMs of random device scalars over the same points without
// ("plain") and with a shift table ("shift", G1Bases.AddShiftTable), at 2^24, 2^26 and 2^27 − 1
// (a PoRep partition's H) scalars; CUZK_BENCH_MAXLOG bounds the sizes.
func BenchmarkMSMG1Shift(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(27)
	pts := g1Points(1 << maxLog)
	plain, err := d.UploadG1Bases(pts)
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	shifted, err := d.UploadG1Bases(pts)
	if err != nil {
		b.Fatal(err)
	}
	defer shifted.Close()
	pts = nil
	start := time.Now()
	if err := shifted.AddShiftTable(); err != nil {
		b.Fatal(err)
	}
	b.Logf("shift table of 2^%d points built in %v", maxLog, time.Since(start))
	buf, err := d.AllocScalars(1 << maxLog)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	for _, logN := range []int{24, 26, 27} {
		if logN > maxLog {
			break
		}
		n := 1 << logN
		if logN == 27 {
			n--
		}
		if err := buf.Upload(ctx, 0, makeScalars(uint64(logN), n, kindRandom)); err != nil {
			b.Fatal(err)
		}
		for _, v := range []struct {
			name  string
			bases *G1Bases
		}{{"plain", plain}, {"shift", shifted}} {
			b.Run(fmt.Sprintf("2^%d/%s", logN, v.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if benchG1Sink, err = v.bases.MSMDevice(ctx, buf, 0, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkMSMPairs times MSMs of witness-like device scalars (kindMostlyBits: 90 % bits, the
// rest random) over the same points without ("plain") and with a pair table ("pairs",
// AddPairTable): G1 at 2^24 and 2^26 (a PoRep partition's A and L have 2^27 scalars, about
// half 1), G2 at 2^24 (its B, 2^25); CUZK_BENCH_MAXLOG bounds the sizes.
func BenchmarkMSMPairs(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(26)
	buf, err := d.AllocScalars(1 << maxLog)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	// run times msm(0), over the plain bases, and msm(1), over those with the table.
	run := func(name string, msm func(bases int) error) {
		for i, table := range []string{"plain", "pairs"} {
			b.Run(name+"/"+table, func(b *testing.B) {
				for range b.N {
					if err := msm(i); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	pts := g1Points(1 << maxLog)
	var g1 [2]*G1Bases
	for i := range g1 {
		if g1[i], err = d.UploadG1Bases(pts); err != nil {
			b.Fatal(err)
		}
		defer g1[i].Close()
	}
	pts = nil
	if err := g1[1].AddPairTable(); err != nil {
		b.Fatal(err)
	}
	for _, logN := range []int{24, 26} {
		if logN > maxLog {
			break
		}
		n := 1 << logN
		if err := buf.Upload(ctx, 0, makeScalars(uint64(logN), n, kindMostlyBits)); err != nil {
			b.Fatal(err)
		}
		run(fmt.Sprintf("G1/2^%d", logN), func(i int) (err error) {
			benchG1Sink, err = g1[i].MSMDevice(ctx, buf, 0, n)
			return err
		})
	}
	for i := range g1 {
		g1[i].Close()
	}
	const logN2 = 24
	if logN2 > maxLog {
		return
	}
	pts2 := g2Points(1 << logN2)
	var g2 [2]*G2Bases
	for i := range g2 {
		if g2[i], err = d.UploadG2Bases(pts2); err != nil {
			b.Fatal(err)
		}
		defer g2[i].Close()
	}
	if err := g2[1].AddPairTable(); err != nil {
		b.Fatal(err)
	}
	n := 1 << logN2
	if err := buf.Upload(ctx, 0, makeScalars(logN2, n, kindMostlyBits)); err != nil {
		b.Fatal(err)
	}
	run(fmt.Sprintf("G2/2^%d", logN2), func(i int) (err error) {
		benchG2Sink, err = g2[i].MSMDevice(ctx, buf, 0, n)
		return err
	})
}

// BenchmarkMSMG2 times G2 MSMs with resident bases and device scalars.
func BenchmarkMSMG2(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(24)
	pts := g2Points(1 << maxLog)
	bases, err := d.UploadG2Bases(pts)
	if err != nil {
		b.Fatal(err)
	}
	defer bases.Close()
	buf, err := d.AllocScalars(1 << maxLog)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	for logN := 20; logN <= maxLog; logN += 2 {
		n := 1 << logN
		for _, k := range []scalarKind{kindRandom, kindBits} {
			sc := makeScalars(uint64(logN), n, k)
			if err := buf.Upload(ctx, 0, sc); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("2^%d/%v/dev", logN, k), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if benchG2Sink, err = bases.MSMDevice(ctx, buf, 0, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkUploadG1Bases times copying 2^k affine G1 points to the device.
func BenchmarkUploadG1Bases(b *testing.B) {
	d := testDevice(b)
	logN := benchMaxLog(26)
	pts := g1Points(1 << logN)
	b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
		b.SetBytes(int64(len(pts)) * 96)
		for i := 0; i < b.N; i++ {
			g, err := d.UploadG1Bases(pts)
			if err != nil {
				b.Fatal(err)
			}
			g.Close()
		}
	})
}

// BenchmarkNTT times in-place transforms on a device buffer, with the device's NTT table kept
// (KeepNTTTable) as a prover keeps it where the memory allows.
func BenchmarkNTT(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(27)
	keepNTTTable(b, d, maxLog)
	buf, err := d.AllocScalars(1 << maxLog)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	if err := buf.Upload(ctx, 0, randScalars(1, 1<<maxLog)); err != nil {
		b.Fatal(err)
	}
	for logN := 20; logN <= maxLog; logN++ {
		psi, err := fft.Generator(2 << logN)
		if err != nil {
			b.Fatal(err)
		}
		// The coset cases on gnark's default shift (7) and on ω_{2n}, whose factor merges into the
		// twiddles; the quotient's orders (inverse N→R, coset R→N, inverse coset N→R) besides the
		// usual ones.
		cases := []struct {
			name string
			cfg  NTTConfig
		}{
			{"fwd-N2R", NTTConfig{OutputBitReversed: true}},
			{"coset-N2R", NTTConfig{Coset: true, OutputBitReversed: true}},
			{"coset-ω2n-N2R", NTTConfig{Coset: true, OutputBitReversed: true, Shift: psi}},
			{"coset-R2N", NTTConfig{Coset: true, InputBitReversed: true}},
			{"coset-ω2n-R2N", NTTConfig{Coset: true, InputBitReversed: true, Shift: psi}},
			{"inv-N2R", NTTConfig{Inverse: true, OutputBitReversed: true}},
			{"inv-R2N", NTTConfig{Inverse: true, InputBitReversed: true}},
			{"inv-coset-R2N", NTTConfig{Inverse: true, Coset: true, InputBitReversed: true}},
			{"inv-coset-ω2n-R2N", NTTConfig{Inverse: true, Coset: true, InputBitReversed: true, Shift: psi}},
			{"inv-coset-N2R", NTTConfig{Inverse: true, Coset: true, OutputBitReversed: true}},
			{"inv-coset-ω2n-N2R", NTTConfig{Inverse: true, Coset: true, OutputBitReversed: true, Shift: psi}},
			{"fwd-N2N", NTTConfig{}},
		}
		for _, c := range cases {
			if logN != maxLog && logN != 24 && logN != 20 && c.name != "fwd-N2R" {
				continue
			}
			b.Run(fmt.Sprintf("2^%d/%s", logN, c.name), func(b *testing.B) {
				b.SetBytes(int64(32) << logN)
				for i := 0; i < b.N; i++ {
					if err := buf.NTT(ctx, 0, logN, c.cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
