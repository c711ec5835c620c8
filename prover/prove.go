package prover

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// ErrParamsMismatch is wrapped by errors about parameters that do not fit the circuit.
var ErrParamsMismatch = errors.New("prover: parameters do not match the circuit")

// ProveOption configures ProvePartition.
type ProveOption func(*proveConfig) error

type proveConfig struct {
	device      Device
	rs          *Randomness
	noSelfCheck bool
}

// ErrSelfCheck is wrapped by ProvePartition's error when the proof it made does not verify: the
// witness does not satisfy the circuit, or the parameters or the device are wrong.
var ErrSelfCheck = errors.New("prover: self-check: proof does not verify")

// WithoutSelfCheck returns the proof without verifying it first. Only for callers that verify
// it themselves, or that prove with parameters whose proofs cannot verify (random points for
// timing); the check costs one Groth16 verification, milliseconds against the proof's seconds.
func WithoutSelfCheck() ProveOption {
	return func(c *proveConfig) error { c.noSelfCheck = true; return nil }
}

// WithDevice proves on dev instead of the CPU.
func WithDevice(dev Device) ProveOption {
	return func(c *proveConfig) error {
		if dev == nil {
			return errors.New("prover: nil device")
		}
		c.device = dev
		return nil
	}
}

// WithRandomness fixes the blinding scalars r and s. For tests only: a proof whose r and s are
// known reveals its witness.
func WithRandomness(rs Randomness) ProveOption {
	return func(c *proveConfig) error { c.rs = &rs; return nil }
}

// ProvePartition proves one synthesized partition with params: on the CPU unless WithDevice names
// another device. r and s come from crypto/rand unless WithRandomness fixes them. The proof is
// verified against params' verifying key and the assignment's public inputs before it is
// returned (an error wrapping ErrSelfCheck otherwise), unless WithoutSelfCheck is given.
func ProvePartition(ctx context.Context, params *Parameters, asg *synth.Assignment, opts ...ProveOption) (*Proof, error) {
	cfg := proveConfig{device: CPU()}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	rs := cfg.rs
	if rs == nil {
		r, err := NewRandomness()
		if err != nil {
			return nil, err
		}
		rs = &r
	}
	task, err := cfg.device.Prepare(ctx, params, asg, *rs)
	if err != nil {
		return nil, err
	}
	defer task.Release()
	if err := cfg.device.Lock(ctx); err != nil {
		return nil, err
	}
	err = task.Run(ctx)
	cfg.device.Unlock()
	if err != nil {
		return nil, err
	}
	proof, err := task.Finalize(ctx)
	if err != nil || cfg.noSelfCheck {
		return proof, err
	}
	pvk, err := PrepareVerifyingKey(&params.VK)
	if err != nil {
		return nil, fmt.Errorf("prover: self-check: %w", err)
	}
	if err := Verify(pvk, proof, asg.PublicInputs()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSelfCheck, err)
	}
	return proof, nil
}

// CheckParameters reports whether params fit shape: |IC| = inputs, |L| = aux, |H| = m−1 (m when
// folded: H on the coset), and the A, B_G1, B_G2 queries have one point per variable their
// densities mark. A mismatch is a *ParamsMismatchError. Parameters folded by FoldC must be
// folded for shape's C.
func CheckParameters(params *Parameters, shape *synth.Shape) error {
	if err := checkSections(len(params.VK.IC), params.Len, shape, params.CFold != nil); err != nil {
		return err
	}
	return checkFold(params, shape)
}

// ParamsMismatchError is the first section whose point count does not fit the circuit. It
// wraps ErrParamsMismatch.
type ParamsMismatchError struct {
	Section   string // ic, h, l, a, b_g1 or b_g2
	Got, Want int    // points in the section, points the circuit needs
	Shape     *synth.Shape
}

func (e *ParamsMismatchError) Error() string {
	return fmt.Sprintf("%v: section %s has %d points, the circuit needs %d (%d inputs, %d aux, %d constraints)",
		ErrParamsMismatch, e.Section, e.Got, e.Want, e.Shape.NumInputs, e.Shape.NumAux, e.Shape.NumConstraints)
}

func (e *ParamsMismatchError) Unwrap() error { return ErrParamsMismatch }

// checkSections is CheckParameters over the IC count and the sections' lengths, for decoded or
// mapped parameters alike, folded or not.
func checkSections(ic int, length func(primitive.Section) int, shape *synth.Shape, folded bool) error {
	bCount := shape.BDensityInput.Count() + shape.BDensityAux.Count()
	hCount := shape.DomainSize() - 1
	if folded {
		hCount++ // H on the coset: a point for each of the domain's m values
	}
	checks := []struct {
		name      string
		got, want int
	}{
		{"ic", ic, shape.NumInputs},
		{"h", length(primitive.SectionH), hCount},
		{"l", length(primitive.SectionL), shape.NumAux},
		{"a", length(primitive.SectionA), shape.NumInputs + shape.ADensityAux.Count()},
		{"b_g1", length(primitive.SectionBG1), bCount},
		{"b_g2", length(primitive.SectionBG2), bCount},
	}
	for _, c := range checks {
		if c.got != c.want {
			return &ParamsMismatchError{Section: c.name, Got: c.got, Want: c.want, Shape: shape}
		}
	}
	return nil
}

// CheckFile is CheckParameters for a parameters file, from its verifying key and section counts
// alone (no point is decoded).
func (m *MappedParameters) CheckFile(shape *synth.Shape) error {
	return checkSections(len(m.VK.IC), m.Len, shape, m.fold != nil)
}
