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

// PartitionScalars are the scalar vectors of one partition's MSMs, compacted by density so that
// scalar i goes with point i of the matching Parameters query.
type PartitionScalars struct {
	A   []fr.Element // inputs ‖ aux marked by a_aux: with Parameters.A
	B   []fr.Element // inputs marked by b_input ‖ aux marked by b_aux: with BG1 and BG2
	Aux []fr.Element // every aux variable: with Parameters.L
}

// CompactScalars gathers the MSM scalars of asg as bellperson's prover does.
func CompactScalars(asg *synth.Assignment) PartitionScalars {
	return PartitionScalars{A: ScalarsA(asg), B: ScalarsB(asg), Aux: asg.Aux}
}

// ScalarsA returns the A query's scalars: the inputs, then the aux values a_aux marks.
func ScalarsA(asg *synth.Assignment) []fr.Element {
	s := asg.Shape
	a := make([]fr.Element, 0, s.NumInputs+s.ADensityAux.Count())
	a = append(a, asg.Inputs...)
	return appendDense(a, asg.Aux, s.ADensityAux)
}

// ScalarsB returns the B queries' scalars: the inputs b_input marks, then the aux values b_aux
// marks.
func ScalarsB(asg *synth.Assignment) []fr.Element {
	s := asg.Shape
	b := make([]fr.Element, 0, s.BDensityInput.Count()+s.BDensityAux.Count())
	b = appendDense(b, asg.Inputs, s.BDensityInput)
	return appendDense(b, asg.Aux, s.BDensityAux)
}

// MSMResults are the multi-scalar multiplications of one partition.
type MSMResults struct {
	A, B1, L, H bls12381.G1Jac // Σ a_i·A_i, Σ b_i·B_i (G1), Σ aux_j·L_j, Σ h_i·H_i
	B2          bls12381.G2Jac // Σ b_i·B_i (G2)
}

// AssembleProof combines the MSM results with r and s as bellman does:
//
//	A = α + Σa + r·δ
//	B = β + Σb + s·δ (G2)
//	C = Σl + Σh + s·(α + Σa) + r·(β + Σb) + r·s·δ (G1)
func AssembleProof(vk *VerifyingKey, m *MSMResults, rs Randomness) *Proof {
	r, s := bigOf(&rs.R), bigOf(&rs.S)
	var rsProd fr.Element
	rsProd.Mul(&rs.R, &rs.S)

	var ga, gc, t bls12381.G1Jac
	ga.FromAffine(&vk.DeltaG1)
	ga.ScalarMultiplication(&ga, r)
	ga.AddMixed(&vk.AlphaG1)
	ga.AddAssign(&m.A)

	var gb bls12381.G2Jac
	gb.FromAffine(&vk.DeltaG2)
	gb.ScalarMultiplication(&gb, s)
	gb.AddMixed(&vk.BetaG2)
	gb.AddAssign(&m.B2)

	gc.FromAffine(&vk.DeltaG1)
	gc.ScalarMultiplication(&gc, bigOf(&rsProd))
	t.FromAffine(&vk.AlphaG1)
	t.AddAssign(&m.A)
	t.ScalarMultiplication(&t, s)
	gc.AddAssign(&t)
	t.FromAffine(&vk.BetaG1)
	t.AddAssign(&m.B1)
	t.ScalarMultiplication(&t, r)
	gc.AddAssign(&t)
	gc.AddAssign(&m.H)
	gc.AddAssign(&m.L)

	p := &Proof{}
	p.A.FromJacobian(&ga)
	p.B.FromJacobian(&gb)
	p.C.FromJacobian(&gc)
	return p
}
