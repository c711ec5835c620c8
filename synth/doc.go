// Package synth is a bellman-style rank-1 constraint system over the BLS12-381 scalar field Fr.
//
// A circuit is Go code written once against *CS: it allocates variables with their witness values
// and enforces constraints ⟨a,w⟩·⟨b,w⟩ = ⟨c,w⟩, where w = (ONE, inputs…, aux…). The same code
// serves two purposes:
//
//   - Compile runs it once per circuit shape and records the constraint matrices A, B, C in
//     compact compressed rows (a 32-bit word a term: column and coefficient code; see Matrix),
//     the variable counts and the density bitmaps;
//   - Synthesize runs it per partition in witness mode (constraints are only counted, nothing is
//     recorded) and then evaluates A·w, B·w and C·w from the compiled shape in parallel on all
//     cores. The result, an *Assignment, is everything the prover needs.
//
// Independent parts of a circuit (PoRep's challenges) can go through CS.Parallel: Compile records
// where each branch's variables and constraints go (counting, then recording the branches
// concurrently), and Synthesize runs the branches concurrently.
//
// Following bellperson's ProvingAssignment, every input (ONE included) gets one extra constraint
// input_i · 0 = 0 after the circuit's own constraints, so that the A query of every input is
// non-zero; the evaluations in an Assignment include those rows.
//
// A compiled shape is stored and loaded with WriteShapeFile and ReadShapeFile (versioned,
// checksummed, verified on all cores; see ShapeFileVersion for the format), or through
// LoadOrCompile, which keeps a cache directory keyed by the caller's name for the circuit.
// EncodeWitness packs an assignment w for shipping: a 2-bit class (0, 1, other) per element
// and the other values, about 0.6 bytes an element for PoRep instead of 32.
//
// Usage:
//
//	shape, err := synth.LoadOrCompile(cacheDir, "porep-32GiB-v1", circuit, logger) // or synth.Compile(circuit)
//	asg, err := synth.Synthesize(ctx, shape, circuit)
//	if err := synth.Check(shape, asg, circuit); errors.Is(err, synth.ErrUnsatisfied) { … }
package synth
