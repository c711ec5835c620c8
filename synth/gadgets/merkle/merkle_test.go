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

// TestInsertAllPositions inserts at every position for arities 2, 4, 8 and 16 (the general
// select path), checks the values and the costs of insertion.rs: insert_2 = 2, insert_4 = 8,
// insert_8 = 22 constraints, and 16·15 picks for the general case.
func TestInsertAllPositions(t *testing.T) {
	cost := map[int]int{2: 2, 4: 8, 8: 22, 16: 16 * 15}
	for _, arity := range []int{2, 4, 8, 16} {
		for pos := 0; pos < arity; pos++ {
			var got []num.Num
			var n int
			sibVals := leaves(arity - 1)
			x := leaves(1)[0]
			c := gadgettest.Func(func(cs *synth.CS) error {
				nb := map[int]int{2: 1, 4: 2, 8: 3, 16: 4}[arity]
				bits := make([]boolean.Bit, nb)
				for i := range bits {
					bits[i] = boolean.Alloc(cs, pos>>i&1 == 1)
				}
				sib := make([]num.Num, arity-1)
				for i := range sib {
					sib[i] = num.Alloc(cs, sibVals[i])
				}
				xn := num.Alloc(cs, x)
				before := cs.NumConstraints()
				var err error
				got, err = Insert(cs, xn, bits, sib, nil)
				n = cs.NumConstraints() - before
				return err
			})
			gadgettest.Run(t, c)
			require.Equal(t, cost[arity], n, "arity %d", arity)
			want := append(append(append([]fr.Element(nil), sibVals[:pos]...), x), sibVals[pos:]...)
			for i := range want {
				require.True(t, want[i].Equal(&got[i].Value), "arity %d pos %d slot %d", arity, pos, i)
			}
		}
	}
}

// TestInsert2Matrices compares insert_2's two constraints term by term with insertion.rs:
// bit b = aux 0, sibling s = aux 1, element x = aux 2; pick(cond, a, b) allocates c and
// enforces (b − a)·cond = b − c, so "binary insert 0" = pick(b, s, x) gives (x − s)·b = x − c0
// and "binary insert 1" = pick(b, x, s) gives (s − x)·b = s − c1.
func TestInsert2Matrices(t *testing.T) {
	shape, err := synth.Compile(gadgettest.Func(func(cs *synth.CS) error {
		b := boolean.Alloc(cs, true)
		s, x := num.Alloc(cs, fr.NewElement(3)), num.Alloc(cs, fr.NewElement(4))
		_, err := Insert(cs, x, []boolean.Bit{b}, []num.Num{s}, nil)
		return err
	}))
	require.NoError(t, err)
	require.Equal(t, 3, shape.NumConstraints)
	aux := synth.AuxVariable
	bit, s, x, c0, c1 := aux(0), aux(1), aux(2), aux(3), aux(4)
	gadgettest.RequireRow(t, shape, 1, synth.V(x).Sub(s), synth.V(bit), synth.V(x).Sub(c0))
	gadgettest.RequireRow(t, shape, 2, synth.V(s).Sub(x), synth.V(bit), synth.V(s).Sub(c1))
}

// TestSelect checks select over 2^k elements: the value for every index, size − 1
// picks, the first one (for the most significant bit) pick(bit, from[half], from[0]).
func TestSelect(t *testing.T) {
	for k := 1; k <= 4; k++ {
		size := 1 << k
		vals := leaves(size)
		for idx := 0; idx < size; idx++ {
			var got num.Num
			var n int
			c := gadgettest.Func(func(cs *synth.CS) error {
				from := make([]num.Num, size)
				for i := range from {
					from[i] = num.Alloc(cs, vals[i])
				}
				bits := make([]boolean.Bit, k)
				for i := range bits {
					bits[i] = boolean.Alloc(cs, idx>>i&1 == 1)
				}
				before := cs.NumConstraints()
				got = Select(cs, from, bits)
				n = cs.NumConstraints() - before
				return nil
			})
			shape, _ := gadgettest.Run(t, c)
			require.Equal(t, size-1, n)
			require.True(t, vals[idx].Equal(&got.Value), "size %d index %d", size, idx)
			if idx == 0 {
				aux := synth.AuxVariable
				top, lo, hi, r := aux(size+k-1), aux(0), aux(size/2), aux(size+k)
				gadgettest.RequireRow(t, shape, k, synth.V(lo).Sub(hi), synth.V(top), synth.V(lo).Sub(r))
			}
		}
	}
}

