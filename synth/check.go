package synth

import (
	"errors"
	"fmt"
)

// ErrUnsatisfied is wrapped by the error Check returns for an unsatisfied constraint.
var ErrUnsatisfied = errors.New("synth: constraint not satisfied")

// UnsatisfiedError names the first unsatisfied constraint.
type UnsatisfiedError struct {
	Index int    // row index among the circuit's constraints
	Path  string // namespace path and name, "ns/sub[3]/name"
}

func (e *UnsatisfiedError) Error() string {
	return fmt.Sprintf("synth: constraint %d %q not satisfied", e.Index, e.Path)
}

// Unwrap returns ErrUnsatisfied.
func (e *UnsatisfiedError) Unwrap() error { return ErrUnsatisfied }

// Check verifies A·w ∘ B·w = C·w row by row and returns an *UnsatisfiedError for the first row
// that fails. To name it, it runs circuit once more, recording namespaces up to that row.
func Check(shape *Shape, asg *Assignment, circuit Circuit) error {
	if asg.A == nil {
		return errors.New("synth: check: evaluations already released")
	}
	for r := 0; r < shape.NumRows(); r++ {
		var ab = asg.A[r]
		ab.Mul(&ab, &asg.B[r])
		if ab.Equal(&asg.C[r]) {
			continue
		}
		if r >= shape.NumConstraints {
			return &UnsatisfiedError{Index: r, Path: fmt.Sprintf("input constraint %d", r-shape.NumConstraints)}
		}
		return &UnsatisfiedError{Index: r, Path: Locate(circuit, r)}
	}
	return nil
}

// Locate returns the namespace path of constraint index of circuit, or "" if the circuit has
// fewer constraints or fails.
func Locate(circuit Circuit, index int) string {
	cs := newCS(modeLocate, 1, 0)
	cs.target = index
	if err := runCircuit(circuit, cs); err != nil && cs.found == "" {
		return ""
	}
	return cs.found
}
