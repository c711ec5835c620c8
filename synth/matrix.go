package synth

import (
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/utils/cpu"
)

// Matrix is one of A, B, C in a compact compressed-row form over the circuit's own constraints
// (the input constraints are implicit).
//
// Columns index the full assignment w = inputs ‖ aux: column i < NumInputs is input i, column
// NumInputs + j is aux j. A row is a run of 32-bit words, one word per term,
// word = code<<colBits | column, where colBits is the fewest bits that hold every column (at
// least 1, at most 30) and code, the 32 − colBits high bits, names the coefficient:
//
//	code 0              the coefficient is 1
//	code 1              the coefficient is −1
//	2 ≤ code < escape   the coefficient is Coeffs[code]
//	code = escape       the coefficient is Coeffs[next word]; the term takes two words
//
// with escape = 2^(32−colBits) − 1. The shape's coefficient table is ordered by use (after 1 and
// −1, the most used first), so that the common coefficients take one word. Terms within a row are
// sorted by column and distinct.
//
// The rows follow each other in words. Where each starts is kept in about 1.1 bytes a row:
// rowLen[r] is row r's length in words, or LongRow when it is LongRow words or more, its length
// then being longLens[i] for longRows[i] = r (rows increasing); blockPtr[b] is the first word of
// row b·RowBlock, and blockPtr[last] = len(words).
type Matrix struct {
	rowLen   []uint8
	blockPtr []uint32
	longRows []uint32
	longLens []uint32
	words    []uint32
	terms    int
	colBits  uint
	coeffs   []fr.Element // the shape's coefficient table
}

// RowBlock is the number of rows between two stored word offsets of a Matrix.
const RowBlock = 32

// LongRow is the row length (in words) from which a Matrix keeps a row's length in its list of
// long rows instead of its byte.
const LongRow = 255

// MatrixEntry is one term of a row: its column in w and the index of its coefficient in the
// shape's Coeffs table (0 is 1, 1 is −1).
type MatrixEntry struct {
	Col   uint32
	Coeff uint32
}

// NumRows returns the number of rows stored: the circuit's constraints.
func (m *Matrix) NumRows() int { return len(m.rowLen) }

// NumTerms returns the number of stored terms.
func (m *Matrix) NumTerms() int { return m.terms }

// Bytes returns the memory the matrix's arrays take, in bytes.
func (m *Matrix) Bytes() int {
	return len(m.rowLen) + 4*(len(m.blockPtr)+len(m.longRows)+len(m.longLens)+len(m.words))
}

// MatrixEncoding is a Matrix's arrays, as described on Matrix, for copying it elsewhere (a
// device). The slices are the matrix's own and must not be modified.
type MatrixEncoding struct {
	RowLen             []uint8  // per row: length in words, or LongRow
	BlockPtr           []uint32 // first word of every RowBlock-th row, then len(Words)
	LongRows, LongLens []uint32 // rows of LongRow words or more, and their lengths
	Words              []uint32
	ColBits            int
}

// Encoding returns the matrix's arrays.
func (m *Matrix) Encoding() MatrixEncoding {
	return MatrixEncoding{m.rowLen, m.blockPtr, m.longRows, m.longLens, m.words, int(m.colBits)}
}

// escape returns the code that announces a coefficient index in the next word.
func (m *Matrix) escape() uint32 { return ^uint32(0) >> m.colBits }

// cursor walks the rows in order from a given row: the word where the row starts and the next
// long row.
type cursor struct {
	k    uint32 // first word of the current row
	long int    // index in longRows of the first long row at or after the current row
}

// seek returns the cursor at row r.
func (m *Matrix) seek(r int) cursor {
	b := r / RowBlock
	long, _ := slices.BinarySearch(m.longRows, uint32(b*RowBlock))
	c := cursor{k: m.blockPtr[b], long: long}
	for i := b * RowBlock; i < r; i++ {
		c.k += m.rowLength(i, &c)
	}
	return c
}

// rowLength returns the length of row r in words, advancing c past it in longRows if long.
func (m *Matrix) rowLength(r int, c *cursor) uint32 {
	if n := m.rowLen[r]; n != LongRow {
		return uint32(n)
	}
	n := m.longLens[c.long]
	c.long++
	return n
}

// AppendRow appends the terms of row r to dst and returns the extended slice.
func (m *Matrix) AppendRow(dst []MatrixEntry, r int) []MatrixEntry {
	c := m.seek(r)
	mask, esc := uint32(1)<<m.colBits-1, m.escape()
	for k, end := c.k, c.k+m.rowLength(r, &c); k < end; k++ {
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

// gatherRow is the row length, in words, from which MulVec gathers the terms of general
// coefficients for fr.Vector.InnerProduct, when the CPU has AVX-512: its vector code reduces
// once per sum rather than once per product, about 2× faster than a multiplication and an
// addition per term at 16 terms, 3× at 64 (the long rows of Poseidon's linear layers), copies
// included.
const gatherRow = 16

// gatherChunk is the number of terms MulVec gathers before it sums them.
const gatherChunk = 64

// MulVec sets out[r] = ⟨row r, w⟩ = Σ coeff·w[col] over the terms of row r, for lo ≤ r < hi.
// Terms of coefficient ±1 cost an addition, others a multiplication and an addition, or, in
// rows of gatherRow words or more on a CPU with AVX-512, a share of an inner product.
func (m *Matrix) MulVec(w, out []fr.Element, lo, hi int) {
	if lo >= hi {
		return
	}
	shift := m.colBits
	mask, esc := uint32(1)<<shift-1, m.escape()
	words, coeffs, rowLen, longLens := m.words, m.coeffs, m.rowLen, m.longLens
	c := m.seek(lo)
	k, long := c.k, c.long
	var t fr.Element
	var xs, ys fr.Vector // gathered values and coefficients
	out = out[lo:hi]
	for i, n8 := range rowLen[lo:hi] {
		n := uint32(n8)
		if n == LongRow {
			n = longLens[long]
			long++
		}
		var acc fr.Element
		if n >= gatherRow && cpu.SupportAVX512 {
			if xs == nil {
				xs, ys = make(fr.Vector, 0, gatherChunk), make(fr.Vector, 0, gatherChunk)
			}
			for end := k + n; k < end; k++ {
				x := words[k]
				v := &w[x&mask]
				code := x >> shift
				switch code {
				case 0:
					acc.Add(&acc, v)
					continue
				case 1:
					acc.Sub(&acc, v)
					continue
				case esc:
					k++
					code = words[k]
				}
				xs = append(xs, *v)
				ys = append(ys, coeffs[code])
				if len(xs) == gatherChunk {
					t = xs.InnerProduct(ys)
					acc.Add(&acc, &t)
					xs, ys = xs[:0], ys[:0]
				}
			}
			if len(xs) > 0 {
				t = xs.InnerProduct(ys)
				acc.Add(&acc, &t)
				xs, ys = xs[:0], ys[:0]
			}
			out[i] = acc
			continue
		}
		for end := k + n; k < end; k++ {
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
		out[i] = acc
	}
}
