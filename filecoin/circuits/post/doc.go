// Package post is Filecoin's FallbackPoSt circuit (WinningPoSt and WindowPoSt), built exactly as
// rust-fil-proofs v28 storage-proofs-post/src/fallback/circuit.rs builds it: the same variables
// in the same order, the same constraints with the same terms.
//
// Per sector, in order: allocate comm_r_last, comm_c and comm_r; inputize comm_r (1 constraint);
// Poseidon arity 2 of (comm_c, comm_r_last) (311); enforce comm_r·1 = hash (1). Then, per
// challenge, the leaf is allocated and a private proof of retrievability (por.rs) into tree R
// whose root is comm_r_last: per level log2(arity) index bits, the siblings, an insertion and a
// Poseidon hash; the index bits packed into one public input equal to the leaf index; the root
// equality. A sector costs 313 + challenges·PoR_R constraints, PoR_R = 2 + Σ levels (530 per
// arity-8 level, 387 per arity-4, 314 per arity-2), and 1 + challenges public inputs.
//
// Public inputs, per sector: [comm_r, leaf index_1 … leaf index_n] (PublicInputs). A WindowPoSt
// partition with fewer sectors than its SectorCount repeats its last sector (PadSectors).
//
// Usage:
//
//	p, err := post.WindowParams(2 << 10)
//	c := &post.Circuit{Params: p, Sectors: sectors} // sectors from the vanilla proofs
//	shape, err := synth.Compile(post.Blank(p))      // or synth.Count for the counts alone
//	asg, err := synth.Synthesize(ctx, shape, c)
package post
