// Package enginebackend is cuzkd's proving backend: a daemon.Backend that proves Filecoin's
// PoRep C2, WinningPoSt and WindowPoSt partitions and SnapDeals updates through one engine.Engine over the GPUs it is
// given (prover.CPU when none), with the Groth16 parameters of each circuit loaded once and kept.
//
//	gpus, err := gpu.ProverDevices() // errors.Is(err, gpu.ErrNotLoaded / gpu.ErrNoDevice): CPU only
//	cache, _ := paramcache.Open(paramcache.WithDir("/data/zk/params"))
//	b, _ := enginebackend.New(enginebackend.WithGPUs(gpus...), enginebackend.WithParamCache(cache))
//	defer b.Close()
//	d, _ := daemon.New(b)
//
// What each proof kind does (Request → filecoin/proofs):
//   - PoRep: the C1 output is parsed (c1.Unmarshal, every vanilla proof checked) and proved with
//     proofs.SealCommitPhase2Output; the engine verifies every partition and SealCommitPhase2
//     verifies the whole proof before it is returned.
//   - WinningPoSt: proofs.GenerateWinningPoStWithVanilla over the one bincode vanilla proof.
//   - WindowPoSt: proofs.GenerateWindowPoStWithVanilla over the partition's bincode vanilla
//     proofs (at most WINDOW_POST_SECTOR_COUNT, ascending sector numbers). For the …V1_1 types
//     (API 1.2.0) a partition's challenges do not depend on its index, so any partition_index
//     is proved; for the …V1 types only partition 0 (a later partition is refused as invalid).
//   - SnapDeals: proofs.GenerateEmptySectorUpdateProofWithVanilla over the bincode
//     PartitionProof of every partition (CheckRequest decodes them and checks their count; each
//     is verified natively against comm_r_old, comm_r_new and comm_d_new before proving).
//
// Parameters are identified by circuit id (daemon.CircuitID: "porep-32g", "wpost-2k", …). The
// first proof or Preload of a circuit maps its v28 .params file through filecoin/paramcache
// (digest-checked against Filecoin's parameters.json; a missing file is an error naming it and
// the fetch command; proofs.ProofInfo.OpenParameters, decoded Unchecked) and keeps the mapping:
// a GPU uploads the points from it chunk by chunk, once, and the heap holds none of them; the
// CPU (no GPU, or the fallback after a GPU failure) decodes them onto the heap on its first
// proof and keeps them. Preload also uploads them to every GPU. Evict frees the GPUs' copies and
// unmaps the file once the proofs in flight that use it have ended (Close unmaps every file).
// Status reports each loaded circuit's host memory (engine.ParametersBytes: the verifying key
// while the points are mapped, the full size once the CPU has decoded them) and tier: hot (ready
// to prove: on every GPU, or loaded when the engine proves on the CPU), warm (mapped, uploaded
// by the first proof on each GPU), cold (being loaded).
//
// WithInsecureDevParams replaces the files by devsetup.InsecureSetup parameters made for the
// requested circuit on first use (cached per circuit): whoever runs the setup can forge proofs,
// so it is for tests and demos only; the 2 KiB circuits are the practical ones (WindowPoSt
// 21,866 constraints in about a second, SnapDeals 2^21 rows and PoRep 2^22 rows in minutes on
// two cores).
//
// Priorities: the daemon serves its queue by priority (WinningPoSt critical, WindowPoSt high,
// PoRep and SnapDeals normal by default) and hands up to MaxConcurrent jobs to the backend. In the
// engine, where partitions of concurrent jobs compete for synthesis and devices, a PoRep job takes
// the daemon's priority (critical 0 … low 3, lower first); PoSt and SnapDeals jobs always run at
// 0, the engine's most urgent, since filecoin/proofs' PoSt and update calls take no priority.
package enginebackend
