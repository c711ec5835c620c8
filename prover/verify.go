package prover

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PreparedVerifyingKey is a VerifyingKey with the work that does not depend on the proof
// done once: e(α, β) in GT and the Miller-loop line evaluations of −γ and −δ in G2.
// It is immutable and safe for concurrent use.
type PreparedVerifyingKey struct {
	alphaBeta bls12381.GT // e(α·G1, β·G2)
	negGamma  [2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff
	negDelta  [2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff
	ic        []bls12381.G1Affine
}

// PrepareVerifyingKey computes e(α, β) and the line evaluations of −γ and −δ for vk.
// It fails if vk has no IC point (IC[0], for the constant ONE, is always present) or if
// alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1 or delta_g2 is the point at infinity, as
// Checked decoding does for keys read from bytes: with γ = δ = ∞ the equation reduces to
// e(A, B) = e(α, β), which A = α, B = β satisfies for every input, and with α or β at
// infinity it reduces to a relation the prover can meet without a witness.
func PrepareVerifyingKey(vk *VerifyingKey) (*PreparedVerifyingKey, error) {
	if len(vk.IC) == 0 {
		return nil, errors.New("prepare verifying key: IC is empty, want at least IC[0] for ONE")
	}
	if err := checkKeyNotInfinity(vk); err != nil {
		return nil, err
	}
	return prepare(vk)
}

// checkKeyNotInfinity returns an error naming the first of the key's fixed points that is the
// point at infinity.
func checkKeyNotInfinity(vk *VerifyingKey) error {
	for _, f := range []struct {
		name string
		inf  bool
	}{
		{"vk.alpha_g1", vk.AlphaG1.IsInfinity()},
		{"vk.beta_g1", vk.BetaG1.IsInfinity()},
		{"vk.beta_g2", vk.BetaG2.IsInfinity()},
		{"vk.gamma_g2", vk.GammaG2.IsInfinity()},
		{"vk.delta_g1", vk.DeltaG1.IsInfinity()},
		{"vk.delta_g2", vk.DeltaG2.IsInfinity()},
	} {
		if f.inf {
			return fmt.Errorf("prepare verifying key: %s: %w", f.name, errInfinity)
		}
	}
	return nil
}

// prepare is PrepareVerifyingKey without the checks on vk's points.
func prepare(vk *VerifyingKey) (*PreparedVerifyingKey, error) {
	ab, err := bls12381.Pair([]bls12381.G1Affine{vk.AlphaG1}, []bls12381.G2Affine{vk.BetaG2})
	if err != nil {
		return nil, fmt.Errorf("prepare verifying key: pair alpha and beta: %w", err)
	}
	pvk := &PreparedVerifyingKey{alphaBeta: ab, ic: append([]bls12381.G1Affine(nil), vk.IC...)}
	var g bls12381.G2Affine
	g.Neg(&vk.GammaG2)
	pvk.negGamma = bls12381.PrecomputeLines(g)
	g.Neg(&vk.DeltaG2)
	pvk.negDelta = bls12381.PrecomputeLines(g)
	return pvk, nil
}

// NumPublicInputs returns the number of public inputs a proof for this key takes, not
// counting the leading ONE: |IC| − 1.
func (pvk *PreparedVerifyingKey) NumPublicInputs() int { return len(pvk.ic) - 1 }

// Verify checks the Groth16 equation for proof and the public inputs (without the leading
// ONE):
//
//	e(A, B) · e(Σ_j x_j·IC_j, −γ) · e(C, −δ) = e(α, β),   x_0 = 1,
//
// with one final exponentiation. It returns nil if the proof is valid, an error wrapping
// ErrInvalidProof if the equation fails, and an error wrapping ErrInputCount if
// len(inputs)+1 ≠ |IC|. The proof's points are taken as group elements as given; a Proof
// from SetBytes has been checked to lie in G1/G2.
func Verify(pvk *PreparedVerifyingKey, proof *Proof, inputs []fr.Element) error {
	if proof == nil {
		return errors.New("verify: nil proof")
	}
	if len(inputs)+1 != len(pvk.ic) {
		return fmt.Errorf("verify: %d public inputs, key has %d IC points (want inputs+1): %w",
			len(inputs), len(pvk.ic), ErrInputCount)
	}
	acc := linearCombination(pvk.ic, nil, inputs)

	ml, err := bls12381.MillerLoop([]bls12381.G1Affine{proof.A}, []bls12381.G2Affine{proof.B})
	if err != nil {
		return fmt.Errorf("verify: miller loop: %w", err)
	}
	fixed, err := bls12381.MillerLoopFixedQ([]bls12381.G1Affine{acc, proof.C},
		[][2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff{pvk.negGamma, pvk.negDelta})
	if err != nil {
		return fmt.Errorf("verify: fixed-argument miller loop: %w", err)
	}
	res := bls12381.FinalExponentiation(&ml, &fixed)
	if !res.Equal(&pvk.alphaBeta) {
		return fmt.Errorf("verify: pairing check failed: %w", ErrInvalidProof)
	}
	return nil
}

// linearCombination returns s0·IC_0 + Σ_j s_j·IC_{j+1}, where s0 = 1 when s0 is nil.
func linearCombination(ic []bls12381.G1Affine, s0 *fr.Element, s []fr.Element) bls12381.G1Affine {
	var acc bls12381.G1Jac
	if len(s) > 0 {
		// MultiExp only fails on mismatched lengths, excluded by the callers.
		if _, err := acc.MultiExp(ic[1:len(s)+1], s, ecc.MultiExpConfig{}); err != nil {
			panic(fmt.Sprintf("prover: multiexp over IC: %v", err))
		}
	}
	if s0 == nil {
		acc.AddMixed(&ic[0])
	} else {
		var t bls12381.G1Jac
		var k big.Int
		t.FromAffine(&ic[0])
		t.ScalarMultiplication(&t, s0.BigInt(&k))
		acc.AddAssign(&t)
	}
	var out bls12381.G1Affine
	out.FromJacobian(&acc)
	return out
}

// VerifyBatch checks all proofs at once with bellperson's randomized batching (Zcash
// protocol spec §B.2): with independent uniformly random 128-bit weights r_i from
// crypto/rand, it checks
//
//	∏_i e(r_i·A_i, B_i) · e(Σ_i r_i·(IC_0 + Σ_j x_ij·IC_j), −γ) · e(Σ_i r_i·C_i, −δ)
//	  = e(α, β)^(Σ_i r_i)
//
// with one final exponentiation. If every proof is valid it returns nil; if any is invalid
// it returns an error wrapping ErrInvalidProof except with probability about 2⁻¹²⁸ (it
// does not say which: verify individually to find out). inputs[i] are the public inputs of
// proofs[i] without the leading ONE. An empty batch is valid.
func VerifyBatch(pvk *PreparedVerifyingKey, proofs []*Proof, inputs [][]fr.Element) error {
	return verifyBatch(pvk, proofs, inputs, rand.Reader)
}

// verifyBatch is VerifyBatch with the weights drawn from rnd (16 bytes each, big-endian).
func verifyBatch(pvk *PreparedVerifyingKey, proofs []*Proof, inputs [][]fr.Element, rnd io.Reader) error {
	n := len(proofs)
	if len(inputs) != n {
		return fmt.Errorf("verify batch: %d proofs but %d input vectors: %w", n, len(inputs), ErrInputCount)
	}
	for i := range proofs {
		if proofs[i] == nil {
			return fmt.Errorf("verify batch: proof %d is nil", i)
		}
		if len(inputs[i])+1 != len(pvk.ic) {
			return fmt.Errorf("verify batch: proof %d has %d public inputs, key has %d IC points (want inputs+1): %w",
				i, len(inputs[i]), len(pvk.ic), ErrInputCount)
		}
	}
	if n == 0 {
		return nil
	}

	// Random weights r_i ∈ [1, 2¹²⁸).
	r := make([]fr.Element, n)
	var buf [16]byte
	for i := range r {
		for r[i].IsZero() {
			if _, err := io.ReadFull(rnd, buf[:]); err != nil {
				return fmt.Errorf("verify batch: draw random weight: %w", err)
			}
			r[i].SetBytes(buf[:])
		}
	}

	// Σ r_i and the input combination s_j = Σ_i r_i·x_ij.
	var sumR fr.Element
	for i := range r {
		sumR.Add(&sumR, &r[i])
	}
	s := make([]fr.Element, len(pvk.ic)-1)
	var t fr.Element
	for i := range proofs {
		for j := range s {
			t.Mul(&r[i], &inputs[i][j])
			s[j].Add(&s[j], &t)
		}
	}
	accIC := linearCombination(pvk.ic, &sumR, s)

	// Σ r_i·C_i.
	cs := make([]bls12381.G1Affine, n)
	for i := range proofs {
		cs[i] = proofs[i].C
	}
	var accC bls12381.G1Affine
	if _, err := accC.MultiExp(cs, r, ecc.MultiExpConfig{}); err != nil {
		return fmt.Errorf("verify batch: multiexp over C: %w", err)
	}

	// r_i·A_i and the Miller loops of (r_i·A_i, B_i), split over the cores.
	workers := min(runtime.GOMAXPROCS(0), n)
	parts := make([]bls12381.GT, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() {
			ra := make([]bls12381.G1Affine, hi-lo)
			bs := make([]bls12381.G2Affine, hi-lo)
			var k big.Int
			for i := lo; i < hi; i++ {
				ra[i-lo].ScalarMultiplication(&proofs[i].A, r[i].BigInt(&k))
				bs[i-lo] = proofs[i].B
			}
			parts[w], errs[w] = bls12381.MillerLoop(ra, bs)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("verify batch: miller loop: %w", err)
		}
	}
	fixed, err := bls12381.MillerLoopFixedQ([]bls12381.G1Affine{accIC, accC},
		[][2][len(bls12381.LoopCounter) - 1]bls12381.LineEvaluationAff{pvk.negGamma, pvk.negDelta})
	if err != nil {
		return fmt.Errorf("verify batch: fixed-argument miller loop: %w", err)
	}
	rest := make([]*bls12381.GT, 0, workers)
	for w := range parts {
		rest = append(rest, &parts[w])
	}
	lhs := bls12381.FinalExponentiation(&fixed, rest...)

	var rhs bls12381.GT
	var k big.Int
	rhs.CyclotomicExp(pvk.alphaBeta, sumR.BigInt(&k))
	if !lhs.Equal(&rhs) {
		return fmt.Errorf("verify batch: pairing check over %d proofs failed: %w", n, ErrInvalidProof)
	}
	return nil
}
