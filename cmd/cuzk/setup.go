package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func runSetup(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	var cf circuitFlags
	cf.register(fs, 1<<12)
	out := fs.String("out", ".", "directory for circuit.params and circuit.vk")
	if err := fs.Parse(args); err != nil {
		return err
	}
	start := time.Now()
	shape, params, err := cf.insecureSetup()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	paramsPath := filepath.Join(*out, "circuit.params")
	vkPath := filepath.Join(*out, "circuit.vk")
	if err := params.WriteParametersFile(paramsPath); err != nil {
		return err
	}
	vkBytes, err := params.VK.MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.WriteFile(vkPath, vkBytes, 0o644); err != nil {
		return err
	}
	fmt.Printf("INSECURE development setup: the toxic waste was generated in this process; never use these parameters in production.\n")
	fmt.Printf("circuit %s: %d rows, domain 2^%d, %d aux\n", cf.describe(), shape.NumRows(), log2(shape.DomainSize()), shape.NumAux)
	fmt.Printf("wrote %s and %s in %s\n", paramsPath, vkPath, time.Since(start).Round(time.Millisecond))
	return nil
}

// insecureSetup compiles the circuit and generates INSECURE development parameters for it, the
// toxic waste drawn from crypto/rand and dropped.
func (c *circuitFlags) insecureSetup() (*synth.Shape, *prover.Parameters, error) {
	shape, err := c.compile()
	if err != nil {
		return nil, nil, err
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	params, err := devsetup.InsecureSetup(shape, tw)
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
