package poseidon

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// fromU64s is neptune's scalar_from_u64s: canonical little-endian 64-bit limbs.
func fromU64s(t *testing.T, l [4]uint64) fr.Element {
	var b [32]byte
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			b[8*i+j] = byte(l[i] >> (8 * j))
		}
	}
	e, err := fr.LittleEndian.Element(&b)
	require.NoError(t, err)
	return e
}

func fromHex(t *testing.T, s string) fr.Element {
	var e fr.Element
	_, err := e.SetString(s)
	require.NoError(t, err)
	return e
}

// TestRoundNumbers checks R_F = 8 and R_P against neptune's table
// (argumentcomputer/neptune src/round_numbers.rs test_round_numbers_against_known_values,
// which matches parameters/round_numbers.txt from hadeshash's calc_round_numbers.py).
func TestRoundNumbers(t *testing.T) {
	cases := [][2]int{{2, 55}, {3, 55}, {4, 56}, {5, 56}, {6, 56}, {7, 56}, {8, 57}, {9, 57}, {10, 57},
		{11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57}, {16, 59}, {17, 59}, {25, 59}, {37, 60}}
	for _, c := range cases {
		rf, rp := RoundNumbers(c[0] - 1)
		require.Equal(t, 8, rf, "t=%d", c[0])
		require.Equal(t, c[1], rp, "t=%d", c[0])
	}
}

// TestRoundConstantsGrain checks the Grain LFSR output for t = 9 (arity 8), R_F = 8, R_P = 57
// against neptune's parameters/round_constants-1-1-255-9-8-57-73EDA7…00000001.txt, the output of
// hadeshash's create_rcs_grain.sage: 585 constants, first two and last two shown here.
func TestRoundConstantsGrain(t *testing.T) {
	p := Must(8)
	require.Len(t, p.RoundConstants, 585)
	want := map[int]string{
		0:   "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9",
		1:   "0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39",
		583: "0x5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60",
		584: "0x3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c",
	}
	for i, h := range want {
		w := fromHex(t, h)
		require.True(t, w.Equal(&p.RoundConstants[i]), "constant %d", i)
	}
}

// neptuneVectors are Poseidon (Strength::Standard, HashType::MerkleTree) of the inputs
// 0, 1, …, arity−1, from neptune's src/poseidon.rs test hash_values_aux.
var neptuneVectors = map[int][4]uint64{
	2:  {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
	4:  {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
	8:  {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
	11: {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
}

func TestHashNeptuneVectors(t *testing.T) {
	for arity, limbs := range neptuneVectors {
		p := Must(arity)
		in := make([]fr.Element, arity)
		for i := range in {
			in[i].SetUint64(uint64(i))
		}
		got, err := p.Hash(in)
		require.NoError(t, err)
		want := fromU64s(t, limbs)
		require.True(t, want.Equal(&got), "arity %d: got %s", arity, got.String())
	}
}

// TestCircuitAgreesWithNative hashes random inputs in a circuit for arities 2, 4, 8 and 11, checks
// satisfaction, the value against Hash, neptune's constraint count (src/circuit.rs
// test_poseidon_hash: 311, 377, 505 for arities 2, 4, 8; 598 for arity 11 from storage-proofs-porep
// stacked/circuit/hash.rs) and that a tampered S-box value is
// rejected by a named constraint.
func TestCircuitAgreesWithNative(t *testing.T) {
	wantConstraints := map[int]int{2: 311, 4: 377, 8: 505, 11: 598}
	for _, arity := range []int{2, 4, 8, 11} {
		p := Must(arity)
		in := make([]fr.Element, arity)
		for i := range in {
			_, _ = in[i].SetRandom()
		}
		if arity == 8 {
			for i := range in {
				in[i].SetUint64(uint64(i))
			}
		}
		var out num.Num
		var n int
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			xs := make([]num.Num, arity)
			for i := range xs {
				xs[i] = num.Alloc(cs, in[i])
			}
			before := cs.NumConstraints()
			cs.Push("poseidon")
			var err error
			out, err = p.HashCircuit(cs, xs)
			cs.Pop()
			n = cs.NumConstraints() - before
			return err
		})
		shape, _ := gadgettest.Run(t, circuit)
		want, err := p.Hash(in)
		require.NoError(t, err)
		require.True(t, want.Equal(&out.Value), "arity %d", arity)
		require.Equal(t, wantConstraints[arity], n, "arity %d", arity)
		require.Equal(t, wantConstraints[arity], shape.NumConstraints)
		if arity == 8 {
			w := fromU64s(t, neptuneVectors[8])
			require.True(t, w.Equal(&out.Value))
		}
		// Tamper with the first aux allocated by the hash ((x_1 + rk)² in the first round).
		var bad fr.Element
		bad.SetUint64(99)
		path := gadgettest.TamperAux(t, circuit, synth.AuxVariable(arity), bad)
		require.Equal(t, "poseidon/first round/quintic s-box[1]/squared sum constraint", path)
		path = gadgettest.TamperAux(t, circuit, out.Var, bad)
		require.Equal(t, "poseidon/hash result/enforce num allocation preserves lc", path)
	}
}

// TestHashOptimized compares Hash, the circuit's way of computing a hash (compressed constants,
// sparse layers), with the round-by-round reference permutation on random inputs, for arities from 1 to 36.
func TestHashOptimized(t *testing.T) {
	for _, arity := range []int{1, 2, 3, 4, 5, 8, 11, 16, 24, 36} {
		p := Must(arity)
		in := make([]fr.Element, arity)
		for i := range in {
			_, _ = in[i].SetRandom()
		}
		want := p.hashReference(in)
		got, err := p.Hash(in)
		require.NoError(t, err)
		require.True(t, got.Equal(&want), "arity %d", arity)
	}
}
