package devsetup

import (
	"errors"
	"fmt"
	"io"
	"math"

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
// (a GPU), with the same result byte for byte, a whole section at a time.
//
// WithProgress reports the stages in order: "Lagrange basis" (m), "evaluate A, B, C" (3 × constraints),
// "IC and L scalars" (variables), then the points of each section in the order of the parameters
// file: "IC points", "H points" (m − 1, their scalars made chunk by chunk), "L points",
// "A points", "B_G1 points", "B_G2 points".
//
// All points end on the heap: at a Filecoin partition's size, tens of GiB. WriteInsecureSetup
// makes the same parameters into a file while holding one chunk of points at a time.
func InsecureSetup(shape *synth.Shape, tw ToxicWaste, opts ...Option) (*prover.Parameters, error) {
	ms := &memorySink{}
	if err := generate(shape, tw, collect(opts), ms, math.MaxInt); err != nil {
		return nil, err
	}
	return &ms.p, nil
}

// pointChunk is the most points WriteInsecureSetup computes at once: 2^24 are 1.5 GiB of G1 or
// 3 GiB of G2 points. A variable so that tests can use several chunks at small sizes.
var pointChunk = 1 << 24

// sink receives a setup's output in the order of the parameters file: the verifying key, then
// each point section (h, l, a, b_g1, b_g2) as begin with its count, followed by its points in
// order, chunk by chunk. The chunks belong to the caller: a sink copies what it keeps.
type sink interface {
	verifyingKey(vk *prover.VerifyingKey) error
	begin(section string, n int) error
	g1(pts []bls12381.G1Affine) error
	g2(pts []bls12381.G2Affine) error
}

// setupScalars are the scalars a setup derives from the shape, after the evaluation: the IC‖L
// scalars of the inputs then the aux variables, the A scalars of the inputs and of the aux
// variables ADensityAux marks, and the B scalars of the variables the B densities mark. Each is a big slice (32 bytes a variable) that generate drops as
// soon as its section is made.
type setupScalars struct {
	icl, a, b        []fr.Element
	zTau, deltaInv   fr.Element
	domainSize, nIns int
}

// evaluateScalars computes the Lagrange basis at τ, evaluates A, B and C there and derives the
// IC, L, A and B scalars, reusing the evaluations' memory: at most the basis (m scalars) and
// the three evaluations (3 × variables) are live at once, and the basis is dropped before
// returning.
func evaluateScalars(shape *synth.Shape, tw ToxicWaste, o *options) (*setupScalars, error) {
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

	nIn := shape.NumInputs
	nVars := nIn + shape.NumAux
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
	for i := 0; i < nIn; i++ {
		evA[i].Add(&evA[i], &lag[shape.NumConstraints+i])
	}
	lag = nil

	// IC‖L scalars in place of C's evaluations.
	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&tw.Gamma)
	deltaInv.Inverse(&tw.Delta)
	tr = o.start("IC and L scalars", nVars)
	parallelChunks(nVars, func(lo, hi int) {
		var acc, t fr.Element
		for i := lo; i < hi; i++ {
			acc.Mul(&tw.Beta, &evA[i])
			t.Mul(&tw.Alpha, &evB[i])
			acc.Add(&acc, &t).Add(&acc, &evC[i])
			if i < nIn {
				evC[i].Mul(&acc, &gammaInv)
			} else {
				evC[i].Mul(&acc, &deltaInv)
			}
		}
		tr.add(hi - lo)
	})
	tr.finish()
	// The A and B scalars, compacted in place: element k of a compacted slice comes from an
	// index ≥ k, so it is read before it is overwritten. B's density is often low (a quarter
	// in PoRep), so its scalars move to a slice of their own and B's evaluations are dropped.
	aSc := appendDense(evA[:nIn], evA[nIn:], shape.ADensityAux)
	bSc := appendDense(evB[:0], evB[:nIn], shape.BDensityInput)
	bSc = appendDense(bSc, evB[nIn:], shape.BDensityAux)
	bSc = append([]fr.Element(nil), bSc...)
	return &setupScalars{icl: evC, a: aSc, b: bSc, zTau: zTau, deltaInv: deltaInv, domainSize: m, nIns: nIn}, nil
}

