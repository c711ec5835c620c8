// Package prover proves and verifies Groth16 over BLS12-381, byte-compatible with bellperson.
//
// Parameters and verifying keys read and write bellperson's layout (ReadParametersFile maps the
// file and decodes it in parallel, Checked or Unchecked); package devsetup makes INSECURE
// development parameters for any compiled circuit. A partition's proof runs in three phases on a Device —
// Prepare on the CPU, Run under the device's kernel-only lock, Finalize on the CPU — so that two
// workers on one device overlap one's CPU work with the other's device work. The CPU device uses
// gnark-crypto; package gpu provides CUDA devices.
//
// One partition:
//
//	shape, _ := synth.Compile(circuit)
//	params, _ := prover.ReadParametersFile("porep.params", prover.Unchecked)
//	asg, _ := synth.Synthesize(ctx, shape, circuit)
//	proof, _ := prover.ProvePartition(ctx, params, asg) // r, s from crypto/rand
//	pvk, _ := prover.PrepareVerifyingKey(&params.VK)
//	err := prover.Verify(pvk, proof, asg.PublicInputs())
//
// Many jobs of many partitions, with synthesis overlapped with proving, run through package
// engine.
package prover
