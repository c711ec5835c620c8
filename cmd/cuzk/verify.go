package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/prover"
)

func runVerify(ctx context.Context, args []string) error {
	fs := newFlagSet("verify", "[flags]",
		"Verify a multi-partition proof against a verifying key and the partitions' public inputs.\n"+
			"Exit status 0 when every partition verifies; otherwise the error names the first\n"+
			"partition that does not.")
	vkPath := fs.String("vk", "circuit.vk", "verifying key (bellperson format)")
	proofPath := fs.String("proof", "proof.bin", fmt.Sprintf("proof, partitions × 192 bytes (at most %d partitions)", engine.MaxPartitions))
	inputsPath := fs.String("inputs", "inputs.json", "public inputs: JSON array per partition of decimal strings")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	for _, f := range []struct{ flag, path string }{{"vk", *vkPath}, {"proof", *proofPath}, {"inputs", *inputsPath}} {
		if err := checkInputFile(f.flag, f.path); err != nil {
			return err
		}
	}
	vk, err := prover.ReadVerifyingKeyFile(*vkPath, prover.Checked)
	if err != nil {
		return err
	}
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		return fmt.Errorf("%s: %w", *vkPath, err)
	}
	proofs, err := prover.ReadProofsFile(*proofPath, engine.MaxPartitions)
	if err != nil {
		var de *prover.DecodeError
		if errors.As(err, &de) && de.Index >= 0 {
			return fmt.Errorf("%s: partition %d: %w", *proofPath, de.Index, err)
		}
		return err
	}
	inputs, err := readInputs(*inputsPath, inputsJSONLimit(len(proofs), pvk.NumPublicInputs()))
	if err != nil {
		return err
	}
	if len(inputs) != len(proofs) {
		return fmt.Errorf("%s holds %d partition proofs but %s the inputs of %d partitions",
			*proofPath, len(proofs), *inputsPath, len(inputs))
	}
	for p, in := range inputs {
		if len(in) != pvk.NumPublicInputs() {
			return fmt.Errorf("%s: partition %d has %d public inputs, %s takes %d",
				*inputsPath, p, len(in), *vkPath, pvk.NumPublicInputs())
		}
	}
	ptrs := make([]*prover.Proof, len(proofs))
	for p := range proofs {
		ptrs[p] = &proofs[p]
	}
	if err := prover.VerifyBatch(pvk, ptrs, inputs); err != nil {
		// Verify one by one to name the first partition that fails.
		for p := range ptrs {
			if perr := prover.Verify(pvk, ptrs[p], inputs[p]); perr != nil {
				return fmt.Errorf("%s against %s: partition %d: %w", *proofPath, *inputsPath, p, perr)
			}
		}
		return fmt.Errorf("%s against %s: %w", *proofPath, *inputsPath, err)
	}
	fmt.Fprintf(stdout, "ok: %d partitions verify\n", len(inputs))
	return nil
}
