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
	"github.com/cuzk-go/cuzk/synth"
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
	shape, params, err := cf.insecureSetup(onGPU...)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	vkBytes, err := params.VK.MarshalBinary()
	if err != nil {
		return err
	}
	err = atomicfile.WritePair(
		atomicfile.File{Path: vkPath, Data: vkBytes},
		atomicfile.File{Path: paramsPath, Fill: func(w io.Writer) error { _, err := params.WriteTo(w); return err }},
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

// insecureSetup compiles the circuit and generates INSECURE development parameters for it, the
// toxic waste drawn from crypto/rand and dropped.
func (c *circuitFlags) insecureSetup(opts ...devsetup.Option) (*synth.Shape, *prover.Parameters, error) {
	shape, err := c.compile()
	if err != nil {
		return nil, nil, err
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	params, err := devsetup.InsecureSetup(shape, tw, opts...)
	if err != nil {
		return nil, nil, err
	}
	return shape, params, nil
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
