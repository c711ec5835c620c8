package prover_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// pairingHolds checks e(A,B) = e(α,β)·e(Σx_i·IC_i, γ)·e(C, δ) directly, independent of Verify.
func pairingHolds(t *testing.T, vk *prover.VerifyingKey, p *prover.Proof, inputs []fr.Element) bool {
	t.Helper()
	var acc bls12381.G1Jac
	acc.FromAffine(&vk.IC[0])
	for i, x := range inputs {
		var tp bls12381.G1Jac
		tp.FromAffine(&vk.IC[i+1])
		tp.ScalarMultiplication(&tp, bigOf(&x))
		acc.AddAssign(&tp)
	}
	var accA, negA bls12381.G1Affine
	accA.FromJacobian(&acc)
	negA.Neg(&p.A)
	ok, err := bls12381.PairingCheck(
		[]bls12381.G1Affine{negA, vk.AlphaG1, accA, p.C},
		[]bls12381.G2Affine{p.B, vk.BetaG2, vk.GammaG2, vk.DeltaG2})
	require.NoError(t, err)
	return ok
}

func setupFor(t testing.TB, c synth.Circuit) (*synth.Shape, *prover.Parameters) {
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	params, err := devsetup.InsecureSetup(shape, tw)
	require.NoError(t, err)
	return shape, params
}

func proveAndCheck(t *testing.T, c synth.Circuit, inputs []fr.Element) {
	t.Helper()
	shape, params := setupFor(t, c)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	proof, err := prover.ProvePartition(context.Background(), params, asg)
	require.NoError(t, err)
	require.True(t, pairingHolds(t, &params.VK, proof, inputs), "proof must verify")
	bad := append([]fr.Element(nil), inputs...)
	if len(bad) > 0 {
		bad[0].Add(&bad[0], new(fr.Element).SetOne())
		require.False(t, pairingHolds(t, &params.VK, proof, bad), "changed input must fail")
	}
}

func TestProveScalable(t *testing.T) {
	for _, sz := range []struct{ n, k int }{{1, 0}, {2, 1}, {100, 3}, {1000, 40}} {
		c := &circuits.Scalable{Constraints: sz.n, Inputs: sz.k, Seed: mrand.Uint64()}
		proveAndCheck(t, c, c.PublicInputs())
	}
}

type funcCircuit func(cs *synth.CS) error

func (f funcCircuit) Synthesize(cs *synth.CS) error { return f(cs) }

func TestProveShapes(t *testing.T) {
	x := fr.NewElement(7)
	y := fr.NewElement(11)
	var xy fr.Element
	xy.Mul(&x, &y)
	cases := map[string]struct {
		c      funcCircuit
		inputs []fr.Element
	}{
		"no aux": {func(cs *synth.CS) error {
			a := cs.AllocInput(x)
			b := cs.AllocInput(y)
			c := cs.AllocInput(xy)
			cs.Enforce("mul", synth.V(a), synth.V(b), synth.V(c))
			return nil
		}, []fr.Element{x, y, xy}},
		"variables only in C": {func(cs *synth.CS) error {
			v := cs.Alloc(xy)
			k := cs.AllocInput(xy)
			cs.Enforce("c-only", synth.Const(x), synth.Const(y), synth.V(v))
			cs.Enforce("eq", synth.V(k), synth.V(synth.One), synth.V(v))
			return nil
		}, []fr.Element{xy}},
		"inputs in B": {func(cs *synth.CS) error {
			in := cs.AllocInput(y)
			a := cs.Alloc(x)
			p := cs.Alloc(xy)
			cs.Enforce("mul", synth.V(a), synth.V(in), synth.V(p))
			return nil
		}, []fr.Element{y}},
		"many inputs": {func(cs *synth.CS) error {
			acc := synth.LC{}
			var sum fr.Element
			for i := 0; i < 50; i++ {
				v := fr.NewElement(uint64(i * i))
				sum.Add(&sum, &v)
				acc = acc.Add(cs.AllocInput(v))
			}
			s := cs.Alloc(sum)
			cs.Enforce("sum", acc, synth.V(synth.One), synth.V(s))
			return nil
		}, func() []fr.Element {
			var in []fr.Element
			for i := 0; i < 50; i++ {
				in = append(in, fr.NewElement(uint64(i*i)))
			}
			return in
		}()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { proveAndCheck(t, tc.c, tc.inputs) })
	}
}

