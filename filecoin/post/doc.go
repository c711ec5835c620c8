// Package post derives the public data of Filecoin's proofs of spacetime (WinningPoSt and
// WindowPoSt, rust-fil-proofs v28 FallbackPoSt) and reads and checks their vanilla proofs.
//
// It covers, each mirroring rust-fil-proofs exactly:
//
//   - the registered PoSt proof types (Lookup): sector size, tree shape, API version, sectors
//     and challenges per partition, and the v28 .params/.vk file names;
//   - comm_r from a sealed-sector CID (CommRFromCID, CommRFromCIDBytes);
//   - sector challenges (SectorChallenges) and leaf challenges (LeafChallenge,
//     Info.LeafChallenges);
//   - the FallbackPoSt circuit's public inputs (Info.PublicInputs);
//   - vanilla proofs in their bincode form (DecodeSectorProof) and JSON forms
//     (UnmarshalSectorProofJSON, ParseVerifyInfo, ParseWinningVanillaRequest), a native verifier
//     (Info.VerifySectorProof) and the per-sector circuit witness (Info.PartitionWitness).
//
// # Usage
//
// Verify a WinningPoSt SNARK with inputs derived from chain data:
//
//	info, _ := post.Lookup(post.StackedDrgWinning2KiBV1)
//	commR, err := post.CommRFromCID(sealedCID)
//	inputs, err := info.PublicInputs(randomness, []post.PublicSector{{ID: sector, CommR: commR}}, 0)
//	vk, err := prover.ReadVerifyingKeyFile(dir+"/"+info.VKFile(), prover.Checked)
//	pvk, err := prover.PrepareVerifyingKey(vk)
//	err = prover.Verify(pvk, proof, inputs)
//
// Feed a FallbackPoSt circuit from vanilla proofs (partition k):
//
//	slots, err := info.PartitionWitness(randomness, sectors, vanillaProofs, k)
//	inputs, err := info.PublicInputs(randomness, sectors, k)
//
// Byte order: a Domain is the 32-byte little-endian form of an Fr element, as rust-fil-proofs
// stores commitments, tree nodes and randomness; CID digests are Domains.
package post
