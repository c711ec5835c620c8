package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/internal/boundedio"
	"github.com/cuzk-go/cuzk/prover"
)

// staleTempAge is the age past which a temporary file of ours (an output's name followed by
// .tmp and digits) is taken as left by a killed run and removed before writing that output. A
// temporary file being filled is modified continuously; one removed from under a concurrent
// run of the same outputs (which is not supported) makes that run fail, never write a wrong
// file.
const staleTempAge = time.Minute

// output is a file a command writes, named by a flag.
type output struct {
	flag, path string
}

// checkOutputs checks, before any work, that every output can be written: its directory exists
// and is writable, it is not a directory, it exists only when force is set, and no file is
// named twice (a usageError). It also removes the temporary files that killed runs left next to
// the outputs (staleTempAge).
func checkOutputs(force bool, outs ...output) error {
	seen := make(map[string]string)
	for _, o := range outs {
		if o.path == "" {
			return usagef("--%s: empty path", o.flag)
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("--%s %s: %w", o.flag, o.path, err)
		}
		if prev, ok := seen[abs]; ok {
			return usagef("--%s and --%s name the same file %s", prev, o.flag, o.path)
		}
		seen[abs] = o.flag
	}
	for i, o := range outs {
		dir := filepath.Dir(o.path)
		st, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("--%s %s: directory %s does not exist", o.flag, o.path, dir)
		case err != nil:
			return fmt.Errorf("--%s %s: %w", o.flag, o.path, err)
		case !st.IsDir():
			return fmt.Errorf("--%s %s: %s is not a directory", o.flag, o.path, dir)
		}
		if err := checkWritableDir(dir); err != nil {
			return fmt.Errorf("--%s %s: directory %s is not writable: %w", o.flag, o.path, dir, err)
		}
		st, err = os.Stat(o.path)
		switch {
		case err == nil && st.IsDir():
			return fmt.Errorf("--%s %s: is a directory", o.flag, o.path)
		case err == nil && !st.Mode().IsRegular():
			return fmt.Errorf("--%s %s: exists and is not a regular file", o.flag, o.path)
		case err == nil && !force:
			return fmt.Errorf("--%s %s: file exists (use --force to replace it)", o.flag, o.path)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("--%s %s: %w", o.flag, o.path, err)
		}
		// Two names of one file (a hard or symbolic link) are caught once both exist.
		for _, p := range outs[:i] {
			if a, b := statOrNil(p.path), statOrNil(o.path); a != nil && b != nil && os.SameFile(a, b) {
				return usagef("--%s %s and --%s %s are the same file", p.flag, p.path, o.flag, o.path)
			}
		}
		removed, err := atomicfile.RemoveStale(o.path, staleTempAge)
		if err != nil {
			return fmt.Errorf("--%s %s: remove stale temporary files: %w", o.flag, o.path, err)
		}
		for _, r := range removed {
			fmt.Fprintf(stderr, "cuzk: removed %s, left by an interrupted run\n", r)
		}
	}
	return nil
}

func statOrNil(path string) os.FileInfo {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return st
}

// checkWritableDir creates and removes a file in dir.
func checkWritableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".cuzk-write-check*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkInputFile checks that the file named by a flag exists and is not a directory, before
// any work. It does not open it: a named pipe would block.
func checkInputFile(flagName, path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--%s %s: no such file", flagName, path)
	case err != nil:
		return fmt.Errorf("--%s %s: %w", flagName, path, err)
	case st.IsDir():
		return fmt.Errorf("--%s %s: is a directory", flagName, path)
	}
	return nil
}

// writeOptions returns the atomicfile options of an output: replace only with force.
func writeOptions(force bool) []atomicfile.Option {
	if force {
		return []atomicfile.Option{atomicfile.Overwrite()}
	}
	return nil
}

// inputsFile is the atomicfile.File of the public inputs as JSON (prover.MarshalPublicInputs):
// an array per partition of decimal strings, without the leading ONE.
func inputsFile(path string, inputs [][]fr.Element) (atomicfile.File, error) {
	b, err := prover.MarshalPublicInputs(inputs)
	if err != nil {
		return atomicfile.File{}, fmt.Errorf("encode public inputs for %s: %w", path, err)
	}
	return atomicfile.File{Path: path, Data: append(b, '\n')}, nil
}

// inputsJSONLimit bounds the public-inputs JSON of partitions proofs of n inputs each: every
// value at most 77 digits, with room for quotes, separators and indentation.
func inputsJSONLimit(partitions, n int) int64 {
	const perValue, perPartition, slack = 128, 64, 4096
	return int64(partitions)*(int64(n)*perValue+perPartition) + slack
}

// readInputs reads the JSON written by prove, strictly (prover.UnmarshalPublicInputs), reading
// at most limit bytes.
func readInputs(path string, limit int64) ([][]fr.Element, error) {
	b, err := boundedio.ReadFile(path, limit)
	if errors.Is(err, boundedio.ErrTooLarge) {
		return nil, fmt.Errorf("%w: more than the public inputs of the proof can take", err)
	}
	if err != nil {
		return nil, fmt.Errorf("read inputs: %w", err)
	}
	in, err := prover.UnmarshalPublicInputs(b)
	if err != nil {
		return nil, fmt.Errorf("read inputs %s: %w", path, err)
	}
	return in, nil
}

// writeFile writes path atomically with atomicfile.Write, replacing an existing file: for the
// reports of timeline and bench, which are rewritten on every run.
func writeFile(path string, write func(w io.Writer) error) error {
	if err := atomicfile.Write(path, write, atomicfile.Overwrite()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
