package synth

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// cubic proves knowledge of x with x³ + x + 5 = out (out public).
type cubic struct {
	x      uint64
	tamper bool
}

func (c *cubic) Synthesize(cs *CS) error {
	var x fr.Element
	x.SetUint64(c.x)
	var out fr.Element
	out.Square(&x).Mul(&out, &x).Add(&out, &x).Add(&out, new(fr.Element).SetUint64(5))
	outV := cs.AllocInput(out)
	xv := cs.Alloc(x)
	var x2 fr.Element
	x2.Square(&x)
	if c.tamper {
		x2.SetUint64(7)
	}
	cs.Push("cubic")
	x2v := cs.Alloc(x2)
	cs.Enforce("x2", V(xv), V(xv), V(x2v))
	var x3 fr.Element
	x3.Mul(&x2, &x)
	x3v := cs.Alloc(x3)
	cs.PushIndex("step", 2)
	cs.Enforce("x3", V(x2v), V(xv), V(x3v))
	cs.Pop()
	five := new(fr.Element).SetUint64(5)
	cs.Enforce("out", LC{}.Add(x3v).Add(xv).AddLC(Const(*five)), V(One), V(outV))
	cs.Pop()
	return nil
}

func TestCompileSynthesizeCheck(t *testing.T) {
	shape, err := Compile(&cubic{x: 3})
	require.NoError(t, err)
	require.Equal(t, 2, shape.NumInputs)
	require.Equal(t, 3, shape.NumAux)
	require.Equal(t, 3, shape.NumConstraints)
	require.Equal(t, 5, shape.NumRows())
	require.Equal(t, 8, shape.DomainSize())
	// A uses x, x2, x3 (aux 0, 1, 2); B uses x (aux 0) and One.
	require.Equal(t, 3, shape.ADensityAux.Count())
	require.True(t, shape.BDensityAux.Has(0))
	require.False(t, shape.BDensityAux.Has(1))
	require.True(t, shape.BDensityInput.Has(0))
	require.False(t, shape.BDensityInput.Has(1))

	asg, err := Synthesize(context.Background(), shape, &cubic{x: 3})
	require.NoError(t, err)
	require.NoError(t, Check(shape, asg, &cubic{x: 3}))
	var want fr.Element
	want.SetUint64(35)
	require.True(t, asg.PublicInputs()[0].Equal(&want))
	// Input rows: a = input, b = c = 0.
	require.True(t, asg.A[3].IsOne())
	require.True(t, asg.A[4].Equal(&want))
	require.True(t, asg.B[4].IsZero())
}

func TestCheckNamesUnsatisfiedConstraint(t *testing.T) {
	shape, err := Compile(&cubic{x: 3})
	require.NoError(t, err)
	bad := &cubic{x: 3, tamper: true}
	asg, err := Synthesize(context.Background(), shape, bad)
	require.NoError(t, err)
	err = Check(shape, asg, bad)
	require.ErrorIs(t, err, ErrUnsatisfied)
	var ue *UnsatisfiedError
	require.True(t, errors.As(err, &ue))
	require.Equal(t, 0, ue.Index)
	require.Equal(t, "cubic/x2", ue.Path)
	require.Equal(t, "cubic/step[2]/x3", Locate(bad, 1))
}

type growing struct{ n int }

func (g growing) Synthesize(cs *CS) error {
	for i := 0; i < g.n; i++ {
		v := cs.Alloc(fr.One())
		cs.Enforce("one", V(v), V(One), V(One))
	}
	return nil
}

type panicking struct{}

func (panicking) Synthesize(cs *CS) error { panic("boom") }

func TestShapeMismatchAndPanic(t *testing.T) {
	shape, err := Compile(growing{n: 3})
	require.NoError(t, err)
	_, err = Synthesize(context.Background(), shape, growing{n: 4})
	require.ErrorIs(t, err, ErrShapeMismatch)
	_, err = Compile(panicking{})
	require.ErrorIs(t, err, ErrCircuitPanic)
	_, err = Synthesize(context.Background(), shape, panicking{})
	require.ErrorIs(t, err, ErrCircuitPanic)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Synthesize(ctx, shape, growing{n: 3})
	require.ErrorIs(t, err, context.Canceled)
}

func TestRepeatedVariablesMerge(t *testing.T) {
	c := circuitFunc(func(cs *CS) error {
		v := cs.Alloc(fr.One())
		// v + v − v·1 + 0·v… merges into one term of coefficient 1 in A; B holds a zero-sum term.
		cs.Enforce("m", LC{}.Add(v).Add(v).Sub(v), LC{}.Add(v).Sub(v).Add(One), V(v))
		return nil
	})
	shape, err := Compile(c)
	require.NoError(t, err)
	require.Equal(t, 1, shape.A.NumTerms())
	require.Equal(t, 2, shape.B.NumTerms())
	require.True(t, shape.BDensityAux.Has(0), "a term whose coefficients cancel still counts for density")
	asg, err := Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, Check(shape, asg, c))
}

type circuitFunc func(cs *CS) error

func (f circuitFunc) Synthesize(cs *CS) error { return f(cs) }
