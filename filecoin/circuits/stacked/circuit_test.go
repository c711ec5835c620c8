package stacked

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// TestCountsRustTests reproduces storage-proofs-porep tests/stacked_circuit.rs: 2 layers, one
// challenge, 8·base_tree_count nodes: 1,206,212 (tree 2-0-0), 1,199,620 (8-0-0), 1,296,576
// (8-4-0), 1,346,982 (8-4-2), 22 inputs with One each.
func TestCountsRustTests(t *testing.T) {
	cases := []struct {
		depth       int
		tree        []int
		constraints int
	}{
		{3, []int{2, 2, 2}, 1_206_212},
		{3, []int{8}, 1_199_620},
		{5, []int{8, 4}, 1_296_576},
		{6, []int{8, 4, 2}, 1_346_982},
	}
	for _, tc := range cases {
		p := Params{Layers: 2, CommDDepth: tc.depth, TreeRC: tc.tree, Challenges: 1}
		c, in, _, err := synth.Count(Blank(p))
		require.NoError(t, err)
		require.Equal(t, tc.constraints, c, "%v", tc.tree)
		require.Equal(t, 22, in)
	}
}

// TestCount32GiB: the 32 GiB partition (11 layers, tree D depth 30, trees R and C 8-8-0, 18
// challenges) has 130,278,541 constraints and 328 inputs with One (rust-fil-proofs PR #1325).
func TestCount32GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("counts a 7.2 M-constraint challenge")
	}
	tree := []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}
	c, in, _, err := Count(Params{Layers: 11, CommDDepth: 30, TreeRC: tree, Challenges: 18})
	require.NoError(t, err)
	require.Equal(t, 130_278_541, c)
	require.Equal(t, 328, in)
}

// witness8 builds a self-consistent 2-layer witness over 8 nodes (trees R and C 8-0-0, tree D
// depth 3) for challenge node 5: every node has a random column except node 5, whose labels are
// computed natively (SHA-256 of replica id ‖ layer ‖ node ‖ padding ‖ 37 parents, trimmed)
// from parents drawn among the other nodes; the replica leaf is label_2 + data leaf.
func witness8(t *testing.T) *Circuit {
	const nodes, layers, node = 8, 2, 5
	p := Params{Layers: layers, CommDDepth: 3, TreeRC: []int{8}, Challenges: 1}
	rnd := func() fr.Element { var x fr.Element; _, _ = x.SetRandom(); return x }
	cols := make([][]fr.Element, nodes)
	for i := range cols {
		cols[i] = []fr.Element{rnd(), rnd()}
	}
	replicaID := rnd()
	parentIdx := []uint64{0, 1, 2, 3, 4, 6, 7, 0, 1, 2, 3, 4, 6, 7} // 6 DRG, 8 expander
	for layer := 1; layer <= layers; layer++ {
		id := merkle.FrToBytes(&replicaID)
		pre := append([]byte(nil), id[:]...)
		pre = binary.BigEndian.AppendUint32(pre, uint32(layer))
		pre = binary.BigEndian.AppendUint64(pre, node)
		pre = append(pre, make([]byte, 64-len(pre))...)
		var ps [][32]byte
		for i := 0; i < DRGParents; i++ {
			ps = append(ps, merkle.FrToBytes(&cols[parentIdx[i]][layer-1]))
		}
		if layer > 1 {
			for i := DRGParents; i < DRGParents+ExpParents; i++ {
				ps = append(ps, merkle.FrToBytes(&cols[parentIdx[i]][layer-2]))
			}
		}
		for k := 0; k < TotalParents; k++ {
			pre = append(pre, ps[k%len(ps)][:]...)
		}
		cols[node][layer-1] = merkle.TrimmedSha256(pre)
	}
	p2, p8 := poseidon.Must(2), poseidon.Must(8)
	colHashes := make([]fr.Element, nodes)
	for i := range cols {
		var err error
		colHashes[i], err = p2.Hash(cols[i])
		require.NoError(t, err)
	}
	treeC, err := merkle.NewTree(8, 1, colHashes, fr.Element{}, merkle.PoseidonNode(p8))
	require.NoError(t, err)
	data := make([]fr.Element, nodes)
	replica := make([]fr.Element, nodes)
	for i := range data {
		data[i], replica[i] = rnd(), rnd()
	}
	replica[node].Add(&cols[node][layers-1], &data[node])
	treeD, err := merkle.NewTree(2, 3, data, fr.Element{}, merkle.Sha256Node)
	require.NoError(t, err)
	treeR, err := merkle.NewTree(8, 1, replica, fr.Element{}, merkle.PoseidonNode(p8))
	require.NoError(t, err)
	ch := Challenge{Node: node, DataLeaf: data[node], CommDPath: treeD.Path(node),
		CommRLastPath: treeR.Path(node), CommCPath: treeC.Path(node)}
	for i, idx := range parentIdx {
		col := ParentColumn{Index: idx, Rows: cols[idx], Path: treeC.Path(idx)}
		if i < DRGParents {
			ch.DRG[i] = col
		} else {
			ch.Exp[i-DRGParents] = col
		}
	}
	c := &Circuit{Params: p, ReplicaID: replicaID, CommD: treeD.Root(), CommRLast: treeR.Root(),
		CommC: treeC.Root(), Challenges: []Challenge{ch}}
	c.CommR, err = p2.Hash([]fr.Element{c.CommC, c.CommRLast})
	require.NoError(t, err)
	return c
}

