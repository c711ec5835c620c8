package gpu

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkNTTQuotientChain times Groth16's quotient on device buffers a step at a time
// (quotientSteps, the steps of prover/groth16.go that Scalars.Groth16H runs in one call): an
// inverse transform of each of three vectors from natural to bit-reversed order, a coset
// transform of two of them back to natural order, their product, an inverse coset transform of
// it to bit-reversed order, and h's coefficients from it and the third vector (Mul and
// Quotient) — six transforms of 2^logN and two element-wise steps.
func BenchmarkNTTQuotientChain(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(27)
	sizes := []int{min(24, maxLog)}
	if maxLog > 24 {
		sizes = append(sizes, maxLog)
	}
	for _, logN := range sizes {
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			var bufs [3]*Scalars
			for i := range bufs {
				buf, err := d.AllocScalars(1 << logN)
				if err != nil {
					b.Fatal(err)
				}
				defer buf.Close()
				if err := buf.Upload(ctx, 0, randScalars(uint64(i+1), 1<<logN)); err != nil {
					b.Fatal(err)
				}
				bufs[i] = buf
			}
			zInv := randScalars(4, 1)[0]
			b.ResetTimer()
			for range b.N {
				if err := quotientSteps(ctx, bufs[0], bufs[1], bufs[2], logN, zInv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
