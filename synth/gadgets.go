package synth

import "fmt"

// RecordsLC reports whether Enforce records its linear combinations, which only Compile does.
// When it is false (witness synthesis, locating a constraint), Enforce only counts and names
// constraints, so a gadget may pass nil combinations and skip building them: the witness path
// then costs no more than computing the values.
func (cs *CS) RecordsLC() bool { return cs.mode == modeShape }

// Count runs circuit once without recording matrices or keeping witness values beyond the run
// and returns its number of constraints, of inputs (One included) and of aux variables. It costs
// about as much as the witness part of Synthesize.
func Count(circuit Circuit) (constraints, inputs, aux int, err error) {
	cs := newCS(modeLocate, 1, 0)
	cs.target = -1
	if err := runCircuit(circuit, cs); err != nil {
		return 0, 0, 0, fmt.Errorf("count circuit: %w", err)
	}
	return cs.n, len(cs.inputs), len(cs.aux), nil
}
