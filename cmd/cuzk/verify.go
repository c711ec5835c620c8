package main

import (
	"context"
	"flag"
	"fmt"
	"os"

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
	inputs, err := readInputs(*inputsPath)
	if err != nil {
		return err
	}
	if err := prover.VerifyAssembled(pvk, raw, inputs); err != nil {
		return fmt.Errorf("%s against %s: %w", *proofPath, *inputsPath, err)
	}
	fmt.Printf("ok: %d partitions verify\n", len(inputs))
	return nil
}
