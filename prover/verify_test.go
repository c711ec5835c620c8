package prover

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// toyKey is a verifying key with known toxic waste, so that valid proofs can be built
// directly: A = a·G1, B = b·G2, C = c·G1 with c = (a·b − α·β − Σ_j x_j·ic_j·γ)/δ satisfies
// e(A,B) = e(α,β)·e(Σ x_j IC_j, γ)·e(C, δ).
type toyKey struct {
	alpha, beta, gamma, delta fr.Element
	ic                        []fr.Element
	vk                        *VerifyingKey
}

func g1Mul(s *fr.Element) bls12381.G1Affine {
	var p bls12381.G1Affine
	var k big.Int
	return *p.ScalarMultiplicationBase(s.BigInt(&k))
}

func g2Mul(s *fr.Element) bls12381.G2Affine {
	var p bls12381.G2Affine
	var k big.Int
	return *p.ScalarMultiplicationBase(s.BigInt(&k))
}

func newToyKey(seed uint64, nInputs int) *toyKey {
	s := randScalars(seed, 4+nInputs+1)
	k := &toyKey{alpha: s[0], beta: s[1], gamma: s[2], delta: s[3], ic: s[4:]}
	k.vk = &VerifyingKey{
		AlphaG1: g1Mul(&k.alpha), BetaG1: g1Mul(&k.beta), BetaG2: g2Mul(&k.beta),
		GammaG2: g2Mul(&k.gamma), DeltaG1: g1Mul(&k.delta), DeltaG2: g2Mul(&k.delta),
		IC: bls12381.BatchScalarMultiplicationG1(ptrG1Gen(), k.ic),
	}
	return k
}

func ptrG1Gen() *bls12381.G1Affine {
	_, _, g, _ := bls12381.Generators()
	return &g
}

// prove builds a valid proof for inputs with the random a, b derived from seed.
func (k *toyKey) prove(seed uint64, inputs []fr.Element) *Proof {
	ab := randScalars(seed, 2)
	a, b := ab[0], ab[1]
	// L = ic_0 + Σ x_j·ic_{j+1}
	l := k.ic[0]
	var t fr.Element
	for j := range inputs {
		t.Mul(&inputs[j], &k.ic[j+1])
		l.Add(&l, &t)
	}
	var c, ab2, albe, lg, dinv fr.Element
	ab2.Mul(&a, &b)
	albe.Mul(&k.alpha, &k.beta)
	lg.Mul(&l, &k.gamma)
	c.Sub(&ab2, &albe).Sub(&c, &lg)
	dinv.Inverse(&k.delta)
	c.Mul(&c, &dinv)
	return &Proof{A: g1Mul(&a), B: g2Mul(&b), C: g1Mul(&c)}
}

func TestVerifyConstructed(t *testing.T) {
	for _, n := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("inputs=%d", n), func(t *testing.T) {
			k := newToyKey(60+uint64(n), n)
			pvk, err := PrepareVerifyingKey(k.vk)
			if err != nil {
				t.Fatal(err)
			}
			if pvk.NumPublicInputs() != n {
				t.Fatalf("NumPublicInputs %d", pvk.NumPublicInputs())
			}
			inputs := randScalars(70, n)
			proof := k.prove(80, inputs)
			if err := Verify(pvk, proof, inputs); err != nil {
				t.Fatalf("valid proof: %v", err)
			}
			// Through the byte encoding too.
			b := proof.Bytes()
			var q Proof
			if err := q.SetBytes(b[:]); err != nil || Verify(pvk, &q, inputs) != nil {
				t.Fatalf("decoded proof: %v", err)
			}
			bad := func(name string, p *Proof, in []fr.Element) {
				if err := Verify(pvk, p, in); !errors.Is(err, ErrInvalidProof) {
					t.Errorf("%s: want ErrInvalidProof, got %v", name, err)
				}
			}
			if n > 0 {
				mut := append([]fr.Element(nil), inputs...)
				var one fr.Element
				one.SetOne()
				mut[0].Add(&mut[0], &one)
				bad("changed input", proof, mut)
			}
			sw := *proof
			sw.A, sw.C = proof.C, proof.A
			bad("A and C swapped", &sw, inputs)
			neg := *proof
			neg.B.Neg(&proof.B)
			bad("B negated", &neg, inputs)
			other := k.prove(81, inputs)
			mixed := *proof
			mixed.C = other.C
			bad("C from another proof", &mixed, inputs)
			// Input count mismatch is its own error.
			err = Verify(pvk, proof, append(inputs, fr.Element{}))
			if !errors.Is(err, ErrInputCount) || errors.Is(err, ErrInvalidProof) {
				t.Errorf("extra input: %v", err)
			}
			if Verify(pvk, nil, inputs) == nil {
				t.Error("nil proof verified")
			}
		})
	}
	if _, err := PrepareVerifyingKey(&VerifyingKey{}); err == nil {
		t.Error("key without IC prepared")
	}
}

