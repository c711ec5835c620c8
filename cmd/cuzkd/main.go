// Command cuzkd is the cuzk proving daemon: it serves Curio's cuzk.v1.ProvingEngine gRPC service,
// so a Curio node configured with [Cuzk] Address = "unix:///run/curio/cuzk.sock" sends its
// SNARK work here. It proves PoRep C2, WinningPoSt, WindowPoSt and SnapDeals on the GPUs it finds
// (the CPU when none) with the parameters of the Filecoin parameter cache.
//
//	cuzkd [run] [--config /data/zk/cuzk.toml] [--listen unix:///run/curio/cuzk.sock] [--param-cache DIR] [--cpu-only] …
//	cuzkd run --insecure-dev-params …   # INSECURE development parameters, 2 KiB sectors, tests and demos
//	cuzkd status [--addr unix:///run/curio/cuzk.sock] [--json | --metrics]
//	cuzkd check-config [--config FILE]
//	cuzkd fold [--config FILE] [--fold-dir DIR] porep-32g …   # folded parameters, once per circuit
//
// See docs/daemon.md for the configuration keys and the metrics.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal kills the process
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code := exitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "cuzkd: %v\n", err)
		os.Exit(code)
	}
}

// exitCode is the process's exit status for run's error: 0 for none and for a command's -h
// (flag.ErrHelp: its flags were printed), 1 otherwise.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 1
}

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"run", "serve the proving daemon until SIGINT or SIGTERM (the default command)", runDaemon},
		{"status", "print GetStatus (or the metrics) of a running daemon", runStatus},
		{"check-config", "check a configuration file and print the effective configuration", runCheckConfig},
		{"fold", "fold circuits' parameters (C into L, H on the coset: an overlay beside their parameters file), for srs.fold_dir", runFold},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		usage(stderr)
		return nil
	}
	if len(args) == 0 || len(args[0]) > 0 && args[0][0] == '-' {
		return runDaemon(ctx, args, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cuzkd [command] [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'cuzkd <command> -h' for a command's flags.")
}
