// Package c1 reads and writes Filecoin's C1 output, SealCommitPhase1Output
// (filecoin-proofs-api src/seal.rs), in the JSON that filecoin-ffi emits, and the lotus-bench /
// Curio wrapper Commit2In {"SectorNum":…,"Phase1Out":"<base64 JSON>","SectorSize":…}.
//
// Unmarshal refuses malformed or inconsistent input before anything is proved: a wrong sector
// size, variant, partition or challenge count, path length or arity, a value that is not a
// canonical field element, a commitment that does not match its paths, a challenge that does
// not follow from replica_id and seed. Errors are *FieldError naming the JSON field.
//
// Usage:
//
//	in, out, err := c1.UnmarshalCommit2In(raw)  // or c1.Unmarshal(phase1JSON)
//	proofs := out.VanillaProofs                 // [partition][challenge]sdr.Proof
//	raw, err = c1.MarshalCommit2In(1, out)
package c1
