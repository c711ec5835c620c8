package stacked

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
	"github.com/cuzk-go/cuzk/synth/gadgets/u32"
	"github.com/cuzk-go/cuzk/synth/gadgets/u64"
)

// Graph degrees of the stacked DRG (storage-proofs-core drgraph BASE_DEGREE, storage-proofs-porep
// EXP_DEGREE).
const (
	DRGParents = 6
	ExpParents = 8
)

// Params are the shape of one StackedCircuit partition.
type Params struct {
	Layers     int   // 2 or 11
	CommDDepth int   // levels of the binary SHA-256 tree D (log2 of the nodes)
	TreeRC     []int // arity of each level of trees R and C, from the leaves up
	Challenges int   // challenges in the partition
}

// ParentColumn is one parent's column and its inclusion proof in tree C (ColumnProof).
type ParentColumn struct {
	Index uint64         // the parent's node index
	Rows  []fr.Element   // the parent's label in each layer, layer 1 first
	Path  [][]fr.Element // tree C siblings per level
}

// Challenge is one challenge's part of the witness (stacked circuit params.rs Proof).
type Challenge struct {
	Node          uint64
	DataLeaf      fr.Element
	CommDPath     [][]fr.Element // one sibling per level of tree D
	DRG           [DRGParents]ParentColumn
	Exp           [ExpParents]ParentColumn
	CommRLastPath [][]fr.Element
	CommCPath     [][]fr.Element
}

// Circuit is StackedCircuit (stacked circuit proof.rs).
type Circuit struct {
	Params                                    Params
	ReplicaID, CommD, CommR, CommRLast, CommC fr.Element
	Challenges                                []Challenge
	blank                                     bool
}

// Blank returns the circuit of p with zero values, for Compile and Count.
func Blank(p Params) *Circuit { return &Circuit{Params: p, blank: true} }

func (c *Circuit) check() error {
	p := c.Params
	if p.Layers != 2 && p.Layers != 11 {
		return fmt.Errorf("stacked: %d layers, want 2 or 11", p.Layers)
	}
	if c.blank {
		return nil
	}
	if len(c.Challenges) != p.Challenges {
		return fmt.Errorf("stacked: %d challenges, the circuit takes %d", len(c.Challenges), p.Challenges)
	}
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		nodes := uint64(1) << uint(p.CommDDepth)
		if ch.Node >= nodes {
			return fmt.Errorf("stacked: challenge %d: node %d out of %d", i, ch.Node, nodes)
		}
		if len(ch.CommDPath) != p.CommDDepth {
			return fmt.Errorf("stacked: challenge %d: comm_d path of %d levels, want %d", i, len(ch.CommDPath), p.CommDDepth)
		}
		for _, path := range [][][]fr.Element{ch.CommRLastPath, ch.CommCPath} {
			if len(path) != len(p.TreeRC) {
				return fmt.Errorf("stacked: challenge %d: tree path of %d levels, want %d", i, len(path), len(p.TreeRC))
			}
		}
		for j, col := range append(ch.DRG[:], ch.Exp[:]...) {
			if col.Index >= nodes {
				return fmt.Errorf("stacked: challenge %d parent %d: node %d out of %d", i, j, col.Index, nodes)
			}
			if len(col.Rows) != p.Layers || len(col.Path) != len(p.TreeRC) {
				return fmt.Errorf("stacked: challenge %d parent %d: %d rows and %d path levels, want %d and %d",
					i, j, len(col.Rows), len(col.Path), p.Layers, len(p.TreeRC))
			}
		}
	}
	return nil
}

// blankChallenge returns a challenge of zeros shaped by p.
func blankChallenge(p Params) Challenge {
	path := func(arities []int) [][]fr.Element {
		out := make([][]fr.Element, len(arities))
		for i, a := range arities {
			out[i] = make([]fr.Element, a-1)
		}
		return out
	}
	binary := make([]int, p.CommDDepth)
	for i := range binary {
		binary[i] = 2
	}
	col := ParentColumn{Rows: make([]fr.Element, p.Layers), Path: path(p.TreeRC)}
	ch := Challenge{CommDPath: path(binary), CommRLastPath: path(p.TreeRC), CommCPath: path(p.TreeRC)}
	for i := range ch.DRG {
		ch.DRG[i] = col
	}
	for i := range ch.Exp {
		ch.Exp[i] = col
	}
	return ch
}

// Synthesize is StackedCircuit::synthesize; the challenges run concurrently.
func (c *Circuit) Synthesize(cs *synth.CS) error {
	if err := c.check(); err != nil {
		return err
	}
	p := c.Params
	cs.Push("replica_id")
	replicaID := num.Alloc(cs, c.ReplicaID)
	cs.Pop()
	cs.Push("replica_id_input")
	replicaID.Inputize(cs)
	cs.Pop()
	cs.Push("replica_id_bits")
	idBits := ReverseBitNumbering(replicaID.ToBitsLE(cs, nil))
	cs.Pop()
	alloc := func(name string, v fr.Element, input bool) num.Num {
		cs.Push(name)
		n := num.Alloc(cs, v)
		cs.Pop()
		if input {
			cs.Push(name + "_input")
			n.Inputize(cs)
			cs.Pop()
		}
		return n
	}
	commD := alloc("comm_d", c.CommD, true)
	commR := alloc("comm_r", c.CommR, true)
	commRLast := alloc("comm_r_last", c.CommRLast, false)
	commC := alloc("comm_c", c.CommC, false)
	cs.Push("H_comm_c_comm_r_last")
	h, err := poseidon.Must(2).HashCircuit(cs, []num.Num{commC, commRLast})
	cs.Pop()
	if err != nil {
		return err
	}
	cs.Push("enforce comm_r = H(comm_c || comm_r_last)")
	num.EnforceEqual(cs, commR, h)
	cs.Pop()
	var blank Challenge
	if c.blank {
		blank = blankChallenge(p)
	}
	return cs.Parallel(p.Challenges, func(i int, sub *synth.CS) error {
		ch := &blank
		if !c.blank {
			ch = &c.Challenges[i]
		}
		sub.PushIndex("challenge", i)
		defer sub.Pop()
		if err := synthesizeChallenge(sub, p, ch, idBits, commD, commC, commRLast); err != nil {
			return fmt.Errorf("challenge %d: %w", i, err)
		}
		return nil
	})
}

