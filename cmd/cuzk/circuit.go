package main

import (
	"flag"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/synth"
)

// circuitFlags selects a built-in circuit and its size.
type circuitFlags struct {
	name        string
	constraints int
	inputs      int
	seed        uint64
}

func (c *circuitFlags) register(fs *flag.FlagSet, constraints int) {
	fs.StringVar(&c.name, "circuit", "scalable", "built-in circuit: scalable")
	fs.IntVar(&c.constraints, "constraints", constraints, "scalable: number of constraints (up to 2^27)")
	fs.IntVar(&c.inputs, "inputs", 4, "scalable: number of public inputs, ONE not counted")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the deterministic witness")
}

// instance returns the circuit of one partition, with its witness, and its public inputs.
func (c *circuitFlags) instance(partition int) (synth.Circuit, []fr.Element, error) {
	switch c.name {
	case "scalable":
		sc := &circuits.Scalable{Constraints: c.constraints, Inputs: c.inputs, Seed: c.seed, Partition: partition}
		if err := sc.Validate(); err != nil {
			return nil, nil, err
		}
		return sc, sc.PublicInputs(), nil
	default:
		return nil, nil, fmt.Errorf("unknown circuit %q (built-in: scalable)", c.name)
	}
}

// describe names the circuit and its size for messages.
func (c *circuitFlags) describe() string {
	return fmt.Sprintf("%s (%d constraints, %d inputs)", c.name, c.constraints, c.inputs)
}

// compile returns the circuit's shape, from partition 0's instance.
func (c *circuitFlags) compile() (*synth.Shape, error) {
	circ, _, err := c.instance(0)
	if err != nil {
		return nil, err
	}
	return synth.Compile(circ)
}
