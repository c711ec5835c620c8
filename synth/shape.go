package synth

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Matrix is one of A, B, C in compressed sparse rows over the circuit's own constraints (the
// input constraints are implicit). Row r holds the terms Cols[RowPtr[r]:RowPtr[r+1]].
//
// Columns index the full assignment w = inputs ‖ aux: column i < NumInputs is input i, column
// NumInputs + j is aux j. Coefficients are indices into the Shape's Coeffs table, where index 0
// is 1 and index 1 is −1, so that the common coefficients cost no multiplication.
type Matrix struct {
	RowPtr []uint32
	Cols   []uint32
	Coeffs []uint32
}

// NumTerms returns the number of stored terms.
func (m *Matrix) NumTerms() int { return len(m.Cols) }

// Shape is a compiled circuit: its matrices, counts and densities. A Shape is immutable and may
// be shared by any number of concurrent Synthesize calls.
type Shape struct {
	NumInputs      int // public inputs, One included
	NumAux         int
	NumConstraints int // the circuit's own constraints, without the input constraints
	A, B, C        Matrix
	Coeffs         []fr.Element // distinct coefficients; [0] = 1, [1] = −1

	// Densities as bellperson's ProvingAssignment computes them: a variable is marked when a
	// term of it appears in a constraint's a (resp. b) combination, whatever its coefficient.
	ADensityAux   *Density
	BDensityInput *Density
	BDensityAux   *Density

	// parallel is the layout of each CS.Parallel call, in call order.
	parallel [][]branchLayout
}

// NumRows returns the number of rows the prover evaluates: the circuit's constraints followed by
// one input constraint per input.
func (s *Shape) NumRows() int { return s.NumConstraints + s.NumInputs }

