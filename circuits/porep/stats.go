package porep

import (
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// Stats describes one compiled and synthesized circuit.
type Stats struct {
	Constraints, Inputs, Aux int
	Domain                   int     // FFT domain size (power of two ≥ constraints + inputs)
	ADensityAux, BDensityAux float64 // share of aux variables in A (resp. B)
	BDensityInput            float64
	AuxZero, AuxOne          float64 // share of aux values equal to 0 (resp. 1)
	TermsA, TermsB, TermsC   int
	// PairsA, PairsB and PairsL are, for the scalars of the A, B and L MSMs (w compacted by A's
	// and B's densities, and the aux values), the additions of their ones with a pair table
	// (scalars 2k and 2k+1 both 1 add one point: gpu.G1Bases.AddPairTable) over those without.
	PairsA, PairsB, PairsL float64
}

// pairShare is the additions of the ones among s with a pair table over those without: the pairs
// (s[2k], s[2k+1]) with at least one 1 (a last scalar without a partner counts alone), over the
// ones.
func pairShare(s []fr.Element) float64 {
	ones, adds := 0, 0
	for k := 0; k < len(s); k += 2 {
		a := s[k].IsOne()
		b := k+1 < len(s) && s[k+1].IsOne()
		if a {
			ones++
		}
		if b {
			ones++
		}
		if a || b {
			adds++
		}
	}
	if ones == 0 {
		return 1
	}
	return float64(adds) / float64(ones)
}

// Measure returns the statistics of shape and its assignment.
func Measure(shape *synth.Shape, asg *synth.Assignment) Stats {
	st := Stats{
		Constraints: shape.NumConstraints, Inputs: shape.NumInputs, Aux: shape.NumAux,
		Domain: shape.DomainSize(),
		TermsA: shape.A.NumTerms(), TermsB: shape.B.NumTerms(), TermsC: shape.C.NumTerms(),
	}
	if shape.NumAux > 0 {
		st.ADensityAux = float64(shape.ADensityAux.Count()) / float64(shape.NumAux)
		st.BDensityAux = float64(shape.BDensityAux.Count()) / float64(shape.NumAux)
	}
	st.BDensityInput = float64(shape.BDensityInput.Count()) / float64(shape.NumInputs)
	if asg != nil && len(asg.Aux) > 0 {
		zero, one := 0, 0
		for i := range asg.Aux {
			switch {
			case asg.Aux[i].IsZero():
				zero++
			case asg.Aux[i].IsOne():
				one++
			}
		}
		st.AuxZero = float64(zero) / float64(len(asg.Aux))
		st.AuxOne = float64(one) / float64(len(asg.Aux))
	}
	if asg != nil {
		a := append([]fr.Element(nil), asg.Inputs...)
		var b []fr.Element
		for i := range asg.Inputs {
			if shape.BDensityInput.Has(i) {
				b = append(b, asg.Inputs[i])
			}
		}
		for i := range asg.Aux {
			if shape.ADensityAux.Has(i) {
				a = append(a, asg.Aux[i])
			}
			if shape.BDensityAux.Has(i) {
				b = append(b, asg.Aux[i])
			}
		}
		st.PairsA, st.PairsB, st.PairsL = pairShare(a), pairShare(b), pairShare(asg.Aux)
	}
	return st
}

// Write prints st as one line.
func (st Stats) Write(w io.Writer, name string) {
	fmt.Fprintf(w, "%-10s constraints %11d  inputs %4d  aux %11d  domain 2^%d  A-density %.3f  B-density %.3f  aux 0: %.3f  aux 1: %.3f  terms A/B/C %d/%d/%d  pair additions A/B/L %.3f/%.3f/%.3f\n",
		name, st.Constraints, st.Inputs, st.Aux, log2(st.Domain), st.ADensityAux, st.BDensityAux, st.AuxZero, st.AuxOne, st.TermsA, st.TermsB, st.TermsC,
		st.PairsA, st.PairsB, st.PairsL)
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
