// Command cuzk sets up, proves, verifies and benchmarks Groth16 proofs over BLS12-381 with the
// cuzk library.
//
//	cuzk setup  --circuit scalable --constraints 4096 --inputs 4 --out dir   (INSECURE dev setup)
//	cuzk prove  --params dir/circuit.params --circuit scalable … --partitions 2 --proof p.bin --inputs-out in.json
//	cuzk verify --vk dir/circuit.vk --proof p.bin --inputs in.json
//	cuzk bench  [--jobs J --partitions P --constraints N …]
//	cuzk timeline FILE
//
// Outputs are written atomically (a temporary file in the same directory, synced, then
// renamed) with mode 0644, and an existing output is replaced only with --force. Exit status:
// 0 success, 1 bad input or failed work, 2 a wrong command line, 130 interrupted.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runMain(ctx, stop, os.Args[1:])
	stop()
	os.Exit(code)
}

// interruptGrace is how long cuzk waits, after the first Ctrl-C, for the command to stop on its
// own (removing its temporary files) before it exits anyway: reading parameters, for one, cannot
// be interrupted.
const interruptGrace = time.Second

// runMain runs the command of args and returns cuzk's exit status, printing the error, if any,
// to stderr. When ctx is cancelled (the first Ctrl-C) it calls stop, so that a second Ctrl-C
// kills the process at once, and returns exitInterrupted as soon as the command stops or
// interruptGrace has passed, whichever comes first.
func runMain(ctx context.Context, stop func(), args []string) int {
	done := make(chan error, 1)
	go func() { done <- run(ctx, args) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		stop()
		select {
		case err = <-done:
		case <-time.After(interruptGrace):
			fmt.Fprintln(stderr, "cuzk: interrupted")
			return exitInterrupted
		}
	}
	code := exitStatus(ctx, err)
	switch code {
	case exitOK:
	case exitInterrupted:
		fmt.Fprintln(stderr, "cuzk: interrupted")
	default:
		fmt.Fprintf(stderr, "cuzk: %v\n", err)
	}
	return code
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

// run runs the command named by args[0] with the rest of args.
func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return usagef("no command given")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:])
		}
	}
	usage(stderr)
	return usagef("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cuzk <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'cuzk <command> -h' for a command's flags.

Outputs are written atomically (a temporary file in the same directory, synced, then renamed)
with mode 0644; an existing output is replaced only with --force. A pair of outputs (setup's
circuit.vk and circuit.params, prove's inputs and proof) is replaced together.

Exit status:
  0    success (and -h)
  1    bad input or failed work: a file that cannot be read or is malformed, an output that
       exists or cannot be written, a proof that does not verify
  2    the command line is wrong: unknown command or flag, a malformed or out-of-range flag
       value, an unexpected argument, one file named for two outputs
  130  interrupted (Ctrl-C); a second Ctrl-C stops at once
`)
}
