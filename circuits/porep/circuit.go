package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/sha256"
)

// Circuit is the PoRep-shaped circuit of one partition of a sector, with its witness.
type Circuit struct {
	s          *Sector
	partition  int
	challenges []uint64
}

// Circuit returns the circuit of partition (0 ≤ partition < Cfg.Partitions).
func (s *Sector) Circuit(partition int) *Circuit {
	return &Circuit{s: s, partition: partition, challenges: s.Challenges(partition)}
}

// PublicInputs returns the public inputs (without One) the circuit allocates, computed
// natively: replica id, comm_d, comm_r, then per challenge the packed path indices and the
// challenge, in Filecoin's order.
func (c *Circuit) PublicInputs() []fr.Element {
	s := c.s
	out := []fr.Element{s.ReplicaID, s.CommD, s.CommR}
	idx := func(v uint64) fr.Element { var e fr.Element; e.SetUint64(v); return e }
	for _, ch := range c.challenges {
		out = append(out, idx(ch)) // comm_d path bits packed: the index itself
		drg, exp := c.s.Parents(ch)
		for _, p := range drg {
			out = append(out, idx(p))
		}
		for _, p := range exp {
			out = append(out, idx(p))
		}
		out = append(out, idx(ch), idx(ch), idx(ch))
	}
	return out
}

// Synthesize writes the circuit to cs.
func (c *Circuit) Synthesize(cs *synth.CS) error {
	s := c.s
	cs.Push("replica_id")
	replicaID := num.Alloc(cs, s.ReplicaID)
	replicaID.Inputize(cs)
	idBits := replicaID.ToBitsLE(cs, nil)
	cs.Pop()
	idBits = reverseBitNumbering(idBits)
	cs.Push("comm_d")
	commD := num.Alloc(cs, s.CommD)
	commD.Inputize(cs)
	cs.Pop()
	cs.Push("comm_r")
	commR := num.Alloc(cs, s.CommR)
	commR.Inputize(cs)
	cs.Pop()
	commRLast := num.Alloc(cs, s.CommRLast)
	commC := num.Alloc(cs, s.CommC)
	cs.Push("H_comm_c_comm_r_last")
	h, err := s.hash2.HashCircuit(cs, []num.Num{commC, commRLast})
	if err != nil {
		return err
	}
	num.EnforceEqual(cs, commR, h)
	cs.Pop()
	// Challenges are independent: Synthesize runs them concurrently.
	return cs.Parallel(len(c.challenges), func(i int, sub *synth.CS) error {
		ch := c.challenges[i]
		sub.PushIndex("challenge", i)
		err := c.challenge(sub, &labelScratch{}, ch, idBits, commD, commC, commRLast)
		sub.Pop()
		if err != nil {
			return fmt.Errorf("challenge %d (node %d): %w", i, ch, err)
		}
		return nil
	})
}

// labelScratch holds buffers reused across labels.
type labelScratch struct {
	msg     []boolean.Bit
	parents [][]boolean.Bit
	le      []boolean.Bit
}

// inclusion proves leaf at index in tree against root and exposes the index bits
// (rust-fil-proofs por.rs PoRCircuit::synthesize with private = true).
func inclusion(cs *synth.CS, tree *merkle.Tree, leaf num.Num, index uint64, root num.Num, h merkle.HashCircuit) error {
	computed, bits, err := merkle.PathCircuit(cs, tree.Arity, leaf, index, tree.Path(index), h)
	if err != nil {
		return err
	}
	cs.Push("path")
	num.PackIntoInputs(cs, bits)
	cs.Pop()
	cs.Push("enforce root is correct")
	num.EnforceEqual(cs, computed, root)
	cs.Pop()
	return nil
}

