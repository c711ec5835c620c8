package prover

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-go/cuzk/internal/parallel"
	"github.com/cuzk-go/cuzk/synth"
)

// Folded parameters: C folded into L, H on the coset.
//
// The quotient (groth16Task.quotient) works on the coset g·⟨ω⟩ of a domain of size m, where Z =
// X^m − 1 is the constant z = g^m − 1: with â, b̂ the values of a and b there, t the inverse coset
// transform of â·b̂ and c̃ = iNTT(c) the coefficients of c = C·w, h = (t − c̃)·z⁻¹. H's MSM is
// linear in h, so
//
//	Σ_{i<m−1} h_i·H_i = Σ_{i<m−1} t_i·z⁻¹·H_i − z⁻¹·Σ_{i<m−1} c̃_i·H_i,
//
// and both sums are fixed linear maps of what the partition computes anyway.
//
// C folded into L. With c̃_i = (1/m)·Σ_j ω^(−ij)·c_j and c_j = Σ_k C[j][k]·w_k the second sum is
// Σ_k w_k·Q_k,
//
//	Q_k = −z⁻¹·Σ_j C[j][k]·G_j,   G_j = (1/m)·Σ_{i<m−1} ω^(−ij)·H_i,
//
// a fixed point per variable k: G is an inverse transform over H's points (H_{m−1}, which the
// parameters do not have, taken as the point at infinity: h has no coefficient there), and Q
// sums C's columns over it. L already holds one point per aux variable that the MSM over w's
// aux part sums, so L'_k = L_k + Q_k takes C's share with no MSM of its own, and the inputs'
// share Σ_{k<inputs} w_k·Q_k (a few points) is added to the proof's C on the host. No c, no
// C·w, no transform of c.
//
// H on the coset. With t_i = (1/m)·Σ_j (g·ω^j)^(−i)·e_j, e = â·b̂, the first sum is Σ_j e_j·K_j,
//
//	K_j = z⁻¹·(1/m)·Σ_{i<m−1} (g·ω^j)^(−i)·H_i = Σ_i ω^(−ij)·(s·g^(−i))·H_i,   s = z⁻¹/m,
//
// H's points in the Lagrange basis of the coset: a transform over H's points again, each point
// first multiplied by s·g^(−i) (G1DFT's twist). With K in place of H the partition's H MSM runs
// over e, m scalars, and the inverse coset transform that made t is not needed either: the
// quotient is four transforms (a's and b's inverse and coset transforms) and a product, where
// it was six.
//
// The proof is the same group elements, so the same bytes for the same r and s, for every
// assignment (satisfied or not: both sums are the prover's own, rewritten). The fold belongs to
// one circuit (C, its inputs and its domain), not only to the SRS: the folded parameters record
// a digest of the circuit's C (FoldDigest) and the prover refuses them for another; H then has
// m points, not m − 1.

// CFold marks folded Parameters (FoldC): L holds C's share of H's MSM, and H holds K, H's points
// on the coset, m of them (the comment at the top of this file).
type CFold struct {
	// Inputs holds Q_k for each input k, One first: the prover adds Σ_k w_k·Inputs[k] to the
	// proof's C.
	Inputs []bls12381.G1Affine
	// Circuit is the digest (FoldDigest) of the circuit whose C is folded.
	Circuit [32]byte
}

// ErrFold reports parameters that FoldC cannot fold.
var ErrFold = errors.New("prover: fold the parameters")

// G1DFT computes out[j] = Σ_i ω^(ij)·(scale·twist^i)·x_i for j < 2^logN, x the points followed by
// the point at infinity, ω = omega of order 2^logN: the transforms over points that FoldC needs
// (twist 1 for C's fold, the coset's inverse shift for H on the coset), which a device may
// compute (gpu.Device.G1DFT) instead of the CPU. It calls progress, when not nil, with the
// number of its logN butterfly stages done as they finish (one call at a time), and stops with
// ctx's error.
type G1DFT func(ctx context.Context, points []bls12381.G1Affine, logN int, omega, twist, scale fr.Element,
	progress func(stages int)) ([]bls12381.G1Affine, error)

