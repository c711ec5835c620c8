package devsetup

import (
	"errors"
	"fmt"
	"io"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"golang.org/x/sync/errgroup"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// ToxicWaste is the secret randomness of a Groth16 setup. Whoever knows it can forge proofs for
// every circuit the parameters serve.
type ToxicWaste struct {
	Tau, Alpha, Beta, Gamma, Delta fr.Element
}

// NewToxicWaste draws toxic waste from src (use crypto/rand.Reader). Zero values, which would
// make the parameters degenerate, are redrawn.
func NewToxicWaste(src io.Reader) (ToxicWaste, error) {
	var tw ToxicWaste
	for _, e := range []*fr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		for e.IsZero() {
			if err := randomElement(src, e); err != nil {
				return ToxicWaste{}, fmt.Errorf("draw toxic waste: %w", err)
			}
		}
	}
	return tw, nil
}

// InsecureSetup generates Groth16 parameters for shape from caller-supplied toxic waste.
//
// INSECURE: it is for development and tests only. The caller sees the toxic waste and can forge
// proofs; real deployments use parameters from a multi-party ceremony (Filecoin's .params files).
//
// With the domain of size m = shape.DomainSize(), generator ω and Lagrange basis
// L_j(τ) = (τ^m − 1)/m · ω^j/(τ − ω^j), each variable i gets A_i(τ) = Σ_j A[j][i]·L_j(τ) (and B_i,
// C_i likewise, the input constraints included). Then IC_i = (β·A_i + α·B_i + C_i)/γ for inputs,
// L_i = (β·A_i + α·B_i + C_i)/δ for aux, A/B points as A_i(τ)·G and B_i(τ)·G for the variables the
// densities mark, and H_i = τ^i·(τ^m − 1)/δ for i < m−1. Points are computed with batched
// fixed-base scalar multiplication on all cores, or by the FixedBase given with WithFixedBase
// (a GPU), with the same result byte for byte.
//
// WithProgress reports the stages in order: "Lagrange basis" (m), "evaluate A, B, C" (3 × constraints),
// "IC and L scalars" (variables), "H scalars" (m − 1), then the points of each section: "IC
// points", "L points", "A points", "B_G1 points", "B_G2 points", "H points".
func InsecureSetup(shape *synth.Shape, tw ToxicWaste, opts ...Option) (*prover.Parameters, error) {
	o := collect(opts)
	m := shape.DomainSize()
	if m < 2 {
		m = 2
	}
	domain := fft.NewDomain(uint64(m), fft.WithoutPrecompute())
	// τ must not be a root of unity of the domain, else L_j(τ) is undefined.
	var tauM fr.Element
	tauM.Exp(tw.Tau, bigUint(uint64(m)))
	zTau := tauM
	one := fr.One()
	zTau.Sub(&zTau, &one)
	if zTau.IsZero() {
		return nil, errors.New("insecure setup: tau is a root of unity of the domain")
	}
	for _, e := range []*fr.Element{&tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		if e.IsZero() {
			return nil, errors.New("insecure setup: alpha, beta, gamma and delta must be non-zero")
		}
	}

	// Lagrange coefficients at τ: chunk by chunk on all cores, each chunk inverted in a batch.
	lag := make([]fr.Element, m)
	var scale fr.Element
	scale.Mul(&zTau, &domain.CardinalityInv)
	tr := o.start("Lagrange basis", m)
	parallelChunks(m, func(lo, hi int) {
		var wj fr.Element
		wj.Exp(domain.Generator, bigUint(uint64(lo)))
		w0 := wj
		for j := lo; j < hi; j++ {
			lag[j].Sub(&tw.Tau, &wj)
			wj.Mul(&wj, &domain.Generator)
		}
		copy(lag[lo:hi], fr.BatchInvert(lag[lo:hi]))
		wj = w0
		for j := lo; j < hi; j++ {
			lag[j].Mul(&lag[j], &wj).Mul(&lag[j], &scale)
			wj.Mul(&wj, &domain.Generator)
		}
		tr.add(hi - lo)
	})
	tr.finish()

	nVars := shape.NumInputs + shape.NumAux
	evA := make([]fr.Element, nVars)
	evB := make([]fr.Element, nVars)
	evC := make([]fr.Element, nVars)
	tr = o.start("evaluate A, B, C", 3*shape.NumConstraints)
	var g errgroup.Group
	for _, p := range []struct {
		m   *synth.Matrix
		out []fr.Element
	}{{&shape.A, evA}, {&shape.B, evB}, {&shape.C, evC}} {
		g.Go(func() error {
			evalPolynomials(p.m, shape.Coeffs, lag, p.out, tr)
			return nil
		})
	}
	g.Wait()
	tr.finish()
	// Input constraints: input i appears in the a of row NumConstraints + i.
	for i := 0; i < shape.NumInputs; i++ {
		evA[i].Add(&evA[i], &lag[shape.NumConstraints+i])
	}

	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&tw.Gamma)
	deltaInv.Inverse(&tw.Delta)
	ic := make([]fr.Element, shape.NumInputs)
	l := make([]fr.Element, shape.NumAux)
	tr = o.start("IC and L scalars", nVars)
	parallelChunks(nVars, func(lo, hi int) {
		var acc, t fr.Element
		for i := lo; i < hi; i++ {
			acc.Mul(&tw.Beta, &evA[i])
			t.Mul(&tw.Alpha, &evB[i])
			acc.Add(&acc, &t).Add(&acc, &evC[i])
			if i < shape.NumInputs {
				ic[i].Mul(&acc, &gammaInv)
			} else {
				l[i-shape.NumInputs].Mul(&acc, &deltaInv)
			}
		}
		tr.add(hi - lo)
	})
	tr.finish()
	aSc := append([]fr.Element(nil), evA[:shape.NumInputs]...)
	aSc = appendDense(aSc, evA[shape.NumInputs:], shape.ADensityAux)
	bSc := appendDense(nil, evB[:shape.NumInputs], shape.BDensityInput)
	bSc = appendDense(bSc, evB[shape.NumInputs:], shape.BDensityAux)
	hSc := make([]fr.Element, m-1)
	tr = o.start("H scalars", len(hSc))
	parallelChunks(len(hSc), func(lo, hi int) {
		var hv fr.Element
		hv.Exp(tw.Tau, bigUint(uint64(lo)))
		hv.Mul(&hv, &zTau).Mul(&hv, &deltaInv)
		for i := lo; i < hi; i++ {
			hSc[i] = hv
			hv.Mul(&hv, &tw.Tau)
		}
		tr.add(hi - lo)
	})
	tr.finish()

	_, _, g1, g2 := bls12381.Generators()
	p := &prover.Parameters{}
	vk := &p.VK
	vk.AlphaG1.ScalarMultiplication(&g1, bigOf(&tw.Alpha))
	vk.BetaG1.ScalarMultiplication(&g1, bigOf(&tw.Beta))
	vk.BetaG2.ScalarMultiplication(&g2, bigOf(&tw.Beta))
	vk.GammaG2.ScalarMultiplication(&g2, bigOf(&tw.Gamma))
	vk.DeltaG1.ScalarMultiplication(&g1, bigOf(&tw.Delta))
	vk.DeltaG2.ScalarMultiplication(&g2, bigOf(&tw.Delta))
	pm := &pointMaker{o: &o, g1: g1, g2: g2}
	var err error
	for _, s := range []struct {
		stage   string
		scalars []fr.Element
		out     *[]bls12381.G1Affine
	}{{"IC points", ic, &vk.IC}, {"L points", l, &p.L}, {"A points", aSc, &p.A}, {"B_G1 points", bSc, &p.BG1}} {
		if *s.out, err = pm.mulG1(s.stage, s.scalars); err != nil {
			return nil, err
		}
	}
	if p.BG2, err = pm.mulG2("B_G2 points", bSc); err != nil {
		return nil, err
	}
	if p.H, err = pm.mulG1("H points", hSc); err != nil {
		return nil, err
	}
	return p, nil
}

// evalPolynomials sets out[col] = Σ_r m[r][col]·lag[r], counting the rows done on tr.
func evalPolynomials(m *synth.Matrix, coeffs, lag, out []fr.Element, tr *tracker) {
	var t fr.Element
	var row []synth.MatrixEntry
	for r := 0; r < m.NumRows(); r++ {
		if r%progressStep == progressStep-1 {
			tr.add(progressStep)
		}
		row = m.AppendRow(row[:0], r)
		for _, e := range row {
			o := &out[e.Col]
			switch e.Coeff {
			case 0:
				o.Add(o, &lag[r])
			case 1:
				o.Sub(o, &lag[r])
			default:
				t.Mul(&lag[r], &coeffs[e.Coeff])
				o.Add(o, &t)
			}
		}
	}
}
