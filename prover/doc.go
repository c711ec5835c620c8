// Package prover proves and verifies Groth16 over BLS12-381, byte-compatible with bellperson.
//
// Parameters and verifying keys read and write bellperson's layout (ReadParametersFile maps the
// file and decodes it in parallel, Checked or Unchecked); package devsetup makes INSECURE
// development parameters for any compiled circuit. OpenParametersFile maps a file and leaves its
// points there: MappedParameters.Parameters gives Parameters that a GPU uploads from the mapping
// chunk by chunk, so that the heap never holds the points (the CPU decodes them once).
//
// Groth16's recipe is written once here, over the primitives of package prover/primitive: a
// partition's A·w, B·w, C·w and w are staged on a device, the A and B scalars compacted there by
// density; h = (a·b − c)/Z comes from six NTTs: inverse NTTs of a, b, c, NTTs of a and b on the
// coset g·⟨ω⟩ (g = 7) where Z(g·ω^i) = g^m − 1, their product's inverse coset NTT, less c's
// coefficients, over g^m − 1; then the MSMs H, A, B_G1,
// L and B_G2 run over the parameters' resident points, and A, B, C are combined with r and s.
// NewDevice turns a primitive.Device into a Device: CPU() runs the primitives with gnark-crypto,
// package gpu with CUDA. A Device proves in three phases — Prepare (staging), Run under the
// device's kernel-only lock (device work only), Finalize on the CPU — so that two workers on one
// device overlap one's CPU work with the other's device work; package engine schedules them.
//
// One partition:
//
//	shape, _ := synth.Compile(circuit)
//	params, _ := prover.ReadParametersFile("porep.params", prover.Unchecked)
//	asg, _ := synth.Synthesize(ctx, shape, circuit)
//	proof, _ := prover.ProvePartition(ctx, params, asg) // on the CPU; r, s from crypto/rand
//	pvk, _ := prover.PrepareVerifyingKey(&params.VK)
//	err := prover.Verify(pvk, proof, asg.PublicInputs())
//
// An assembled proof of N partitions (N × 192 bytes) verifies with VerifyAssembled against the
// partitions' public inputs, which MarshalPublicInputs and UnmarshalPublicInputs carry as JSON:
// [["12","34"],["56","78"]], an array per partition of decimal strings without the leading ONE.
package prover
