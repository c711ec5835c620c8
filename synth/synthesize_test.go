package synth_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/synth"
)

// junk returns n elements that are none of an assignment's values.
func junk(n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].SetUint64(uint64(0xdead0000 + i))
	}
	return v
}

// TestSynthesizeInto: an assignment written into lent buffers, whatever they held (here junk
// longer than needed), equals Synthesize's, in the lent arrays; buffers too small are replaced.
func TestSynthesizeInto(t *testing.T) {
	ctx := context.Background()
	c := &circuits.Scalable{Constraints: 1000, Inputs: 3, Seed: 2}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	want, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)

	nw, rows := shape.NumInputs+shape.NumAux, shape.NumRows()
	buf := synth.Buffers{W: junk(nw + 5), A: junk(rows), B: junk(rows + 1), C: junk(rows)}
	got, err := synth.SynthesizeInto(ctx, shape, c, buf)
	require.NoError(t, err)
	require.Equal(t, want.W, got.W)
	require.Equal(t, want.Inputs, got.Inputs)
	require.Equal(t, want.Aux, got.Aux)
	require.Equal(t, want.A, got.A)
	require.Equal(t, want.B, got.B)
	require.Equal(t, want.C, got.C)
	require.Same(t, &buf.W[0], &got.W[0], "w written in place")
	require.Same(t, &buf.B[0], &got.B[0], "B·w written in place")

	small := synth.Buffers{W: junk(nw - 1), A: junk(rows - 1)}
	got, err = synth.SynthesizeInto(ctx, shape, c, small)
	require.NoError(t, err)
	require.Equal(t, want.W, got.W)
	require.Equal(t, want.A, got.A)
	require.NotSame(t, &small.W[0], &got.W[0])

	// Reused again, for another partition of the same shape.
	c2 := &circuits.Scalable{Constraints: 1000, Inputs: 3, Seed: 2, Partition: 1}
	want2, err := synth.Synthesize(ctx, shape, c2)
	require.NoError(t, err)
	got2, err := synth.SynthesizeInto(ctx, shape, c2, got.Buffers())
	require.NoError(t, err)
	require.Equal(t, want2.W, got2.W)
	require.Equal(t, want2.A, got2.A)
	require.Equal(t, want2.C, got2.C)
}

// TestSynthesizeIntoAllocates: with lent buffers, a synthesis allocates less than a tenth of
// its four vectors' bytes (the circuit's own values and the CS aside, nothing of their size).
func TestSynthesizeIntoAllocates(t *testing.T) {
	ctx := context.Background()
	c := &circuits.Scalable{Constraints: 1 << 15, Inputs: 2, Seed: 3}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	vectors := uint64(shape.NumInputs+shape.NumAux+3*shape.NumRows()) * fr.Bytes
	allocated := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	fresh := allocated(func() { _, err = synth.Synthesize(ctx, shape, c) })
	require.NoError(t, err)
	reused := allocated(func() { _, err = synth.SynthesizeInto(ctx, shape, c, asg.Buffers()) })
	require.NoError(t, err)
	t.Logf("vectors %d bytes; allocated %d fresh, %d into lent buffers", vectors, fresh, reused)
	require.GreaterOrEqual(t, fresh, vectors)
	require.Less(t, reused, vectors/10)
}

// TestSynthesizeWitness: a witness-only assignment has Synthesize's w, inputs and aux (also
// written into a lent junk buffer) and no evaluations; a mismatching circuit is refused.
func TestSynthesizeWitness(t *testing.T) {
	ctx := context.Background()
	for part := range 2 {
		c := &circuits.Scalable{Constraints: 1000, Inputs: 3, Seed: 2, Partition: part}
		shape, err := synth.Compile(c)
		require.NoError(t, err)
		want, err := synth.Synthesize(ctx, shape, c)
		require.NoError(t, err)
		require.True(t, want.HasEvaluations())

		buf := junk(shape.NumInputs + shape.NumAux + 3)
		for _, b := range [][]fr.Element{nil, buf} {
			got, err := synth.SynthesizeWitness(ctx, shape, c, b)
			require.NoError(t, err)
			require.Equal(t, want.W, got.W)
			require.Equal(t, want.Inputs, got.Inputs)
			require.Equal(t, want.Aux, got.Aux)
			require.Equal(t, want.PublicInputs(), got.PublicInputs())
			require.False(t, got.HasEvaluations())
			require.Nil(t, got.A)
			require.Nil(t, got.B)
			require.Nil(t, got.C)
			if b != nil {
				require.Same(t, &b[0], &got.W[0], "w written in place")
			}
			require.NoError(t, got.Evaluate(ctx))
			require.True(t, got.HasEvaluations())
			require.Equal(t, want.A, got.A)
			require.Equal(t, want.B, got.B)
			require.Equal(t, want.C, got.C)
		}
		other := &circuits.Scalable{Constraints: 999, Inputs: 3, Seed: 2}
		_, err = synth.SynthesizeWitness(ctx, shape, other, nil)
		require.ErrorIs(t, err, synth.ErrShapeMismatch)
	}
}