// FoldOption configures FoldC and FoldParametersOverlay.
type FoldOption func(*foldConfig)

type foldConfig struct {
	progress func(stage string, done, total int64)
	dft      G1DFT
}

// FoldWithDFT makes the fold compute its transform over H's points with dft instead of on the
// CPU.
func FoldWithDFT(dft G1DFT) FoldOption { return func(c *foldConfig) { c.dft = dft } }

// FoldWithProgress makes the fold report its progress to f (nil: none): of the stage named
// stage — "C's transform" and "H on the coset" (transforms over H's points, in butterflies and
// point multiplications), then "C's columns" (in variables) — done units of total are finished.
// Stages come one after the other, done grows up to total within a stage, and calls are
// serialized (from several goroutines, so f must not block for long).
func FoldWithProgress(f func(stage string, done, total int64)) FoldOption {
	return func(c *foldConfig) { c.progress = f }
}

// foldProgress counts one stage's done units and reports them, serialized; a nil *foldProgress
// (no reporting) does nothing.
type foldProgress struct {
	mu          sync.Mutex
	f           func(stage string, done, total int64)
	stage       string
	done, total int64
}

// start begins stage with total units, reporting 0 done; nil without a progress function.
func (c *foldConfig) start(stage string, total int64) *foldProgress {
	if c.progress == nil {
		return nil
	}
	c.progress(stage, 0, total)
	return &foldProgress{f: c.progress, stage: stage, total: total}
}

// add counts n more units done.
func (p *foldProgress) add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+n, p.total)
	p.f(p.stage, p.done, p.total)
}

// FoldC returns params folded for the circuit shape (CFold): C's share of H's MSM folded into L,
// and H's points on the coset (the comment at the top of this file); a partition proved with
// them needs two transforms less and no C·w. params must not be folded already and must fit
// shape (CheckParameters); params is left as it was. Parameters mapped from a file are decoded
// onto the heap first, as a CPU proof decodes them (MappedParameters), and the result holds its
// points on the heap: at a 32 GiB PoRep partition ≈ 44 GiB, plus L' and K (12 GiB each) and,
// while FoldC runs, G (12 GiB), C by columns (≈ 1 GiB) and, on the CPU, a transform's 18 GiB
// of G1 points in Jacobian form. The cost is two transforms over H's m − 1 points (m/2·log m + m
// scalar multiplications each: on the CPU seconds at 2^16 constraints, hours at a 32 GiB PoRep
// partition; minutes there on a GPU with FoldWithDFT) and one multiplication a term of C whose
// coefficient is not ±1; FoldWithProgress reports how far it is.
func FoldC(ctx context.Context, params *Parameters, shape *synth.Shape, opts ...FoldOption) (*Parameters, error) {
	var cfg foldConfig
	for _, o := range opts {
		o(&cfg)
	}
	if params.CFold != nil {
		return nil, fmt.Errorf("%w: the parameters are folded already", ErrFold)
	}
	if err := CheckParameters(params, shape); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFold, err)
	}
	if m := params.mapped; m != nil {
		decoded, err := m.decoded()
		if err != nil {
			return nil, fmt.Errorf("%w: decode the parameters' points: %w", ErrFold, err)
		}
		d := *decoded
		d.ID = params.ID
		params = &d
	}
	f, err := foldPoints(ctx, shape, params.H, func() ([]bls12381.G1Affine, error) { return params.L, nil }, &cfg)
	if err != nil {
		return nil, err
	}
	out := *params
	if params.ID != "" {
		out.ID = params.ID + " (folded)"
	}
	out.H, out.L, out.CFold = f.h, f.l, f.fold
	return &out, nil
}

// folded is what foldPoints computes: the fold, L' and K.
type folded struct {
	fold *CFold
	l, h []bls12381.G1Affine
}

