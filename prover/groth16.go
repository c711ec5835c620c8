package prover

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// groth16Device runs Groth16's recipe over a primitive device:
//
//	Prepare (outside the lock): stage A·w, B·w, C·w zero-padded to the domain, and w (or, for
//	    an assignment without evaluations on a primitive.Evaluator, stage w and let the device
//	    compute A·w, B·w, C·w from the shape); compact
//	    the A query's scalars (when a_aux does not mark every aux variable; else A uses w) and
//	    the B queries' scalars out of w by their densities.
//	Run (under the lock): h = (a·b − c)/Z by six NTTs, or with folded parameters (FoldC) the
//	    values â·b̂ on the coset by four (quotient, below); then the MSMs H (over those), A,
//	    B_G1, L (w's aux part) and B_G2.
//	Finalize: A, B, C from the MSMs, r and s.
type groth16Device struct {
	p primitive.Device
}

func (d *groth16Device) Name() string                   { return d.p.Name() }
func (d *groth16Device) Lock(ctx context.Context) error { return d.p.Lock(ctx) }
func (d *groth16Device) Unlock()                        { d.p.Unlock() }

// EvaluatesOnDevice reports whether the primitive device computes A·w, B·w, C·w for shape.
func (d *groth16Device) EvaluatesOnDevice(shape *synth.Shape) bool {
	e, ok := d.p.(primitive.Evaluator)
	return ok && e.EvaluatesShape(shape)
}

// Preloads reports whether the primitive device is a primitive.Preloader.
func (d *groth16Device) Preloads() bool {
	_, ok := d.p.(primitive.Preloader)
	return ok
}

// Preload makes params' points and shape's matrices resident on the primitive device (see
// prover.Preload); shape's only when the device evaluates it.
func (d *groth16Device) Preload(ctx context.Context, params *Parameters, shape *synth.Shape) error {
	p, ok := d.p.(primitive.Preloader)
	if !ok {
		return fmt.Errorf("prover: %s cannot preload", d.p.Name())
	}
	if shape != nil {
		if err := CheckParameters(params, shape); err != nil {
			return err
		}
		if !d.EvaluatesOnDevice(shape) {
			shape = nil
		}
	}
	if err := p.Preload(ctx, params.SRS(), shape); err != nil {
		return fmt.Errorf("prover: preload on %s: %w", d.p.Name(), err)
	}
	return nil
}

func (d *groth16Device) HostBytes(shape *synth.Shape) int64 {
	return d.p.HostBytes(dimsOf(shape))
}

// dimsOf returns the workspace of a partition of shape: the domain (at least 2), w, and the
// compacted A and B scalars (A's only when a_aux leaves some aux variable out).
func dimsOf(shape *synth.Shape) primitive.Dims {
	dims := primitive.Dims{
		Domain: max(shape.DomainSize(), 2),
		W:      shape.NumInputs + shape.NumAux,
		B:      shape.BDensityInput.Count() + shape.BDensityAux.Count(),
	}
	if shape.ADensityAux.Count() != shape.NumAux {
		dims.A = shape.NumInputs + shape.ADensityAux.Count()
	}
	return dims
}

