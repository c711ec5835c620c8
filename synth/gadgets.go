package synth

// RecordsLC reports whether Enforce records its linear combinations, which only Compile does.
// When it is false (witness synthesis, locating a constraint), Enforce only counts and names
// constraints, so a gadget may pass nil combinations and skip building them: the witness path
// then costs no more than computing the values.
func (cs *CS) RecordsLC() bool { return cs.mode == modeShape }