func (c *Circuit) challenge(cs *synth.CS, w *labelScratch, ch uint64, idBits []boolean.Bit, commD, commC, commRLast num.Num) error {
	s := c.s
	cfg := s.Cfg
	cs.Push("data_leaf")
	dataLeaf := num.Alloc(cs, s.Data[ch])
	cs.Pop()
	cs.Push("comm_d_inclusion")
	if err := inclusion(cs, s.TreeD, dataLeaf, ch, commD, merkle.Sha256NodeCircuit); err != nil {
		return err
	}
	cs.Pop()
	treeHash := merkle.PoseidonNodeCircuit(s.tree)
	// Parent columns: allocated, hashed and proven in comm_c.
	drg, exp := s.Parents(ch)
	parentNodes := append(drg[:len(drg):len(drg)], exp[:]...)
	cols := make([][]num.Num, len(parentNodes))
	for i, p := range parentNodes {
		cs.PushIndex("parent", i)
		col := s.column(p)
		cols[i] = make([]num.Num, cfg.Layers)
		for l := range col {
			cols[i][l] = num.Alloc(cs, col[l])
		}
		cs.Push("column hash")
		val, err := s.colHash.HashCircuit(cs, cols[i])
		cs.Pop()
		if err != nil {
			return err
		}
		cs.Push("inclusion")
		err = inclusion(cs, s.TreeC, val, p, commC, treeHash)
		cs.Pop()
		cs.Pop()
		if err != nil {
			return err
		}
	}
	// The challenge as 64 bits, exposed.
	cs.Push("challenge")
	chBits := make([]boolean.Bit, 64)
	for i := range chBits {
		chBits[i] = boolean.Alloc(cs, ch>>uint(i)&1 == 1)
	}
	num.PackIntoInputs(cs, chBits)
	cs.Pop()
	// Labels, layer by layer.
	labels := make([]num.Num, cfg.Layers)
	for layer := 1; layer <= cfg.Layers; layer++ {
		cs.PushIndex("labeling", layer)
		w.parents = w.parents[:0]
		for i := 0; i < DRGParents; i++ {
			cs.PushIndex("drg parent bits", i)
			w.parents = append(w.parents, reverseBitNumbering(cols[i][layer-1].ToBitsLE(cs, nil)))
			cs.Pop()
		}
		if layer > 1 {
			for i := DRGParents; i < DRGParents+ExpParents; i++ {
				cs.PushIndex("exp parent bits", i)
				w.parents = append(w.parents, reverseBitNumbering(cols[i][layer-2].ToBitsLE(cs, nil)))
				cs.Pop()
			}
		}
		cs.Push("create_label")
		labels[layer-1] = w.createLabel(cs, idBits, layer, chBits)
		cs.Pop()
		cs.Pop()
	}
	// Encoding and replica inclusion.
	cs.Push("encode_node")
	encoded := num.Add(cs, labels[cfg.Layers-1], dataLeaf)
	cs.Pop()
	cs.Push("comm_r_last_data_inclusion")
	if err := inclusion(cs, s.TreeR, encoded, ch, commRLast, treeHash); err != nil {
		return err
	}
	cs.Pop()
	cs.Push("c_x_column_hash")
	colHash, err := s.colHash.HashCircuit(cs, labels)
	cs.Pop()
	if err != nil {
		return err
	}
	cs.Push("c_x_inclusion")
	err = inclusion(cs, s.TreeC, colHash, ch, commC, treeHash)
	cs.Pop()
	return err
}

// createLabel is rust-fil-proofs create_label_circuit: SHA-256 of replica id ‖ layer ‖ node ‖
// pad ‖ 37 parents, packed to 254 bits.
func (w *labelScratch) createLabel(cs *synth.CS, idBits []boolean.Bit, layer int, chBits []boolean.Bit) num.Num {
	msg := w.msg[:0]
	msg = append(msg, idBits...)
	for i := 31; i >= 0; i-- {
		msg = append(msg, boolean.Constant(uint32(layer)>>uint(i)&1 == 1))
	}
	for i := 63; i >= 0; i-- {
		msg = append(msg, chBits[i])
	}
	for len(msg) < 512 {
		msg = append(msg, boolean.Constant(false))
	}
	for i := 0; i < TotalParents; i++ {
		msg = append(msg, w.parents[i%len(w.parents)]...)
	}
	w.msg = msg
	digest := sha256.Hash(cs, msg)
	w.le = reverseBitNumberingInto(w.le[:0], digest)
	return num.PackBits(cs, w.le[:num.Capacity])
}

// reverseBitNumbering pads bits to whole bytes with constant zeros and reverses the bit order
// within each byte (rust-fil-proofs util::reverse_bit_numbering).
func reverseBitNumbering(bits []boolean.Bit) []boolean.Bit {
	return reverseBitNumberingInto(make([]boolean.Bit, 0, (len(bits)+7)/8*8), bits)
}

func reverseBitNumberingInto(dst, bits []boolean.Bit) []boolean.Bit {
	for len(bits)%8 != 0 {
		bits = append(bits, boolean.Constant(false))
	}
	for i := 0; i < len(bits); i += 8 {
		for j := 7; j >= 0; j-- {
			dst = append(dst, bits[i+j])
		}
	}
	return dst
}
