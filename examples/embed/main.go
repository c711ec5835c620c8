// Command embed shows the cuzk library used in-process: a circuit written against synth, an
// INSECURE development setup, one partition synthesized, proved and verified.
//
//	go run ./examples/embed
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// cube proves knowledge of x such that x³ + x + 5 = y for a public y.
type cube struct{ x fr.Element }

func (c *cube) Synthesize(cs *synth.CS) error {
	var x2, x3, y fr.Element
	x2.Square(&c.x)
	x3.Mul(&x2, &c.x)
	five := fr.NewElement(5)
	y.Add(&x3, &c.x).Add(&y, &five)

	yv := cs.AllocInput(y)
	xv := cs.Alloc(c.x)
	x2v := cs.Alloc(x2)
	x3v := cs.Alloc(x3)
	cs.Enforce("x·x = x2", synth.V(xv), synth.V(xv), synth.V(x2v))
	cs.Enforce("x2·x = x3", synth.V(x2v), synth.V(xv), synth.V(x3v))
	cs.Enforce("(x3 + x + 5)·1 = y", synth.LC{}.Add(x3v).Add(xv).AddLC(synth.Const(five)), synth.V(synth.One), synth.V(yv))
	return nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run compiles the circuit, makes INSECURE parameters, proves one partition, verifies it and
// prints a line to out.
func run(ctx context.Context, out io.Writer) error {
	circuit := &cube{x: fr.NewElement(3)}

	shape, err := synth.Compile(circuit)
	if err != nil {
		return err
	}
	// INSECURE: development parameters; production maps a ceremony's .params file
	// (prover.OpenParametersFile, then Parameters(); a GPU uploads the points from the mapping,
	// the CPU decodes them onto the heap on its first proof; Close the file after the last proof).
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return err
	}
	params, err := devsetup.InsecureSetup(shape, tw)
	if err != nil {
		return err
	}

	asg, err := synth.Synthesize(ctx, shape, circuit)
	if err != nil {
		return err
	}
	proof, err := prover.ProvePartition(ctx, params, asg)
	if err != nil {
		return err
	}
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	if err != nil {
		return err
	}
	if err := prover.Verify(pvk, proof, asg.PublicInputs()); err != nil {
		return err
	}
	b := proof.Bytes()
	_, err = fmt.Fprintf(out, "proved and verified x³ + x + 5 = %s: proof %x…\n", asg.PublicInputs()[0].String(), b[:16])
	return err
}
