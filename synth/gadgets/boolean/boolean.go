package boolean

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

type kind uint8

const (
	kConst kind = iota // no variable; val is the value
	kIs                // value = var
	kNot               // value = 1 − var
)

// Bit is a Boolean in a circuit: a constant, an allocated variable b ∈ {0,1}, or 1 − b.
// The zero value is the constant false.
type Bit struct {
	v   synth.Variable
	k   kind
	val bool // the Bit's value (after negation)
}

var (
	frOne    = fr.One()
	frMinus1 = func() fr.Element { var m fr.Element; m.Neg(&frOne); return m }()
	frTwo    = func() fr.Element { var t fr.Element; t.SetUint64(2); return t }()
)

// FrBool returns 1 for true and 0 for false.
func FrBool(b bool) fr.Element {
	if b {
		return frOne
	}
	return fr.Element{}
}

// Constant returns the constant bit b.
func Constant(b bool) Bit { return Bit{k: kConst, val: b} }

// FromVariable returns the bit held by variable v whose value is val. The caller guarantees
// that v is constrained to {0,1}.
func FromVariable(v synth.Variable, val bool) Bit { return Bit{v: v, k: kIs, val: val} }

// Alloc allocates a variable b with value val and enforces booleanity (1 − b)·b = 0 (one
// constraint named "boolean").
func Alloc(cs *synth.CS, val bool) Bit {
	v := cs.Alloc(FrBool(val))
	if cs.RecordsLC() {
		cs.Enforce("boolean", synth.LC{{Coeff: frOne, Var: synth.One}, {Coeff: frMinus1, Var: v}}, synth.V(v), nil)
	} else {
		cs.Enforce("boolean", nil, nil, nil)
	}
	return Bit{v: v, k: kIs, val: val}
}

// AllocBits allocates one bit per value, appending them to dst.
func AllocBits(cs *synth.CS, dst []Bit, vals []bool) []Bit {
	for _, b := range vals {
		dst = append(dst, Alloc(cs, b))
	}
	return dst
}

// Value returns the bit's value.
func (b Bit) Value() bool { return b.val }

// IsConstant reports whether b is a constant.
func (b Bit) IsConstant() bool { return b.k == kConst }

// Variable returns the variable behind b and whether b is its negation; ok is false for a
// constant.
func (b Bit) Variable() (v synth.Variable, negated, ok bool) {
	return b.v, b.k == kNot, b.k != kConst
}

// Not returns 1 − b at no cost.
func (b Bit) Not() Bit {
	switch b.k {
	case kIs:
		b.k = kNot
	case kNot:
		b.k = kIs
	}
	b.val = !b.val
	return b
}

// varVal returns the value of the variable behind a non-constant bit.
func (b Bit) varVal() bool { return b.val != (b.k == kNot) }

// AppendLC returns lc + coeff·b: nothing for constant 0, coeff·One for constant 1, coeff·v for
// an allocated v and coeff·One − coeff·v for its negation.
func (b Bit) AppendLC(lc synth.LC, coeff fr.Element) synth.LC {
	switch b.k {
	case kConst:
		if b.val {
			lc = append(lc, synth.Term{Coeff: coeff, Var: synth.One})
		}
	case kIs:
		lc = append(lc, synth.Term{Coeff: coeff, Var: b.v})
	case kNot:
		var n fr.Element
		n.Neg(&coeff)
		lc = append(lc, synth.Term{Coeff: coeff, Var: synth.One}, synth.Term{Coeff: n, Var: b.v})
	}
	return lc
}

// AppendNegLC returns lc − coeff·b.
func (b Bit) AppendNegLC(lc synth.LC, coeff fr.Element) synth.LC {
	var n fr.Element
	n.Neg(&coeff)
	return b.AppendLC(lc, n)
}

// LC returns the combination 1·b.
func (b Bit) LC() synth.LC { return b.AppendLC(make(synth.LC, 0, 2), frOne) }

