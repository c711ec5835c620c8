package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/assemble"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func runProve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("prove", flag.ContinueOnError)
	var cf circuitFlags
	cf.register(fs, 1<<12)
	paramsPath := fs.String("params", "circuit.params", "parameters file (bellperson format)")
	unchecked := fs.Bool("unchecked", false, "skip the subgroup checks when reading the parameters (trusted files only)")
	partitions := fs.Int("partitions", 1, "number of partitions")
	proofPath := fs.String("proof", "proof.bin", "output: the proof, partitions × 192 bytes")
	inputsPath := fs.String("inputs-out", "inputs.json", "output: the public inputs as JSON")
	deviceFlag := fs.String("device", "auto", "where to prove: auto (the first GPU when available, else CPU), cpu, or gpu")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *partitions < 1 {
		return fmt.Errorf("--partitions must be ≥ 1")
	}
	mode := prover.Checked
	if *unchecked {
		mode = prover.Unchecked
	}
	start := time.Now()
	params, err := prover.ReadParametersFile(*paramsPath, mode)
	if err != nil {
		return err
	}
	shape, err := cf.compile()
	if err != nil {
		return err
	}
	if err := prover.CheckParameters(params, shape); err != nil {
		return fmt.Errorf("%s for circuit %s: %w", *paramsPath, cf.describe(), err)
	}
	devs, gpus, err := selectDevices(*deviceFlag)
	if err != nil {
		return err
	}
	defer closeAll(gpus)
	dev := devs[0]
	loaded := time.Since(start)
	parts := make([]assemble.Part, *partitions)
	inputs := make([][]fr.Element, *partitions)
	for p := range parts {
		circ, in, err := cf.instance(p)
		if err != nil {
			return err
		}
		asg, err := synth.Synthesize(ctx, shape, circ)
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		proof, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(dev))
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		b := proof.Bytes()
		parts[p] = assemble.Part{Index: p, Proof: b[:]}
		inputs[p] = in
	}
	all, err := assemble.Assemble(*partitions, parts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*proofPath, all, 0o644); err != nil {
		return err
	}
	if err := writeInputs(*inputsPath, inputs); err != nil {
		return err
	}
	fmt.Printf("proved %d partitions of %s on %s: params %s, proving %s\n", *partitions, cf.describe(),
		dev.Name(), loaded.Round(time.Millisecond), (time.Since(start) - loaded).Round(time.Millisecond))
	fmt.Printf("wrote %s (%d bytes) and %s\n", *proofPath, len(all), *inputsPath)
	return nil
}
