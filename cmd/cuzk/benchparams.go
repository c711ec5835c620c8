package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// ensureParamsFile makes sure the parameters file at path serves shape, for bench
// --params-file: an existing file is opened and checked (its IC and section lengths must be
// the shape's, see prover.CheckParameters) and reused as it is; a missing one is written with
// devsetup.WriteInsecureSetup and opts, from toxic waste drawn from crypto/rand and dropped.
// made reports whether it was written. A file that exists but does not fit, or cannot be read,
// is an error naming it: it is never replaced, since a full-size setup takes long to make.
func ensureParamsFile(path string, shape *synth.Shape, opts ...devsetup.Option) (made bool, err error) {
	_, err = os.Stat(path)
	if err == nil {
		return false, checkParamsFile(path, shape)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("bench: --params-file: %w", err)
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return false, err
	}
	if err := devsetup.WriteInsecureSetup(path, shape, tw, opts...); err != nil {
		return false, fmt.Errorf("bench: --params-file: %w", err)
	}
	return true, nil
}

// checkParamsFile reports whether the parameters file at path has the section lengths of
// shape's parameters, reading only its verifying key and section counts.
func checkParamsFile(path string, shape *synth.Shape) error {
	m, err := prover.OpenParametersFile(path, prover.Unchecked)
	if err != nil {
		return fmt.Errorf("bench: --params-file: %w", err)
	}
	defer m.Close()
	var mismatch *prover.ParamsMismatchError
	if err := m.CheckFile(shape); errors.As(err, &mismatch) {
		return fmt.Errorf("bench: --params-file %s holds parameters for another circuit: section %s has %d points, this circuit needs %d; remove the file or choose another path",
			path, mismatch.Section, mismatch.Got, mismatch.Want)
	} else if err != nil {
		return fmt.Errorf("bench: --params-file %s: %w", path, err)
	}
	return nil
}

// loadBenchParams returns the parameters in the file at path and what to close once they are
// no longer used.
func loadBenchParams(path string) (*prover.Parameters, io.Closer, error) {
	m, err := prover.OpenParametersFile(path, prover.Unchecked)
	if err != nil {
		return nil, nil, err
	}
	p, err := m.Parameters()
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return p, m, nil
}

// foldBenchParams returns params folded for shape (bench --fold-c on: C folded into L, H on the
// coset), through the file at path when path is set: an existing file is opened and checked
// (prover.CheckParameters: its counts and the digest of the circuit it was folded for) and used
// as it is; otherwise the fold is made (with opts) and, with a path, written there. Parameters
// mapped from a file (--params-file) fold into a fold overlay beside it
// (prover.FoldParametersOverlay: L' and K, decoding only H and L), others into a folded
// parameters file. made reports whether it folded; closer closes the file it opened (nil
// otherwise). A file that exists but does not fit is an error naming it, never replaced.
func foldBenchParams(ctx context.Context, params *prover.Parameters, shape *synth.Shape, path string, opts ...prover.FoldOption) (
	folded *prover.Parameters, closer io.Closer, made bool, err error) {
	if path == "" {
		if folded, err = prover.FoldC(ctx, params, shape, opts...); err != nil {
			return nil, nil, false, fmt.Errorf("bench: --fold-c: %w", err)
		}
		return folded, nil, true, nil
	}
	base := params.Mapped()
	open := func() (*prover.MappedParameters, error) {
		if base != nil {
			return prover.OpenFoldOverlay(base, path, prover.Unchecked)
		}
		return prover.OpenFoldedParametersFile(path, prover.Unchecked)
	}
	_, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && base != nil:
		if err := prover.FoldParametersOverlay(ctx, base, shape, path, opts...); err != nil {
			return nil, nil, false, fmt.Errorf("bench: --folded-params-file: %w", err)
		}
		made = true
	case errors.Is(err, fs.ErrNotExist):
		f, err := prover.FoldC(ctx, params, shape, opts...)
		if err != nil {
			return nil, nil, false, fmt.Errorf("bench: --fold-c: %w", err)
		}
		if err := f.WriteFoldedParametersFile(path); err != nil {
			return nil, nil, false, fmt.Errorf("bench: --folded-params-file: %w", err)
		}
		made = true
	case err != nil:
		return nil, nil, false, fmt.Errorf("bench: --folded-params-file: %w", err)
	}
	m, err := open()
	if err != nil {
		return nil, nil, false, fmt.Errorf("bench: --folded-params-file: %w", err)
	}
	p, err := m.Parameters()
	if err == nil {
		err = prover.CheckParameters(p, shape)
	}
	if err != nil {
		m.Close()
		return nil, nil, false, fmt.Errorf("bench: --folded-params-file %s does not fit this circuit: %w; remove the file or choose another path", path, err)
	}
	return p, m, made, nil
}
