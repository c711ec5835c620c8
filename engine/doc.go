// Package engine proves jobs of many partitions on a set of prover devices, with synthesis on
// the CPU overlapped with device work, a bounded host-memory budget, and the oldest job of the
// most urgent priority first.
//
//	devs, _ := gpu.ProverDevices() // or []prover.Device{prover.CPU()}
//	eng, _ := engine.New(engine.WithDevices(devs...), engine.WithTimeline(hook),
//		engine.WithFallback(prover.CPU()), // a failing GPU does not fail the job
//		engine.WithSelfCheck())            // every proof verified before it leaves the engine
//	h, _ := eng.Submit(ctx, &engine.Job{Params: params, Shape: shape, Partitions: 10, Circuit: build})
//	res, _ := h.Wait(ctx) // res.Proof is 10 × 192 bytes in partition order
//	_ = eng.Close(ctx)
package engine