// EnforceEqual enforces a = b as bellpepper's Boolean::enforce_equal: nothing for two equal
// constants; 0·0 = 1 − x ("enforce equal to one") when one side is the constant 1 and x the
// other; 0·0 = x ("enforce equal to zero") against the constant 0; 0·0 = a − b otherwise. Two
// constants that differ make the circuit unsatisfiable (bellpepper returns Unsatisfiable): the
// constraint 0·0 = 1 named "enforce equal" is emitted so that Check reports it.
func EnforceEqual(cs *synth.CS, a, b Bit) {
	if a.k == kConst && b.k == kConst {
		if a.val != b.val {
			cs.Enforce("enforce equal", nil, nil, record(cs, synth.V(synth.One)))
		}
		return
	}
	switch {
	case a.k == kConst && a.val, b.k == kConst && b.val:
		x := a
		if a.k == kConst {
			x = b
		}
		cs.Enforce("enforce equal to one", nil, nil, record(cs, x.AppendNegLC(synth.V(synth.One), frOne)))
	case a.k == kConst || b.k == kConst:
		x := a
		if a.k == kConst {
			x = b
		}
		cs.Enforce("enforce equal to zero", nil, nil, record(cs, x.AppendLC(nil, frOne)))
	default:
		cs.Enforce("enforce equal", nil, nil, record(cs, b.AppendNegLC(a.AppendLC(nil, frOne), frOne)))
	}
}

// record returns lc when cs records combinations and nil otherwise.
func record(cs *synth.CS, lc synth.LC) synth.LC {
	if cs.RecordsLC() {
		return lc
	}
	return nil
}

// allocResult allocates the boolean result of a gadget (no booleanity constraint: the gadget's
// constraint implies it).
func allocResult(cs *synth.CS, val bool) synth.Variable { return cs.Alloc(FrBool(val)) }

// xorVars: r = a ⊕ b for variables a, b; constraint (2a)·b = a + b − r.
func xorVars(cs *synth.CS, a, b synth.Variable, av, bv bool) Bit {
	rv := av != bv
	r := allocResult(cs, rv)
	if cs.RecordsLC() {
		cs.Enforce("xor",
			synth.LC{{Coeff: frTwo, Var: a}},
			synth.V(b),
			synth.LC{{Coeff: frOne, Var: a}, {Coeff: frOne, Var: b}, {Coeff: frMinus1, Var: r}})
	} else {
		cs.Enforce("xor", nil, nil, nil)
	}
	return Bit{v: r, k: kIs, val: rv}
}

// andVars: r = (a if !na else 1−a)·(b if !nb else 1−b); one constraint. The three shapes are
// bellman's and, and_not and nor.
func andVars(cs *synth.CS, a, b Bit) Bit {
	rv := a.val && b.val
	r := allocResult(cs, rv)
	if cs.RecordsLC() {
		cs.Enforce("and", a.AppendLC(make(synth.LC, 0, 2), frOne), b.AppendLC(make(synth.LC, 0, 2), frOne), synth.V(r))
	} else {
		cs.Enforce("and", nil, nil, nil)
	}
	return Bit{v: r, k: kIs, val: rv}
}

// Xor returns a ⊕ b: free when either is constant, otherwise one constraint "xor"
// (bellpepper Boolean::xor: (2x)·y = x + y − r over the variables, x the non-negated one).
func Xor(cs *synth.CS, a, b Bit) Bit {
	switch {
	case a.k == kConst:
		if a.val {
			return b.Not()
		}
		return b
	case b.k == kConst:
		if b.val {
			return a.Not()
		}
		return a
	case a.k == b.k: // Is/Is or Not/Not: (1−x)⊕(1−y) = x⊕y
		return xorVars(cs, a.v, b.v, a.varVal(), b.varVal())
	case a.k == kNot: // one negated: ¬(x ⊕ y), the plain variable first as bellpepper
		a, b = b, a
	}
	return xorVars(cs, a.v, b.v, a.varVal(), b.varVal()).Not()
}

// And returns a ∧ b: free when either is constant, otherwise one constraint "and"
// (bellpepper Boolean::and: and, and_not with the non-negated operand in A, or nor).
func And(cs *synth.CS, a, b Bit) Bit {
	switch {
	case a.k == kConst:
		if a.val {
			return b
		}
		return Constant(false)
	case b.k == kConst:
		if b.val {
			return a
		}
		return Constant(false)
	}
	if a.k == kNot && b.k == kIs { // and_not(is, not): the plain variable first
		a, b = b, a
	}
	return andVars(cs, a, b)
}

