package synth

import (
	"encoding/hex"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/blake2s"
)

// hashCase has one input and two aux variables; its combinations repeat a variable, cancel one
// to zero and list aux before inputs, which the hash must normalize.
type hashCase struct{}

func (hashCase) Synthesize(cs *CS) error {
	x := cs.AllocInput(fr.NewElement(3))
	a := cs.Alloc(fr.NewElement(1))
	b := cs.Alloc(fr.NewElement(10))
	// (a + 2x + 3a + b − b)·1 = b
	cs.Enforce("c0", V(a).AddTerm(fr.NewElement(2), x).AddTerm(fr.NewElement(3), a).Add(b).Sub(b), V(One), V(b))
	// 0·0 = 5 − b
	cs.Enforce("c1", nil, nil, Const(fr.NewElement(5)).Sub(b))
	return nil
}

// TestHashShapeByHand compares HashShape with the byte stream bellpepper's hash() feeds to
// Blake2s for hashCase, written out term by term.
func TestHashShapeByHand(t *testing.T) {
	u64 := func(v byte) string { return "00000000000000" + hex.EncodeToString([]byte{v}) }
	coeff := func(v byte) string {
		return "00000000000000000000000000000000000000000000000000000000000000" + hex.EncodeToString([]byte{v})
	}
	const minusOne = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000" // r − 1
	term := func(tag byte, idx byte, c string) string {
		return hex.EncodeToString([]byte{tag}) + u64(idx) + c
	}
	stream := u64(2) + u64(2) + u64(2) + // inputs (One, x), aux (a, b), constraints
		// c0: A = 2·x + 4·a (b cancelled, input first), B = One, C = b
		u64(2) + term('I', 1, coeff(2)) + term('A', 0, coeff(4)) +
		u64(1) + term('I', 0, coeff(1)) +
		u64(1) + term('A', 1, coeff(1)) +
		// c1: A = B = 0, C = 5·One − b
		u64(0) + u64(0) +
		u64(2) + term('I', 0, coeff(5)) + term('A', 1, minusOne)
	raw, err := hex.DecodeString(stream)
	require.NoError(t, err)
	want := blake2s.Sum256(raw)

	got, err := HashCircuit(hashCase{})
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(want[:]), hex.EncodeToString(got[:]))
}

// TestHashShapeEmpty: a circuit with no constraints hashes its counts alone (One is input 0).
func TestHashShapeEmpty(t *testing.T) {
	raw, _ := hex.DecodeString("0000000000000001" + "0000000000000000" + "0000000000000000")
	want := blake2s.Sum256(raw)
	got, err := HashCircuit(hashCircuitFunc(func(*CS) error { return nil }))
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestHashShapeSensitive: swapping A and B, or changing a coefficient, changes the hash.
func TestHashShapeSensitive(t *testing.T) {
	mk := func(swap bool, c uint64) Circuit {
		return hashCircuitFunc(func(cs *CS) error {
			a := cs.Alloc(fr.NewElement(1))
			b := cs.Alloc(fr.NewElement(1))
			la, lb := V(a), NewLC().AddTerm(fr.NewElement(c), b)
			if swap {
				la, lb = lb, la
			}
			cs.Enforce("c", la, lb, nil)
			return nil
		})
	}
	h0, err := HashCircuit(mk(false, 1))
	require.NoError(t, err)
	h1, _ := HashCircuit(mk(true, 1))
	h2, _ := HashCircuit(mk(false, 2))
	require.NotEqual(t, h0, h1)
	require.NotEqual(t, h0, h2)
}

type hashCircuitFunc func(*CS) error

func (f hashCircuitFunc) Synthesize(cs *CS) error { return f(cs) }
