package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

func sbox(x *fr.Element) {
	var x2, x4 fr.Element
	x2.Square(x)
	x4.Square(&x2)
	x.Mul(x, &x4)
}

// mulMDS sets s = M·s using scratch tmp (len Width).
func (p *Params) mulMDS(s, tmp []fr.Element) {
	var t fr.Element
	for i := range tmp {
		var acc fr.Element
		row := p.MDS[i]
		for j := range s {
			t.Mul(&row[j], &s[j])
			acc.Add(&acc, &t)
		}
		tmp[i] = acc
	}
	copy(s, tmp)
}

// Hash returns Poseidon of inputs (len Arity): the permutation of [tag, inputs…], element 1.
func (p *Params) Hash(inputs []fr.Element) (fr.Element, error) {
	if len(inputs) != p.Arity {
		return fr.Element{}, fmt.Errorf("poseidon: hash %d inputs with arity %d", len(inputs), p.Arity)
	}
	var buf [2 * 37]fr.Element
	s, tmp := buf[:p.Width], buf[p.Width:2*p.Width]
	s[0] = p.DomainTag
	copy(s[1:], inputs)
	half := p.FullRounds / 2
	rounds := p.FullRounds + p.Partial
	for r := 0; r < rounds; r++ {
		rc := p.RoundConstants[r*p.Width : (r+1)*p.Width]
		for i := range s {
			s[i].Add(&s[i], &rc[i])
		}
		if r < half || r >= half+p.Partial {
			for i := range s {
				sbox(&s[i])
			}
		} else {
			sbox(&s[0])
		}
		p.mulMDS(s, tmp)
	}
	return s[1], nil
}

// HashCircuit returns Poseidon of inputs (len Arity) in cs, allocated as one variable. See the
// package comment for its constraint count.
func (p *Params) HashCircuit(cs *synth.CS, inputs []num.Num) (num.Num, error) {
	if len(inputs) != p.Arity {
		return num.Num{}, fmt.Errorf("poseidon: hash %d inputs with arity %d", len(inputs), p.Arity)
	}
	if cs.RecordsLC() {
		return p.hashShape(cs, inputs), nil
	}
	return p.hashWitness(cs, inputs), nil
}

// Constraint names: S-box input allocation, x², x⁴, x⁵ and the result.
const (
	nameInput  = "sbox input"
	nameX2     = "x^2"
	nameX4     = "x^4"
	nameX5     = "x^5"
	nameResult = "hash result"
)

// hashWitness computes the values and allocates them, counting the constraints the shape holds.
func (p *Params) hashWitness(cs *synth.CS, inputs []num.Num) num.Num {
	var buf [2 * 37]fr.Element
	s, tmp := buf[:p.Width], buf[p.Width:2*p.Width]
	s[0] = p.DomainTag
	for i := range inputs {
		s[i+1] = inputs[i].Value
	}
	half := p.FullRounds / 2
	rounds := p.FullRounds + p.Partial
	sb := func(x *fr.Element, allocInput bool) {
		if allocInput {
			cs.Alloc(*x)
			cs.Enforce(nameInput, nil, nil, nil)
		}
		var x2, x4 fr.Element
		x2.Square(x)
		cs.Alloc(x2)
		cs.Enforce(nameX2, nil, nil, nil)
		x4.Square(&x2)
		cs.Alloc(x4)
		cs.Enforce(nameX4, nil, nil, nil)
		x.Mul(x, &x4)
		cs.Alloc(*x)
		cs.Enforce(nameX5, nil, nil, nil)
	}
	for r := 0; r < rounds; r++ {
		cs.PushIndex("round", r)
		rc := p.RoundConstants[r*p.Width : (r+1)*p.Width]
		for i := range s {
			s[i].Add(&s[i], &rc[i])
		}
		switch {
		case r == 0:
			sbox(&s[0]) // the tag is a constant
			for i := 1; i < p.Width; i++ {
				cs.PushIndex("sbox", i)
				sb(&s[i], false)
				cs.Pop()
			}
		case r < half || r >= half+p.Partial:
			for i := range s {
				cs.PushIndex("sbox", i)
				sb(&s[i], true)
				cs.Pop()
			}
		default:
			cs.PushIndex("sbox", 0)
			sb(&s[0], true)
			cs.Pop()
		}
		p.mulMDS(s, tmp)
		cs.Pop()
	}
	v := cs.Alloc(s[1])
	cs.Enforce(nameResult, nil, nil, nil)
	return num.Num{Var: v, Value: s[1]}
}

// lcState tracks each state element as a dense combination over basis (One first).
type lcState struct {
	basis []synth.Variable
	coef  [][]fr.Element // coef[i][k]: coefficient of basis[k] in element i
}

