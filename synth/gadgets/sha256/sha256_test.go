package sha256

import (
	stdsha "crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
	"github.com/cuzk-go/cuzk/synth/gadgets/u32"
)

// TestCompressNativeMatchesStdlib checks the native twin on a one-block message against
// crypto/sha256.
func TestCompressNativeMatchesStdlib(t *testing.T) {
	msg := []byte("abc")
	var block [64]byte
	copy(block[:], msg)
	block[len(msg)] = 0x80
	binary.BigEndian.PutUint64(block[56:], uint64(len(msg))*8)
	st := CompressNative(InitialState(), &block)
	var got [32]byte
	for i, w := range st {
		binary.BigEndian.PutUint32(got[4*i:], w)
	}
	require.Equal(t, stdsha.Sum256(msg), got)
}

// TestHashMatchesStdlib hashes random messages of many lengths in a circuit and compares with
// crypto/sha256 (bellman's test_against_vectors does the same against the sha2 crate).
func TestHashMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lengths := []int{0, 1, 31, 32, 55, 56, 63, 64, 65, 119, 128}
	if testing.Short() {
		lengths = []int{0, 3, 55, 56, 64}
	}
	for _, n := range lengths {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var out []boolean.Bit
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			in := BytesToBits(cs, nil, data, true)
			out = Hash(cs, in)
			return nil
		})
		gadgettest.Run(t, circuit)
		want := stdsha.Sum256(data)
		require.Equal(t, want[:], BitsToBytes(out), "length %d", n)
	}
}

// TestConstraintCounts pins the counts to bellman's (src/gadgets/sha256.rs tests test_full_block
// and test_full_hash: 25,840 and 44,874 beyond the 512 input bits).
func TestConstraintCounts(t *testing.T) {
	count := func(f func(cs *synth.CS)) int {
		var n int
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			f(cs)
			n = cs.NumConstraints()
			return nil
		})
		_, err := synth.Compile(circuit)
		require.NoError(t, err)
		return n
	}
	data := make([]byte, 64)
	for i := range data {
		data[i] = byte(i * 7)
	}
	full := count(func(cs *synth.CS) {
		in := BytesToBits(cs, nil, data, true)
		iv := IV()
		Compress(cs, in, &iv)
	})
	require.Equal(t, 512+25840, full)
	hash := count(func(cs *synth.CS) {
		Hash(cs, BytesToBits(cs, nil, data, true))
	})
	require.Equal(t, 512+44874, hash)
	varState := count(func(cs *synth.CS) {
		in := BytesToBits(cs, nil, data, true)
		var st [8]u32.UInt32
		for i := range st {
			st[i] = u32.Alloc(cs, uint32(i)*0x01020304)
		}
		Compress(cs, in, &st)
	})
	require.Equal(t, 512+256+26192, varState)
	blank := count(func(cs *synth.CS) {
		in := make([]boolean.Bit, 512)
		in[0] = boolean.Constant(true)
		iv := IV()
		Compress(cs, in, &iv)
	})
	require.Equal(t, 0, blank, "a constant block costs nothing")
}

// TestCompressVariableState runs Compress on allocated state words and a random block and
// compares with CompressNative.
func TestCompressVariableState(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var block [64]byte
	var st [8]uint32
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	for i := range st {
		st[i] = rng.Uint32()
	}
	var out [8]u32.UInt32
	circuit := gadgettest.Func(func(cs *synth.CS) error {
		in := BytesToBits(cs, nil, block[:], true)
		var s [8]u32.UInt32
		for i := range s {
			s[i] = u32.Alloc(cs, st[i])
		}
		out = Compress(cs, in, &s)
		return nil
	})
	gadgettest.Run(t, circuit)
	want := CompressNative(st, &block)
	for i := range want {
		require.Equal(t, want[i], out[i].Value)
		var v uint32
		for j := 31; j >= 0; j-- {
			v <<= 1
			if out[i].Bits[j].Value() {
				v |= 1
			}
		}
		require.Equal(t, want[i], v)
	}
	// Flipping an output bit breaks its booleanity-checked addition: the packed sum names it.
	v, _, ok := out[3].Bits[5].Variable()
	require.True(t, ok)
	path := gadgettest.FlipAux(t, circuit, v)
	require.True(t, strings.Contains(path, "multieq"), path)
}
