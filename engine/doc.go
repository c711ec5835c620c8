// Package engine proves jobs of many partitions on a set of prover devices: synthesis on the
// CPU overlapped with device work, a bounded host-memory budget, and the oldest job of the most
// urgent priority first.
//
//	gpus, _ := gpu.ProverDevices() // closable; or no GPUs: engine.New() proves on prover.CPU()
//	eng, _ := engine.New(engine.WithDevices(prover.NewDevices(gpus...)...),
//		engine.WithFallback(prover.CPU()), // a failing GPU does not fail the job
//		engine.WithTimeline(hook))
//	h, _ := eng.Submit(ctx, &engine.Job{Params: params, Shape: shape, Partitions: 10, Circuit: build})
//	res, _ := h.Wait(ctx) // res.Proof: 10 × 192 bytes in partition order; res.Inputs: their inputs
//	_ = eng.Close(ctx)
//
// Every proof is verified before it leaves the engine (WithoutSelfCheck turns that off), and a
// partition whose device fails is proved again, from a fresh synthesis, on the fallback device.
//
// A partition goes through four stages — queued for synthesis, synthesizing, queued for a device,
// on a device — and settles once: proved, failed (its job fails with the first error), or
// dropped because its job failed or was cancelled. Memory is counted against a budget (by
// default the cgroup's memory limit, or the RAM, less a margin: DetectMemoryLimit,
// DefaultBudget): the active jobs' shapes and parameters once each as resident, and for each
// partition in flight EstimatePartitionBytes (the devices report their own share), reserved
// before synthesis and released in two steps: the evaluations A·w, B·w, C·w after the device
// work, the rest when the partition settles. A proved partition's vectors are pooled for the
// partitions waiting for synthesis instead of being left to the garbage collector, and counted
// while pooled. Stats reports all three; docs/memory.md explains them.
//
// The first proof after a cold start comes as early as the devices allow. At Submit, each GPU
// starts uploading the job's parameters and the shape's matrices while the first partitions
// synthesize, instead of the first partition uploading them on the critical path; the job
// finishes only once those uploads have returned. And from idle, the engine starts only as many
// syntheses as there are device workers, allowing one more each time one completes, up to
// WithSynthesisConcurrency: a synthesis is parallel itself, so many started together share the
// cores and all finish late while the devices wait. The ramp holds while an upload is in flight:
// the devices cannot start before it ends, and it needs the host's cores and memory bandwidth
// too. Small circuits leave this ramp after their first syntheses. Partitions synthesized
// together enter the device queue in dispatch order (priority, then the older job), so that the
// first job's last partitions do not wait behind a later job's.
package engine