// generate runs the setup of InsecureSetup and hands its output to out in file order, at most
// chunk points at a time (and H's scalars likewise). The scalars of a section are dropped once
// its points are made, so besides the sink's own memory and one chunk the peak is the Lagrange
// basis with the three evaluations (32 bytes × (m + 3 × variables)), during the evaluation.
func generate(shape *synth.Shape, tw ToxicWaste, o options, out sink, chunk int) error {
	sc, err := evaluateScalars(shape, tw, &o)
	if err != nil {
		return err
	}
	_, _, g1, g2 := bls12381.Generators()
	pm := &pointMaker{o: &o, g1: g1, g2: g2, chunk: chunk}
	section := func(name, stage string, n int, scalars func(lo, hi int) []fr.Element, onG2 bool) error {
		if err := out.begin(name, n); err != nil {
			return err
		}
		if onG2 {
			return pm.g2Section(stage, n, scalars, out.g2)
		}
		return pm.g1Section(stage, n, scalars, out.g1)
	}

	var vk prover.VerifyingKey
	vk.AlphaG1.ScalarMultiplication(&g1, bigOf(&tw.Alpha))
	vk.BetaG1.ScalarMultiplication(&g1, bigOf(&tw.Beta))
	vk.BetaG2.ScalarMultiplication(&g2, bigOf(&tw.Beta))
	vk.GammaG2.ScalarMultiplication(&g2, bigOf(&tw.Gamma))
	vk.DeltaG1.ScalarMultiplication(&g1, bigOf(&tw.Delta))
	vk.DeltaG2.ScalarMultiplication(&g2, bigOf(&tw.Delta))
	vk.IC = make([]bls12381.G1Affine, 0, sc.nIns)
	err = pm.g1Section("IC points", sc.nIns, sliceOf(sc.icl[:sc.nIns]), func(pts []bls12381.G1Affine) error {
		vk.IC = append(vk.IC, pts...)
		return nil
	})
	if err != nil {
		return err
	}
	if err := out.verifyingKey(&vk); err != nil {
		return err
	}

	// H_i = τ^i·(τ^m − 1)/δ, made chunk by chunk into one buffer.
	nH := sc.domainSize - 1
	var hBuf []fr.Element
	hScalars := func(lo, hi int) []fr.Element {
		if cap(hBuf) < hi-lo {
			hBuf = make([]fr.Element, hi-lo)
		}
		hBuf = hBuf[:hi-lo]
		parallelChunks(hi-lo, func(clo, chi int) {
			var hv fr.Element
			hv.Exp(tw.Tau, bigUint(uint64(lo+clo)))
			hv.Mul(&hv, &sc.zTau).Mul(&hv, &sc.deltaInv)
			for i := clo; i < chi; i++ {
				hBuf[i] = hv
				hv.Mul(&hv, &tw.Tau)
			}
		})
		return hBuf
	}
	if err := section("h", "H points", nH, hScalars, false); err != nil {
		return err
	}
	hBuf = nil
	if err := section("l", "L points", shape.NumAux, sliceOf(sc.icl[sc.nIns:]), false); err != nil {
		return err
	}
	sc.icl = nil
	if err := section("a", "A points", len(sc.a), sliceOf(sc.a), false); err != nil {
		return err
	}
	sc.a = nil
	if err := section("b_g1", "B_G1 points", len(sc.b), sliceOf(sc.b), false); err != nil {
		return err
	}
	return section("b_g2", "B_G2 points", len(sc.b), sliceOf(sc.b), true)
}

// sliceOf returns the scalars function of a section whose scalars are all in v.
func sliceOf(v []fr.Element) func(lo, hi int) []fr.Element {
	return func(lo, hi int) []fr.Element { return v[lo:hi] }
}

// memorySink keeps a setup's output as prover.Parameters. A section made in one chunk keeps
// that chunk's slice, uncopied.
type memorySink struct {
	p   prover.Parameters
	cur *[]bls12381.G1Affine // the G1 section being received
}

func (s *memorySink) verifyingKey(vk *prover.VerifyingKey) error {
	s.p.VK = *vk
	return nil
}

func (s *memorySink) begin(section string, n int) error {
	switch section {
	case "h":
		s.cur = &s.p.H
	case "l":
		s.cur = &s.p.L
	case "a":
		s.cur = &s.p.A
	case "b_g1":
		s.cur = &s.p.BG1
	default:
		s.p.BG2 = []bls12381.G2Affine{}
		return nil
	}
	*s.cur = []bls12381.G1Affine{}
	return nil
}

func (s *memorySink) g1(pts []bls12381.G1Affine) error {
	*s.cur = keep(*s.cur, pts)
	return nil
}

func (s *memorySink) g2(pts []bls12381.G2Affine) error {
	s.p.BG2 = keep(s.p.BG2, pts)
	return nil
}

// keep returns dst with pts appended: pts itself when dst is empty.
func keep[T any](dst, pts []T) []T {
	if len(dst) == 0 {
		return pts
	}
	return append(dst, pts...)
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
