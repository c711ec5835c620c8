package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/prover"
)

// Names of the files setup writes in --out.
const (
	paramsName = "circuit.params"
	vkName     = "circuit.vk"
)

func runSetup(ctx context.Context, args []string) error {
	fs := newFlagSet("setup", "[flags]",
		"Generate INSECURE development parameters for a built-in circuit: circuit.vk and\n"+
			"circuit.params in --out (created if missing). The toxic waste is generated in this\n"+
			"process: never use these parameters in production. The two files are replaced\n"+
			"together, the vk first: circuit.params is always accompanied by its own circuit.vk.\n"+
			"Outputs are written atomically with mode 0644.")
	var cf circuitFlags
	cf.register(fs, 1<<12)
	out := fs.String("out", ".", "directory for circuit.params and circuit.vk")
	force := fs.Bool("force", false, "replace existing circuit.params and circuit.vk")
	device := fs.String("device", "auto", "where to compute the points: auto (GPU when available, else CPU), cpu, or gpu")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := errors.Join(cf.validate(), checkDeviceName(*device)); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	paramsPath := filepath.Join(*out, paramsName)
	vkPath := filepath.Join(*out, vkName)
	if err := checkOutputs(*force, output{"out", vkPath}, output{"out", paramsPath}); err != nil {
		return err
	}

	start := time.Now()
	onGPU, err := fixedBaseOption(*device)
	if err != nil {
		return err
	}
	shape, err := cf.compile()
	if err != nil {
		return err
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return err
	}
	// The parameters are streamed to their file as the setup makes them (no points on the
	// heap); the verifying key it wrote first is then written to its own file, and the pair
	// is moved into place together.
	var vk *prover.VerifyingKey
	err = atomicfile.WritePair(
		atomicfile.File{Path: vkPath, Fill: func(w io.Writer) error { _, err := vk.WriteTo(w); return err }},
		atomicfile.File{Path: paramsPath, Fill: func(w io.Writer) error {
			written, err := devsetup.StreamInsecureSetup(w, shape, tw, onGPU...)
			if err != nil {
				return err
			}
			vk = written
			return ctx.Err()
		}},
		writeOptions(*force)...)
	if err != nil {
		return fmt.Errorf("write %s and %s: %w", vkPath, paramsPath, err)
	}
	fmt.Fprintf(stdout, "INSECURE development setup: the toxic waste was generated in this process; never use these parameters in production.\n")
	fmt.Fprintf(stdout, "circuit %s: %d rows, domain 2^%d, %d aux\n", cf.describe(), shape.NumRows(), log2(shape.DomainSize()), shape.NumAux)
	fmt.Fprintf(stdout, "wrote %s and %s in %s\n", paramsPath, vkPath, time.Since(start).Round(time.Millisecond))
	return nil
}

// fixedBaseOption returns the devsetup option that computes a setup's points on GPU 0 for
// --device gpu, and for auto when a GPU is present; no option (the CPU) for cpu, or for auto
// without a GPU.
func fixedBaseOption(which string) ([]devsetup.Option, error) {
	if which == "cpu" {
		return nil, nil
	}
	lib, err := gpu.Load()
	var dev *gpu.Device
	if err == nil {
		dev, err = lib.Device(0)
	}
	if err != nil {
		if which == "gpu" || !(errors.Is(err, gpu.ErrNotLoaded) || errors.Is(err, gpu.ErrNoDevice)) {
			return nil, err
		}
		return nil, nil
	}
	return []devsetup.Option{devsetup.WithFixedBase(dev)}, nil
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