func sha256Hash(int) (merkle.HashCircuit, error) { return merkle.Sha256NodeCircuit, nil }

func poseidonHash(arity int) (merkle.HashCircuit, error) {
	p, err := poseidon.New(arity)
	if err != nil {
		return nil, err
	}
	return merkle.PoseidonNodeCircuit(p), nil
}

// synthesizeChallenge is params.rs Proof::synthesize.
func synthesizeChallenge(cs *synth.CS, p Params, ch *Challenge, idBits []boolean.Bit, commD, commC, commRLast num.Num) error {
	inclusion := func(name string, leaf num.Num, index uint64, arities []int, path [][]fr.Element, root num.Num, h func(int) (merkle.HashCircuit, error)) error {
		cs.Push(name)
		defer cs.Pop()
		return merkle.PoR(cs, leaf, index, arities, path, root, h)
	}
	cs.Push("data_leaf")
	dataLeaf := num.Alloc(cs, ch.DataLeaf)
	cs.Pop()
	binary := make([]int, p.CommDDepth)
	for i := range binary {
		binary[i] = 2
	}
	if err := inclusion("comm_d_inclusion", dataLeaf, ch.Node, binary, ch.CommDPath, commD, sha256Hash); err != nil {
		return err
	}
	parents := append(ch.DRG[:len(ch.DRG):len(ch.DRG)], ch.Exp[:]...)
	cols := make([][]num.Num, len(parents))
	for i := range parents {
		cs.PushIndex("parent_num", i)
		cols[i] = AllocColumn(cs, parents[i].Rows)
		cs.Pop()
		cs.PushIndex("parent_constraint", i)
		val, err := HashColumn(cs, cols[i])
		cs.Pop()
		if err != nil {
			return err
		}
		if err := inclusion("parent_inclusion", val, parents[i].Index, p.TreeRC, parents[i].Path, commC, poseidonHash); err != nil {
			return err
		}
	}
	cs.Push("challenge")
	node := u64.Alloc(cs, ch.Node)
	cs.Pop()
	cs.Push("challenge input")
	node.PackIntoInput(cs)
	cs.Pop()
	labels := make([]num.Num, p.Layers)
	for layer := 1; layer <= p.Layers; layer++ {
		cs.PushIndex("labeling", layer)
		var bits [][]boolean.Bit
		for i := 0; i < DRGParents; i++ {
			bits = append(bits, ReverseBitNumbering(cols[i][layer-1].ToBitsLE(cs, nil)))
		}
		if layer > 1 {
			for i := DRGParents; i < DRGParents+ExpParents; i++ {
				bits = append(bits, ReverseBitNumbering(cols[i][layer-2].ToBitsLE(cs, nil)))
			}
		}
		// Repeat the parents to 37: 6 → 6·6 + 1, 14 → 14 + 14 + 9.
		expanded := make([][]boolean.Bit, 0, TotalParents)
		for len(expanded) < TotalParents {
			expanded = append(expanded, bits[len(expanded)%len(bits)])
		}
		cs.Push("create_label")
		label, err := CreateLabel(cs, idBits, expanded, u32.Constant(uint32(layer)), node)
		cs.Pop()
		cs.Pop()
		if err != nil {
			return err
		}
		labels[layer-1] = label
	}
	cs.Push("encode_node")
	encoded := num.Add(cs, labels[p.Layers-1], dataLeaf)
	cs.Pop()
	if err := inclusion("comm_r_last_data_inclusion", encoded, ch.Node, p.TreeRC, ch.CommRLastPath, commRLast, poseidonHash); err != nil {
		return err
	}
	cs.Push("c_x_column_hash")
	colHash, err := HashColumn(cs, labels)
	cs.Pop()
	if err != nil {
		return err
	}
	return inclusion("c_x_inclusion", colHash, ch.Node, p.TreeRC, ch.CommCPath, commC, poseidonHash)
}

// Count returns the constraints, inputs (One included) and aux variables of the circuit of p
// from blank circuits of zero and one challenge: challenges are independent and alike, so
// the total is the shared part plus Challenges times one challenge's.
func Count(p Params) (constraints, inputs, aux int, err error) {
	zero, one := p, p
	zero.Challenges, one.Challenges = 0, 1
	c0, i0, a0, err := synth.Count(Blank(zero))
	if err != nil {
		return 0, 0, 0, err
	}
	c1, i1, a1, err := synth.Count(Blank(one))
	if err != nil {
		return 0, 0, 0, err
	}
	n := p.Challenges
	return c0 + n*(c1-c0), i0 + n*(i1-i0), a0 + n*(a1-a0), nil
}
