package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/cuzk-go/cuzk/assemble"
	"github.com/cuzk-go/cuzk/prover"
)

func runVerify(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	vkPath := fs.String("vk", "circuit.vk", "verifying key (bellperson format)")
	proofPath := fs.String("proof", "proof.bin", "proof, partitions × 192 bytes")
	inputsPath := fs.String("inputs", "inputs.json", "public inputs: JSON array per partition of decimal strings")
	if err := fs.Parse(args); err != nil {
		return err
	}
	vk, err := prover.ReadVerifyingKeyFile(*vkPath, prover.Checked)
	if err != nil {
		return err
	}
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(*proofPath)
	if err != nil {
		return err
	}
	parts, err := assemble.Split(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", *proofPath, err)
	}
	inputs, err := readInputs(*inputsPath)
	if err != nil {
		return err
	}
	if len(inputs) != len(parts) {
		return fmt.Errorf("%s holds %d partitions but %s has inputs for %d", *proofPath, len(parts), *inputsPath, len(inputs))
	}
	proofs := make([]*prover.Proof, len(parts))
	for i, b := range parts {
		proofs[i] = new(prover.Proof)
		if err := proofs[i].SetBytes(b); err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
	}
	if err := prover.VerifyBatch(pvk, proofs, inputs); err == nil {
		fmt.Printf("ok: %d partitions verify\n", len(proofs))
		return nil
	} else if !errors.Is(err, prover.ErrInvalidProof) {
		return err
	}
	// The batch failed: name the first partition that fails on its own.
	for i := range proofs {
		if err := prover.Verify(pvk, proofs[i], inputs[i]); err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
	}
	return errors.New("the batch check failed but every partition verifies alone")
}