func (st *lcState) lc(i int) synth.LC {
	lc := make(synth.LC, 0, len(st.basis))
	for k, v := range st.basis {
		if !st.coef[i][k].IsZero() {
			lc = append(lc, synth.Term{Coeff: st.coef[i][k], Var: v})
		}
	}
	return lc
}

// hashShape computes the values and records the constraints with their combinations.
func (p *Params) hashShape(cs *synth.CS, inputs []num.Num) num.Num {
	t := p.Width
	val := make([]fr.Element, t)
	val[0] = p.DomainTag
	st := &lcState{basis: []synth.Variable{synth.One}, coef: make([][]fr.Element, t)}
	// Element 0 is the constant tag; element i ≥ 1 is input i.
	for i := range st.coef {
		st.coef[i] = make([]fr.Element, 1+t)
	}
	st.coef[0][0] = p.DomainTag
	for i := range inputs {
		st.basis = append(st.basis, inputs[i].Var)
		st.coef[i+1][i+1].SetOne()
		val[i+1] = inputs[i].Value
	}
	// Pad basis to 1 + t columns (input columns 1..arity, one spare).
	st.basis = append(st.basis, synth.One)
	for i := range st.coef {
		st.coef[i] = st.coef[i][:len(st.basis)]
	}
	one := synth.V(synth.One)
	// sbox applies x⁵ to element i (its combination plus nothing: constants already added),
	// allocating the input unless it is a plain variable in the first round.
	sb := func(i int, first bool) synth.Variable {
		in := st.lc(i)
		if !first {
			l := cs.Alloc(val[i])
			cs.Enforce(nameInput, in, one, synth.V(l))
			in = synth.V(l)
		}
		var x2, x4 fr.Element
		x2.Square(&val[i])
		v2 := cs.Alloc(x2)
		cs.Enforce(nameX2, in, in, synth.V(v2))
		x4.Square(&x2)
		v4 := cs.Alloc(x4)
		cs.Enforce(nameX4, synth.V(v2), synth.V(v2), synth.V(v4))
		val[i].Mul(&val[i], &x4)
		v5 := cs.Alloc(val[i])
		cs.Enforce(nameX5, synth.V(v4), in, synth.V(v5))
		return v5
	}
	half := p.FullRounds / 2
	rounds := p.FullRounds + p.Partial
	tmp := make([]fr.Element, t)
	for r := 0; r < rounds; r++ {
		cs.PushIndex("round", r)
		rc := p.RoundConstants[r*t : (r+1)*t]
		for i := 0; i < t; i++ {
			val[i].Add(&val[i], &rc[i])
			st.coef[i][0].Add(&st.coef[i][0], &rc[i]) // basis[0] = One
		}
		full := r < half || r >= half+p.Partial
		if full {
			// Every element goes through the S-box: the new basis is One and the t outputs.
			outs := make([]synth.Variable, t)
			var c0 fr.Element
			if r == 0 {
				sbox(&val[0]) // constant tag: stays on One
				c0 = val[0]
			}
			for i := 0; i < t; i++ {
				if r == 0 && i == 0 {
					continue
				}
				cs.PushIndex("sbox", i)
				outs[i] = sb(i, r == 0)
				cs.Pop()
			}
			st.basis = append(st.basis[:0], synth.One)
			for i := 0; i < t; i++ {
				st.basis = append(st.basis, outs[i])
			}
			for i := 0; i < t; i++ {
				st.coef[i] = append(st.coef[i][:0], make([]fr.Element, 1+t)...)
				if r == 0 && i == 0 {
					st.coef[i][0] = c0
					st.basis[1] = synth.One
				} else {
					st.coef[i][1+i].SetOne()
				}
			}
		} else {
			cs.PushIndex("sbox", 0)
			out := sb(0, false)
			cs.Pop()
			st.basis = append(st.basis, out)
			for i := 0; i < t; i++ {
				st.coef[i] = append(st.coef[i], fr.Element{})
			}
			for k := range st.coef[0] {
				st.coef[0][k].SetZero()
			}
			st.coef[0][len(st.basis)-1].SetOne()
		}
		// MDS on values and on the coefficient vectors.
		p.mulMDS(val, tmp)
		nb := len(st.basis)
		next := make([][]fr.Element, t)
		var x fr.Element
		for i := 0; i < t; i++ {
			next[i] = make([]fr.Element, nb)
			for j := 0; j < t; j++ {
				m := &p.MDS[i][j]
				for k := 0; k < nb; k++ {
					if st.coef[j][k].IsZero() {
						continue
					}
					x.Mul(m, &st.coef[j][k])
					next[i][k].Add(&next[i][k], &x)
				}
			}
		}
		st.coef = next
		cs.Pop()
	}
	res := cs.Alloc(val[1])
	cs.Enforce(nameResult, st.lc(1), one, synth.V(res))
	return num.Num{Var: res, Value: val[1]}
}
