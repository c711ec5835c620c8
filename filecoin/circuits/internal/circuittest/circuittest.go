// Package circuittest holds test helpers shared by the Filecoin circuit packages.
package circuittest

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// Row returns row r of m, one of shape's matrices, as its columns and their coefficients, in
// the order the matrix stores them.
func Row(shape *synth.Shape, m *synth.Matrix, r int) (cols []int, coeffs []fr.Element) {
	for _, e := range m.AppendRow(nil, r) {
		cols = append(cols, int(e.Col))
		coeffs = append(coeffs, shape.Coeffs[e.Coeff])
	}
	return cols, coeffs
}