// foldPoints folds shape's C into L and puts H on the coset (the comment at the top of this
// file) from H's points h and L's, which loadL returns once h's transforms are done (h is not
// read after them, so that a caller that decoded it may let it go first), reporting to cfg's
// progress.
func foldPoints(ctx context.Context, shape *synth.Shape, h []bls12381.G1Affine, loadL func() ([]bls12381.G1Affine, error), cfg *foldConfig) (*folded, error) {
	m := shape.DomainSize()
	if m < 2 {
		return nil, fmt.Errorf("%w: a domain of %d has no H", ErrFold, m)
	}
	omega, err := fft.Generator(uint64(m))
	if err != nil {
		return nil, fmt.Errorf("%w: domain of %d: %v", ErrFold, m, err)
	}
	shift, err := quotientShift(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFold, err)
	}
	// s = z⁻¹/m; G·(−z⁻¹) = the transform scaled by −s, K the transform twisted by g⁻¹, scaled by s.
	var omegaInv, s, negS, gInv, one fr.Element
	omegaInv.Inverse(&omega)
	s = zInverseOnCoset(m, shift)
	s.Div(&s, new(fr.Element).SetUint64(uint64(m)))
	negS.Neg(&s)
	gInv.Inverse(&shift)
	one.SetOne()
	g, err := transformH(ctx, h, m, omegaInv, one, negS, "C's transform", cfg)
	if err != nil {
		return nil, err
	}
	k, err := transformH(ctx, h, m, omegaInv, gInv, s, "H on the coset", cfg)
	if err != nil {
		return nil, err
	}
	l, err := loadL()
	if err != nil {
		return nil, fmt.Errorf("%w: L's points: %w", ErrFold, err)
	}
	inputs, lPrime, err := foldColumns(ctx, shape, g, l, cfg.start("C's columns", int64(shape.NumInputs+shape.NumAux)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFold, err)
	}
	return &folded{fold: &CFold{Inputs: inputs, Circuit: FoldDigest(shape)}, l: lPrime, h: k}, nil
}

// transformH returns Σ_i ω^(ij)·(scale·twist^i)·H_i for j < m, ω = omega (G1DFT's definition):
// H's points, the missing H_{m−1} as the point at infinity; by cfg's dft when given, else on the
// CPU, reporting the stage named stage to cfg's progress.
func transformH(ctx context.Context, h []bls12381.G1Affine, m int, omega, twist, scale fr.Element, stage string, cfg *foldConfig) ([]bls12381.G1Affine, error) {
	logM := bits.TrailingZeros(uint(m))
	prog := cfg.start(stage, int64(m/2*logM+len(h))) // the twisted inputs, then the butterflies
	if cfg.dft != nil {
		reported := 0
		g, err := cfg.dft(ctx, h, logM, omega, twist, scale, func(stages int) {
			prog.add(int64(stages-reported) * int64(m/2))
			reported = stages
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %s of H's points: %w", ErrFold, stage, err)
		}
		if len(g) != m {
			return nil, fmt.Errorf("%w: %s of H's points: %d points, want %d", ErrFold, stage, len(g), m)
		}
		prog.add(int64(logM-reported)*int64(m/2) + int64(len(h)))
		return g, nil
	}
	x := make([]bls12381.G1Jac, m)
	err := parallel.Chunks(ctx, len(h), foldChunk, func(lo, hi int) {
		var f fr.Element
		f.Exp(twist, big.NewInt(int64(lo)))
		f.Mul(&f, &scale)
		var k big.Int
		for i := lo; i < hi; i++ {
			x[i].FromAffine(&h[i])
			x[i].ScalarMultiplication(&x[i], f.BigInt(&k))
			f.Mul(&f, &twist)
		}
		prog.add(int64(hi - lo))
	})
	if err == nil {
		err = g1DFT(ctx, x, omega, prog)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFold, err)
	}
	return bls12381.BatchJacobianToAffineG1(x), nil
}