// DomainSize returns m, the smallest power of two ≥ NumRows: the size of the FFT domain.
func (s *Shape) DomainSize() int {
	n := s.NumRows()
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// ErrShapeTooLarge is returned by Compile when a count does not fit the compiled representation.
var ErrShapeTooLarge = errors.New("synth: circuit too large")

type lcTerms struct {
	cols   []uint32
	coeffs []uint32
}

// shapeBuilder records constraints while a circuit runs in shape mode. Variables are recorded
// in the tagged Variable form and rewritten to columns once the number of inputs is known.
type shapeBuilder struct {
	a, b, c  Matrix
	coeffIdx map[fr.Element]uint32
	coeffs   []fr.Element
	scratch  []Term
	err      error
	parallel [][]branchLayout // the layout of each Parallel call, in call order
}

func newShapeBuilder() *shapeBuilder {
	sb := &shapeBuilder{coeffIdx: make(map[fr.Element]uint32)}
	for _, c := range []fr.Element{frOne, frMinus1} {
		sb.coeffIdx[c] = uint32(len(sb.coeffs))
		sb.coeffs = append(sb.coeffs, c)
	}
	for _, m := range []*Matrix{&sb.a, &sb.b, &sb.c} {
		m.RowPtr = append(m.RowPtr, 0)
	}
	return sb
}

func (sb *shapeBuilder) add(a, b, c LC) {
	sb.addRow(&sb.a, a)
	sb.addRow(&sb.b, b)
	sb.addRow(&sb.c, c)
}

// addRow appends lc as one row, adding the coefficients of repeated variables (as bellperson's
// LinearCombination does) and keeping terms whose coefficient sums to zero.
func (sb *shapeBuilder) addRow(m *Matrix, lc LC) {
	terms := lc
	if len(lc) > 1 {
		// Sort a copy by variable and merge repeats: insertion sort for the usual short rows,
		// the library sort for long ones (packings of hundreds of bits).
		sb.scratch = append(sb.scratch[:0], lc...)
		terms = sb.scratch
		if len(terms) <= 16 {
			for i := 1; i < len(terms); i++ {
				for j := i; j > 0 && terms[j].Var < terms[j-1].Var; j-- {
					terms[j], terms[j-1] = terms[j-1], terms[j]
				}
			}
		} else {
			slices.SortFunc(terms, func(x, y Term) int { return cmp.Compare(x.Var, y.Var) })
		}
		k := 0
		for i := 1; i < len(terms); i++ {
			if terms[i].Var == terms[k].Var {
				terms[k].Coeff.Add(&terms[k].Coeff, &terms[i].Coeff)
			} else {
				k++
				terms[k] = terms[i]
			}
		}
		terms = terms[:k+1]
	}
	for i := range terms {
		m.Cols = append(m.Cols, uint32(terms[i].Var))
		m.Coeffs = append(m.Coeffs, sb.coeffIndex(&terms[i].Coeff))
	}
	if len(m.Cols) > math.MaxUint32 && sb.err == nil {
		sb.err = fmt.Errorf("%w: more than 2^32 terms in one matrix", ErrShapeTooLarge)
	}
	m.RowPtr = append(m.RowPtr, uint32(len(m.Cols)))
}

// coeffIndex returns the index of c in the coefficient table, adding it if new; 1 and −1, the
// common cases, skip the map.
func (sb *shapeBuilder) coeffIndex(c *fr.Element) uint32 {
	switch {
	case c.Equal(&frOne):
		return 0
	case c.Equal(&frMinus1):
		return 1
	}
	idx, ok := sb.coeffIdx[*c]
	if !ok {
		idx = uint32(len(sb.coeffs))
		sb.coeffIdx[*c] = idx
		sb.coeffs = append(sb.coeffs, *c)
	}
	return idx
}

// Compile runs circuit once in shape mode and returns its compiled Shape. The witness values the
// circuit assigns are ignored.
func Compile(circuit Circuit) (*Shape, error) {
	cs := newCS(modeShape, 1, 0)
	cs.shape = newShapeBuilder()
	if err := runCircuit(circuit, cs); err != nil {
		return nil, fmt.Errorf("compile circuit: %w", err)
	}
	sb := cs.shape
	if sb.err != nil {
		return nil, fmt.Errorf("compile circuit: %w", sb.err)
	}
	if len(cs.inputs)+len(cs.aux) > math.MaxInt32 {
		return nil, fmt.Errorf("compile circuit: %w: %d variables", ErrShapeTooLarge, len(cs.inputs)+len(cs.aux))
	}
	s := &Shape{
		NumInputs:      len(cs.inputs),
		NumAux:         len(cs.aux),
		NumConstraints: cs.n,
		A:              sb.a,
		B:              sb.b,
		C:              sb.c,
		Coeffs:         sb.coeffs,
		ADensityAux:    NewDensity(len(cs.aux)),
		BDensityInput:  NewDensity(len(cs.inputs)),
		BDensityAux:    NewDensity(len(cs.aux)),
		parallel:       sb.parallel,
	}
	// Rewrite tagged variables as columns of w = inputs ‖ aux and mark the densities.
	nIn := uint32(s.NumInputs)
	for mi, m := range []*Matrix{&s.A, &s.B, &s.C} {
		for i, raw := range m.Cols {
			v := Variable(raw)
			if v.IsInput() {
				if mi == 1 {
					s.BDensityInput.Set(v.Index())
				}
				continue
			}
			j := v.Index()
			switch mi {
			case 0:
				s.ADensityAux.Set(j)
			case 1:
				s.BDensityAux.Set(j)
			}
			m.Cols[i] = nIn + uint32(j)
		}
	}
	return s, nil
}

// runCircuit calls circuit.Synthesize, turning a panic into an error so that one bad circuit
// cannot take its caller down.
func runCircuit(circuit Circuit, cs *CS) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCircuitPanic, r)
		}
	}()
	return circuit.Synthesize(cs)
}

// ErrCircuitPanic wraps a panic raised by a circuit's Synthesize.
var ErrCircuitPanic = errors.New("synth: circuit panicked")
