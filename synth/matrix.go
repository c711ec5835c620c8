package synth

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Matrix is one of A, B, C in a compact compressed-row form over the circuit's own constraints
// (the input constraints are implicit).
//
// Columns index the full assignment w = inputs ‖ aux: column i < NumInputs is input i, column
// NumInputs + j is aux j. Row r is the 32-bit words words[rowPtr[r]:rowPtr[r+1]], one word per
// term, word = code<<colBits | column, where colBits is the fewest bits that hold every column
// (at least 1, at most 30) and code, the 32 − colBits high bits, names the coefficient:
//
//	code 0              the coefficient is 1
//	code 1              the coefficient is −1
//	2 ≤ code < escape   the coefficient is Coeffs[code]
//	code = escape       the coefficient is Coeffs[next word]; the term takes two words
//
// with escape = 2^(32−colBits) − 1. The shape's coefficient table is ordered by use (after 1 and
// −1, the most used first), so that the common coefficients take one word. Terms within a row are
// sorted by column and distinct.
type Matrix struct {
	rowPtr  []uint32
	words   []uint32
	terms   int
	colBits uint
	coeffs  []fr.Element // the shape's coefficient table
}

// MatrixEntry is one term of a row: its column in w and the index of its coefficient in the
// shape's Coeffs table (0 is 1, 1 is −1).
type MatrixEntry struct {
	Col   uint32
	Coeff uint32
}

// NumRows returns the number of rows stored: the circuit's constraints.
func (m *Matrix) NumRows() int { return max(len(m.rowPtr)-1, 0) }

// NumTerms returns the number of stored terms.
func (m *Matrix) NumTerms() int { return m.terms }

// Bytes returns the memory the matrix's arrays take, in bytes.
func (m *Matrix) Bytes() int { return 4 * (len(m.rowPtr) + len(m.words)) }

// Encoding returns the matrix's arrays as described on Matrix, for copying it elsewhere (a
// device): the row offsets (NumRows()+1 of them), the term words and colBits. The slices are the
// matrix's own and must not be modified.
func (m *Matrix) Encoding() (rowPtr, words []uint32, colBits int) {
	return m.rowPtr, m.words, int(m.colBits)
}

// escape returns the code that announces a coefficient index in the next word.
func (m *Matrix) escape() uint32 { return ^uint32(0) >> m.colBits }

// AppendRow appends the terms of row r to dst and returns the extended slice.
func (m *Matrix) AppendRow(dst []MatrixEntry, r int) []MatrixEntry {
	mask, esc := uint32(1)<<m.colBits-1, m.escape()
	for k := m.rowPtr[r]; k < m.rowPtr[r+1]; k++ {
		x := m.words[k]
		code := x >> m.colBits
		if code == esc {
			k++
			code = m.words[k]
		}
		dst = append(dst, MatrixEntry{Col: x & mask, Coeff: code})
	}
	return dst
}

// MulVec sets out[r] = ⟨row r, w⟩ = Σ coeff·w[col] over the terms of row r, for lo ≤ r < hi.
// Terms of coefficient ±1 cost an addition, others a multiplication and an addition.
func (m *Matrix) MulVec(w, out []fr.Element, lo, hi int) {
	shift := m.colBits
	mask, esc := uint32(1)<<shift-1, m.escape()
	words, rowPtr, coeffs := m.words, m.rowPtr, m.coeffs
	var t fr.Element
	for r := lo; r < hi; r++ {
		var acc fr.Element
		for k, end := rowPtr[r], rowPtr[r+1]; k < end; k++ {
			x := words[k]
			v := &w[x&mask]
			switch code := x >> shift; code {
			case 0:
				acc.Add(&acc, v)
			case 1:
				acc.Sub(&acc, v)
			case esc:
				k++
				t.Mul(v, &coeffs[words[k]])
				acc.Add(&acc, &t)
			default:
				t.Mul(v, &coeffs[code])
				acc.Add(&acc, &t)
			}
		}
		out[r] = acc
	}
}
