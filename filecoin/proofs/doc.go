// Package proofs is cuzk's counterpart of filecoin-ffi's proof calls, in Go without cgo: seal
// (SealCommitPhase2, VerifySeal) and proof-of-spacetime (GeneratePoStFallbackSectorChallenges,
// GenerateSingleVanillaProof, GenerateWinningPoStWithVanilla, GenerateWindowPoStWithVanilla,
// VerifyWinningPoSt, VerifyWindowPoSt) and SnapDeals (GenerateEmptySectorUpdatePartitionProofs,
// GenerateEmptySectorUpdateProofWithVanilla, VerifyEmptySectorUpdateProof) over Filecoin's real
// v28 circuits, with the registered proof types mapped to their circuit, sector size, partitions
// and parameter files in one place (SealProofInfo, PoStProofInfo, UpdateProofInfo).
//
// Generation proves through an *engine.Engine with Groth16 parameters the caller gives
// (ProofInfo.OpenParameters maps the real ones through filecoin/paramcache; devsetup makes
// INSECURE ones for tests). A generation returns only once its engine job has finished, also
// when ctx is cancelled (after the device calls in progress), so the parameters' mapping may be
// closed as soon as the last generation using them has returned. Verification derives every public input from chain data alone —
// randomness, sector numbers, sealed CIDs — with filecoin/post (PoSt) and filecoin/sdr (seal),
// and checks the proof against the verifying key from a paramcache.Cache (digest-checked) or
// one the caller holds (…WithKey).
//
// The types mirror go-state-types and filecoin-ffi (SectorInfo, PoStProof,
// WinningPoStVerifyInfo, WindowPoStVerifyInfo, PrivateSectorInfo) with Go types in place of
// CIDs and abi aliases: a sealed CID is its string form, randomness a post.Domain.
//
// # PoSt usage
//
//	eng, _ := engine.New() // CPU; or engine.WithDevices(…) for GPUs
//	pi, _ := proofs.PoStProofInfo(post.StackedDrgWinning32GiBV1)
//	m, _ := pi.OpenParameters(ctx, cache, prover.Unchecked) // the cache checked its digest
//	defer m.Close()
//	params, _ := m.Parameters()
//	fc, _ := proofs.GeneratePoStFallbackSectorChallenges(post.StackedDrgWinning32GiBV1, minerID, rnd, []uint64{replica.SectorNumber})
//	vp, _ := proofs.GenerateSingleVanillaProof(replica, fc.Challenges[replica.SectorNumber]) // or from Curio/filecoin-ffi
//	out, _ := proofs.GenerateWinningPoStWithVanilla(ctx, eng, params, post.StackedDrgWinning32GiBV1, minerID, rnd, [][]byte{vp})
//	ok, err := proofs.VerifyWinningPoSt(ctx, proofs.WinningPoStVerifyInfo{
//		Randomness: rnd, Proofs: out, ChallengedSectors: []proofs.SectorInfo{replica.SectorInfo}, Prover: minerID}, cache)
//
// Verification returns (false, nil) for a proof that does not verify and an error for
// malformed input (wrong counts, bad CID, wrong proof length or encoding, missing key file).
package proofs
