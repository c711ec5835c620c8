// Package stacked is Filecoin's PoRep StackedCircuit built exactly as rust-fil-proofs v28
// storage-proofs-porep/src/stacked/circuit builds it (proof.rs, params.rs, create_label.rs,
// column.rs, hash.rs): the same variables in the same order, the same constraints.
//
// The partition: replica_id allocated, inputized and unpacked (to_bits_le, bits renumbered
// within each byte); comm_d and comm_r allocated and inputized; comm_r_last and comm_c
// allocated; comm_r = Poseidon2(comm_c, comm_r_last) enforced. Per challenge (Proof::synthesize):
// the data leaf and its SHA-256 inclusion in tree D; per parent (6 DRG, then 8 expander) its
// column allocated, hashed with Poseidon of arity Layers and proven in tree C; the challenge as
// a UInt64 packed into an input; per layer a label; the replica node = last label + data leaf
// (encode) proven in tree R; the column hash of the labels proven in tree C. Public inputs:
// [replica_id, comm_d, comm_r] then 18 per challenge (the challenge, 14 parent indices, the
// challenge as u64, the challenge twice more).
//
// CreateLabel hashes, with SHA-256, the 512-bit header replica id (padded to 256 bits) ‖ layer
// (u32, big-endian bits) ‖ node (u64, big-endian bits) ‖ zero padding, then the 37 parents,
// each padded to a multiple of 256 bits: 39·256 = 9,984 bits, 20 blocks with the length
// padding. The digest's bits are renumbered within each byte and the low 254 packed (the
// label is the digest read little-endian with the top two bits dropped). Layer 1 hashes its 6
// DRG parents repeated to 37 (6·6 + 1), later layers the 14 parents repeated (14 + 14 + 9).
//
// FromC1 (FromVanilla) builds a partition's circuit from a C1 output's vanilla proofs as
// StackedCompound::circuit does; PublicInputs derives a partition's public inputs from
// (replica_id, comm_d, comm_r, seed) alone, as generate_public_inputs does.
//
//	shape, _ := synth.Compile(stacked.Blank(params))  // params: SealParams(o.RegisteredProof)
//	c, _ := stacked.FromC1(o, k)                      // o: *c1.SealCommitPhase1Output
//	asg, _ := synth.Synthesize(ctx, shape, c)
//	in, _ := stacked.PublicInputs(o.RegisteredProof, nil, o.ReplicaID, o.CommD, o.CommR, o.Seed, k)
//	// in equals asg.PublicInputs()
//
// Counts: the four tests of tests/stacked_circuit.rs (1,206,212; 1,199,620; 1,296,576;
// 1,346,982) and the 32 GiB partition's 130,278,541 constraints with 328 inputs.
package stacked
