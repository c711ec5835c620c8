package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// HashCircuit returns Poseidon of inputs (len Arity) in cs as neptune 11's legacy circuit
// (src/circuit.rs poseidon_hash) builds it, variable for variable and constraint for
// constraint; see the package comment for its shape and count.
//
// When cs records its combinations (Compile), the hash's rows are those of p's template, the
// circuit recorded once per Params and renamed to inputs (see template): the same system at a
// fraction of the cost.
func (p *Params) HashCircuit(cs *synth.CS, inputs []num.Num) (num.Num, error) {
	if len(inputs) != p.Arity {
		return num.Num{}, fmt.Errorf("poseidon: hash %d inputs with arity %d", len(inputs), p.Arity)
	}
	if cs.RecordsLC() {
		t, err := p.template()
		if err != nil {
			return num.Num{}, err
		}
		return t.replay(cs, p, inputs), nil
	}
	return p.hashTermByTerm(cs, inputs), nil
}

// hashTermByTerm is HashCircuit building every combination term by term, as neptune does;
// inputs has len Arity.
func (p *Params) hashTermByTerm(cs *synth.CS, inputs []num.Num) num.Num {
	buf := make([]elt, 2*p.Width)
	h := &circuitHasher{cs: cs, p: p, rec: cs.RecordsLC(), el: buf[:p.Width], next: buf[p.Width:]}
	h.el[0] = h.constant(p.DomainTag)
	for i, in := range inputs {
		h.el[i+1] = elt{allocated: true, v: in.Var, val: in.Value}
	}
	return h.hash()
}

// elt is neptune's Elt: an allocated variable, or a linear combination (a num::Num) with its
// value. lc is only built when the system records combinations.
type elt struct {
	allocated bool
	v         synth.Variable // allocated
	lc        synth.LC       // !allocated
	val       fr.Element
}

// circuitHasher is neptune's PoseidonCircuit: the state, the offset into the compressed round
// constants and the number of linear layers applied so far.
type circuitHasher struct {
	cs    *synth.CS
	p     *Params
	rec   bool
	el    []elt
	next  []elt                // the linear layers' output, swapped with el
	vals  [maxWidth]fr.Element // scratch of values
	off   int
	round int
}

// constant returns the Num c·One (neptune Elt::num_from_fr).
func (h *circuitHasher) constant(c fr.Element) elt {
	e := elt{val: c}
	if h.rec {
		e.lc = synth.NewLC().AddTerm(c, synth.One)
	}
	return e
}

func (h *circuitHasher) hash() num.Num {
	cs, half := h.cs, h.p.FullRounds/2
	cs.Push("first round")
	h.fullRound(true, false)
	cs.Pop()
	for i := 1; i < half; i++ {
		cs.PushIndex("initial full round", i)
		h.fullRound(false, false)
		cs.Pop()
	}
	for i := 0; i < h.p.Partial; i++ {
		cs.PushIndex("partial round", i)
		h.partialRound()
		cs.Pop()
	}
	for i := 0; i < half-1; i++ {
		cs.PushIndex("final full round", i)
		h.fullRound(false, false)
		cs.Pop()
	}
	cs.Push("terminal full round")
	h.fullRound(false, true)
	cs.Pop()
	cs.Push("hash result")
	v := h.ensureAllocated(h.el[1])
	cs.Pop()
	return num.Num{Var: v, Value: h.el[1].val}
}

// fullRound applies the S-box to every element and the linear layer. The first round adds its
// round constants before the S-box (the constant tag's S-box is computed natively); every round
// but the last adds the next round's compressed constants after it.
func (h *circuitHasher) fullRound(first, last bool) {
	t, c := h.p.Width, h.p.opt.Compressed
	var pre, post []fr.Element
	if first {
		pre = c[h.off : h.off+t]
		h.off += t
	}
	if first || !last {
		post = c[h.off : h.off+t]
		h.off += t
	}
	for i := range h.el {
		switch {
		case first && i == 0:
			x := h.el[0].val
			x.Add(&x, &pre[0])
			sbox(&x)
			x.Add(&x, &post[0])
			h.el[0] = h.constant(x)
		case first:
			h.cs.PushIndex("quintic s-box", i)
			h.el[i] = h.sboxPreAdd(h.el[i], &pre[i], &post[i])
			h.cs.Pop()
		default:
			var rk *fr.Element
			if post != nil {
				rk = &post[i]
			}
			h.cs.PushIndex("quintic s-box", i)
			h.el[i] = h.sbox(h.el[i], rk)
			h.cs.Pop()
		}
	}
	h.productMDS()
}

