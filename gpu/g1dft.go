package gpu

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// MaxLogG1DFT is the largest transform G1DFT computes: 2^27 points, the domain of a 32 GiB PoRep
// partition.
const MaxLogG1DFT = 27

// G1DFT returns the twisted discrete Fourier transform of points over Fr: out[j] = Σ_i
// ω^(ij)·(scale·twist^i)·x_i for j < n = 2^logN, x the points followed by the point at infinity
// up to n, ω = omega of order n (an inverse transform takes ω⁻¹ and n⁻¹ in scale; twist 1 gives
// scale times the plain transform). It is the one-time step of prover.FoldC (a prover.G1DFT for
// prover.FoldWithDFT), computed on the device in one call: each point multiplied by its
// scale·twist^i, then radix-2 butterflies, len(points) + ≈ n/2·(logN − 1) multiplications in
// all, which use G1's endomorphism (128-bit halves of each scalar, split on the host). The call
// takes 304·n + 32·len(points) bytes of device memory (at most 336·n: 42 GiB at 2^27) and 16·n +
// 32·len(points) bytes of host memory (at most 48·n: 6 GiB at 2^27) and gives them back before it
// returns; it does not take the kernel lock, so run it before the device proves. progress, when
// not nil, is called with the number of the logN butterfly stages done as they finish (polled
// every dftPoll). Cancelling ctx stops the call before its next stage (seconds at 2^27) with
// ctx's error.
func (d *Device) G1DFT(ctx context.Context, points []bls12381.G1Affine, logN int, omega, twist, scale fr.Element,
	progress func(stages int)) ([]bls12381.G1Affine, error) {
	if logN < 1 || logN > MaxLogG1DFT {
		return nil, fmt.Errorf("gpu: g1 dft: log size %d outside [1, %d]", logN, MaxLogG1DFT)
	}
	n := 1 << logN
	if len(points) > n {
		return nil, fmt.Errorf("gpu: g1 dft: %d points for a transform of %d", len(points), n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]bls12381.G1Affine, n)
	var in unsafe.Pointer
	if len(points) > 0 {
		in = unsafe.Pointer(&points[0])
	}
	flags, free := newDFTFlags()
	defer free()
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() { // reports the stages and passes ctx's end on, until the call returns
		defer close(watched)
		tick := time.NewTicker(dftPoll)
		defer tick.Stop()
		reported := 0
		report := func() {
			if s := int(atomic.LoadUint64(&flags.stagesDone)); s > reported && progress != nil {
				reported = s
				progress(s)
			}
		}
		for {
			select {
			case <-done:
				report()
				return
			case <-ctx.Done():
				atomic.StoreInt32(&flags.cancel, 1)
				<-done
				return
			case <-tick.C:
				report()
			}
		}
	}()
	err := d.lib.b.g1DFT(d.index, in, uint64(len(points)), logN, unsafe.Pointer(&omega), unsafe.Pointer(&twist),
		unsafe.Pointer(&scale), unsafe.Pointer(&out[0]), flags)
	close(done)
	<-watched
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("gpu: g1 dft of 2^%d points: %w", logN, ctx.Err())
		}
		return nil, fmt.Errorf("gpu: g1 dft of 2^%d points: %w", logN, err)
	}
	return out, nil
}

// dftPoll is how often G1DFT looks at the stages done and at its context.
const dftPoll = 250 * time.Millisecond
