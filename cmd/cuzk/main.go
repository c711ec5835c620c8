// Command cuzk sets up, proves, verifies and benchmarks Groth16 proofs over BLS12-381 with the
// cuzk library.
//
//	cuzk setup  --circuit scalable --constraints 4096 --inputs 4 --out dir   (INSECURE dev setup)
//	cuzk prove  --params dir/circuit.params --circuit scalable … --partitions 2 --proof p.bin --inputs-out in.json
//	cuzk verify --vk dir/circuit.vk --proof p.bin --inputs in.json
//	cuzk bench  [--jobs J --partitions P --constraints N …]
//	cuzk timeline FILE
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cuzk: %v\n", err)
		os.Exit(1)
	}
}

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"setup", "generate INSECURE development parameters (.params, .vk) for a built-in circuit", runSetup},
		{"prove", "prove partitions of a built-in circuit; write the proof and the public inputs", runProve},
		{"verify", "verify a multi-partition proof against a .vk and public inputs", runVerify},
		{"bench", "run the proving engine on jobs of a built-in circuit and report throughput and utilization", runBench},
		{"timeline", "analyze a TIMELINE log", runTimeline},
		{"circuit-hash", "print a circuit's counts and its bellpepper constraint-system hash", runCircuitHash},
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return fmt.Errorf("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:])
		}
	}
	usage()
	return fmt.Errorf("unknown command %q", args[0])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cuzk <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'cuzk <command> -h' for a command's flags.")
}
