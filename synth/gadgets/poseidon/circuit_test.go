package poseidon

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// TestCircuitStructureArity2 compares the first constraints and the last one of the arity-2
// circuit term by term with what neptune's src/circuit.rs builds, read from the source:
//
//   - first round, s-box i ∈ {1,2} of the allocated input x_i, with pre key c_i and post key
//     c_{3+i} (compressed constants): square_sum (x_i + c_i)·(x_i + c_i) = s, square s·s = q,
//     mul_sum (x_i + c_i)·q = r − c_{3+i};
//   - the tag's s-box is a constant: τ = (tag + c_0)⁵ + c_3;
//   - initial full round 1, s-box 0: its input, Σ_i el_i·M[i][0] with el = (τ·1, r_1, r_2), is
//     allocated by (τ·M00·1 + M10·r_1 + M20·r_2)·1 = v;
//   - the result: element 1 after the last linear layer, allocated by lc·1 = out.
func TestCircuitStructureArity2(t *testing.T) {
	p := Must(2)
	var x [2]fr.Element
	x[0].SetUint64(5)
	x[1].SetUint64(7)
	var out num.Num
	circuit := gadgettest.Func(func(cs *synth.CS) error {
		a, b := num.Alloc(cs, x[0]), num.Alloc(cs, x[1])
		var err error
		out, err = p.HashCircuit(cs, []num.Num{a, b})
		return err
	})
	shape, asg := gadgettest.Run(t, circuit)
	c := p.opt.Compressed
	one := synth.V(synth.One)
	aux := synth.AuxVariable
	var neg fr.Element
	for i := 0; i < 2; i++ {
		xi := aux(i)
		s, q, r := aux(2+3*i), aux(3+3*i), aux(4+3*i)
		xpc := synth.V(xi).AddTerm(c[1+i], synth.One)
		gadgettest.RequireRow(t, shape, 3*i, xpc, xpc, synth.V(s))
		gadgettest.RequireRow(t, shape, 3*i+1, synth.V(s), synth.V(s), synth.V(q))
		neg.Neg(&c[4+i])
		gadgettest.RequireRow(t, shape, 3*i+2, xpc, synth.V(q), synth.V(r).AddTerm(neg, synth.One))
	}
	tau := p.DomainTag
	tau.Add(&tau, &c[0])
	sbox(&tau)
	tau.Add(&tau, &c[3])
	var k fr.Element
	k.Mul(&tau, &p.MDS[0][0])
	in0 := synth.NewLC().AddTerm(k, synth.One).AddTerm(p.MDS[1][0], aux(4)).AddTerm(p.MDS[2][0], aux(7))
	gadgettest.RequireRow(t, shape, 6, in0, one, synth.V(aux(8)))

	// The last constraint allocates the result; check its combination evaluates to it and has
	// One and the three last s-box outputs of the terminal round as its only terms.
	last := shape.NumConstraints - 1
	require.Equal(t, 311, shape.NumConstraints)
	require.Equal(t, shape.NumInputs+out.Var.Index(), gadgettest.Row(shape, &shape.C, last)[0].Col)
	a := gadgettest.Row(shape, &shape.A, last)
	require.Len(t, a, 3) // Σ_i r_i·M[i][1] over the terminal s-box outputs: all three allocated
	var sum, tm fr.Element
	for _, term := range a {
		tm.Mul(&term.Coeff, &asg.W[term.Col])
		sum.Add(&sum, &tm)
	}
	require.True(t, sum.Equal(&out.Value))
	gadgettest.RequireRow(t, shape, last, synth.LC{
		{Coeff: p.MDS[0][1], Var: aux(out.Var.Index() - 9)},
		{Coeff: p.MDS[1][1], Var: aux(out.Var.Index() - 5)},
		{Coeff: p.MDS[2][1], Var: aux(out.Var.Index() - 1)},
	}, one, synth.V(out.Var))
}

// TestOptimizedConstants checks the preprocessing against its definition: the sparse
// factorisation reproduces M (M = M'·M” at the last step) and the counts of neptune's
// assertion full_rounds·width + partial_rounds = len(compressed).
func TestOptimizedConstants(t *testing.T) {
	for _, arity := range []int{2, 4, 8, 11} {
		p := Must(arity)
		require.Len(t, p.opt.Compressed, p.FullRounds*p.Width+p.Partial)
		require.Len(t, p.opt.Sparse, p.Partial)
		prime, sparse, err := factor(p.MDS)
		require.NoError(t, err)
		dense := newMatrix(p.Width)
		for i := range dense {
			dense[i][0] = sparse.WHat[i]
			if i > 0 {
				dense[i][i].SetOne()
				dense[0][i] = sparse.VRest[i-1]
			}
		}
		got := matMul(prime, dense)
		for i := range got {
			for j := range got[i] {
				require.True(t, got[i][j].Equal(&p.MDS[i][j]), "arity %d M[%d][%d]", arity, i, j)
			}
		}
	}
}
