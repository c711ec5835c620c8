package merkle

import (
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

func leaves(n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		_, _ = out[i].SetRandom()
	}
	return out
}

func TestTrimmedSha256IsCanonical(t *testing.T) {
	// The all-ones digest byte pattern cannot occur, but any digest fits once trimmed.
	for i := 0; i < 100; i++ {
		x := TrimmedSha256([]byte{byte(i)})
		b := FrToBytes(&x)
		require.Zero(t, b[31]&0xc0)
	}
}

func TestSparseTreeMatchesDense(t *testing.T) {
	ls := leaves(5)
	var zero fr.Element
	sparse, err := NewTree(2, 3, ls, zero, Sha256Node)
	require.NoError(t, err)
	full := append(append([]fr.Element(nil), ls...), zero, zero, zero)
	dense, err := NewTree(2, 3, full, zero, Sha256Node)
	require.NoError(t, err)
	require.Equal(t, dense.Root(), sparse.Root())
	for i := uint64(0); i < 8; i++ {
		require.Equal(t, dense.Path(i), sparse.Path(i))
		require.Equal(t, sparse.Root(), RootFromPath(2, sparse.Leaf(i), i, sparse.Path(i), Sha256Node))
	}
}

// runPath proves inclusion of leaf index in tr inside a circuit and returns the computed root,
// the index bits and the constraints per level.
func runPath(t *testing.T, tr *Tree, index uint64, h HashCircuit) synth.Circuit {
	return gadgettest.Func(func(cs *synth.CS) error {
		leaf := num.Alloc(cs, tr.Leaf(index))
		root, bits, err := PathCircuit(cs, tr.Arity, leaf, index, tr.Path(index), h)
		if err != nil {
			return err
		}
		if len(bits) == 0 {
			return nil
		}
		rt := num.Alloc(cs, tr.Root())
		num.EnforceEqual(cs, root, rt)
		return nil
	})
}

func TestSha256PathCircuit(t *testing.T) {
	ls := leaves(3)
	tr, err := NewTree(2, 2, ls, fr.Element{}, Sha256Node)
	require.NoError(t, err)
	for _, idx := range []uint64{1, 3} {
		c := runPath(t, tr, idx, Sha256NodeCircuit)
		shape, _ := gadgettest.Run(t, c)
		require.Equal(t, 2*45382+1, shape.NumConstraints, "45,382 per level and the root equality")
	}
	// A wrong sibling yields a different root: the equality names it.
	bad := gadgettest.TamperAux(t, runPath(t, tr, 1, Sha256NodeCircuit), synth.AuxVariable(2), fr.One())
	require.True(t, strings.Contains(bad, "merkle tree hash[0]"), bad)
}

func TestPoseidonPathCircuit(t *testing.T) {
	p := poseidon.Must(8)
	ls := leaves(20)
	tr, err := NewTree(8, 3, ls, fr.Element{}, PoseidonNode(p))
	require.NoError(t, err)
	for _, idx := range []uint64{0, 7, 13, 19, 300, 511} {
		c := runPath(t, tr, idx, PoseidonNodeCircuit(p))
		shape, _ := gadgettest.Run(t, c)
		require.Equal(t, 3*530+1, shape.NumConstraints)
	}
	// Flipping an index bit breaks an insertion pick.
	var bit boolean.Bit
	c := gadgettest.Func(func(cs *synth.CS) error {
		leaf := num.Alloc(cs, tr.Leaf(13))
		_, bits, err := PathCircuit(cs, 8, leaf, 13, tr.Path(13), PoseidonNodeCircuit(p))
		bit = bits[1]
		return err
	})
	gadgettest.Run(t, c)
	v, _, _ := bit.Variable()
	path := gadgettest.FlipAux(t, c, v)
	require.True(t, strings.HasPrefix(path, "merkle tree hash[0]/"), path)
	require.True(t, strings.HasSuffix(path, "/pick") || strings.HasSuffix(path, "/and"), path)
}

func TestInsertAllPositions(t *testing.T) {
	for _, arity := range []int{2, 8} {
		for pos := 0; pos < arity; pos++ {
			var got []num.Num
			sibVals := leaves(arity - 1)
			x := leaves(1)[0]
			c := gadgettest.Func(func(cs *synth.CS) error {
				nb := map[int]int{2: 1, 8: 3}[arity]
				bits := make([]boolean.Bit, nb)
				for i := range bits {
					bits[i] = boolean.Alloc(cs, pos>>i&1 == 1)
				}
				sib := make([]num.Num, arity-1)
				for i := range sib {
					sib[i] = num.Alloc(cs, sibVals[i])
				}
				var err error
				got, err = Insert(cs, num.Alloc(cs, x), bits, sib, nil)
				return err
			})
			gadgettest.Run(t, c)
			want := append(append(append([]fr.Element(nil), sibVals[:pos]...), x), sibVals[pos:]...)
			for i := range want {
				require.True(t, want[i].Equal(&got[i].Value), "arity %d pos %d slot %d", arity, pos, i)
			}
		}
	}
}
