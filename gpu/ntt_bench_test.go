package gpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// BenchmarkNTTQuotientChain times Groth16's quotient on device buffers: an inverse transform of
// each of three vectors from natural to bit-reversed order, a coset transform of two of them back
// to natural order, their product, an inverse coset transform of it to bit-reversed order, and
// h's coefficients from it and the third vector — six transforms of 2^logN and the element-wise
// steps. "steps" runs them a call each (quotientSteps, as prover/groth16.go does on a workspace
// without the one call), "one-call" as Scalars.Groth16H (the product on the fifth transform's
// last pass), "one-call-folded" as Groth16H without c (the four transforms of folded
// parameters), each on the coset of 7 and of ω_{2n} (the prover's); with the device's NTT table,
// as a prover keeps it.
func BenchmarkNTTQuotientChain(b *testing.B) {
	d := testDevice(b)
	ctx := context.Background()
	maxLog := benchMaxLog(27)
	keepNTTTable(b, d, maxLog)
	sizes := []int{min(24, maxLog)}
	if maxLog > 24 {
		sizes = append(sizes, maxLog)
	}
	for _, logN := range sizes {
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
		psi, err := fft.Generator(2 << logN)
		if err != nil {
			b.Fatal(err)
		}
		for _, shift := range []struct {
			name string
			g    fr.Element
		}{{"7", fr.NewElement(7)}, {"ω_2n", psi}} {
			b.Run(fmt.Sprintf("2^%d/steps/shift=%s", logN, shift.name), func(b *testing.B) {
				for range b.N {
					if err := quotientSteps(ctx, bufs[0], bufs[1], bufs[2], logN, shift.g); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("2^%d/one-call/shift=%s", logN, shift.name), func(b *testing.B) {
				for range b.N {
					if _, err := bufs[0].Groth16H(ctx, bufs[1], bufs[2], logN, shift.g); err != nil {
						b.Fatal(err)
					}
				}
			})
			// Folded parameters (prover.FoldC: C folded into L, H on the coset): four transforms.
			b.Run(fmt.Sprintf("2^%d/one-call-folded/shift=%s", logN, shift.name), func(b *testing.B) {
				for range b.N {
					if _, err := bufs[0].Groth16H(ctx, bufs[1], nil, logN, shift.g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
