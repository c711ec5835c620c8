// Command engine shows the proving engine used in-process: several jobs of several partitions of
// one circuit, synthesized and proved concurrently (on the GPUs when libcuzk.so and a device are
// there, else on the CPU), each job's proof assembled in partition order and verified with the
// public helper prover.VerifyAssembled against the inputs the engine returns.
//
//	go run ./examples/engine
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func main() {
	if err := run(context.Background(), os.Stdout, 3, 4); err != nil {
		log.Fatal(err)
	}
}

// run proves jobs jobs of partitions partitions each and prints one line per job to out.
func run(ctx context.Context, out io.Writer, jobs, partitions int) error {
	// A small synthetic circuit: 2^9 constraints, 3 public inputs; partition i of job j
	// differs by its witness seed.
	circuit := func(job, partition int) *circuits.Scalable {
		return &circuits.Scalable{Constraints: 1<<9 - 8, Inputs: 3, Seed: uint64(job), Partition: partition}
	}
	shape, err := synth.Compile(circuit(0, 0))
	if err != nil {
		return err
	}
	// INSECURE: development parameters; production maps a ceremony's .params file
	// (prover.OpenParametersFile, then Parameters(): the GPUs upload the points from the
	// mapping and the heap holds none of them; Close the file after the last job).
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return err
	}
	params, err := devsetup.InsecureSetup(shape, tw)
	if err != nil {
		return err
	}

	devs, closeDevs, err := devices(out)
	if err != nil {
		return err
	}
	defer closeDevs()
	eng, err := engine.New(engine.WithDevices(devs...), engine.WithFallback(prover.CPU()))
	if err != nil {
		return err
	}
	defer eng.Close(ctx)

	handles := make([]*engine.Handle, jobs)
	for j := range handles {
		handles[j], err = eng.Submit(ctx, &engine.Job{
			Params:     params,
			Shape:      shape,
			Partitions: partitions,
			Circuit:    func(p int) (synth.Circuit, error) { return circuit(j, p), nil },
		})
		if err != nil {
			return err
		}
	}
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	if err != nil {
		return err
	}
	for j, h := range handles {
		res, err := h.Wait(ctx)
		if err != nil {
			return err
		}
		// res.Proof is what a chain receives: partitions × 192 bytes in partition order.
		if err := prover.VerifyAssembled(pvk, res.Proof, res.Inputs); err != nil {
			return fmt.Errorf("job %d: %w", j, err)
		}
		fmt.Fprintf(out, "job %d: %d partitions, %d bytes, verified (synthesis %s, device %s)\n",
			j, partitions, len(res.Proof), res.Stats.Synthesis.Round(1e6), res.Stats.Device.Round(1e6))
	}
	return eng.Close(ctx)
}

// devices returns the GPUs when the library and a device are there, else the CPU, and a
// function that frees the GPUs' memory.
func devices(out io.Writer) ([]prover.Device, func(), error) {
	gpus, err := gpu.ProverDevices()
	if errors.Is(err, gpu.ErrNotLoaded) || errors.Is(err, gpu.ErrNoDevice) {
		fmt.Fprintf(out, "no GPU (%v): proving on the CPU\n", err)
		return []prover.Device{prover.CPU()}, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return prover.NewDevices(gpus...), func() {
		for _, g := range gpus {
			g.Close()
		}
	}, nil
}