// TestWitness: the self-consistent witness satisfies the blank circuit's shape, and its public
// inputs are replica id, comm_d, comm_r, then the challenge (tree D path), the 14 parent
// indices, the challenge as u64, and the challenge again for trees R and C. A wrong data leaf
// fails the tree D root equality.
func TestWitness(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and checks 1.2 M constraints")
	}
	c := witness8(t)
	shape, err := synth.Compile(Blank(c.Params))
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	in := asg.PublicInputs()
	require.Len(t, in, 21)
	want := []fr.Element{c.ReplicaID, c.CommD, c.CommR, fr.NewElement(5)}
	for _, col := range append(c.Challenges[0].DRG[:], c.Challenges[0].Exp[:]...) {
		want = append(want, fr.NewElement(col.Index))
	}
	want = append(want, fr.NewElement(5), fr.NewElement(5), fr.NewElement(5))
	for i := range want {
		require.True(t, want[i].Equal(&in[i]), "input %d", i)
	}
	c.Challenges[0].DataLeaf.SetUint64(1)
	asg, err = synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	err = synth.Check(shape, asg, c)
	var ue *synth.UnsatisfiedError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, "challenge[0]/comm_d_inclusion/enforce root is correct/equal", ue.Path)
}

// TestCountsProduction: the production partitions by sector size — 2 KiB 2,687,921 (derived in
// FILECOIN.md §4), and outside -short 8 MiB 3,844,929, 512 MiB 4,423,433 and 64 GiB 131,185,849
// (derived), 39 inputs with One for the small sizes and 328 for 64 GiB.
func TestCountsProduction(t *testing.T) {
	cases := []struct {
		size                uint64
		constraints, inputs int
	}{
		{2 << 10, 2_687_921, 40},
		{8 << 20, 3_844_929, 40},
		{512 << 20, 4_423_433, 40},
		{64 << 30, 131_185_849, 328},
	}
	for _, tc := range cases {
		if testing.Short() && tc.size > 2<<10 {
			continue
		}
		p, err := PoRepParams(tc.size)
		require.NoError(t, err)
		c, in, _, err := Count(p)
		require.NoError(t, err)
		require.Equal(t, tc.constraints, c, "size %d", tc.size)
		require.Equal(t, tc.inputs, in, "size %d", tc.size)
	}
}

// TestBadInput: wrong layer and challenge counts and short paths are errors naming the
// challenge and parent.
func TestBadInput(t *testing.T) {
	p := Params{Layers: 3, CommDDepth: 3, TreeRC: []int{8}, Challenges: 1}
	_, _, _, err := synth.Count(Blank(p))
	require.ErrorContains(t, err, "3 layers, want 2 or 11")
	p.Layers = 2
	_, _, _, err = synth.Count(&Circuit{Params: p})
	require.ErrorContains(t, err, "0 challenges, the circuit takes 1")
	ch := blankChallenge(p)
	ch.Exp[3].Path = ch.Exp[3].Path[:0]
	_, _, _, err = synth.Count(&Circuit{Params: p, Challenges: []Challenge{ch}})
	require.ErrorContains(t, err, "challenge 0 parent 9: 2 rows and 0 path levels, want 2 and 1")
	ch = blankChallenge(p)
	ch.CommDPath = ch.CommDPath[:2]
	_, _, _, err = synth.Count(&Circuit{Params: p, Challenges: []Challenge{ch}})
	require.ErrorContains(t, err, "challenge 0: comm_d path of 2 levels, want 3")
	ch = blankChallenge(p)
	ch.DRG[1].Index = 8
	_, _, _, err = synth.Count(&Circuit{Params: p, Challenges: []Challenge{ch}})
	require.ErrorContains(t, err, "challenge 0 parent 1: node 8 out of 8")
	_, err = PoRepParams(3 << 10)
	require.ErrorContains(t, err, "no PoRep shape")
}

// TestSameMatricesAsPoRepShaped: the PoRep-shaped workload of circuits/porep (written
// separately, from an in-memory sector) at its tiny size — 2 layers, 8 nodes, tree 8-0-0, one
// challenge — has exactly the matrices of this package's circuit of the same shape.
func TestSameMatricesAsPoRepShaped(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles two 1.2 M-constraint circuits")
	}
	cfg := porep.Small
	cfg.Challenges, cfg.Partitions = 1, 1
	s, err := porep.NewSector(cfg, [32]byte{7})
	require.NoError(t, err)
	want, err := synth.HashCircuit(s.Circuit(0))
	require.NoError(t, err)
	got, err := synth.HashCircuit(Blank(Params{Layers: 2, CommDDepth: 3, TreeRC: []int{8}, Challenges: 1}))
	require.NoError(t, err)
	require.Equal(t, want, got)
}
