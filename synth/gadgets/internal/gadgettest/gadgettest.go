// Package gadgettest holds test helpers for the gadget packages: run a circuit through Compile,
// Synthesize and Check, and tamper with one witness value to see which constraint rejects it.
package gadgettest

import (
	"context"
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
