// Package sdr is Filecoin's stacked-DRG proof of replication (SDR) sealing and its interactive
// vanilla proofs, natively in Go and exactly as rust-fil-proofs v28
// (storage-proofs-porep src/stacked/vanilla):
//
//   - Graph: the 6 DRG parents (BucketGraph, ChaCha8 seeded by the porep id) and 8 expander
//     parents (a Feistel permutation keyed by the porep id), with the v1.0/v1.1 differences;
//   - ReplicaID, Label (the SDR layers), trees D (SHA-256 binary over the data), C (Poseidon over
//     the column hashes) and R (Poseidon over label_last + data) of the size's tree shape, and
//     comm_d, comm_c, comm_r_last and comm_r = Poseidon₂(comm_c, comm_r_last);
//   - InteractiveChallenges, the vanilla Proof of one challenge with the Rust field names, and
//     Verify over all partitions.
//
// Values of hash domains are fr.Element; Bytes gives their 32-byte little-endian form.
//
// Seal keeps every layer and tree in memory (about ten times the sector size) and accepts
// sectors up to MaxSealSize; only interactive PoRep challenges are derived (not SyntheticPoRep or
// NonInteractivePoRep). SyntheticProofs makes verifying vanilla proofs of any size, 32 and 64 GiB
// included, without a sector.
//
// Usage:
//
//	s, err := sdr.Seal(ctx, sector.StackedDrg2KiBV1_1, proverID, sectorID, ticket, data)
//	proofs, err := s.Prove(ctx, seed) // proofs[partition][challenge]
//	err = sdr.Verify(&sdr.PublicInputs{Proof: s.Proof, ReplicaID: s.ReplicaID, CommD: s.CommD,
//		CommR: s.CommR, Seed: seed}, proofs)
package sdr
