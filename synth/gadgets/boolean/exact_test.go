package boolean

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

// TestExactMatrices compares the gadgets' rows term by term with bellpepper-core
// gadgets/boolean.rs, for two allocated bits x = aux 0 and y = aux 1 (each with its booleanity
// row (1 − v)·v = 0) and the result r = aux 2 in row 2:
//
//	xor(¬x, y)  → xor(y, x) negated:  (2y)·x = y + x − r
//	and(¬x, y)  → and_not(y, x):       y·(1 − x) = r
//	and(¬x, ¬y) → nor(x, y):           (1 − x)·(1 − y) = r
//	ch(x, y, ¬x) → a(b − c) = ch − c:  (y − (1 − x))·x = r − (1 − x)
//	enforce_equal(x, true) → 0·0 = 1 − x, enforce_equal(false, x) → 0·0 = x,
//	enforce_equal(¬x, y) → 0·0 = (1 − x) − y.
func TestExactMatrices(t *testing.T) {
	x, y, r := synth.AuxVariable(0), synth.AuxVariable(1), synth.AuxVariable(2)
	var two fr.Element
	two.SetUint64(2)
	oneMinus := func(v synth.Variable) synth.LC { return synth.V(synth.One).Sub(v) }
	cases := []struct {
		name    string
		gadget  func(cs *synth.CS, x, y Bit)
		a, b, c synth.LC
	}{
		{"xor(not x, y)", func(cs *synth.CS, x, y Bit) { Xor(cs, x.Not(), y) },
			synth.NewLC().AddTerm(two, y), synth.V(x), synth.V(y).Add(x).Sub(r)},
		{"and(not x, y)", func(cs *synth.CS, x, y Bit) { And(cs, x.Not(), y) },
			synth.V(y), oneMinus(x), synth.V(r)},
		{"and(not x, not y)", func(cs *synth.CS, x, y Bit) { And(cs, x.Not(), y.Not()) },
			oneMinus(x), oneMinus(y), synth.V(r)},
		{"ch(x, y, not x)", func(cs *synth.CS, x, y Bit) { Ch(cs, x, y, x.Not()) },
			synth.V(y).AddLC(oneMinus(x).Scale(frMinus1)), synth.V(x), synth.V(r).AddLC(oneMinus(x).Scale(frMinus1))},
		{"enforce_equal(x, true)", func(cs *synth.CS, x, y Bit) { EnforceEqual(cs, x, Constant(true)) },
			nil, nil, oneMinus(x)},
		{"enforce_equal(false, x)", func(cs *synth.CS, x, y Bit) { EnforceEqual(cs, Constant(false), x) },
			nil, nil, synth.V(x)},
		{"enforce_equal(not x, y)", func(cs *synth.CS, x, y Bit) { EnforceEqual(cs, x.Not(), y) },
			nil, nil, oneMinus(x).Sub(y)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shape, err := synth.Compile(gadgettest.Func(func(cs *synth.CS) error {
				bx, by := Alloc(cs, true), Alloc(cs, false)
				c.gadget(cs, bx, by)
				return nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			if shape.NumConstraints != 3 {
				t.Fatalf("%d constraints, want 3", shape.NumConstraints)
			}
			gadgettest.RequireRow(t, shape, 0, oneMinus(x), synth.V(x), nil)
			gadgettest.RequireRow(t, shape, 2, c.a, c.b, c.c)
		})
	}
}

// TestMajMatrix: maj(x, y, z) on three variables allocates maj (aux 3), then b∧c (aux 4, its
// and row), then (2·bc − y − z)·x = bc − maj (bellpepper Boolean::sha256_maj).
func TestMajMatrix(t *testing.T) {
	shape, err := synth.Compile(gadgettest.Func(func(cs *synth.CS) error {
		Maj(cs, Alloc(cs, true), Alloc(cs, false), Alloc(cs, true))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	x, y, z, maj, bc := synth.AuxVariable(0), synth.AuxVariable(1), synth.AuxVariable(2), synth.AuxVariable(3), synth.AuxVariable(4)
	gadgettest.RequireRow(t, shape, 3, synth.V(y), synth.V(z), synth.V(bc))
	gadgettest.RequireRow(t, shape, 4, synth.NewLC().AddTerm(frTwo, bc).Sub(y).Sub(z), synth.V(x), synth.V(bc).Sub(maj))
}
