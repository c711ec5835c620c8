package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/assemble"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func runProve(ctx context.Context, args []string) error {
	fs := newFlagSet("prove", "[flags]",
		"Prove partitions of a built-in circuit with parameters from 'cuzk setup' and write the\n"+
			"proof (partitions × 192 bytes) and its public inputs (JSON). Both outputs go in one\n"+
			"directory and are replaced together, the inputs first: a proof file is always\n"+
			"accompanied by its own inputs. Outputs are written atomically with mode 0644.")
	var cf circuitFlags
	cf.register(fs, 1<<12)
	paramsPath := fs.String("params", "circuit.params", "parameters file (bellperson format)")
	unchecked := fs.Bool("unchecked", false, "skip the subgroup checks when decoding the parameters' points (trusted files only)")
	partitions := fs.Int("partitions", 1, fmt.Sprintf("number of partitions (1 to %d)", engine.MaxPartitions))
	proofPath := fs.String("proof", "proof.bin", "output: the proof, partitions × 192 bytes")
	inputsPath := fs.String("inputs-out", "inputs.json", "output: the public inputs as JSON, in the directory of --proof")
	force := fs.Bool("force", false, "replace existing output files")
	deviceFlag := fs.String("device", "auto", "where to prove: auto (the first GPU when available, else CPU), cpu, or gpu")
	var tables tableFlags
	tables.register(fs)
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	// Every flag and path is checked before the parameters are read.
	if err := checkRange("partitions", *partitions, 1, engine.MaxPartitions); err != nil {
		return err
	}
	if err := cf.validate(); err != nil {
		return err
	}
	if err := errors.Join(checkDeviceName(*deviceFlag), tables.check(*deviceFlag)); err != nil {
		return err
	}
	if filepath.Dir(*proofPath) != filepath.Dir(*inputsPath) {
		return usagef("--proof %s and --inputs-out %s must be in one directory, so that they are replaced together",
			*proofPath, *inputsPath)
	}
	if err := checkOutputs(*force, output{"inputs-out", *inputsPath}, output{"proof", *proofPath}); err != nil {
		return err
	}
	if err := checkInputFile("params", *paramsPath); err != nil {
		return err
	}
	mode := prover.Checked
	if *unchecked {
		mode = prover.Unchecked
	}

	devs, gpus, err := selectDevices(*deviceFlag, &tables)
	if err != nil {
		return err
	}
	defer closeAll(gpus)
	dev := devs[0]
	shape, err := cf.compile()
	if err != nil {
		return err
	}
	// The points stay in the file's mapping: a GPU uploads them from it on the first partition
	// (checking each point as mode says), the CPU decodes them onto the heap once. A bad point
	// fails that partition with its section, index and byte offset.
	start := time.Now()
	m, err := prover.OpenParametersFile(*paramsPath, mode)
	if err != nil {
		return err
	}
	defer m.Close()
	params, err := m.Parameters()
	if err != nil {
		return fmt.Errorf("%s: %w", *paramsPath, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := prover.CheckParameters(params, shape); err != nil {
		return fmt.Errorf("%s for circuit %s: %w", *paramsPath, cf.describe(), err)
	}
	loaded := time.Since(start)
	parts := make([]assemble.Part, *partitions)
	inputs := make([][]fr.Element, *partitions)
	for p := range parts {
		circ, in, err := cf.instance(p)
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		asg, err := synth.Synthesize(ctx, shape, circ)
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		proof, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(dev))
		if err != nil {
			if _, bad := errors.AsType[*prover.DecodeError](err); bad {
				return fmt.Errorf("partition %d: parameters %s: %w", p, *paramsPath, err)
			}
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
	inFile, err := inputsFile(*inputsPath, inputs)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := atomicfile.WritePair(inFile, atomicfile.File{Path: *proofPath, Data: all}, writeOptions(*force)...); err != nil {
		return fmt.Errorf("write %s and %s: %w", *inputsPath, *proofPath, err)
	}
	fmt.Fprintf(stdout, "proved %d partitions of %s on %s: params %s, proving %s\n", *partitions, cf.describe(),
		dev.Name(), loaded.Round(time.Millisecond), (time.Since(start) - loaded).Round(time.Millisecond))
	fmt.Fprintf(stdout, "wrote %s (%d bytes) and %s\n", *proofPath, len(all), *inputsPath)
	return nil
}
