package post

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

// TestCountsRustTests reproduces storage-proofs-post tests/fallback_circuit.rs: test trees of
// 64·base_tree_count leaves, 5 challenges per sector, (sectors per partition, inputs with One,
// constraints) = (3, 19, 16,869) for 8-0-0, (2, 13, 11,246) for 8-0-0, (3, 19, 22,674) for 8-4-0
// and (3, 19, 27,384) for 8-4-2, counted on the whole blank circuit and by Count.
func TestCountsRustTests(t *testing.T) {
	cases := []struct {
		tree                 TreeShape
		leaves               uint64
		sectors, inputs, cns int
	}{
		{TreeShape{8, 0, 0}, 64, 3, 19, 16_869},
		{TreeShape{8, 0, 0}, 64, 2, 13, 11_246},
		{TreeShape{8, 4, 0}, 256, 3, 19, 22_674},
		{TreeShape{8, 4, 2}, 512, 3, 19, 27_384},
	}
	for _, tc := range cases {
		p := Params{SectorSize: tc.leaves * NodeSize, Tree: tc.tree, ChallengeCount: 5, SectorCount: tc.sectors}
		cns, in, aux, err := synth.Count(Blank(p))
		require.NoError(t, err)
		require.Equal(t, tc.cns, cns, "%+v", tc)
		require.Equal(t, tc.inputs, in, "%+v", tc)
		c2, in2, aux2, err := Count(p)
		require.NoError(t, err)
		require.Equal(t, []int{cns, in, aux}, []int{c2, in2, aux2})
	}
}

// TestCountsProduction checks the production counts: the BenchCS test of fallback_circuit.rs
// (32 GiB tree 8-0-0, 10 challenges, 5 sectors: 266,665), WinningPoSt 32 GiB 370,590 with 133
// inputs (rust-fil-proofs PR #1325), WindowPoSt 32 GiB 125,279,217 and 64 GiB 129,887,900
// (filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT comments; 25,840 and 25,301 inputs),
// and the derived 2 KiB counts: Winning 90,750 (133 inputs), Window 21,866 (23 inputs).
func TestCountsProduction(t *testing.T) {
	bench := Params{SectorSize: 32 << 30, Tree: TreeShape{8, 0, 0}, ChallengeCount: 10, SectorCount: 5}
	c, _, _, err := Count(bench)
	require.NoError(t, err)
	require.Equal(t, 266_665, c)

	type want struct{ constraints, inputs int }
	cases := []struct {
		name  string
		p     func(uint64) (Params, error)
		size  uint64
		count want
	}{
		{"winning 32GiB", WinningParams, 32 << 30, want{370_590, 133}},
		{"window 32GiB", WindowParams, 32 << 30, want{125_279_217, 25_840}},
		{"window 64GiB", WindowParams, 64 << 30, want{129_887_900, 25_301}},
		{"winning 2KiB", WinningParams, 2 << 10, want{90_750, 133}},
		{"window 2KiB", WindowParams, 2 << 10, want{21_866, 23}},
	}
	for _, tc := range cases {
		p, err := tc.p(tc.size)
		require.NoError(t, err)
		c, in, _, err := Count(p)
		require.NoError(t, err)
		require.Equal(t, tc.count, want{c, in}, tc.name)
	}
}

// TestCountWholeWinning counts the whole blank WinningPoSt 32 GiB circuit, not one sector scaled.
func TestCountWholeWinning(t *testing.T) {
	p, err := WinningParams(32 << 30)
	require.NoError(t, err)
	c, in, _, err := synth.Count(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 370_590, c)
	require.Equal(t, 133, in)
}

// sector2KiB builds a 2 KiB sector (tree R 8-0-0 over 64 random leaves, built with the native
// Poseidon) with the given challenged leaves.
func sector2KiB(t *testing.T, challenges []uint64) Sector {
	p8, p2 := poseidon.Must(8), poseidon.Must(2)
	leaves := make([]fr.Element, 64)
	for i := range leaves {
		_, _ = leaves[i].SetRandom()
	}
	tree, err := merkle.NewTree(8, 2, leaves, fr.Element{}, merkle.PoseidonNode(p8))
	require.NoError(t, err)
	var s Sector
	_, _ = s.CommC.SetRandom()
	s.CommRLast = tree.Root()
	s.CommR, err = p2.Hash([]fr.Element{s.CommC, s.CommRLast})
	require.NoError(t, err)
	for _, idx := range challenges {
		s.Challenges = append(s.Challenges, Challenge{LeafIndex: idx, Leaf: tree.Leaf(idx), Path: tree.Path(idx)})
	}
	return s
}

