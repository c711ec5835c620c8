package gpu

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkNTTQuotientChain times the transforms of a Groth16 quotient as the prover runs them
// (prover/groth16.go): for each of three vectors an inverse transform from natural to
// bit-reversed order and a coset transform from bit-reversed to natural order, then one inverse
// coset transform from natural to natural order — seven transforms of 2^logN on device buffers,
// without the pointwise step between them.
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
			run := func(s *Scalars, cfg NTTConfig) {
				if err := s.NTT(ctx, 0, logN, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				for _, s := range bufs {
					run(s, NTTConfig{Inverse: true, OutputBitReversed: true})
					run(s, NTTConfig{Coset: true, InputBitReversed: true})
				}
				run(bufs[0], NTTConfig{Inverse: true, Coset: true})
			}
		})
	}
}
