package update

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/circuits/internal/circuittest"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// treeR is a tree R of shape base-sub (no top layer) built with the native Poseidon.
type treeR struct {
	bases []*merkle.Tree
	root  fr.Element
	per   uint64 // leaves per base tree
}

func newTreeR(t *testing.T, p Params, leaves []fr.Element) *treeR {
	t.Helper()
	require.Zero(t, p.Tree.Top, "test trees have no top layer")
	n := 1
	if p.Tree.Sub > 0 {
		n = p.Tree.Sub
	}
	tr := &treeR{per: uint64(len(leaves) / n)}
	depth := 0
	for 1<<(3*depth) < int(tr.per) {
		depth++
	}
	roots := make([]fr.Element, n)
	for i := 0; i < n; i++ {
		b, err := merkle.NewTree(p.Tree.Base, depth, leaves[uint64(i)*tr.per:uint64(i+1)*tr.per], fr.Element{}, merkle.PoseidonNode(poseidon.Must(p.Tree.Base)))
		require.NoError(t, err)
		tr.bases = append(tr.bases, b)
		roots[i] = b.Root()
	}
	tr.root = roots[0]
	if n > 1 {
		var err error
		tr.root, err = poseidon.Must(n).Hash(roots)
		require.NoError(t, err)
	}
	return tr
}

// path returns leaf i's siblings from the leaves up, the sub level last.
func (tr *treeR) path(i uint64) [][]fr.Element {
	b := i / tr.per
	out := tr.bases[b].Path(i % tr.per)
	if len(tr.bases) > 1 {
		var sib []fr.Element
		for j, o := range tr.bases {
			if uint64(j) != b {
				sib = append(sib, o.Root())
			}
		}
		out = append(out, sib)
	}
	return out
}

// syntheticUpdate builds partition k of an EmptySectorUpdate of a random sector of p's size,
// natively as storage-proofs-update vanilla.rs does: tree D over the new data, the old
// replica's tree R, phi, rho per node, label_r_new = label_r_old + data·rho, the new tree R,
// comm_r = Poseidon₂(comm_c, root) for both, and the partition's challenges from comm_r_new.
func syntheticUpdate(t *testing.T, p Params, k int) *Circuit {
	t.Helper()
	nodes := p.SectorNodes
	data, old := make([]fr.Element, nodes), make([]fr.Element, nodes)
	for i := range data {
		_, _ = data[i].SetRandom()
		_, _ = old[i].SetRandom()
	}
	chBits, partBits := p.ChallengeBits(), p.PartitionBits()
	treeD, err := merkle.NewTree(2, chBits, data, fr.Element{}, merkle.Sha256Node)
	require.NoError(t, err)
	c := &Circuit{Params: p, K: k, H: p.HS[0], CommDNew: treeD.Root()}
	_, _ = c.CommC.SetRandom()
	rOld := newTreeR(t, p, old)
	c.RootROld = rOld.root
	c.CommROld = commRHash(t, c.CommC, c.RootROld)
	phi := GenRandomnessHash(c.CommDNew, c.CommROld)
	newLabels := make([]fr.Element, nodes)
	for i := range newLabels {
		var high fr.Element
		high.SetUint64(uint64(i) >> uint(chBits-c.H))
		rho := GenRandomnessHash(phi, high)
		newLabels[i].Mul(&data[i], &rho).Add(&newLabels[i], &old[i])
	}
	rNew := newTreeR(t, p, newLabels)
	c.RootRNew = rNew.root
	c.CommRNew = commRHash(t, c.CommC, c.RootRNew)

	apexRow := chBits - partBits - p.ApexLeafBits()
	c.ApexLeafs = treeD.Levels[apexRow][k*p.ApexLeafCount : (k+1)*p.ApexLeafCount]

	bitsPer := chBits - partBits
	perDigest := 254 / bitsPer
	for j := 0; len(c.Challenges) < p.ChallengeCount; j++ {
		var idx fr.Element
		idx.SetUint64(uint64(k*p.DigestsPerPartition() + j))
		digest := GenRandomnessHash(c.CommRNew, idx)
		limbs := digest.Bits()
		bit := func(i int) uint64 { return limbs[i/64] >> uint(i%64) & 1 }
		for n := 0; n < perDigest && len(c.Challenges) < p.ChallengeCount; n++ {
			var ch uint64
			for b := 0; b < bitsPer; b++ {
				ch |= bit(n*bitsPer+b) << uint(b)
			}
			ch |= uint64(k) << uint(bitsPer)
			pathD := make([]fr.Element, chBits)
			for l, s := range treeD.Path(ch) {
				pathD[l] = s[0]
			}
			c.Challenges = append(c.Challenges, ChallengeProof{
				LeafROld: old[ch], PathROld: rOld.path(ch),
				LeafDNew: data[ch], PathDNew: pathD,
				PathRNew: rNew.path(ch),
			})
		}
	}
	return c
}

// commRHash is comm_r = Poseidon₂(comm_c, root), Merkle-tree domain tag.
func commRHash(t *testing.T, a, b fr.Element) fr.Element {
	t.Helper()
	h, err := poseidon.Must(2).Hash([]fr.Element{a, b})
	require.NoError(t, err)
	return h
}

// checkSatisfied synthesizes c on the blank circuit's shape and checks every constraint; the
// public inputs must be [k | h_select << partition bits, comm_r_old, comm_d_new, comm_r_new].
func checkSatisfied(t *testing.T, shape *synth.Shape, c *Circuit) error {
	t.Helper()
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	khs, err := c.Params.KAndHSelect(c.K, c.H)
	require.NoError(t, err)
	var khsElt fr.Element
	khsElt.SetUint64(khs)
	want := []fr.Element{khsElt, c.CommROld, c.CommDNew, c.CommRNew}
	got := asg.PublicInputs()
	require.Len(t, got, 4)
	for i := range want {
		require.True(t, want[i].Equal(&got[i]), "input %d", i)
	}
	return synth.Check(shape, asg, c)
}