// TestWitness2KiB proves a 2 KiB WindowPoSt partition of one real sector padded to two: the
// witness satisfies the blank circuit's shape, the public inputs are [comm_r, leaf indices…]
// per sector, and the shape of the filled circuit hashes like the blank one. A tampered sibling
// is rejected by the named root equality of its challenge.
func TestWitness2KiB(t *testing.T) {
	p, err := WindowParams(2 << 10)
	require.NoError(t, err)
	idx := []uint64{0, 7, 8, 63, 31, 32, 1, 62, 5, 40}
	sectors := PadSectors([]Sector{sector2KiB(t, idx)}, p.SectorCount)
	require.Len(t, sectors, 2)
	c := &Circuit{Params: p, Sectors: sectors}

	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 21_866, shape.NumConstraints)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	want := PublicInputs(sectors)
	require.Len(t, want, 22)
	for i := range want {
		require.True(t, want[i].Equal(&asg.PublicInputs()[i]), "input %d", i)
	}
	filled, err := synth.Compile(c)
	require.NoError(t, err)
	require.Equal(t, synth.HashShape(shape), synth.HashShape(filled))

	bad := sectors[1]
	bad.Challenges = append([]Challenge(nil), bad.Challenges...)
	ch := bad.Challenges[3]
	ch.Path = [][]fr.Element{append([]fr.Element(nil), ch.Path[0]...), ch.Path[1]}
	ch.Path[0][2].SetUint64(12345)
	bad.Challenges[3] = ch
	tampered := &Circuit{Params: p, Sectors: []Sector{sectors[0], bad}}
	asg, err = synth.Synthesize(context.Background(), shape, tampered)
	require.NoError(t, err)
	err = synth.Check(shape, asg, tampered)
	var ue *synth.UnsatisfiedError
	require.True(t, errors.As(err, &ue), "%v", err)
	require.Equal(t, "sector[1]/challenge_inclusion[3]/enforce root is correct/equal", ue.Path)
}

// TestBadInput: wrong sector and challenge counts, an index out of range and a short path are
// errors naming the sector, challenge and level.
func TestBadInput(t *testing.T) {
	p, err := WindowParams(2 << 10)
	require.NoError(t, err)
	s := sector2KiB(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	_, _, _, err = synth.Count(&Circuit{Params: p, Sectors: []Sector{s}})
	require.ErrorContains(t, err, "1 sectors, the circuit takes 2")
	s2 := s
	s2.Challenges = append([]Challenge(nil), s.Challenges...)
	s2.Challenges[4].LeafIndex = 64
	_, _, _, err = synth.Count(&Circuit{Params: p, Sectors: []Sector{s, s2}})
	require.ErrorContains(t, err, "sector 1 challenge 4: leaf index 64 out of 64 leaves")
	s2.Challenges[4] = s.Challenges[4]
	s2.Challenges[4].Path = s.Challenges[4].Path[:1]
	_, _, _, err = synth.Count(&Circuit{Params: p, Sectors: []Sector{s, s2}})
	require.ErrorContains(t, err, "sector 1 challenge 4: path has 1 levels, tree R 2")
	_, err = WindowParams(3 << 10)
	require.ErrorContains(t, err, "unknown sector size")
}

// TestSectorRows checks a sector's own rows against circuit.rs, with comm_r_last, comm_c and
// comm_r at aux 0, 1, 2 (columns n, n+1, n+2 for n inputs): row 0 is comm_r_input (input 1)·1
// = comm_r; row 1, Poseidon's first, squares comm_c + c over One and comm_c; row 312 is
// comm_r·1 = hash (the variable row 311 allocates). The PoR's last two rows pack its 6 index
// bits (weights 1, 2, 4, …) into input 2 and enforce computed root·1 = comm_r_last.
func TestSectorRows(t *testing.T) {
	p := Params{SectorSize: 2 << 10, Tree: TreeShape{8, 0, 0}, ChallengeCount: 1, SectorCount: 1}
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 313+1062, shape.NumConstraints)
	require.Equal(t, 3, shape.NumInputs)
	n := shape.NumInputs
	oneCol := []int{0}
	// check compares the columns of row r; with unit set, every coefficient must be 1.
	check := func(r int, unit bool, a, b, c []int) {
		t.Helper()
		for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
			cols, coeffs := circuittest.Row(shape, m, r)
			require.Equal(t, [][]int{a, b, c}[i], cols, "row %d matrix %c", r, "ABC"[i])
			for _, x := range coeffs {
				require.True(t, !unit || x.IsOne(), "row %d matrix %c", r, "ABC"[i])
			}
		}
	}
	check(0, true, []int{1}, oneCol, []int{n + 2})
	check(1, false, []int{0, n + 1}, []int{0, n + 1}, []int{n + 3})
	hashCols, _ := circuittest.Row(shape, &shape.C, 311)
	require.Len(t, hashCols, 1)
	check(312, true, []int{n + 2}, oneCol, hashCols)

	last := shape.NumConstraints - 1
	rootCols, _ := circuittest.Row(shape, &shape.A, last)
	require.Len(t, rootCols, 1)
	check(last, true, rootCols, oneCol, []int{n + 0})
	packCols, weights := circuittest.Row(shape, &shape.A, last-1)
	require.Len(t, packCols, 6)
	check(last-1, false, packCols, oneCol, []int{2})
	var w fr.Element
	w.SetOne()
	for i := range weights {
		require.True(t, weights[i].Equal(&w), "bit %d weight", i)
		w.Double(&w)
	}
}