// partialRound applies the S-box to element 0, adding its single compressed constant after it,
// and the linear layer.
func (h *circuitHasher) partialRound() {
	rk := &h.p.opt.Compressed[h.off]
	h.off++
	h.cs.Push("solitary quintic s-box")
	h.el[0] = h.sbox(h.el[0], rk)
	h.cs.Pop()
	h.productMDS()
}

// ensureAllocated returns e's variable, allocating a Num and enforcing lc·1 = v.
func (h *circuitHasher) ensureAllocated(e elt) synth.Variable {
	if e.allocated {
		return e.v
	}
	v := h.cs.Alloc(e.val)
	if h.rec {
		h.cs.Enforce("enforce num allocation preserves lc", e.lc, synth.V(synth.One), synth.V(v))
	} else {
		h.cs.Enforce("enforce num allocation preserves lc", nil, nil, nil)
	}
	return v
}

// square allocates x² and enforces x·x = x² (bellpepper AllocatedNum::square).
func (h *circuitHasher) square(x synth.Variable, xv fr.Element) (synth.Variable, fr.Element) {
	var sq fr.Element
	sq.Square(&xv)
	r := h.cs.Alloc(sq)
	if h.rec {
		h.cs.Enforce("squaring constraint", synth.V(x), synth.V(x), synth.V(r))
	} else {
		h.cs.Enforce("squaring constraint", nil, nil, nil)
	}
	return r, sq
}

// sbox is neptune's quintic_s_box: l = e allocated, l², l⁴, then l⁵ + post by mulSum.
func (h *circuitHasher) sbox(e elt, post *fr.Element) elt {
	h.cs.Push("S-box input")
	l := h.ensureAllocated(e)
	h.cs.Pop()
	l2, l2v := h.square(l, e.val)
	l4, l4v := h.square(l2, l2v)
	return h.mulSum(l4, l4v, l, e.val, nil, post)
}

// sboxPreAdd is neptune's quintic_s_box_pre_add for an allocated l: (l + pre)² by squareSum,
// its square, then l⁴·(l + pre) + post by mulSum.
func (h *circuitHasher) sboxPreAdd(e elt, pre, post *fr.Element) elt {
	h.cs.Push("S-box input")
	l := h.ensureAllocated(e)
	h.cs.Pop()
	var s, l2v fr.Element
	s.Add(&e.val, pre)
	l2v.Square(&s)
	l2 := h.cs.Alloc(l2v)
	if h.rec {
		lp := synth.V(l).AddTerm(*pre, synth.One)
		h.cs.Enforce("squared sum constraint", lp, lp, synth.V(l2))
	} else {
		h.cs.Enforce("squared sum constraint", nil, nil, nil)
	}
	l4, l4v := h.square(l2, l2v)
	return h.mulSum(l4, l4v, l, e.val, pre, post)
}

// mulSum allocates r = a·(b + pre) + post and enforces (b + pre·1)·a = r − post·1, with the
// pre and post terms present only when given (neptune mul_sum).
func (h *circuitHasher) mulSum(a synth.Variable, av fr.Element, b synth.Variable, bv fr.Element, pre, post *fr.Element) elt {
	rv := bv
	if pre != nil {
		rv.Add(&rv, pre)
	}
	rv.Mul(&rv, &av)
	if post != nil {
		rv.Add(&rv, post)
	}
	r := h.cs.Alloc(rv)
	if h.rec {
		la := synth.V(b)
		if pre != nil {
			la = la.AddTerm(*pre, synth.One)
		}
		lc := synth.V(r)
		if post != nil {
			var neg fr.Element
			neg.Neg(post)
			lc = lc.AddTerm(neg, synth.One)
		}
		h.cs.Enforce("mul sum constraint", la, synth.V(a), lc)
	} else {
		h.cs.Enforce("mul sum constraint", nil, nil, nil)
	}
	return elt{allocated: true, v: r, val: rv}
}