// TestPrepareVerifyingKeyRefusesInfinity: a key built in memory with gamma_g2 = delta_g2 =
// infinity accepts the forged proof A = α, B = β for any inputs (shown through prepare, which
// skips the checks); PrepareVerifyingKey refuses it, and every other fixed point at infinity.
func TestPrepareVerifyingKeyRefusesInfinity(t *testing.T) {
	k := newToyKey(90, 2)
	forgedKey := *k.vk
	forgedKey.GammaG2 = bls12381.G2Affine{}
	forgedKey.DeltaG2 = bls12381.G2Affine{}
	forged := &Proof{A: forgedKey.AlphaG1, B: forgedKey.BetaG2, C: forgedKey.IC[0]}
	unchecked, err := prepare(&forgedKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(unchecked, forged, randScalars(91, 2)); err != nil {
		t.Fatalf("the forgery should verify under gamma = delta = infinity: %v", err)
	}
	if _, err := PrepareVerifyingKey(&forgedKey); !errors.Is(err, errInfinity) || !strings.Contains(err.Error(), "vk.gamma_g2") {
		t.Fatalf("PrepareVerifyingKey accepted gamma = delta = infinity: %v", err)
	}
	for _, f := range []struct {
		name string
		set  func(vk *VerifyingKey)
	}{
		{"vk.alpha_g1", func(vk *VerifyingKey) { vk.AlphaG1 = bls12381.G1Affine{} }},
		{"vk.beta_g1", func(vk *VerifyingKey) { vk.BetaG1 = bls12381.G1Affine{} }},
		{"vk.beta_g2", func(vk *VerifyingKey) { vk.BetaG2 = bls12381.G2Affine{} }},
		{"vk.gamma_g2", func(vk *VerifyingKey) { vk.GammaG2 = bls12381.G2Affine{} }},
		{"vk.delta_g1", func(vk *VerifyingKey) { vk.DeltaG1 = bls12381.G1Affine{} }},
		{"vk.delta_g2", func(vk *VerifyingKey) { vk.DeltaG2 = bls12381.G2Affine{} }},
	} {
		vk := *k.vk
		f.set(&vk)
		if _, err := PrepareVerifyingKey(&vk); !errors.Is(err, errInfinity) || !strings.Contains(err.Error(), f.name) {
			t.Errorf("%s at infinity: %v", f.name, err)
		}
	}
	if _, err := PrepareVerifyingKey(k.vk); err != nil {
		t.Fatalf("valid key refused: %v", err)
	}
}

// fixedReader returns the same 16-byte block forever: every batch weight is equal.
type fixedReader [16]byte

func (f fixedReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = f[i%16]
	}
	return len(b), nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("entropy exhausted") }

