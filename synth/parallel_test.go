package synth

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// chains has a shared prefix, then `branches` independent chains that each read the prefix,
// allocate an input and aux variables, and enforce constraints; parallel selects CS.Parallel.
type chains struct {
	branches, length int
	parallel         bool
	extra            int // branch 1 allocates this many more variables (a shape mismatch)
	panicIn          int // branch that panics, −1 for none
	tamper           bool
}

func (c *chains) branch(cs *CS, seed Variable, i int) error {
	if i == c.panicIn {
		panic("branch exploded")
	}
	cs.PushIndex("branch", i)
	defer cs.Pop()
	x := cs.Value(seed)
	x.Add(&x, new(fr.Element).SetUint64(uint64(i)))
	in := cs.AllocInput(x)
	prev := in
	n := c.length
	if i == 1 {
		n += c.extra
	}
	for k := 0; k < n; k++ {
		v := cs.Value(prev)
		var sq fr.Element
		sq.Square(&v)
		if c.tamper && i == 2 && k == 3 {
			sq.SetUint64(1)
		}
		next := cs.Alloc(sq)
		cs.Enforce("square", V(prev), V(prev), V(next))
		prev = next
	}
	return nil
}

func (c *chains) Synthesize(cs *CS) error {
	seed := cs.Alloc(fr.NewElement(3))
	cs.Enforce("seed", V(seed), V(One), Const(fr.NewElement(3)))
	if c.parallel {
		if err := cs.Parallel(c.branches, func(i int, sub *CS) error { return c.branch(sub, seed, i) }); err != nil {
			return err
		}
	} else {
		for i := 0; i < c.branches; i++ {
			if err := c.branch(cs, seed, i); err != nil {
				return err
			}
		}
	}
	tail := cs.Alloc(fr.One())
	cs.Enforce("tail", V(tail), V(One), V(One))
	return nil
}

func TestParallelMatchesSequential(t *testing.T) {
	ctx := context.Background()
	seq := &chains{branches: 5, length: 40, panicIn: -1}
	par := &chains{branches: 5, length: 40, parallel: true, panicIn: -1}
	s1, err := Compile(seq)
	require.NoError(t, err)
	s2, err := Compile(par)
	require.NoError(t, err)
	require.Equal(t, s1.A, s2.A)
	require.Equal(t, s1.NumInputs, s2.NumInputs)
	a1, err := Synthesize(ctx, s1, seq)
	require.NoError(t, err)
	for run := 0; run < 5; run++ {
		a2, err := Synthesize(ctx, s2, par)
		require.NoError(t, err)
		require.Equal(t, a1.W, a2.W)
		require.Equal(t, a1.A, a2.A)
		require.Equal(t, a1.C, a2.C)
		require.NoError(t, Check(s2, a2, par))
	}
}

func TestParallelErrors(t *testing.T) {
	ctx := context.Background()
	par := &chains{branches: 4, length: 10, parallel: true, panicIn: -1}
	shape, err := Compile(par)
	require.NoError(t, err)

	_, err = Synthesize(ctx, shape, &chains{branches: 4, length: 10, parallel: true, panicIn: -1, extra: 2})
	require.ErrorIs(t, err, ErrShapeMismatch)
	_, err = Synthesize(ctx, shape, &chains{branches: 3, length: 10, parallel: true, panicIn: -1})
	require.ErrorIs(t, err, ErrShapeMismatch)
	_, err = Synthesize(ctx, shape, &chains{branches: 4, length: 10, parallel: true, panicIn: 2})
	require.ErrorIs(t, err, ErrCircuitPanic)

	bad := &chains{branches: 4, length: 10, parallel: true, panicIn: -1, tamper: true}
	asg, err := Synthesize(ctx, shape, bad)
	require.NoError(t, err)
	err = Check(shape, asg, bad)
	var ue *UnsatisfiedError
	require.True(t, errors.As(err, &ue))
	require.Equal(t, "branch[2]/square", ue.Path)

	nested := circuitFunc(func(cs *CS) error {
		return cs.Parallel(2, func(i int, sub *CS) error {
			return sub.Parallel(2, func(int, *CS) error { return nil })
		})
	})
	_, err = Compile(nested)
	require.ErrorIs(t, err, ErrParallel)
}

// TestParallelCompileErrors checks Compile's concurrent branches: a panic, an error, and a
// branch that allocates differently in its counting and recording runs are reported.
func TestParallelCompileErrors(t *testing.T) {
	_, err := Compile(&chains{branches: 4, length: 10, parallel: true, panicIn: 1})
	require.ErrorIs(t, err, ErrCircuitPanic)

	failing := errors.New("branch failed")
	_, err = Compile(circuitFunc(func(cs *CS) error {
		return cs.Parallel(3, func(i int, sub *CS) error {
			if i == 2 {
				return failing
			}
			return nil
		})
	}))
	require.ErrorIs(t, err, failing)

	var runs atomic.Int32
	_, err = Compile(circuitFunc(func(cs *CS) error {
		return cs.Parallel(2, func(i int, sub *CS) error {
			n := 2
			if i == 1 && runs.Add(1) > 1 { // the recording run allocates one more
				n = 3
			}
			for range n {
				v := sub.Alloc(fr.One())
				sub.Enforce("one", V(v), V(One), V(One))
			}
			return nil
		})
	}))
	require.ErrorIs(t, err, ErrShapeMismatch)
}