// TestSatisfied2KiB: a synthetic 2 KiB update built natively as vanilla.rs builds it satisfies
// the circuit (so the challenge derivation, rho, the encoding and all three inclusion proofs
// agree with the native computation); a changed new data leaf, old-replica sibling or apex leaf
// makes Check name the failing constraint.
func TestSatisfied2KiB(t *testing.T) {
	p, err := ParamsFor(2 << 10)
	require.NoError(t, err)
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 1_705_039, shape.NumConstraints)
	c := syntheticUpdate(t, p, 0)
	require.NoError(t, checkSatisfied(t, shape, c))

	one := fr.One()
	tamper := func(f func(*Circuit)) *Circuit {
		bad := *c
		bad.Challenges = append([]ChallengeProof(nil), c.Challenges...)
		bad.ApexLeafs = append([]fr.Element(nil), c.ApexLeafs...)
		f(&bad)
		return &bad
	}
	for _, tc := range []struct {
		name string
		bad  *Circuit
		path string
	}{
		{"new data leaf", tamper(func(b *Circuit) { b.Challenges[4].LeafDNew.Add(&b.Challenges[4].LeafDNew, &one) }),
			"por tree_r_new (c_index)[4]/calculated root == provided root/equal"},
		{"old sibling", tamper(func(b *Circuit) {
			ch := &b.Challenges[2]
			ch.PathROld = append([][]fr.Element(nil), ch.PathROld...)
			ch.PathROld[1] = append([]fr.Element(nil), ch.PathROld[1]...)
			ch.PathROld[1][3].Add(&ch.PathROld[1][3], &one)
		}), "por tree_r_old (c_index)[2]/calculated root == provided root/equal"},
		{"apex leaf", tamper(func(b *Circuit) { b.ApexLeafs[5].Add(&b.ApexLeafs[5], &one) }),
			"apex_gadget/partition-tree por/calculated root == provided root/equal"},
	} {
		err := checkSatisfied(t, shape, tc.bad)
		var ue *synth.UnsatisfiedError
		require.True(t, errors.As(err, &ue), "%s: %v", tc.name, err)
		require.Equal(t, tc.path, ue.Path, tc.name)
	}
}

// TestSatisfied16KiB: the same for partition 1 of a 16 KiB sector (2 partitions, tree R 8-8-0,
// 128 apex leaves, a partition path), 6,300,021 constraints.
func TestSatisfied16KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("6.3 M constraints")
	}
	p, err := ParamsFor(16 << 10)
	require.NoError(t, err)
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.NoError(t, checkSatisfied(t, shape, syntheticUpdate(t, p, 1)))
}

// TestRows2KiB checks the rows this package writes itself (the gadgets' rows are checked in
// their packages) against circuit.rs and gadgets.rs, for 2 KiB: columns 0–4 are One and the 4
// inputs, aux 0 (column 5) is k_and_h_select, aux 1–6 its bits, aux 7 the packed partition,
// aux 8–10 comm_r_old, comm_d_new, comm_r_new.
//
//	row 0     k_and_h_select input·1 = aux 0
//	row 7     (Σ 2^i·bit_i)·1 = aux 0            ("k_and_h_select binary decomp")
//	row 8     (empty)·1 = aux 7                  (pack_bits of no partition bits)
//	rows 9–11 input i·1 = comm                   (inputize)
//	row 318,601 (1·partition + 0·One)·1 = digest_index   (after phi 311, the two comm_r
//	          checks 2·312 and apex_por 317,654)
func TestRows2KiB(t *testing.T) {
	p, err := ParamsFor(2 << 10)
	require.NoError(t, err)
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 5, shape.NumInputs)
	one := fr.One()
	check := func(r int, m *synth.Matrix, wantCols []int, wantCoeffs []uint64) {
		t.Helper()
		cols, coeffs := circuittest.Row(shape, m, r)
		require.Equal(t, wantCols, cols, "row %d", r)
		for i, c := range wantCoeffs {
			var w fr.Element
			w.SetUint64(c)
			require.True(t, w.Equal(&coeffs[i]), "row %d term %d", r, i)
		}
	}
	check(0, &shape.A, []int{1}, []uint64{1})
	check(0, &shape.B, []int{0}, []uint64{1})
	check(0, &shape.C, []int{5}, []uint64{1})
	check(7, &shape.A, []int{6, 7, 8, 9, 10, 11}, []uint64{1, 2, 4, 8, 16, 32})
	check(7, &shape.B, []int{0}, []uint64{1})
	check(7, &shape.C, []int{5}, []uint64{1})
	check(8, &shape.A, nil, nil)
	check(8, &shape.C, []int{12}, []uint64{1})
	for i := 0; i < 3; i++ {
		check(9+i, &shape.A, []int{2 + i}, []uint64{1})
		check(9+i, &shape.C, []int{13 + i}, []uint64{1})
	}
	const digestRow = 12 + 311 + 2*312 + 317_654
	cols, coeffs := circuittest.Row(shape, &shape.A, digestRow)
	require.Contains(t, cols, 12, "digest_index row reads the partition")
	for i, c := range cols {
		want := fr.Element{}
		if c == 12 {
			want = one
		}
		require.True(t, want.Equal(&coeffs[i]), "digest_index row column %d", c)
	}
	check(digestRow, &shape.B, []int{0}, []uint64{1})
	cCols, _ := circuittest.Row(shape, &shape.C, digestRow)
	require.Len(t, cCols, 1)
}
