package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cuzk-go/cuzk/gpu"
)

// Exit statuses of cuzk, documented in `cuzk -h`.
const (
	exitOK          = 0
	exitFailure     = 1   // bad input (a file that cannot be read or is malformed, an output that exists, a proof that does not verify) or failed work
	exitUsage       = 2   // the command line is wrong: unknown command or flag, malformed or out-of-range flag value, unexpected argument
	exitInterrupted = 130 // interrupted (Ctrl-C): 128 + SIGINT
)

// stdout and stderr are where the commands write their reports and their usage; tests replace
// them.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

// usageError marks an error in the command line itself (exit status 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usageError with the formatted message.
func usagef(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

// errHelpShown is returned by parseFlags after it printed a command's usage for -h or --help:
// the command stops and cuzk exits with status 0.
var errHelpShown = errors.New("help shown")

// exitStatus maps the error of a command to cuzk's exit status; ctx is the command's context,
// cancelled on Ctrl-C.
func exitStatus(ctx context.Context, err error) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return exitOK
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ue):
		return exitUsage
	default:
		return exitFailure
	}
}

// newFlagSet returns the flag set of a subcommand whose usage prints "usage: cuzk name
// synopsis", the description about, and the flags.
func newFlagSet(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: cuzk %s %s\n\n%s\n\nflags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's arguments, flags before, between and after the positional
// arguments, and returns the positional ones, of which there must be want. For -h or --help it
// prints the usage to stdout and returns errHelpShown. Every other error is a usageError
// naming the subcommand.
func parseFlags(fs *flag.FlagSet, args []string, want int) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return nil, errHelpShown
	}
	if err != nil {
		return nil, usagef("%s: %v (see 'cuzk %s -h')", fs.Name(), err, fs.Name())
	}
	if len(pos) != want {
		if want == 0 {
			return nil, usagef("%s: unexpected argument %q: the command takes flags only (see 'cuzk %s -h')", fs.Name(), pos[0], fs.Name())
		}
		return nil, usagef("%s: want %d argument(s), got %d: %s (see 'cuzk %s -h')", fs.Name(), want, len(pos), strings.Join(pos, " "), fs.Name())
	}
	return pos, nil
}

// parseInterspersed parses flags before, between and after the positional arguments and
// returns the positional ones. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the caller prints usage
	defer fs.SetOutput(out)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// maxBenchJobs bounds bench's --jobs: the jobs are submitted at once.
const maxBenchJobs = 1 << 10

// checkRange returns a usageError unless lo ≤ v ≤ hi, naming the flag and the range.
func checkRange(flagName string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s %d out of range: want %d to %d", flagName, v, lo, hi)
	}
	return nil
}

// checkDeviceName checks the value of --device before any work (selectDevices opens the
// devices).
func checkDeviceName(which string) error {
	switch which {
	case "auto", "cpu", "gpu":
		return nil
	}
	return usagef("--device: unknown device %q (want auto, cpu or gpu)", which)
}

// shiftTableFlag is --shift-table-h: off (the default), on (also the bare flag) or auto.
type shiftTableFlag struct{ mode gpu.ShiftTableMode }

func (f *shiftTableFlag) String() string   { return f.mode.String() }
func (f *shiftTableFlag) IsBoolFlag() bool { return true }
func (f *shiftTableFlag) Set(s string) (err error) {
	f.mode, err = gpu.ParseShiftTableMode(s)
	return err
}

// shiftTableHUsage is the --shift-table-h flag's help.
const shiftTableHUsage = "GPUs keep a second table of H's bases, each times 2^128, for H's MSM: about 7 % fewer point additions there, for as much device memory again as H (12 GiB at 32 GiB PoRep). on (or the bare flag): built as the parameters are uploaded (seconds more); auto: built after the first partitions if the GPU then has room for it, under the kernel lock, and freed again when an upload needs the room; off"

// pairTablesUsage is the --pair-tables flag's help.
const pairTablesUsage = "GPUs keep tables of the sums of adjacent bases of B_G2, B_G1, A and L, for the ones (a witness's bits) of those MSMs: a quarter fewer point additions there, for half those bases' device memory (16 GiB at 32 GiB PoRep: B_G2 3.0, B_G1 1.5, A and L 5.8 each), each built after a circuit's first partitions where the GPU then has room for it (after an automatic H shift table), and freed again when an upload or a partition needs the room"

// tableFlags are the flags of the tables GPUs keep beside the parameters: --shift-table-h and
// --pair-tables.
type tableFlags struct {
	shiftH shiftTableFlag
	pairs  bool
}

func (t *tableFlags) register(fs *flag.FlagSet) {
	fs.Var(&t.shiftH, "shift-table-h", shiftTableHUsage)
	fs.BoolVar(&t.pairs, "pair-tables", false, pairTablesUsage)
}

// check refuses the tables with --device cpu: they are kept on GPUs only.
func (t *tableFlags) check(device string) error {
	if device != "cpu" {
		return nil
	}
	if t.shiftH.mode != gpu.ShiftTableOff {
		return usagef("--shift-table-h: the shift table is kept on GPUs, and --device cpu uses none")
	}
	if t.pairs {
		return usagef("--pair-tables: the pair tables are kept on GPUs, and --device cpu uses none")
	}
	return nil
}

// apply sets the tables g keeps.
func (t *tableFlags) apply(g *gpu.ProverDevice) {
	g.SetShiftTableH(t.shiftH.mode)
	g.SetPairTables(t.pairs)
}
