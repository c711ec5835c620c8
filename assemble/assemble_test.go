package assemble

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func proofOf(i int) []byte { return bytes.Repeat([]byte{byte(i + 1)}, ProofSize) }

func TestAssembleAnyOrderAndSplit(t *testing.T) {
	parts := []Part{{3, proofOf(3)}, {0, proofOf(0)}, {2, proofOf(2)}, {1, proofOf(1)}}
	all, err := Assemble(4, parts)
	require.NoError(t, err)
	require.Len(t, all, 4*ProofSize)
	split, err := Split(all)
	require.NoError(t, err)
	require.Len(t, split, 4)
	for i, p := range split {
		require.Equal(t, proofOf(i), p)
	}
	ten := make([]Part, 10)
	for i := range ten {
		ten[9-i] = Part{i, proofOf(i)}
	}
	all, err = Assemble(10, ten)
	require.NoError(t, err)
	require.Len(t, all, 1920)
}

func TestAssembleErrors(t *testing.T) {
	cases := map[string]struct {
		n     int
		parts []Part
		msg   string
	}{
		"missing":      {3, []Part{{0, proofOf(0)}, {2, proofOf(2)}}, "partition 1 missing"},
		"duplicate":    {2, []Part{{0, proofOf(0)}, {0, proofOf(0)}}, "partition 0 given twice"},
		"out of range": {2, []Part{{0, proofOf(0)}, {2, proofOf(2)}}, "partition 2 out of range"},
		"negative":     {2, []Part{{-1, proofOf(0)}}, "partition -1 out of range"},
		"short proof":  {1, []Part{{0, make([]byte, 191)}}, "partition 0 proof is 191 bytes"},
		"zero count":   {0, nil, "partition count 0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Assemble(tc.n, tc.parts)
			require.ErrorIs(t, err, ErrAssemble)
			require.ErrorContains(t, err, tc.msg)
		})
	}
	for _, n := range []int{0, 1, 191, 193, 385} {
		_, err := Split(make([]byte, n))
		require.ErrorIs(t, err, ErrAssemble, "length %d", n)
	}
}