func (d *groth16Device) Prepare(ctx context.Context, params *Parameters, asg *synth.Assignment, rs Randomness) (Task, error) {
	if err := CheckParameters(params, asg.Shape); err != nil {
		return nil, err
	}
	onDevice := !asg.HasEvaluations()
	if onDevice && !d.EvaluatesOnDevice(asg.Shape) {
		return nil, fmt.Errorf("prover: assignment has no evaluations (witness only, or released) and %s does not compute them", d.p.Name())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dims := dimsOf(asg.Shape)
	dims.NoC = params.CFold != nil
	if len(asg.W) != dims.W {
		return nil, fmt.Errorf("prover: assignment has %d values, its shape %d", len(asg.W), dims.W)
	}
	ws, err := d.p.Workspace(ctx, dims)
	if err != nil {
		return nil, fmt.Errorf("prover: partition buffers on %s: %w", d.p.Name(), err)
	}
	t := &groth16Task{dev: d.p, params: params, srs: params.SRS(), asg: asg, rs: rs, ws: ws, dims: dims}
	if err := t.stage(ctx, onDevice); err != nil {
		t.Release()
		return nil, fmt.Errorf("prover: stage partition on %s: %w", d.p.Name(), err)
	}
	if t.foldedInputs, err = foldedInputs(params.CFold, asg.W); err != nil {
		t.Release()
		return nil, err
	}
	return t, nil
}

type groth16Task struct {
	dev    primitive.Device
	params *Parameters
	srs    *primitive.SRS
	asg    *synth.Assignment
	rs     Randomness
	ws     primitive.Workspace
	dims   primitive.Dims
	res    msmResults
	// foldedInputs is the inputs' share of C that parameters with C folded into L (FoldC) leave
	// to the proof's C: Σ_{k<inputs} w_k·CFold.Inputs[k]; the identity otherwise.
	foldedInputs bls12381.G1Jac
}

// stage copies the partition to the workspace and compacts the query scalars there. With
// evalOnDevice, only w is copied and the workspace computes A·w, B·w, C·w. With folded
// parameters (FoldC) the workspace has no c (Dims.NoC) and nothing is staged there: the quotient
// needs none (cfold.go).
func (t *groth16Task) stage(ctx context.Context, evalOnDevice bool) error {
	asg, ws, shape := t.asg, t.ws, t.asg.Shape
	folded := t.params.CFold != nil
	type upload struct {
		buf primitive.Buf
		v   []fr.Element
	}
	var uploads []upload
	if evalOnDevice {
		st, ok := ws.(primitive.WitnessStager)
		if !ok {
			return errors.New("workspace cannot stage a witness")
		}
		if err := st.StageWitness(ctx, shape, asg.W, !folded); err != nil {
			return fmt.Errorf("evaluate on device: %w", err)
		}
	} else {
		uploads = []upload{{primitive.BufA, asg.A}, {primitive.BufB, asg.B}, {primitive.BufW, asg.W}}
		if !folded {
			uploads = append(uploads, upload{primitive.BufC, asg.C})
		}
	}
	for _, u := range uploads {
		if err := ws.Upload(ctx, u.buf, u.v); err != nil {
			return err
		}
	}
	return t.compact(ctx)
}

// compact fills the A and B query scalars from the staged w.
func (t *groth16Task) compact(ctx context.Context) error {
	ws, shape := t.ws, t.asg.Shape
	if t.dims.A > 0 {
		if err := compactQuery(ctx, ws, primitive.BufScalarsA, t.dims.A, shape, nil, shape.ADensityAux); err != nil {
			return fmt.Errorf("a query: %w", err)
		}
	}
	if t.dims.B > 0 {
		if err := compactQuery(ctx, ws, primitive.BufScalarsB, t.dims.B, shape, shape.BDensityInput, shape.BDensityAux); err != nil {
			return fmt.Errorf("b query: %w", err)
		}
	}
	return nil
}

// compactQuery fills dst, of n scalars, with a query's scalars as bellperson orders them: the
// inputs that inputs marks (every input when inputs is nil), then the aux values that aux marks,
// both taken from the staged w = inputs ‖ aux.
func compactQuery(ctx context.Context, ws primitive.Workspace, dst primitive.Buf, n int, shape *synth.Shape, inputs, aux *synth.Density) error {
	nIn := shape.NumInputs
	var inMask []uint64
	if inputs != nil {
		inMask = inputs.Words()
	} else {
		inMask = make([]uint64, (nIn+63)/64)
		for i := range nIn {
			inMask[i/64] |= 1 << (i % 64)
		}
	}
	k, err := ws.Compact(ctx, dst, 0, primitive.BufW, 0, nIn, inMask)
	if err != nil {
		return err
	}
	k2, err := ws.Compact(ctx, dst, k, primitive.BufW, nIn, shape.NumAux, aux.Words())
	if err != nil {
		return err
	}
	if k+k2 != n {
		return fmt.Errorf("compacted %d scalars into a buffer of %d", k+k2, n)
	}
	return nil
}

// Run computes h and the five MSMs on the device, checking ctx between steps.
func (t *groth16Task) Run(ctx context.Context) error {
	if t.ws == nil {
		return errors.New("prover: task released")
	}
	bases, err := t.dev.Resident(ctx, t.srs)
	if err != nil {
		return fmt.Errorf("prover: parameters on %s: %w", t.dev.Name(), err)
	}
	hBitRev, hOwn, err := t.quotient(ctx)
	if err != nil {
		return fmt.Errorf("prover: h on %s: %w", t.dev.Name(), err)
	}
	nIn, nAux := t.asg.Shape.NumInputs, t.asg.Shape.NumAux
	aScalars, aLen := primitive.BufW, nIn+nAux // every aux variable is in A: A's scalars are w
	if t.dims.A > 0 {
		aScalars, aLen = primitive.BufScalarsA, t.dims.A
	}
	// H's MSM, one long run of kernels that fill the device, goes first: another worker's
	// preparation gets its kernels onto the device between the short ones of the small MSMs, so
	// these come last, before the lock passes. A device batch combines each MSM's window sums on
	// the host while it runs the next one, so after H the dearest combination (G2's) comes first.
	all := []primitive.MSMJob{
		{Sec: primitive.SectionH, S: primitive.BufA, N: t.srs.Len(primitive.SectionH), BitRev: hBitRev, RunnerForm: hOwn, G1: &t.res.H},
		{Sec: primitive.SectionBG2, S: primitive.BufScalarsB, N: t.dims.B, G2: &t.res.B2},
		{Sec: primitive.SectionA, S: aScalars, N: aLen, G1: &t.res.A},
		{Sec: primitive.SectionBG1, S: primitive.BufScalarsB, N: t.dims.B, G1: &t.res.B1},
		{Sec: primitive.SectionL, S: primitive.BufW, Off: nIn, N: nAux, G1: &t.res.L},
	}
	var jobs []primitive.MSMJob
	for _, j := range all {
		switch {
		case j.N > 0:
			jobs = append(jobs, j)
		case j.G1 != nil:
			*j.G1 = g1Infinity
		default:
			*j.G2 = g2Infinity
		}
	}
	if r, ok := t.ws.(primitive.MSMRunner); ok {
		if err := r.RunMSMs(ctx, bases, jobs); err != nil {
			return fmt.Errorf("prover: msms on %s: %w", t.dev.Name(), err)
		}
		return nil
	}
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := j.Run(ctx, t.ws, bases); err != nil {
			return fmt.Errorf("prover: %s msm on %s: %w", j.Sec, t.dev.Name(), err)
		}
	}
	return nil
}

