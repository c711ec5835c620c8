package synth

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCountMatchesCompileAndRecordsLC(t *testing.T) {
	var modes []bool
	c := circuitFunc(func(cs *CS) error {
		modes = append(modes, cs.RecordsLC())
		return (&cubic{x: 3}).Synthesize(cs)
	})
	shape, err := Compile(c)
	require.NoError(t, err)
	n, in, aux, err := Count(c)
	require.NoError(t, err)
	require.Equal(t, shape.NumConstraints, n)
	require.Equal(t, shape.NumInputs, in)
	require.Equal(t, shape.NumAux, aux)
	require.Equal(t, []bool{true, false}, modes, "only Compile records combinations")
	_, _, _, err = Count(panicking{})
	require.ErrorIs(t, err, ErrCircuitPanic)
}
