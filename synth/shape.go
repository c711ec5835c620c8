package synth

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Shape is a compiled circuit: its matrices, counts and densities. A Shape is immutable and may
// be shared by any number of concurrent Synthesize calls.
type Shape struct {
	NumInputs      int // public inputs, One included
	NumAux         int
	NumConstraints int // the circuit's own constraints, without the input constraints
	A, B, C        Matrix
	// Coeffs holds the distinct coefficients: [0] = 1, [1] = −1, then the others, the most used
	// first (ties in order of first use).
	Coeffs []fr.Element

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

// Bytes returns the memory the shape's arrays take (matrices, coefficient table, densities), in
// bytes.
func (s *Shape) Bytes() int {
	n := s.A.Bytes() + s.B.Bytes() + s.C.Bytes() + len(s.Coeffs)*fr.Bytes
	for _, d := range []*Density{s.ADensityAux, s.BDensityInput, s.BDensityAux} {
		n += 8 * len(d.words)
	}
	return n
}

// ErrShapeTooLarge is returned by Compile when a count does not fit the compiled representation.
var ErrShapeTooLarge = errors.New("synth: circuit too large")

// maxColBits is the widest column field of a matrix word: 2 bits are left for the coefficient
// code (1, −1, escape at least), so a circuit has at most 2^30 variables.
const maxColBits = 30

// rawMatrix is one matrix of a segment as recorded: terms in tagged Variable form with the
// segment's local coefficient indices, kept in fixed chunks so that recording never copies
// what it has recorded; row r is terms rowPtr[r]…rowPtr[r+1]−1, rowPtr[0] = 0.
type rawMatrix struct {
	rowPtr []uint32
	chunks [][]rawTerm
	n      int
}

// rawTerm is one recorded term: the variable and the local coefficient index.
type rawTerm struct {
	v Variable
	c uint32
}

// rawChunkBits: a chunk holds 2^16 terms (512 KiB).
const rawChunkBits = 16

func (m *rawMatrix) push(t rawTerm) {
	const mask = 1<<rawChunkBits - 1
	if m.n&mask == 0 {
		m.chunks = append(m.chunks, make([]rawTerm, 1<<rawChunkBits))
	}
	m.chunks[m.n>>rawChunkBits][m.n&mask] = t
	m.n++
}

// at returns term t.
func (m *rawMatrix) at(t uint32) rawTerm { return m.chunks[t>>rawChunkBits][t&(1<<rawChunkBits-1)] }

// segment records a run of consecutive constraints: the main circuit between Parallel calls, or
// one branch. Each has its own coefficient table (local indices 0 and 1 are 1 and −1), so that
// branches record concurrently; Compile merges the tables in segment order.
type segment struct {
	a, b, c  rawMatrix
	rows     int
	coeffIdx map[fr.Element]uint32
	recent   *[recentCoeffs]recentCoeff // in front of coeffIdx while the segment records
	coeffs   []fr.Element
	scratch  []Term
	keys     []uint64
	err      error
}

func newSegment() *segment {
	sg := &segment{coeffIdx: make(map[fr.Element]uint32), coeffs: []fr.Element{frOne, frMinus1}}
	for _, m := range []*rawMatrix{&sg.a, &sg.b, &sg.c} {
		m.rowPtr = []uint32{0}
	}
	return sg
}

// shapeBuilder records a circuit in shape mode: its segments in constraint order and the layout
// of each Parallel call.
type shapeBuilder struct {
	segs     []*segment
	parallel [][]branchLayout
	colBits  uint // at least this many column bits (tests force escapes with it)
}

// open appends a new segment and returns it.
func (sb *shapeBuilder) open() *segment {
	sg := newSegment()
	sb.segs = append(sb.segs, sg)
	return sg
}

// reserve makes room for rows more rows in each matrix's row offsets.
func (sg *segment) reserve(rows int) {
	for _, m := range []*rawMatrix{&sg.a, &sg.b, &sg.c} {
		m.rowPtr = slices.Grow(m.rowPtr, rows)
	}
}

func (sg *segment) add(a, b, c LC) {
	sg.addRow(&sg.a, a)
	sg.addRow(&sg.b, b)
	sg.addRow(&sg.c, c)
	sg.rows++
}

// addRow appends lc as one row, adding the coefficients of repeated variables (as bellperson's
// LinearCombination does) and keeping terms whose coefficient sums to zero.
func (sg *segment) addRow(m *rawMatrix, lc LC) {
	terms := lc
	if !strictlyIncreasing(lc) {
		// Sort a copy by variable and merge repeats: insertion sort for the usual short rows;
		// long ones sort keys variable<<32 | position, which the library sorts without a
		// comparison function, and gather. (lc itself is never stored: it stays on the
		// caller's stack.)
		sorted := sg.scratch[:0]
		if len(lc) <= 16 {
			sorted = append(sorted, lc...)
			for i := 1; i < len(sorted); i++ {
				for j := i; j > 0 && sorted[j].Var < sorted[j-1].Var; j-- {
					sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
				}
			}
		} else {
			sg.keys = sg.keys[:0]
			for i := range lc {
				sg.keys = append(sg.keys, uint64(lc[i].Var)<<32|uint64(i))
			}
			slices.Sort(sg.keys)
			for _, k := range sg.keys {
				sorted = append(sorted, lc[uint32(k)])
			}
		}
		k := 0
		for i := 1; i < len(sorted); i++ {
			if sorted[i].Var == sorted[k].Var {
				sorted[k].Coeff.Add(&sorted[k].Coeff, &sorted[i].Coeff)
			} else {
				k++
				sorted[k] = sorted[i]
			}
		}
		sg.scratch = sorted
		terms = sorted[:k+1]
	}
	if m.n+len(terms) > math.MaxUint32 {
		if sg.err == nil {
			sg.err = fmt.Errorf("%w: more than 2^32 terms in one matrix", ErrShapeTooLarge)
		}
		return
	}
	for i := range terms {
		m.push(rawTerm{terms[i].Var, sg.coeffIndex(&terms[i].Coeff)})
	}
	m.rowPtr = append(m.rowPtr, uint32(m.n))
}

// strictlyIncreasing reports whether the variables of lc increase strictly: already sorted,
// without repeats (as most rows, packings included, are).
func strictlyIncreasing(lc LC) bool {
	for i := 1; i < len(lc); i++ {
		if lc[i].Var <= lc[i-1].Var {
			return false
		}
	}
	return true
}

// recentCoeffs is the number of slots of a segment's cache of coefficient indices: a circuit
// uses few distinct coefficients (about a thousand in a WindowPoSt sector), over and over.
const recentCoeffs = 1 << 11

// recentCoeff is a slot of the cache: a coefficient and its local index (0: empty, as 1 is
// never cached).
type recentCoeff struct {
	c   fr.Element
	idx uint32
}

// coeffIndex returns the local index of c, adding it if new; 1 and −1, the common cases, skip
// the map, and so do the others found in the cache, a direct-mapped table indexed by the low
// bits of c's first word (the lookup of a 32-byte key in the map costs several times the
// comparison).
func (sg *segment) coeffIndex(c *fr.Element) uint32 {
	switch {
	case c.Equal(&frOne):
		return 0
	case c.Equal(&frMinus1):
		return 1
	}
	if sg.recent == nil {
		sg.recent = new([recentCoeffs]recentCoeff)
	}
	slot := &sg.recent[c[0]&(recentCoeffs-1)]
	if slot.idx != 0 && slot.c == *c {
		return slot.idx
	}
	idx, ok := sg.coeffIdx[*c]
	if !ok {
		idx = uint32(len(sg.coeffs))
		sg.coeffIdx[*c] = idx
		sg.coeffs = append(sg.coeffs, *c)
	}
	slot.c, slot.idx = *c, idx
	return idx
}

// done drops what the segment needs only while it records.
func (sg *segment) done() { sg.recent = nil }

// Compile runs circuit once in shape mode and returns its compiled Shape. The witness values the
// circuit assigns are ignored. The branches of CS.Parallel calls are recorded concurrently, and
// the matrices are encoded on all cores; the result does not depend on the number of cores.
func Compile(circuit Circuit) (*Shape, error) { return compile(circuit, 0) }

// compile is Compile with at least colBits column bits.
func compile(circuit Circuit, colBits uint) (*Shape, error) {
	cs := newCS(modeShape, 1, 0)
	cs.shape = &shapeBuilder{colBits: colBits}
	cs.rec = cs.shape.open()
	if err := runCircuit(circuit, cs); err != nil {
		return nil, fmt.Errorf("compile circuit: %w", err)
	}
	sb := cs.shape
	for _, sg := range sb.segs {
		if sg.err != nil {
			return nil, fmt.Errorf("compile circuit: %w", sg.err)
		}
	}
	if len(cs.inputs)+len(cs.aux) > 1<<maxColBits {
		return nil, fmt.Errorf("compile circuit: %w: %d variables, at most 2^%d", ErrShapeTooLarge, len(cs.inputs)+len(cs.aux), maxColBits)
	}
	nIn, nAux := len(cs.inputs), len(cs.aux)
	cs.inputs, cs.aux = nil, nil // the values are not needed any more: free them before encoding
	for _, sg := range sb.segs {
		sg.done()
	}
	s, err := sb.finish(nIn, nAux, cs.n)
	if err != nil {
		return nil, fmt.Errorf("compile circuit: %w", err)
	}
	return s, nil
}

// pieceRows is the number of rows of a segment that one worker encodes at a time. Pieces are
// fixed by the segments alone, never by the number of workers, so the result is deterministic.
const pieceRows = 1 << 15

// piece is rows lo..hi of segment seg, with its place in the output: the first output row and,
// per matrix, the first output word.
type piece struct {
	seg, lo, hi int
	row         int
	word        [3]uint64
}

// finish merges the segments into a Shape: one coefficient table ordered by use, the matrices
// encoded as described on Matrix, the densities. Every pass works on fixed pieces in parallel.
func (sb *shapeBuilder) finish(nIn, nAux, nRows int) (*Shape, error) {
	// The global table in order of first use, and each segment's local-to-global map.
	table := []fr.Element{frOne, frMinus1}
	index := make(map[fr.Element]uint32)
	remap := make([][]uint32, len(sb.segs))
	for i, sg := range sb.segs {
		remap[i] = make([]uint32, len(sg.coeffs))
		remap[i][0], remap[i][1] = 0, 1
		for li := 2; li < len(sg.coeffs); li++ {
			g, ok := index[sg.coeffs[li]]
			if !ok {
				g = uint32(len(table))
				index[sg.coeffs[li]] = g
				table = append(table, sg.coeffs[li])
			}
			remap[i][li] = g
		}
	}
	var pieces []piece
	row := 0
	for i, sg := range sb.segs {
		for lo := 0; lo < sg.rows; lo += pieceRows {
			pieces = append(pieces, piece{seg: i, lo: lo, hi: min(lo+pieceRows, sg.rows), row: row + lo})
		}
		row += sg.rows
	}
	if row != nRows {
		return nil, fmt.Errorf("recorded %d rows for %d constraints", row, nRows)
	}

	// Uses of each coefficient; then the final order: 1, −1, the others by use (descending),
	// ties by first use.
	uses := make([]uint64, len(table))
	var mu sync.Mutex
	forEachPieceLocal(len(pieces), func() (func(int), func()) {
		local := make([]uint64, len(table))
		count := func(p int) {
			pc := &pieces[p]
			sg, rm := sb.segs[pc.seg], remap[pc.seg]
			for _, m := range []*rawMatrix{&sg.a, &sg.b, &sg.c} {
				for t := m.rowPtr[pc.lo]; t < m.rowPtr[pc.hi]; t++ {
					local[rm[m.at(t).c]]++
				}
			}
		}
		flush := func() {
			mu.Lock()
			defer mu.Unlock()
			for i, u := range local {
				uses[i] += u
			}
		}
		return count, flush
	})
	order := make([]uint32, len(table)-2)
	for i := range order {
		order[i] = uint32(i + 2)
	}
	slices.SortStableFunc(order, func(x, y uint32) int { return cmp.Compare(uses[y], uses[x]) })
	final := make([]uint32, len(table)) // global index → final index
	coeffs := make([]fr.Element, len(table))
	final[0], final[1] = 0, 1
	coeffs[0], coeffs[1] = frOne, frMinus1
	for i, g := range order {
		final[g] = uint32(i + 2)
		coeffs[i+2] = table[g]
	}
	for i := range remap {
		for li, g := range remap[i] {
			remap[i][li] = final[g]
		}
	}

	colBits := max(uint(bits.Len(uint(nIn+nAux-1))), 1, sb.colBits)
	if colBits > maxColBits {
		return nil, fmt.Errorf("%w: %d variables, at most 2^%d", ErrShapeTooLarge, nIn+nAux, maxColBits)
	}
	esc := ^uint32(0) >> colBits

	// Words per piece and matrix (a term whose coefficient index reaches esc takes two), then
	// each piece's first output word.
	counts := make([][3]uint64, len(pieces))
	forEachPiece(len(pieces), func(p int) {
		pc := &pieces[p]
		sg, rm := sb.segs[pc.seg], remap[pc.seg]
		for mi, m := range []*rawMatrix{&sg.a, &sg.b, &sg.c} {
			lo, hi := m.rowPtr[pc.lo], m.rowPtr[pc.hi]
			n := uint64(hi - lo)
			for t := lo; t < hi; t++ {
				if rm[m.at(t).c] >= esc {
					n++
				}
			}
			counts[p][mi] = n
		}
	})
	var total [3]uint64
	for p := range pieces {
		pieces[p].word = total
		for mi := range total {
			total[mi] += counts[p][mi]
		}
	}
	s := &Shape{
		NumInputs:      nIn,
		NumAux:         nAux,
		NumConstraints: nRows,
		Coeffs:         coeffs,
		ADensityAux:    NewDensity(nAux),
		BDensityInput:  NewDensity(nIn),
		BDensityAux:    NewDensity(nAux),
		parallel:       sb.parallel,
	}
	out := []*Matrix{&s.A, &s.B, &s.C}
	nBlocks := (nRows + RowBlock - 1) / RowBlock
	for mi, m := range out {
		if total[mi] > math.MaxUint32 {
			return nil, fmt.Errorf("%w: %d words in one matrix, at most 2^32−1", ErrShapeTooLarge, total[mi])
		}
		*m = Matrix{
			rowLen:   make([]uint8, nRows),
			blockPtr: make([]uint32, nBlocks+1),
			words:    make([]uint32, total[mi]),
			colBits:  colBits,
			coeffs:   coeffs,
		}
		m.blockPtr[nBlocks] = uint32(total[mi])
		for _, sg := range sb.segs {
			m.terms += sg.raw(mi).n
		}
	}

	// Encode: columns of w = inputs ‖ aux, codes, row lengths, and the densities (bits set
	// atomically, so the result does not depend on the order). Long rows are listed per piece,
	// then joined in piece order.
	long := make([][3][]uint32, len(pieces))
	forEachPiece(len(pieces), func(p int) {
		pc := &pieces[p]
		sg, rm := sb.segs[pc.seg], remap[pc.seg]
		for mi, m := range out {
			raw := sg.raw(mi)
			k := uint32(pc.word[mi])
			for r := pc.lo; r < pc.hi; r++ {
				g := pc.row + r - pc.lo
				if g%RowBlock == 0 {
					m.blockPtr[g/RowBlock] = k
				}
				start := k
				for t := raw.rowPtr[r]; t < raw.rowPtr[r+1]; t++ {
					rt := raw.at(t)
					v := rt.v
					var col uint32
					if v.IsInput() {
						col = uint32(v.Index())
						if mi == 1 {
							s.BDensityInput.setAtomic(v.Index())
						}
					} else {
						col = uint32(nIn + v.Index())
						switch mi {
						case 0:
							s.ADensityAux.setAtomic(v.Index())
						case 1:
							s.BDensityAux.setAtomic(v.Index())
						}
					}
					if f := rm[rt.c]; f < esc {
						m.words[k] = f<<colBits | col
						k++
					} else {
						m.words[k] = esc<<colBits | col
						m.words[k+1] = f
						k += 2
					}
				}
				if n := k - start; n < LongRow {
					m.rowLen[g] = uint8(n)
				} else {
					m.rowLen[g] = LongRow
					long[p][mi] = append(long[p][mi], uint32(g), n)
				}
			}
		}
	})
	for p := range long {
		for mi, m := range out {
			for i := 0; i < len(long[p][mi]); i += 2 {
				m.longRows = append(m.longRows, long[p][mi][i])
				m.longLens = append(m.longLens, long[p][mi][i+1])
			}
		}
	}
	return s, nil
}

func (sg *segment) raw(mi int) *rawMatrix {
	switch mi {
	case 0:
		return &sg.a
	case 1:
		return &sg.b
	}
	return &sg.c
}

// forEachPiece calls fn(p) for p = 0…n−1 on GOMAXPROCS goroutines.
func forEachPiece(n int, fn func(p int)) {
	forEachPieceLocal(n, func() (func(int), func()) { return fn, func() {} })
}

// forEachPieceLocal starts GOMAXPROCS workers, each with its own work and flush functions from
// newWorker; the workers call work(p) for p = 0…n−1 between them, then each its flush.
func forEachPieceLocal(n int, newWorker func() (work func(p int), flush func())) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		work, flush := newWorker()
		wg.Go(func() {
			for p := int(next.Add(1) - 1); p < n; p = int(next.Add(1) - 1) {
				work(p)
			}
			flush()
		})
	}
	wg.Wait()
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