// quotient turns the staged evaluations of a, b, c over the domain ⟨ω⟩ of size m into the
// scalars of H's MSM, left in BufA: the m−1 coefficients of h = (a·b − c)/Z, Z = X^m − 1, or,
// with folded parameters (FoldC), the m values e = â·b̂ on the coset that H's points on the coset
// pair with. On a coset g·⟨ω⟩, Z is the constant g^m − 1, and deg h < m, so h is the inverse
// coset transform of (a·b − c)/(g^m − 1) there; the inverse coset transform of c's values on the
// coset is c's coefficients, so only a and b need them:
//
//	â, b̂ = NTT_coset(iNTT(a)), NTT_coset(iNTT(b))   values on the coset
//	h = (iNTT_coset(â·b̂) − iNTT(c)) / (g^m − 1)        coefficients
//
// Six transforms instead of seven, equal to the seven-transform recipe element for element, even
// for an unsatisfied assignment. With folded parameters the last two transforms are in the
// parameters' points (cfold.go): four transforms give e = â·b̂, in natural order. The inverse
// transforms leave bit-reversed order and the coset transforms take it, so no transform
// permutes; Quotient's bit reversal gives h natural order.
//
// A workspace that implements primitive.QuotientRunner (a GPU's) takes these steps in one call,
// and leaves the scalars in its own form for its own MSM batch (runnerForm), h possibly
// bit-reversed (bitRev = log m), which then pairs h_i with H's base i.
//
// The coset is quotientShift's, g = ω_{2m}. When a·b − c vanishes on the domain (a satisfied
// assignment), h is the same on every coset, so the proof is bellperson's, whose coset is 7's;
// otherwise (no valid proof either way) h depends on g.
func (t *groth16Task) quotient(ctx context.Context) (bitRev int, runnerForm bool, err error) {
	m := t.dims.Domain
	logM := bits.TrailingZeros(uint(m))
	shift, err := quotientShift(m)
	if err != nil {
		return 0, false, err
	}
	folded := t.params.CFold != nil
	if r, ok := t.ws.(primitive.QuotientRunner); ok {
		if _, ok := t.ws.(primitive.MSMRunner); !ok {
			return 0, false, errors.New("prover: the workspace computes the quotient in its own form but runs no MSM batch to read it")
		}
		reversed, err := r.RunQuotient(ctx, logM, shift, folded)
		if err != nil {
			return 0, false, err
		}
		if reversed {
			bitRev = logM
		}
		return bitRev, true, nil
	}
	toBitReversed := primitive.NTT{Inverse: true, OutputBitReversed: true}
	inverses := []primitive.Buf{primitive.BufA, primitive.BufB, primitive.BufC}
	if folded {
		inverses = inverses[:2] // no c: C folded into L
	}
	for _, b := range inverses {
		if err := t.ws.NTT(ctx, b, logM, toBitReversed); err != nil {
			return 0, false, err
		}
	}
	for _, b := range []primitive.Buf{primitive.BufA, primitive.BufB} {
		if err := t.ws.NTT(ctx, b, logM, primitive.NTT{Coset: true, InputBitReversed: true, Shift: shift}); err != nil {
			return 0, false, err
		}
	}
	if err := t.ws.Mul(ctx, primitive.BufA, primitive.BufB, m); err != nil {
		return 0, false, err
	}
	if folded {
		return 0, false, nil // e = â·b̂: H on the coset
	}
	inverseOnCoset := primitive.NTT{Inverse: true, Coset: true, OutputBitReversed: true, Shift: shift}
	if err := t.ws.NTT(ctx, primitive.BufA, logM, inverseOnCoset); err != nil {
		return 0, false, err
	}
	return 0, false, t.ws.Quotient(ctx, primitive.BufA, primitive.BufC, logM, zInverseOnCoset(m, shift))
}

