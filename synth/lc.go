package synth

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Variable names an input or an aux (private) variable. Input 0 is the constant One.
type Variable uint32

const auxFlag Variable = 1 << 31

// One is the constant input 1 (input 0).
const One Variable = 0

// InputVariable returns the variable of input i (input 0 is One).
func InputVariable(i int) Variable { return Variable(i) }

// AuxVariable returns the variable of aux i.
func AuxVariable(i int) Variable { return Variable(i) | auxFlag }

// IsInput reports whether v is an input variable (One included).
func (v Variable) IsInput() bool { return v&auxFlag == 0 }

// Index returns v's index among the inputs or among the aux variables.
func (v Variable) Index() int { return int(v &^ auxFlag) }

// Term is coeff·var.
type Term struct {
	Coeff fr.Element
	Var   Variable
}

// LC is a linear combination Σ coeff_i·var_i. The zero value is the empty combination (0).
// Repeated variables are allowed; Compile adds their coefficients.
//
// Start combinations with NewLC, V or Const: they reserve room for lcInline terms, so that a
// combination built and passed to CS.Enforce in one function stays on the stack and costs no
// heap allocation (a literal LC{} grows on the heap at its first Add).
type LC []Term

// lcInline is the capacity NewLC, V and Const reserve.
const lcInline = 8

// NewLC returns an empty combination with room for a few terms.
func NewLC() LC { return make(LC, 0, lcInline) }

var (
	frOne    = fr.One()
	frMinus1 = func() fr.Element { var m fr.Element; m.Neg(&frOne); return m }()
)

// Add returns lc + v.
func (lc LC) Add(v Variable) LC { return append(lc, Term{Coeff: frOne, Var: v}) }

// Sub returns lc − v.
func (lc LC) Sub(v Variable) LC { return append(lc, Term{Coeff: frMinus1, Var: v}) }

// AddTerm returns lc + c·v.
func (lc LC) AddTerm(c fr.Element, v Variable) LC { return append(lc, Term{Coeff: c, Var: v}) }

// AddLC returns lc + o.
func (lc LC) AddLC(o LC) LC { return append(lc, o...) }

// SubLC returns lc − o.
func (lc LC) SubLC(o LC) LC {
	for _, t := range o {
		t.Coeff.Neg(&t.Coeff)
		lc = append(lc, t)
	}
	return lc
}

// Scale returns c·lc, written over lc.
func (lc LC) Scale(c fr.Element) LC {
	for i := range lc {
		lc[i].Coeff.Mul(&lc[i].Coeff, &c)
	}
	return lc
}

// Const returns the combination c·One.
func Const(c fr.Element) LC { return NewLC().AddTerm(c, One) }

// V returns the combination 1·v.
func V(v Variable) LC { return NewLC().Add(v) }
