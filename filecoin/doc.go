// Package filecoin groups Filecoin's proof-of-replication pieces written natively in Go, following
// rust-fil-proofs v28 (filecoin-project/rust-fil-proofs, parameter version 28):
//
//   - sector: sector sizes, registered seal proofs, porep ids, API versions and parameter names;
//   - sdr: stacked-DRG sealing (graph, labelling, trees, commitments), interactive challenges,
//     vanilla proofs and their verifier;
//   - c1: the SealCommitPhase1Output JSON that filecoin-ffi emits and lotus-bench/Curio wrap.
package filecoin
