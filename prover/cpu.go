package prover

import (
	"context"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"golang.org/x/sync/semaphore"

	"github.com/cuzk-go/cuzk/synth"
)

// cpuDevice proves with gnark-crypto on the host's cores.
type cpuDevice struct {
	lock *semaphore.Weighted
}

var defaultCPU = NewCPUDevice()

// CPU returns the shared CPU device.
func CPU() Device { return defaultCPU }

// NewCPUDevice returns a CPU device with a lock of its own. Its "device work" (FFTs and MSMs)
// runs on all cores; the lock keeps two workers from running it at once, as on a GPU.
func NewCPUDevice() Device { return &cpuDevice{lock: semaphore.NewWeighted(1)} }

func (d *cpuDevice) Name() string { return fmt.Sprintf("cpu (%d cores)", runtime.GOMAXPROCS(0)) }

func (d *cpuDevice) Lock(ctx context.Context) error { return d.lock.Acquire(ctx, 1) }

func (d *cpuDevice) Unlock() { d.lock.Release(1) }

func (d *cpuDevice) Prepare(ctx context.Context, params *Parameters, asg *synth.Assignment, rs Randomness) (Task, error) {
	if err := CheckParameters(params, asg.Shape); err != nil {
		return nil, err
	}
	if asg.A == nil {
		return nil, fmt.Errorf("prover: assignment evaluations were released")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &cpuTask{params: params, asg: asg, rs: rs, sc: CompactScalars(asg)}, nil
}

type cpuTask struct {
	params *Parameters
	asg    *synth.Assignment
	rs     Randomness
	sc     PartitionScalars
	res    MSMResults
}

// Run computes H and the five MSMs, checking ctx between stages.
func (t *cpuTask) Run(ctx context.Context) error {
	h := computeH(t.asg)
	p := t.params
	steps := []func() error{
		func() error { return msmG1(&t.res.H, p.H, h) },
		func() error { return msmG1(&t.res.A, p.A, t.sc.A) },
		func() error { return msmG1(&t.res.B1, p.BG1, t.sc.B) },
		func() error { return msmG1(&t.res.L, p.L, t.sc.Aux) },
		func() error { return msmG2(&t.res.B2, p.BG2, t.sc.B) },
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (t *cpuTask) Finalize(ctx context.Context) (*Proof, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return AssembleProof(&t.params.VK, &t.res, t.rs), nil
}

func (t *cpuTask) Release() { t.sc = PartitionScalars{} }

// computeH returns the m−1 coefficients of h = (a·b − c)/Z, Z = X^m − 1, from the evaluations
// of a, b, c over the domain: inverse FFT, FFT on the coset g·⟨ω⟩ (g = 7, Fr's multiplicative
// generator) where Z(gω^i) = g^m − 1 is constant, pointwise division, inverse FFT on the coset.
func computeH(asg *synth.Assignment) []fr.Element {
	m := asg.Shape.DomainSize()
	domain := fft.NewDomain(uint64(m), fft.WithCache())
	a := make([]fr.Element, m)
	b := make([]fr.Element, m)
	c := make([]fr.Element, m)
	copy(a, asg.A)
	copy(b, asg.B)
	copy(c, asg.C)
	for _, v := range [][]fr.Element{a, b, c} {
		domain.FFTInverse(v, fft.DIF)
		domain.FFT(v, fft.DIT, fft.OnCoset())
	}
	var zInv, one fr.Element
	one.SetOne()
	zInv.Exp(domain.FrMultiplicativeGen, bigUint(uint64(m)))
	zInv.Sub(&zInv, &one)
	zInv.Inverse(&zInv)
	for i := range a {
		a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &zInv)
	}
	domain.FFTInverse(a, fft.DIF, fft.OnCoset())
	fft.BitReverse(a)
	return a[:m-1]
}

func msmG1(out *bls12381.G1Jac, points []bls12381.G1Affine, scalars []fr.Element) error {
	if len(points) != len(scalars) {
		return fmt.Errorf("prover: msm: %d points for %d scalars", len(points), len(scalars))
	}
	if len(points) == 0 {
		out.Set(&g1Infinity)
		return nil
	}
	_, err := out.MultiExp(points, scalars, ecc.MultiExpConfig{})
	return err
}

func msmG2(out *bls12381.G2Jac, points []bls12381.G2Affine, scalars []fr.Element) error {
	if len(points) != len(scalars) {
		return fmt.Errorf("prover: msm: %d points for %d scalars", len(points), len(scalars))
	}
	if len(points) == 0 {
		out.Set(&g2Infinity)
		return nil
	}
	_, err := out.MultiExp(points, scalars, ecc.MultiExpConfig{})
	return err
}

var (
	g1Infinity = bls12381.G1Jac{X: fpOne(), Y: fpOne()}
	g2Infinity = func() bls12381.G2Jac { var p bls12381.G2Jac; p.X.SetOne(); p.Y.SetOne(); return p }()
)
