package num

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
)

// ErrDivisionByZero is returned by Inverse and AssertNonzero when the value is zero.
var ErrDivisionByZero = errors.New("num: division by zero")

// Num is an allocated field element: a variable and its value.
type Num struct {
	Var   synth.Variable
	Value fr.Element
}

// NumBits is the bit length of Fr's modulus r (255); Capacity = NumBits − 1 bits always fit.
const (
	NumBits  = 255
	Capacity = 254
)

var (
	frOne    = fr.One()
	frMinus1 = func() fr.Element { var m fr.Element; m.Neg(&frOne); return m }()
	// Pow2[i] = 2^i for i < 256.
	Pow2 = func() (p [256]fr.Element) {
		p[0].SetOne()
		for i := 1; i < len(p); i++ {
			p[i].Double(&p[i-1])
		}
		return
	}()
)

// Alloc allocates an aux variable with value v (no constraint).
func Alloc(cs *synth.CS, v fr.Element) Num { return Num{Var: cs.Alloc(v), Value: v} }

// AllocInput allocates a public input with value v (no constraint).
func AllocInput(cs *synth.CS, v fr.Element) Num { return Num{Var: cs.AllocInput(v), Value: v} }

// enforce forwards to cs.Enforce; gadgets pass nil combinations when !cs.RecordsLC().
func enforce(cs *synth.CS, name string, a, b, c synth.LC) { cs.Enforce(name, a, b, c) }

// Inputize allocates a public input equal to n and enforces input·1 = n (one constraint,
// bellman's AllocatedNum::inputize).
func (n Num) Inputize(cs *synth.CS) Num {
	in := cs.AllocInput(n.Value)
	if cs.RecordsLC() {
		enforce(cs, "input", synth.V(in), synth.V(synth.One), synth.V(n.Var))
	} else {
		enforce(cs, "input", nil, nil, nil)
	}
	return Num{Var: in, Value: n.Value}
}

// Mul returns a·b (one constraint "mul").
func Mul(cs *synth.CS, a, b Num) Num {
	var v fr.Element
	v.Mul(&a.Value, &b.Value)
	r := cs.Alloc(v)
	if cs.RecordsLC() {
		enforce(cs, "mul", synth.V(a.Var), synth.V(b.Var), synth.V(r))
	} else {
		enforce(cs, "mul", nil, nil, nil)
	}
	return Num{Var: r, Value: v}
}

// Square returns a² (one constraint "square").
func Square(cs *synth.CS, a Num) Num {
	var v fr.Element
	v.Square(&a.Value)
	r := cs.Alloc(v)
	if cs.RecordsLC() {
		enforce(cs, "square", synth.V(a.Var), synth.V(a.Var), synth.V(r))
	} else {
		enforce(cs, "square", nil, nil, nil)
	}
	return Num{Var: r, Value: v}
}

// Add returns a + b allocated (one constraint "add": (a + b)·1 = r, Filecoin's constraint::add).
func Add(cs *synth.CS, a, b Num) Num {
	var v fr.Element
	v.Add(&a.Value, &b.Value)
	r := cs.Alloc(v)
	if cs.RecordsLC() {
		enforce(cs, "add", synth.LC{{Coeff: frOne, Var: a.Var}, {Coeff: frOne, Var: b.Var}}, synth.V(synth.One), synth.V(r))
	} else {
		enforce(cs, "add", nil, nil, nil)
	}
	return Num{Var: r, Value: v}
}

// Inverse returns a⁻¹ and enforces a·inv = 1 (one constraint "inverse"). For a = 0 it still
// allocates (value 0, so that the circuit keeps its shape) and returns ErrDivisionByZero.
func Inverse(cs *synth.CS, a Num) (Num, error) {
	var v fr.Element
	v.Inverse(&a.Value) // 0 for 0
	r := cs.Alloc(v)
	if cs.RecordsLC() {
		enforce(cs, "inverse", synth.V(a.Var), synth.V(r), synth.V(synth.One))
	} else {
		enforce(cs, "inverse", nil, nil, nil)
	}
	if a.Value.IsZero() {
		return Num{Var: r, Value: v}, ErrDivisionByZero
	}
	return Num{Var: r, Value: v}, nil
}

