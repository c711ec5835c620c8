package prover

import (
	"context"
	"errors"
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// ErrParamsMismatch is wrapped by errors about parameters that do not fit the circuit.
var ErrParamsMismatch = errors.New("prover: parameters do not match the circuit")

// ProveOption configures ProvePartition.
type ProveOption func(*proveConfig) error

type proveConfig struct {
	device Device
	rs     *Randomness
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
// another device. r and s come from crypto/rand unless WithRandomness fixes them.
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
	return task.Finalize(ctx)
}

// CheckParameters reports whether params fit shape: |IC| = inputs, |L| = aux, |H| = m−1, and the
// A, B_G1, B_G2 queries have one point per variable their densities mark.
func CheckParameters(params *Parameters, shape *synth.Shape) error {
	bCount := shape.BDensityInput.Count() + shape.BDensityAux.Count()
	checks := []struct {
		name      string
		got, want int
	}{
		{"ic", len(params.VK.IC), shape.NumInputs},
		{"h", len(params.H), shape.DomainSize() - 1},
		{"l", len(params.L), shape.NumAux},
		{"a", len(params.A), shape.NumInputs + shape.ADensityAux.Count()},
		{"b_g1", len(params.BG1), bCount},
		{"b_g2", len(params.BG2), bCount},
	}
	for _, c := range checks {
		if c.got != c.want {
			return fmt.Errorf("%w: section %s has %d points, the circuit needs %d (%d inputs, %d aux, %d constraints)",
				ErrParamsMismatch, c.name, c.got, c.want, shape.NumInputs, shape.NumAux, shape.NumConstraints)
		}
	}
	return nil
}

// partitionScalars are the scalar vectors of one partition's MSMs, compacted by density.
type partitionScalars struct {
	a   []fr.Element // inputs ‖ aux marked by a_aux
	b   []fr.Element // inputs marked by b_input ‖ aux marked by b_aux
	aux []fr.Element
}

func compactScalars(asg *synth.Assignment) partitionScalars {
	s := asg.Shape
	a := make([]fr.Element, 0, s.NumInputs+s.ADensityAux.Count())
	a = append(a, asg.Inputs...)
	a = appendDense(a, asg.Aux, s.ADensityAux)
	b := make([]fr.Element, 0, s.BDensityInput.Count()+s.BDensityAux.Count())
	b = appendDense(b, asg.Inputs, s.BDensityInput)
	b = appendDense(b, asg.Aux, s.BDensityAux)
	return partitionScalars{a: a, b: b, aux: asg.Aux}
}

// msmResults are the multi-scalar multiplications of one partition.
type msmResults struct {
	a, b1, l, h bls12381.G1Jac // Σ a_i·A_i, Σ b_i·B_i (G1), Σ aux_j·L_j, Σ h_i·H_i
	b2          bls12381.G2Jac
}

// assembleProof combines the MSM results with r and s as bellman does:
//
//	A = α + Σa + r·δ
//	B = β + Σb + s·δ (G2)
//	C = Σl + Σh + s·(α + Σa) + r·(β + Σb) + r·s·δ (G1)
func assembleProof(vk *VerifyingKey, m *msmResults, rs Randomness) *Proof {
	r, s := bigOf(&rs.R), bigOf(&rs.S)
	var rsProd fr.Element
	rsProd.Mul(&rs.R, &rs.S)

	var ga, gc, t bls12381.G1Jac
	ga.FromAffine(&vk.DeltaG1)
	ga.ScalarMultiplication(&ga, r)
	ga.AddMixed(&vk.AlphaG1)
	ga.AddAssign(&m.a)

	var gb bls12381.G2Jac
	gb.FromAffine(&vk.DeltaG2)
	gb.ScalarMultiplication(&gb, s)
	gb.AddMixed(&vk.BetaG2)
	gb.AddAssign(&m.b2)

	gc.FromAffine(&vk.DeltaG1)
	gc.ScalarMultiplication(&gc, bigOf(&rsProd))
	t.FromAffine(&vk.AlphaG1)
	t.AddAssign(&m.a)
	t.ScalarMultiplication(&t, s)
	gc.AddAssign(&t)
	t.FromAffine(&vk.BetaG1)
	t.AddAssign(&m.b1)
	t.ScalarMultiplication(&t, r)
	gc.AddAssign(&t)
	gc.AddAssign(&m.h)
	gc.AddAssign(&m.l)

	p := &Proof{}
	p.A.FromJacobian(&ga)
	p.B.FromJacobian(&gb)
	p.C.FromJacobian(&gc)
	return p
}