// TestPoRLevelCosts checks the PoR costs per level of por.rs: Poseidon arity 8 530, arity 4 387,
// arity 2 314, plus 2 (the packed index input and the root equality), on a mixed 8-4-2 tree
// proved with PoR; the packed input equals the leaf index.
func TestPoRLevelCosts(t *testing.T) {
	arities := []int{8, 8, 4, 2}
	hashes := map[int]*poseidon.Params{2: poseidon.Must(2), 4: poseidon.Must(4), 8: poseidon.Must(8)}
	hashFor := func(a int) (HashCircuit, error) { return PoseidonNodeCircuit(hashes[a]), nil }
	// Build the path natively level by level from a random leaf.
	index := uint64(8*8*4*2 - 3)
	leaf := leaves(1)[0]
	cur, idx := leaf, index
	var path [][]fr.Element
	for _, a := range arities {
		sib := leaves(a - 1)
		path = append(path, sib)
		pos := int(idx % uint64(a))
		children := append(append(append([]fr.Element(nil), sib[:pos]...), cur), sib[pos:]...)
		cur = PoseidonNode(hashes[a])(children)
		idx /= uint64(a)
	}
	root := cur
	mk := func(root fr.Element) synth.Circuit {
		return gadgettest.Func(func(cs *synth.CS) error {
			l, r := num.Alloc(cs, leaf), num.Alloc(cs, root)
			return PoR(cs, l, index, arities, path, r, hashFor)
		})
	}
	shape, asg := gadgettest.Run(t, mk(root))
	require.Equal(t, 530+530+387+314+2, shape.NumConstraints)
	require.Equal(t, 2, shape.NumInputs)
	want := fr.NewElement(index)
	require.True(t, want.Equal(&asg.Inputs[1]))
	var wrong fr.Element
	wrong.SetUint64(5)
	_, err := synth.Compile(mk(wrong))
	require.NoError(t, err)
	asg2, err := synth.Synthesize(t.Context(), shape, mk(wrong))
	require.NoError(t, err)
	err = synth.Check(shape, asg2, mk(wrong))
	require.ErrorIs(t, err, synth.ErrUnsatisfied)
	require.Contains(t, err.Error(), "enforce root is correct")
}

// TestSha256LeafBits mirrors storage-proofs-core util.rs hash_leaf_bits_circuit: two random
// field elements as 256 allocated bits each (bytes_into_boolean_vec: least significant bit of
// each byte first) hash to Sha256Node of the two with 45,387 constraints in all.
func TestSha256LeafBits(t *testing.T) {
	vals := leaves(2)
	var out num.Num
	c := gadgettest.Func(func(cs *synth.CS) error {
		var sides [2][]boolean.Bit
		for k := range sides {
			b := FrToBytes(&vals[k])
			for _, x := range b {
				for i := 0; i < 8; i++ {
					sides[k] = append(sides[k], boolean.Alloc(cs, x>>uint(i)&1 == 1))
				}
			}
		}
		out = Sha256LeafBitsCircuit(cs, sides[0], sides[1])
		return nil
	})
	n, _, _, err := synth.Count(c)
	require.NoError(t, err)
	require.Equal(t, 45_387, n)
	want := Sha256Node(vals)
	require.True(t, want.Equal(&out.Value))
}