// Or returns a ∨ b = ¬(¬a ∧ ¬b).
func Or(cs *synth.CS, a, b Bit) Bit { return And(cs, a.Not(), b.Not()).Not() }

// Select returns cond ? a : b. With cond constant it is free; with a = b constants likewise;
// otherwise one constraint "select": (a − b)·cond = r − b.
func Select(cs *synth.CS, cond, a, b Bit) Bit {
	if cond.k == kConst {
		if cond.val {
			return a
		}
		return b
	}
	if a.k == kConst && b.k == kConst {
		switch {
		case a.val == b.val:
			return a
		case a.val: // cond ? 1 : 0
			return cond
		default:
			return cond.Not()
		}
	}
	rv := b.val
	if cond.val {
		rv = a.val
	}
	r := allocResult(cs, rv)
	if cs.RecordsLC() {
		ab := a.AppendLC(make(synth.LC, 0, 4), frOne)
		ab = b.AppendNegLC(ab, frOne)
		c := b.AppendNegLC(synth.LC{{Coeff: frOne, Var: r}}, frOne)
		cs.Enforce("select", ab, cond.LC(), c)
	} else {
		cs.Enforce("select", nil, nil, nil)
	}
	return Bit{v: r, k: kIs, val: rv}
}

// Ch returns SHA-256's ch(a,b,c) = (a ∧ b) ⊕ (¬a ∧ c), one constraint "ch" in general
// ((b − c)·a = ch − c), fewer with constants (bellman's Boolean::sha256_ch).
func Ch(cs *synth.CS, a, b, c Bit) Bit {
	v := (a.val && b.val) != (!a.val && c.val)
	switch {
	case a.k == kConst && b.k == kConst && c.k == kConst:
		return Constant(v)
	case a.k == kConst && !a.val:
		return c
	case b.k == kConst && !b.val:
		return And(cs, a.Not(), c)
	case c.k == kConst && !c.val:
		return And(cs, a, b)
	case c.k == kConst && c.val:
		return And(cs, a, b.Not()).Not()
	case b.k == kConst && b.val:
		return And(cs, a.Not(), c.Not()).Not()
	}
	r := allocResult(cs, v)
	if cs.RecordsLC() {
		bc := b.AppendLC(make(synth.LC, 0, 4), frOne)
		bc = c.AppendNegLC(bc, frOne)
		cc := c.AppendNegLC(synth.LC{{Coeff: frOne, Var: r}}, frOne)
		cs.Enforce("ch", bc, a.LC(), cc)
	} else {
		cs.Enforce("ch", nil, nil, nil)
	}
	return Bit{v: r, k: kIs, val: v}
}

// Maj returns SHA-256's maj(a,b,c) = (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c): in general two constraints,
// bc = b ∧ c and (2bc − b − c)·a = bc − maj (bellman's Boolean::sha256_maj).
func Maj(cs *synth.CS, a, b, c Bit) Bit {
	v := (a.val && b.val) != (a.val && c.val) != (b.val && c.val)
	switch {
	case a.k == kConst && b.k == kConst && c.k == kConst:
		return Constant(v)
	case a.k == kConst && !a.val:
		return And(cs, b, c)
	case b.k == kConst && !b.val:
		return And(cs, a, c)
	case c.k == kConst && !c.val:
		return And(cs, a, b)
	case c.k == kConst && c.val:
		return And(cs, a.Not(), b.Not()).Not()
	case b.k == kConst && b.val:
		return And(cs, a.Not(), c.Not()).Not()
	case a.k == kConst && a.val:
		return And(cs, b.Not(), c.Not()).Not()
	}
	r := allocResult(cs, v)
	cs.Push("b and c")
	bc := And(cs, b, c)
	cs.Pop()
	if cs.RecordsLC() {
		x := bc.AppendLC(make(synth.LC, 0, 8), frTwo)
		x = b.AppendNegLC(x, frOne)
		x = c.AppendNegLC(x, frOne)
		y := bc.AppendLC(make(synth.LC, 0, 3), frOne)
		y = append(y, synth.Term{Coeff: frMinus1, Var: r})
		cs.Enforce("maj", x, a.LC(), y)
	} else {
		cs.Enforce("maj", nil, nil, nil)
	}
	return Bit{v: r, k: kIs, val: v}
}
