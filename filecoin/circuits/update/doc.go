// Package update is Filecoin's EmptySectorUpdate (SnapDeals) circuit, built exactly as
// rust-fil-proofs v28 storage-proofs-update/src/circuit.rs builds it: the same variables in the
// same order, the same constraints.
//
// Public inputs (4): k_and_h_select = k | h_select << partition_bits (the partition index and a
// one-hot choice among Params.HS of how many high challenge bits feed rho), comm_r_old,
// comm_d_new, comm_r_new.
//
// Synthesis: phi = Poseidon_GR(comm_d_new, comm_r_old); comm_r_old and comm_r_new are
// Poseidon₂(comm_c, root) of the old and new tree R; the partition's apex leaves hash up to an
// apex root proven under comm_d_new (apex_por); the challenges' random bits come from
// Poseidon_GR(comm_r_new, k·D + j) digests (gen_challenge_bits), the partition bits appended.
// Per challenge: rho = Poseidon_GR(phi, high bits of c); label_r_new = label_r_old +
// label_d_new·rho; inclusion of both labels in the old and new tree R; and of label_d_new in
// tree D up to the apex leaf the challenge's bits select. Poseidon_GR is arity-2 Poseidon with
// the custom domain tag 2^40.
//
// Counts (TestCounts): 2 KiB 1,705,039 and 32 GiB 81,049,499 constraints, as the Rust tests
// publish; the gadgets' own published counts are pinned too. Params.ParamsFile and VKFile
// give the v28 file names, which Filecoin's parameters.json lists for every published size.
//
// Usage:
//
//	p, err := update.ParamsFor(32 << 30)
//	shape, err := synth.Compile(update.Blank(p))
package update
