// Package gadgettest holds test helpers for the gadget packages: run a circuit through Compile,
// Synthesize and Check, and tamper with one witness value to see which constraint rejects it.
package gadgettest

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// Func adapts a function to synth.Circuit.
type Func func(cs *synth.CS) error

// Synthesize calls f.
func (f Func) Synthesize(cs *synth.CS) error { return f(cs) }

// Run compiles c, synthesizes it, checks that it is satisfied and returns the shape and the
// assignment.
func Run(t testing.TB, c synth.Circuit) (*synth.Shape, *synth.Assignment) {
	t.Helper()
	shape, err := synth.Compile(c)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	asg, err := synth.Synthesize(context.Background(), shape, c)
	if err != nil {
		t.Fatalf("synthesize: %v", err)
	}
	if err := synth.Check(shape, asg, c); err != nil {
		t.Fatalf("check: %v", err)
	}
	return shape, asg
}

// FirstUnsatisfied evaluates every row of shape on the full assignment w (inputs ‖ aux) and
// returns the index of the first row with ⟨a,w⟩·⟨b,w⟩ ≠ ⟨c,w⟩, or −1.
func FirstUnsatisfied(shape *synth.Shape, w []fr.Element) int {
	n := shape.NumConstraints
	a, b, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	shape.A.MulVec(w, a, 0, n)
	shape.B.MulVec(w, b, 0, n)
	shape.C.MulVec(w, c, 0, n)
	for r := range n {
		a[r].Mul(&a[r], &b[r])
		if !a[r].Equal(&c[r]) {
			return r
		}
	}
	return -1
}

// TamperAux sets aux variable v of c's witness to val and returns the namespace path of the
// first constraint the tampered witness violates, or "" if it still satisfies every constraint.
func TamperAux(t testing.TB, c synth.Circuit, v synth.Variable, val fr.Element) string {
	t.Helper()
	shape, asg := Run(t, c)
	if v.IsInput() {
		t.Fatalf("tamper: %d is an input", v.Index())
	}
	w := append([]fr.Element(nil), asg.W...)
	w[shape.NumInputs+v.Index()] = val
	r := FirstUnsatisfied(shape, w)
	if r < 0 {
		return ""
	}
	return synth.Locate(c, r)
}

// FlipAux is TamperAux with val = 1 − (current value): it flips a bit variable.
func FlipAux(t testing.TB, c synth.Circuit, v synth.Variable) string {
	t.Helper()
	shape, asg := Run(t, c)
	var one, x fr.Element
	one.SetOne()
	x.Sub(&one, &asg.W[shape.NumInputs+v.Index()])
	return TamperAux(t, c, v, x)
}

// RowTerm is one stored term of a compiled row: a column of w = inputs ‖ aux and its
// coefficient.
type RowTerm struct {
	Col   int
	Coeff fr.Element
}

// Row returns row r of m with the coefficients resolved, in column order.
func Row(shape *synth.Shape, m *synth.Matrix, r int) []RowTerm {
	var out []RowTerm
	for _, e := range m.AppendRow(nil, r) {
		out = append(out, RowTerm{Col: int(e.Col), Coeff: shape.Coeffs[e.Coeff]})
	}
	slices.SortFunc(out, func(x, y RowTerm) int { return x.Col - y.Col })
	return out
}

// Expect returns lc as the terms a compiled row of it holds: variables as columns of shape,
// repeated variables merged by adding their coefficients, in column order.
func Expect(shape *synth.Shape, lc synth.LC) []RowTerm {
	byCol := map[int]fr.Element{}
	for _, t := range lc {
		col := t.Var.Index()
		if !t.Var.IsInput() {
			col += shape.NumInputs
		}
		c := byCol[col]
		c.Add(&c, &t.Coeff)
		byCol[col] = c
	}
	var out []RowTerm
	for col, c := range byCol {
		out = append(out, RowTerm{Col: col, Coeff: c})
	}
	slices.SortFunc(out, func(x, y RowTerm) int { return x.Col - y.Col })
	return out
}

// RequireRow fails t unless constraint r of shape is a·b = c term for term.
func RequireRow(t testing.TB, shape *synth.Shape, r int, a, b, c synth.LC) {
	t.Helper()
	for i, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
		want := Expect(shape, []synth.LC{a, b, c}[i])
		got := Row(shape, m, r)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !slices.EqualFunc(want, got, func(x, y RowTerm) bool { return x.Col == y.Col && x.Coeff.Equal(&y.Coeff) }) {
			t.Fatalf("constraint %d, %c: got %s, want %s", r, "ABC"[i], fmtRow(got), fmtRow(want))
		}
	}
}

func fmtRow(row []RowTerm) string {
	s := "["
	for i, t := range row {
		if i > 0 {
			s += " + "
		}
		s += t.Coeff.String() + "·w" + strconv.Itoa(t.Col)
	}
	return s + "]"
}