func TestVerifyBatch(t *testing.T) {
	const n = 8
	k := newToyKey(90, 3)
	pvk, err := PrepareVerifyingKey(k.vk)
	if err != nil {
		t.Fatal(err)
	}
	proofs := make([]*Proof, n)
	inputs := make([][]fr.Element, n)
	for i := range proofs {
		inputs[i] = randScalars(100+uint64(i), 3)
		proofs[i] = k.prove(200+uint64(i), inputs[i])
	}
	if err := VerifyBatch(pvk, proofs, inputs); err != nil {
		t.Fatalf("valid batch: %v", err)
	}
	if err := VerifyBatch(pvk, proofs[:1], inputs[:1]); err != nil {
		t.Fatalf("batch of one: %v", err)
	}
	if err := VerifyBatch(pvk, nil, nil); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	// Deterministic weights, including an all-zero draw that must be redrawn.
	r := io.MultiReader(bytes.NewReader(make([]byte, 16)), rand.Reader)
	if err := verifyBatch(pvk, proofs, inputs, r); err != nil {
		t.Fatalf("valid batch, zero first draw: %v", err)
	}
	if err := verifyBatch(pvk, proofs, inputs, fixedReader{1, 2, 3}); err != nil {
		t.Fatalf("valid batch, fixed weights: %v", err)
	}
	if err := verifyBatch(pvk, proofs, inputs, errReader{}); err == nil || errors.Is(err, ErrInvalidProof) {
		t.Fatalf("rng failure: %v", err)
	}

	// One bad proof in the batch fails it, wherever it is.
	for _, at := range []int{0, n / 2, n - 1} {
		bad := append([]*Proof(nil), proofs...)
		p := *proofs[at]
		p.C = proofs[(at+1)%n].C
		bad[at] = &p
		if err := VerifyBatch(pvk, bad, inputs); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("bad proof at %d: %v", at, err)
		}
	}
	// One bad input vector fails it.
	badIn := append([][]fr.Element(nil), inputs...)
	badIn[3] = randScalars(999, 3)
	if err := VerifyBatch(pvk, proofs, badIn); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("bad inputs: %v", err)
	}

	// Two invalid proofs whose errors cancel: C_0 + D and C_1 − D. With equal weights the
	// check passes (which is why the weights must be random); with random weights it fails.
	d := randG1(300, 1)[0]
	p0, p1 := *proofs[0], *proofs[1]
	p0.C.Add(&p0.C, &d)
	p1.C.Sub(&p1.C, &d)
	cancel := []*Proof{&p0, &p1}
	if Verify(pvk, &p0, inputs[0]) == nil || Verify(pvk, &p1, inputs[1]) == nil {
		t.Fatal("crafted proofs verify individually")
	}
	if err := verifyBatch(pvk, cancel, inputs[:2], fixedReader{7}); err != nil {
		t.Fatalf("equal weights should be fooled by cancelling proofs (test premise): %v", err)
	}
	if err := VerifyBatch(pvk, cancel, inputs[:2]); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("random weights: cancelling proofs passed: %v", err)
	}

	// Shape errors.
	if err := VerifyBatch(pvk, proofs, inputs[:n-1]); !errors.Is(err, ErrInputCount) {
		t.Errorf("proof/input length mismatch: %v", err)
	}
	short := append([][]fr.Element(nil), inputs...)
	short[2] = short[2][:2]
	if err := VerifyBatch(pvk, proofs, short); !errors.Is(err, ErrInputCount) || errors.Is(err, ErrInvalidProof) {
		t.Errorf("short input vector: %v", err)
	}
	withNil := append([]*Proof(nil), proofs...)
	withNil[5] = nil
	if err := VerifyBatch(pvk, withNil, inputs); err == nil {
		t.Error("nil proof in batch verified")
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{1, 132} {
		k := newToyKey(400, n)
		pvk, _ := PrepareVerifyingKey(k.vk)
		inputs := randScalars(401, n)
		proof := k.prove(402, inputs)
		b.Run(fmt.Sprintf("inputs=%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkErr = Verify(pvk, proof, inputs)
			}
			if sinkErr != nil {
				b.Fatal(sinkErr)
			}
		})
	}
}

func BenchmarkPrepareVerifyingKey(b *testing.B) {
	k := newToyKey(403, 5)
	for b.Loop() {
		sinkPVK, sinkErr = PrepareVerifyingKey(k.vk)
	}
}

func BenchmarkVerifyBatch(b *testing.B) {
	k := newToyKey(410, 5)
	pvk, _ := PrepareVerifyingKey(k.vk)
	for _, n := range []int{1, 8, 64} {
		proofs := make([]*Proof, n)
		inputs := make([][]fr.Element, n)
		for i := range proofs {
			inputs[i] = randScalars(500+uint64(i), 5)
			proofs[i] = k.prove(600+uint64(i), inputs[i])
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkErr = VerifyBatch(pvk, proofs, inputs)
			}
			if sinkErr != nil {
				b.Fatal(sinkErr)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/proof")
		})
	}
}

var (
	sinkErr error
	sinkPVK *PreparedVerifyingKey
)