// g1DFT sets x, of a power-of-two length n, to its transform x̂_j = Σ_i ω^(ij)·x_i, ω of order n,
// in natural order: radix-2 decimation in time after a bit-reversal permutation, each stage's
// butterflies spread over all cores; prog counts the butterflies as they are done. It stops
// with ctx's error, x then partly transformed, within a chunk of butterflies of ctx's end.
func g1DFT(ctx context.Context, x []bls12381.G1Jac, omega fr.Element, prog *foldProgress) error {
	n := len(x)
	logN := bits.TrailingZeros(uint(n))
	for i := range n {
		if j := int(bits.Reverse64(uint64(i)) >> (64 - logN)); i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for half := 1; half < n; half <<= 1 {
		var w, t fr.Element
		w.Exp(omega, big.NewInt(int64(n/(2*half))))
		tw := make([]big.Int, half)
		t.SetOne()
		for k := range half {
			t.BigInt(&tw[k])
			t.Mul(&t, &w)
		}
		err := parallel.Chunks(ctx, n/2, foldChunk, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				k := b % half
				i := (b/half)*2*half + k
				u, v := x[i], x[i+half]
				if k != 0 {
					v.ScalarMultiplication(&v, &tw[k])
				}
				x[i].Set(&u).AddAssign(&v)
				x[i+half].Set(&u).SubAssign(&v)
			}
			prog.add(int64(hi - lo))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// foldColumns returns Q_k = Σ_j C[j][k]·g_j for the inputs k and L_k + Q_{inputs+k} for the aux
// variables k, l being L. It reads C once into a column-major copy (8 bytes a term) and then
// folds the columns on all cores, a chunk at a time, so that no point array of its own is held
// in Jacobian form: at a 32 GiB PoRep partition ≈ 1 GiB besides the results. prog counts the
// variables a chunk at a time. It stops with ctx's error within a chunk of ctx's end.
func foldColumns(ctx context.Context, shape *synth.Shape, g, l []bls12381.G1Affine, prog *foldProgress) (inputs, lOut []bls12381.G1Affine, err error) {
	nIn, nW := shape.NumInputs, shape.NumInputs+shape.NumAux
	start, terms := cColumns(shape)
	coeffs := make([]big.Int, len(shape.Coeffs))
	for i := range coeffs {
		shape.Coeffs[i].BigInt(&coeffs[i])
	}
	out := make([]bls12381.G1Affine, nW)
	err = parallel.Chunks(ctx, nW, foldChunk, func(k0, k1 int) {
		acc := make([]bls12381.G1Jac, k1-k0)
		for k := k0; k < k1; k++ {
			a := &acc[k-k0]
			*a = bls12381.G1Jac{}
			if k >= nIn {
				a.FromAffine(&l[k-nIn])
			}
			for _, t := range terms[start[k]:start[k+1]] {
				switch t.coeff {
				case 0: // 1
					a.AddMixed(&g[t.row])
				case 1: // −1
					var neg bls12381.G1Affine
					neg.Neg(&g[t.row])
					a.AddMixed(&neg)
				default:
					var p bls12381.G1Jac
					p.FromAffine(&g[t.row])
					p.ScalarMultiplication(&p, &coeffs[t.coeff])
					a.AddAssign(&p)
				}
			}
		}
		copy(out[k0:k1], bls12381.BatchJacobianToAffineG1(acc))
		prog.add(int64(k1 - k0))
	})
	if err != nil {
		return nil, nil, err
	}
	return out[:nIn:nIn], out[nIn:], nil
}

// cTerm is one term of C in a column: its row and its coefficient's index in the shape's table.
type cTerm struct{ row, coeff uint32 }

// cColumns returns C by columns: the terms of column k are terms[start[k]:start[k+1]], in row
// order.
func cColumns(shape *synth.Shape) (start []int, terms []cTerm) {
	nW := shape.NumInputs + shape.NumAux
	start = make([]int, nW+1)
	var row []synth.MatrixEntry
	for r := range shape.C.NumRows() {
		row = shape.C.AppendRow(row[:0], r)
		for _, e := range row {
			start[e.Col+1]++
		}
	}
	for k := range nW {
		start[k+1] += start[k]
	}
	terms = make([]cTerm, start[nW])
	next := slices.Clone(start[:nW])
	for r := range shape.C.NumRows() {
		row = shape.C.AppendRow(row[:0], r)
		for _, e := range row {
			terms[next[e.Col]] = cTerm{uint32(r), e.Coeff}
			next[e.Col]++
		}
	}
	return start, terms
}

// foldChunk is how many units of work (butterflies, point multiplications, variables) a core
// takes at a time: a few hundred milliseconds of work on the CPU, so that a cancelled fold stops
// promptly and the cores finish a stage together.
const foldChunk = 1 << 12

// FoldDigest returns the digest FoldC records of shape (CFold.Circuit): the SHA-256 of what a fold
// depends on, the input, aux and constraint counts, C's encoding (synth.MatrixEncoding) and the
// coefficient table. Two shapes with equal digests have the same C term for term. Computed once
// a shape (a few hundred milliseconds at a 32 GiB PoRep partition's C).
func FoldDigest(shape *synth.Shape) [32]byte {
	key := weak.Make(shape)
	if d, ok := cDigests.Load(key); ok {
		return d.([32]byte)
	}
	h := sha256.New()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	words := func(ws []uint32) {
		put(uint64(len(ws)))
		b := make([]byte, 4*min(len(ws), 1<<16))
		for len(ws) > 0 {
			n := min(len(ws), len(b)/4)
			for i, w := range ws[:n] {
				binary.LittleEndian.PutUint32(b[4*i:], w)
			}
			h.Write(b[:4*n])
			ws = ws[n:]
		}
	}
	put(uint64(shape.NumInputs))
	put(uint64(shape.NumAux))
	put(uint64(shape.NumConstraints))
	enc := shape.C.Encoding()
	put(uint64(enc.ColBits))
	put(uint64(len(enc.RowLen)))
	h.Write(enc.RowLen)
	words(enc.BlockPtr)
	words(enc.LongRows)
	words(enc.LongLens)
	words(enc.Words)
	put(uint64(len(shape.Coeffs)))
	for i := range shape.Coeffs {
		b := shape.Coeffs[i].Bytes()
		h.Write(b[:])
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	if _, loaded := cDigests.LoadOrStore(key, d); !loaded {
		runtime.AddCleanup(shape, func(k weak.Pointer[synth.Shape]) { cDigests.Delete(k) }, key)
	}
	return d
}

// cDigests holds FoldDigest's results by shape, each dropped when its shape is collected.
var cDigests sync.Map // weak.Pointer[synth.Shape] → [32]byte

// checkFold refuses folded parameters for a circuit other than the one folded, with a
// *ParamsMismatchError.
func checkFold(params *Parameters, shape *synth.Shape) error {
	f := params.CFold
	if f == nil {
		return nil
	}
	if len(f.Inputs) != shape.NumInputs {
		return &ParamsMismatchError{Section: "c_fold inputs", Got: len(f.Inputs), Want: shape.NumInputs,
			Shape: shape}
	}
	if d := FoldDigest(shape); d != f.Circuit {
		return fmt.Errorf("%w: C is folded for the circuit of digest %x, this circuit's is %x",
			ErrParamsMismatch, f.Circuit[:8], d[:8])
	}
	return nil
}

// foldedInputs returns Σ_{k<inputs} w_k·Inputs[k], the inputs' share of C that folded
// parameters leave to the proof's C (the identity without a fold).
func foldedInputs(f *CFold, w []fr.Element) (bls12381.G1Jac, error) {
	var sum bls12381.G1Jac
	if f == nil {
		return sum, nil
	}
	if len(w) < len(f.Inputs) {
		return sum, fmt.Errorf("prover: %d values for %d folded inputs", len(w), len(f.Inputs))
	}
	if _, err := sum.MultiExp(f.Inputs, w[:len(f.Inputs)], ecc.MultiExpConfig{}); err != nil {
		return sum, fmt.Errorf("prover: folded inputs: %w", err)
	}
	return sum, nil
}