// productMDS applies the round's linear layer: the pre-sparse matrix after the last initial
// full round, a sparse matrix after each partial round, M otherwise.
func (h *circuitHasher) productMDS() {
	half, o := h.p.FullRounds/2, h.p.opt
	switch {
	case h.round == half-1:
		h.productMatrix(o.PreSparse, o.preSparseCols)
	case h.round > half-1 && h.round < half+h.p.Partial:
		h.productSparse(&o.Sparse[h.round-half])
	default:
		h.productMatrix(h.p.MDS, o.mdsCols)
	}
	h.round++
}

// scaledInto appends s·e to the Num acc (neptune Elt::scale followed by Num::add).
func (h *circuitHasher) scaledInto(acc *elt, e *elt, s *fr.Element) {
	var x fr.Element
	x.Mul(&e.val, s)
	acc.val.Add(&acc.val, &x)
	if !h.rec {
		return
	}
	if e.allocated {
		acc.lc = acc.lc.AddTerm(*s, e.v)
		return
	}
	for _, t := range e.lc {
		t.Coeff.Mul(&t.Coeff, s)
		acc.lc = append(acc.lc, t)
	}
}

// output returns the linear layer's output buffer, cleared: each element the empty Num.
func (h *circuitHasher) output() []elt {
	out := h.next
	clear(out)
	return out
}

// swap makes out, filled by the linear layer, the state.
func (h *circuitHasher) swap(out []elt) { h.el, h.next = out, h.el }

// addInto appends e to the Num acc: scaledInto with s = 1, without multiplying.
func (h *circuitHasher) addInto(acc *elt, e *elt) {
	acc.val.Add(&acc.val, &e.val)
	if !h.rec {
		return
	}
	if e.allocated {
		acc.lc = acc.lc.Add(e.v)
		return
	}
	acc.lc = append(acc.lc, e.lc...)
}

// values returns the state's values as a vector (in h.vals), for the linear layers when no
// combination is recorded.
func (h *circuitHasher) values() fr.Vector {
	s := fr.Vector(h.vals[:len(h.el)])
	for i := range h.el {
		s[i] = h.el[i].val
	}
	return s
}

// productMatrix sets element j to Σ_i el_i·m[i][j] (neptune product_mds_with_matrix); cols
// are m's columns, for the values alone when no combination is recorded.
func (h *circuitHasher) productMatrix(m [][]fr.Element, cols []fr.Vector) {
	out := h.output()
	if !h.rec {
		s := h.values()
		for j := range out {
			out[j].val = s.InnerProduct(cols[j])
		}
		h.swap(out)
		return
	}
	for j := range out {
		for i := range h.el {
			h.scaledInto(&out[j], &h.el[i], &m[i][j])
		}
	}
	h.swap(out)
}

// productSparse sets element 0 to Σ_i el_i·WHat_i and element j ≥ 1 to el_j + el_0·VRest_{j−1}
// (neptune product_mds_with_sparse_matrix).
func (h *circuitHasher) productSparse(m *SparseMatrix) {
	out := h.output()
	if h.rec {
		for i := range h.el {
			h.scaledInto(&out[0], &h.el[i], &m.WHat[i])
		}
	} else {
		s := h.values()
		out[0].val = s.InnerProduct(m.WHat)
	}
	for j := 1; j < len(h.el); j++ {
		h.addInto(&out[j], &h.el[j])
		h.scaledInto(&out[j], &h.el[0], &m.VRest[j-1])
	}
	h.swap(out)
}
