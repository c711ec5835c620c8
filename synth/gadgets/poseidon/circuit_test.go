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

// TestTemplateMatchesTermByTerm compiles hashes through the template (HashCircuit in Compile)
// and through the term-by-term construction, and requires the same shape, row for row and term
// for term (synth.HashShape), and the same result value: for every arity the filecoin circuits
// use, on inputs allocated out of order, with a repeated variable and One among them, after
// other variables so that the hash's aux variables do not start at 0.
func TestTemplateMatchesTermByTerm(t *testing.T) {
	for _, arity := range []int{1, 2, 4, 8, 11, 16} {
		p := Must(arity)
		build := func(hash func(*synth.CS, []num.Num) (num.Num, error), out *fr.Element) synth.Circuit {
			return gadgettest.Func(func(cs *synth.CS) error {
				vars := make([]num.Num, arity+2)
				for i := range vars {
					var x fr.Element
					x.SetUint64(uint64(3*i + 1))
					if i%3 == 0 {
						x.SetUint64(uint64(i))
						vars[i] = num.Num{Var: cs.AllocInput(x), Value: x}
					} else {
						vars[i] = num.Alloc(cs, x)
					}
				}
				inputs := make([]num.Num, arity)
				for i := range inputs {
					inputs[i] = vars[len(vars)-1-i] // newest first
				}
				if arity >= 2 {
					inputs[1] = inputs[0] // a repeated variable
				}
				if arity >= 3 {
					inputs[2] = num.Num{Var: synth.One, Value: fr.One()}
				}
				for round := 0; round < 2; round++ { // the second hash starts past the first's aux
					r, err := hash(cs, inputs)
					if err != nil {
						return err
					}
					inputs[0] = r
					*out = r.Value
				}
				return nil
			})
		}
		var viaTemplate, termByTerm fr.Element
		a, err := synth.Compile(build(p.HashCircuit, &viaTemplate))
		require.NoError(t, err)
		termByTermHash := func(cs *synth.CS, in []num.Num) (num.Num, error) { return p.hashTermByTerm(cs, in), nil }
		b, err := synth.Compile(build(termByTermHash, &termByTerm))
		require.NoError(t, err)
		require.Equal(t, b.NumConstraints, a.NumConstraints, "arity %d", arity)
		require.Equal(t, synth.HashShape(b), synth.HashShape(a), "arity %d", arity)
		require.True(t, viaTemplate.Equal(&termByTerm), "arity %d: result value", arity)
		// The template's shape is also satisfied by the witness.
		gadgettest.Run(t, build(p.HashCircuit, &viaTemplate))
	}
}