func TestProveRejectsMismatchedParameters(t *testing.T) {
	_, params := setupFor(t, &circuits.Scalable{Constraints: 10, Inputs: 2})
	c := &circuits.Scalable{Constraints: 12, Inputs: 2}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	_, err = prover.ProvePartition(context.Background(), params, asg)
	require.ErrorIs(t, err, prover.ErrParamsMismatch)
	require.Contains(t, err.Error(), "section l")
}

func TestProveDeterministicWithRandomness(t *testing.T) {
	c := &circuits.Scalable{Constraints: 64, Inputs: 2, Seed: 5}
	shape, params := setupFor(t, c)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	rs, err := prover.NewRandomness()
	require.NoError(t, err)
	p1, err := prover.ProvePartition(context.Background(), params, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	p2, err := prover.ProvePartition(context.Background(), params, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	require.Equal(t, *p1, *p2)
	p3, err := prover.ProvePartition(context.Background(), params, asg)
	require.NoError(t, err)
	require.NotEqual(t, *p1, *p3, "fresh randomness must change the proof")
	require.True(t, pairingHolds(t, &params.VK, p3, c.PublicInputs()))
}

// TestSetupProveVerifyAtScale runs InsecureSetup, ProvePartition and Verify at 2^12 to 2^14
// rows, through a params file round trip, and checks a batch of the partitions' proofs.
// Under -short only 2^12 runs; the larger sizes take several seconds each on 2 cores.
func TestSetupProveVerifyAtScale(t *testing.T) {
	for _, logN := range []int{12, 13, 14} {
		t.Run(fmt.Sprintf("2^%d", logN), func(t *testing.T) {
			if testing.Short() && logN > 12 {
				t.Skip("2^13 and 2^14 rows take several seconds each; run without -short")
			}
			c := &circuits.Scalable{Constraints: 1<<logN - 9, Inputs: 8, Seed: mrand.Uint64()}
			shape, params := setupFor(t, c)
			require.Equal(t, 1<<logN, shape.DomainSize())
			var buf bytes.Buffer
			_, err := params.WriteTo(&buf)
			require.NoError(t, err)
			read, err := prover.DecodeParameters(buf.Bytes(), prover.Unchecked)
			require.NoError(t, err)
			pvk, err := prover.PrepareVerifyingKey(&read.VK)
			require.NoError(t, err)
			var proofs []*prover.Proof
			var inputs [][]fr.Element
			for part := 0; part < 3; part++ {
				c.Partition = part
				asg, err := synth.Synthesize(context.Background(), shape, c)
				require.NoError(t, err)
				proof, err := prover.ProvePartition(context.Background(), read, asg)
				require.NoError(t, err)
				require.NoError(t, prover.Verify(pvk, proof, c.PublicInputs()))
				proofs = append(proofs, proof)
				inputs = append(inputs, c.PublicInputs())
			}
			require.NoError(t, prover.VerifyBatch(pvk, proofs, inputs))
			inputs[1], inputs[2] = inputs[2], inputs[1]
			require.ErrorIs(t, prover.VerifyBatch(pvk, proofs, inputs), prover.ErrInvalidProof)
		})
	}
}

func bigOf(e *fr.Element) *big.Int { return e.BigInt(new(big.Int)) }

// TestProveSelfCheck: a witness that does not satisfy the circuit gives an error wrapping
// ErrSelfCheck, not a proof; WithoutSelfCheck returns the (invalid) proof unchecked.
func TestProveSelfCheck(t *testing.T) {
	c := &circuits.Scalable{Constraints: 64, Inputs: 2, Seed: 7}
	shape, params := setupFor(t, c)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	last := &asg.W[len(asg.W)-1]
	last.Add(last, new(fr.Element).SetOne()) // the last aux value no longer satisfies its row
	_, err = prover.ProvePartition(context.Background(), params, asg)
	require.ErrorIs(t, err, prover.ErrSelfCheck)
	proof, err := prover.ProvePartition(context.Background(), params, asg, prover.WithoutSelfCheck())
	require.NoError(t, err)
	require.False(t, pairingHolds(t, &params.VK, proof, c.PublicInputs()))
}
