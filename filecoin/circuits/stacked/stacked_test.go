package stacked

import (
	"crypto/rand"
	"encoding/binary"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
	"github.com/cuzk-go/cuzk/synth/gadgets/sha256"
	"github.com/cuzk-go/cuzk/synth/gadgets/u32"
	"github.com/cuzk-go/cuzk/synth/gadgets/u64"
)

type circuitFunc func(cs *synth.CS) error

func (f circuitFunc) Synthesize(cs *synth.CS) error { return f(cs) }

// TestCreateLabelRustTest mirrors create_label.rs test_create_label: 37 parents of 32 bytes and
// a 32-byte replica id allocated as big-endian bits (bytes_into_boolean_vec_be, one constraint a
// bit), layer 3 and node 22 as constants: 532,025 constraints in all. The label equals the
// native SHA-256 of the preimage read little-endian with the top two bits cleared.
func TestCreateLabelRustTest(t *testing.T) {
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	id[31] &= 0x3f
	parents := make([][]byte, TotalParents)
	for i := range parents {
		parents[i] = make([]byte, 32)
		_, _ = rand.Read(parents[i])
	}
	var label num.Num
	c := circuitFunc(func(cs *synth.CS) error {
		pbits := make([][]boolean.Bit, TotalParents)
		for i, p := range parents {
			pbits[i] = sha256.BytesToBits(cs, nil, p, true)
		}
		idBits := sha256.BytesToBits(cs, nil, id, true)
		var err error
		label, err = CreateLabel(cs, idBits, pbits, u32.Constant(3), u64.Constant(22))
		return err
	})
	n, _, _, err := synth.Count(c)
	require.NoError(t, err)
	require.Equal(t, 532_025, n)
	if !testing.Short() { // compiling and checking 532,025 constraints takes seconds
		shape, err := synth.Compile(c)
		require.NoError(t, err)
		asg, err := synth.Synthesize(t.Context(), shape, c)
		require.NoError(t, err)
		require.NoError(t, synth.Check(shape, asg, c))
	}

	pre := append([]byte(nil), id...)
	pre = binary.BigEndian.AppendUint32(pre, 3)
	pre = binary.BigEndian.AppendUint64(pre, 22)
	pre = append(pre, make([]byte, 64-len(pre))...)
	for _, p := range parents {
		pre = append(pre, p...)
	}
	want := merkle.TrimmedSha256(pre)
	require.True(t, want.Equal(&label.Value))
}

// TestHashColumn: columns of 2 and 11 rows hash with Poseidon at 311 and 598 constraints
// (hash.rs tests) to the native value; other sizes are refused.
func TestHashColumn(t *testing.T) {
	for _, n := range []int{2, 11} {
		rows := make([]fr.Element, n)
		for i := range rows {
			_, _ = rows[i].SetRandom()
		}
		var out num.Num
		c := circuitFunc(func(cs *synth.CS) error {
			var err error
			out, err = HashColumn(cs, AllocColumn(cs, rows))
			return err
		})
		cns, _, aux, err := synth.Count(c)
		require.NoError(t, err)
		require.Equal(t, map[int]int{2: 311, 11: 598}[n], cns)
		require.Greater(t, aux, n)
		want, err := poseidon.Must(n).Hash(rows)
		require.NoError(t, err)
		require.True(t, want.Equal(&out.Value))
	}
	_, _, _, err := synth.Count(circuitFunc(func(cs *synth.CS) error {
		_, err := HashColumn(cs, AllocColumn(cs, make([]fr.Element, 3)))
		return err
	}))
	require.ErrorContains(t, err, "unsupported column size 3")
}
