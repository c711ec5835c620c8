// Package porep is a benchmark workload shaped like Filecoin's PoRep: the per-challenge work of
// the stacked-DRG proof of replication (rust-fil-proofs storage-proofs-porep/src/stacked/circuit/
// {proof,params,create_label}.rs) over a small, deterministic in-memory sector, so that its
// witness is real and satisfiable at every size, including sizes no sector has (any number of
// challenges).
//
// It is not Filecoin's circuit. Its matrices equal those of package filecoin/circuits/stacked
// for the same shape (its tiny size has the constraint-system hash of the StackedCircuit with 2
// layers, 8 nodes and tree 8-0-0), but its graph and its witness are this package's own. To
// prove real PoRep use filecoin/circuits/stacked (stacked.FromC1) and filecoin/proofs
// (SealCommitPhase2); to benchmark the real partition use the CLI's --circuit stacked
// --sector-size 32GiB, whose witness is a synthetic C1 output (c1.Synthetic).
//
// Per challenge, as Filecoin's circuit:
//
//   - inclusion of the data leaf in the binary SHA-256 data tree (comm_d), depth DataDepth;
//   - for each of the 6 DRG and 8 expander parents: its column (one label per layer) hashed with
//     Poseidon of arity Layers (11 in Filecoin) and its inclusion in the arity-8 Poseidon column
//     tree (comm_c);
//   - the challenge as 64 bits, packed into a public input;
//   - per layer, the label: SHA-256 of replica id ‖ layer (u32 BE) ‖ node (u64 BE) ‖ zero pad ‖
//     37 parent labels (6 DRG parents in layer 1, 6 DRG + 8 expander parents after, repeated to
//     37), each 32-byte little-endian field encoding, the digest truncated to 254 bits;
//   - the replica node = last label + data leaf, and its inclusion in the arity-8 Poseidon
//     replica tree (comm_r_last);
//   - the challenge's own column hash and its inclusion in comm_c.
//
// Once per partition: replica id, comm_d and comm_r as public inputs, and
// comm_r = Poseidon₂(comm_c, comm_r_last). Public inputs are ordered as Filecoin's
// generate_public_inputs: replica id, comm_d, comm_r, then per challenge the comm_d path index,
// 6 + 8 parent path indices, the challenge, the comm_r_last and comm_c path indices — 3 + 18 per
// challenge (327 for Filecoin's 18 challenges per 32 GiB partition).
//
// The sector keeps Nodes real nodes; the trees have Filecoin's depth (2^DataDepth leaves) with
// every node past the real ones a zero leaf, so paths have full length without a 32 GiB sector.
// The graph is this package's own deterministic DRG/expander-like graph (DRG parents before the
// node in the same layer, expander parents anywhere in the previous layer), not Filecoin's.
//
// Usage:
//
//	cfg := porep.SizeForConstraints(1 << 24)
//	sector, err := porep.NewSector(cfg, seed)
//	circuit := sector.Circuit(0)
//	shape, err := synth.Compile(circuit)
//	asg, err := synth.Synthesize(ctx, shape, circuit)
package porep