// AssertNonzero enforces a ≠ 0 through an ephemeral inverse (one constraint).
func AssertNonzero(cs *synth.CS, a Num) error {
	_, err := Inverse(cs, a)
	return err
}

// EnforceEqual enforces a·1 = b (one constraint "equal", Filecoin's constraint::equal).
func EnforceEqual(cs *synth.CS, a, b Num) {
	if cs.RecordsLC() {
		enforce(cs, "equal", synth.V(a.Var), synth.V(synth.One), synth.V(b.Var))
	} else {
		enforce(cs, "equal", nil, nil, nil)
	}
}

// IsEqual returns the bit [a = b] with two constraints: d·inv = 1 − eq and d·eq = 0 where
// d = a − b; together they force eq ∈ {0,1} and eq = 1 ⇔ d = 0.
func IsEqual(cs *synth.CS, a, b Num) boolean.Bit {
	var d, inv fr.Element
	d.Sub(&a.Value, &b.Value)
	inv.Inverse(&d)
	eqv := d.IsZero()
	invV := cs.Alloc(inv)
	eq := cs.Alloc(boolean.FrBool(eqv))
	if cs.RecordsLC() {
		dl := synth.LC{{Coeff: frOne, Var: a.Var}, {Coeff: frMinus1, Var: b.Var}}
		enforce(cs, "is equal inverse", dl, synth.V(invV), synth.LC{{Coeff: frOne, Var: synth.One}, {Coeff: frMinus1, Var: eq}})
		enforce(cs, "is equal zero", dl, synth.V(eq), nil)
	} else {
		enforce(cs, "is equal inverse", nil, nil, nil)
		enforce(cs, "is equal zero", nil, nil, nil)
	}
	return boolean.FromVariable(eq, eqv)
}

// Pick returns cond ? a : b with one constraint "pick": (b − a)·cond = b − r (Filecoin's
// insertion::pick).
func Pick(cs *synth.CS, cond boolean.Bit, a, b Num) Num {
	v := b.Value
	if cond.Value() {
		v = a.Value
	}
	r := cs.Alloc(v)
	if cs.RecordsLC() {
		enforce(cs, "pick",
			synth.LC{{Coeff: frOne, Var: b.Var}, {Coeff: frMinus1, Var: a.Var}},
			cond.LC(),
			synth.LC{{Coeff: frOne, Var: b.Var}, {Coeff: frMinus1, Var: r}})
	} else {
		enforce(cs, "pick", nil, nil, nil)
	}
	return Num{Var: r, Value: v}
}

// ConditionalSwap returns (b, a) if cond else (a, b), with two constraints (bellman's
// AllocatedNum::conditionally_reverse): (a − b)·cond = a − c and (b − a)·cond = b − d.
func ConditionalSwap(cs *synth.CS, a, b Num, cond boolean.Bit) (Num, Num) {
	cv, dv := a.Value, b.Value
	if cond.Value() {
		cv, dv = b.Value, a.Value
	}
	c := cs.Alloc(cv)
	if cs.RecordsLC() {
		enforce(cs, "first conditional reversal",
			synth.LC{{Coeff: frOne, Var: a.Var}, {Coeff: frMinus1, Var: b.Var}},
			cond.LC(),
			synth.LC{{Coeff: frOne, Var: a.Var}, {Coeff: frMinus1, Var: c}})
	} else {
		enforce(cs, "first conditional reversal", nil, nil, nil)
	}
	d := cs.Alloc(dv)
	if cs.RecordsLC() {
		enforce(cs, "second conditional reversal",
			synth.LC{{Coeff: frOne, Var: b.Var}, {Coeff: frMinus1, Var: a.Var}},
			cond.LC(),
			synth.LC{{Coeff: frOne, Var: b.Var}, {Coeff: frMinus1, Var: d}})
	} else {
		enforce(cs, "second conditional reversal", nil, nil, nil)
	}
	return Num{Var: c, Value: cv}, Num{Var: d, Value: dv}
}