// quotientShift returns the quotient's coset shift for a domain of size m: ω_{2m} =
// fft.Generator(2m), whose powers the device's transforms merge into their twiddles, one
// product an element less than another shift costs.
func quotientShift(m int) (fr.Element, error) {
	g, err := fft.Generator(2 * uint64(m))
	if err != nil {
		return fr.Element{}, fmt.Errorf("prover: quotient over a domain of %d: %w", m, err)
	}
	return g, nil
}

// zInverseOnCoset returns 1/(g^m − 1), the inverse of Z(X) = X^m − 1 anywhere on the coset g·⟨ω⟩
// (−1/2 for g = ω_{2m}, whose m-th power is −1).
func zInverseOnCoset(m int, g fr.Element) fr.Element {
	var z, one fr.Element
	one.SetOne()
	z.Exp(g, bigUint(uint64(m)))
	z.Sub(&z, &one)
	z.Inverse(&z)
	return z
}

func (t *groth16Task) Finalize(ctx context.Context) (*Proof, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := t.res
	m.L.AddAssign(&t.foldedInputs)
	return assembleProof(&t.params.VK, &m, t.rs), nil
}

func (t *groth16Task) Release() {
	if t.ws != nil {
		t.ws.Release()
		t.ws = nil
	}
}

// msmResults are the multi-scalar multiplications of one partition.
type msmResults struct {
	A, B1, L, H bls12381.G1Jac // Σ a_i·A_i, Σ b_i·B_i (G1), Σ aux_j·L_j, Σ h_i·H_i
	B2          bls12381.G2Jac // Σ b_i·B_i (G2)
}

// assembleProof combines the MSM results with r and s as bellman does:
//
//	A = α + Σa + r·δ
//	B = β + Σb + s·δ (G2)
//	C = Σl + Σh + s·(α + Σa) + r·(β + Σb) + r·s·δ (G1)
func assembleProof(vk *VerifyingKey, m *msmResults, rs Randomness) *Proof {
	r, s := bigOf(&rs.R), bigOf(&rs.S)
	var rsProd fr.Element
	rsProd.Mul(&rs.R, &rs.S)

	var ga, gc, t bls12381.G1Jac
	ga.FromAffine(&vk.DeltaG1)
	ga.ScalarMultiplication(&ga, r)
	ga.AddMixed(&vk.AlphaG1)
	ga.AddAssign(&m.A)

	var gb bls12381.G2Jac
	gb.FromAffine(&vk.DeltaG2)
	gb.ScalarMultiplication(&gb, s)
	gb.AddMixed(&vk.BetaG2)
	gb.AddAssign(&m.B2)

	gc.FromAffine(&vk.DeltaG1)
	gc.ScalarMultiplication(&gc, bigOf(&rsProd))
	t.FromAffine(&vk.AlphaG1)
	t.AddAssign(&m.A)
	t.ScalarMultiplication(&t, s)
	gc.AddAssign(&t)
	t.FromAffine(&vk.BetaG1)
	t.AddAssign(&m.B1)
	t.ScalarMultiplication(&t, r)
	gc.AddAssign(&t)
	gc.AddAssign(&m.H)
	gc.AddAssign(&m.L)

	p := &Proof{}
	p.A.FromJacobian(&ga)
	p.B.FromJacobian(&gb)
	p.C.FromJacobian(&gc)
	return p
}

// The identity of G1 and G2 in Jacobian coordinates (Z = 0).
var (
	g1Infinity = bls12381.G1Jac{X: fpOne(), Y: fpOne()}
	g2Infinity = func() bls12381.G2Jac { var p bls12381.G2Jac; p.X.SetOne(); p.Y.SetOne(); return p }()
)
