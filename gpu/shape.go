package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-go/cuzk/synth"
)

// Shape is a compiled shape's matrices A, B and C resident on a device, for computing a
// partition's evaluations there from its assignment w instead of shipping them. Close frees it.
type Shape struct {
	A, B, C                           *Matrix
	numInputs, numAux, numConstraints int
}

// UploadShape copies s's matrices and coefficient table to the device (Device.UploadMatrix,
// three times: about s.Bytes() of device memory).
func (d *Device) UploadShape(ctx context.Context, s *synth.Shape) (*Shape, error) {
	cols := s.NumInputs + s.NumAux
	var mats [3]*Matrix
	for i, m := range []*synth.Matrix{&s.A, &s.B, &s.C} {
		dm, err := d.UploadMatrix(ctx, m.Encoding(), s.Coeffs, cols)
		if err != nil {
			partial := &Shape{A: mats[0], B: mats[1], C: mats[2]}
			return nil, errors.Join(fmt.Errorf("gpu: upload shape, matrix %c: %w", "ABC"[i], err), partial.Close())
		}
		mats[i] = dm
	}
	return &Shape{A: mats[0], B: mats[1], C: mats[2], numInputs: s.NumInputs, numAux: s.NumAux, numConstraints: s.NumConstraints}, nil
}

// NumRows returns the number of evaluation rows: the circuit's constraints, then one input
// constraint per input (synth.Shape.NumRows).
func (s *Shape) NumRows() int { return s.numConstraints + s.numInputs }

// Evaluate writes the evaluations of synth.Assignment on the device, zero-padded to n elements:
// a = A·w ‖ w[:NumInputs] ‖ 0…, b = B·w ‖ 0…, c = C·w ‖ 0… (the input constraints have a = input_i,
// b = c = 0), each in [0, n) of its buffer. w holds the assignment inputs ‖ aux; n ≥ NumRows().
// c may be nil (C folded into L: prover.FoldC), and C·w is then not computed.
func (s *Shape) Evaluate(ctx context.Context, w, a, b, c *Scalars, n int) error {
	rows := s.NumRows()
	if n < rows {
		return fmt.Errorf("gpu: evaluate: %d elements for %d rows", n, rows)
	}
	if w.Len() < s.numInputs+s.numAux {
		return fmt.Errorf("gpu: evaluate: w has %d elements, the assignment %d", w.Len(), s.numInputs+s.numAux)
	}
	mats, outs := []*Matrix{s.A, s.B, s.C}, []*Scalars{a, b, c}
	if c == nil {
		mats, outs = mats[:2], outs[:2]
	}
	for _, x := range outs {
		if x.Len() < n {
			return fmt.Errorf("gpu: evaluate: an output of %d elements, want %d", x.Len(), n)
		}
	}
	if err := MulVecs(ctx, w, mats, outs, 0); err != nil {
		return fmt.Errorf("gpu: evaluate %s: %w", "A, B, C"[:3*len(outs)-2], err)
	}
	for i, out := range outs {
		tail := s.numConstraints
		if i == 0 {
			if err := out.CopyFrom(ctx, tail, w, 0, s.numInputs); err != nil {
				return fmt.Errorf("gpu: evaluate A's input rows: %w", err)
			}
			tail = rows
		}
		if tail < n {
			if err := out.Zero(ctx, tail, n-tail); err != nil {
				return fmt.Errorf("gpu: evaluate %c: %w", "ABC"[i], err)
			}
		}
	}
	return nil
}

// Close frees the device memory; later calls return ErrClosed.
func (s *Shape) Close() error {
	var errs []error
	for _, m := range []*Matrix{s.A, s.B, s.C} {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	return errors.Join(errs...)
}
