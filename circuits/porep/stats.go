package porep

import (
	"fmt"
	"io"

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
	return st
}

// Write prints st as one line.
func (st Stats) Write(w io.Writer, name string) {
	fmt.Fprintf(w, "%-10s constraints %11d  inputs %4d  aux %11d  domain 2^%d  A-density %.3f  B-density %.3f  aux 0: %.3f  aux 1: %.3f  terms A/B/C %d/%d/%d\n",
		name, st.Constraints, st.Inputs, st.Aux, log2(st.Domain), st.ADensityAux, st.BDensityAux, st.AuxZero, st.AuxOne, st.TermsA, st.TermsB, st.TermsC)
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
