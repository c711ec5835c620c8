package synth

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// randomCircuit enforces random combinations over random variables and remembers, for every
// constraint, ⟨a,w⟩, ⟨b,w⟩, ⟨c,w⟩ evaluated directly on its linear combinations: the reference
// the compiled matrices must reproduce. Coefficients come from a pool (1, −1, 2, a few hundred
// others) so that the table has common and rare entries; combinations repeat variables and
// cancel terms. With branches > 0 the constraints are split over CS.Parallel branches.
type randomCircuit struct {
	seed        uint64
	constraints int
	inputs      int
	branches    int
	pool        []fr.Element

	want [3][]fr.Element // filled by the shape run
}

func newRandomCircuit(seed uint64, constraints, inputs, branches, poolSize int) *randomCircuit {
	rng := rand.New(rand.NewPCG(seed, 1))
	pool := []fr.Element{frOne, frMinus1, fr.NewElement(2)}
	for len(pool) < poolSize {
		pool = append(pool, fr.NewElement(rng.Uint64()))
	}
	return &randomCircuit{seed: seed, constraints: constraints, inputs: inputs, branches: branches, pool: pool}
}

func (c *randomCircuit) value(rng *rand.Rand) fr.Element {
	switch rng.IntN(3) {
	case 0:
		return fr.Element{}
	case 1:
		return fr.One()
	}
	return fr.NewElement(rng.Uint64())
}

func (c *randomCircuit) lc(rng *rand.Rand, vars []Variable) LC {
	lc := NewLC()
	for range rng.IntN(6) {
		v := vars[rng.IntN(len(vars))]
		k := rng.IntN(len(c.pool))
		if rng.IntN(4) > 0 { // favour the head of the pool, as real circuits do
			k = rng.IntN(min(len(c.pool), 4))
		}
		lc = lc.AddTerm(c.pool[k], v)
		if rng.IntN(8) == 0 { // a repeat that cancels
			lc = lc.AddTerm(c.pool[k], v).SubLC(LC{{Coeff: c.pool[k], Var: v}})
		}
	}
	if rng.IntN(20) == 0 { // a long row, sorted by keys
		for range 40 {
			lc = lc.AddTerm(c.pool[rng.IntN(len(c.pool))], vars[rng.IntN(len(vars))])
		}
	}
	if rng.IntN(150) == 0 { // a row of LongRow words or more: a packing of bits in order
		for _, v := range vars[:min(len(vars), 400)] {
			lc = lc.AddTerm(c.pool[rng.IntN(len(c.pool))], v)
		}
	}
	return lc
}

func (c *randomCircuit) run(cs *CS, rng *rand.Rand, vars []Variable, n int, want *[3][]fr.Element) {
	for range n {
		if rng.IntN(3) == 0 {
			vars = append(vars, cs.Alloc(c.value(rng)))
		}
		a, b, cc := c.lc(rng, vars), c.lc(rng, vars), c.lc(rng, vars)
		if cs.RecordsLC() {
			for i, lc := range []LC{a, b, cc} {
				want[i] = append(want[i], cs.Eval(lc))
			}
		}
		cs.Enforce("r", a, b, cc)
	}
}

func (c *randomCircuit) Synthesize(cs *CS) error {
	rng := rand.New(rand.NewPCG(c.seed, 2))
	vars := []Variable{One}
	for range c.inputs {
		vars = append(vars, cs.AllocInput(c.value(rng)))
	}
	for range 4 {
		vars = append(vars, cs.Alloc(c.value(rng)))
	}
	if cs.RecordsLC() {
		c.want = [3][]fr.Element{}
	}
	head := c.constraints
	if c.branches > 0 {
		head = c.constraints / 4
	}
	c.run(cs, rng, vars, head, &c.want)
	if c.branches == 0 {
		return nil
	}
	per := (c.constraints - head) / c.branches
	wants := make([][3][]fr.Element, c.branches)
	err := cs.Parallel(c.branches, func(i int, sub *CS) error {
		brng := rand.New(rand.NewPCG(c.seed, uint64(10+i)))
		wants[i] = [3][]fr.Element{}
		c.run(sub, brng, append([]Variable(nil), vars...), per+i, &wants[i])
		return nil
	})
	if err != nil {
		return err
	}
	for _, w := range wants {
		for m := range 3 {
			c.want[m] = append(c.want[m], w[m]...)
		}
	}
	c.run(cs, rng, vars, 5, &c.want)
	return nil
}

// TestMatricesMatchDirectEvaluation compiles random circuits (with and without Parallel
// branches, with coefficient codes inline and escaped) and checks that A·w, B·w, C·w from the
// compiled matrices equal the combinations evaluated directly.
func TestMatricesMatchDirectEvaluation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		branches int
		colBits  uint
	}{
		{"serial", 0, 0},
		{"parallel", 3, 0},
		{"escaped", 3, 29}, // 3 bits of code: 1, −1, Coeffs[2…6] inline, the rest escaped
		{"all-escaped", 0, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(4) {
				c := newRandomCircuit(seed, 3000, 3, tc.branches, 300)
				shape, err := compile(c, tc.colBits)
				require.NoError(t, err)
				require.Equal(t, len(c.want[0]), shape.NumConstraints)
				asg, err := Synthesize(context.Background(), shape, c)
				require.NoError(t, err)
				for m, got := range [][]fr.Element{asg.A, asg.B, asg.C} {
					for r, want := range c.want[m] {
						if !want.Equal(&got[r]) {
							t.Fatalf("seed %d matrix %d row %d: %s, want %s", seed, m, r, got[r].String(), want.String())
						}
					}
				}
				checkRows(t, shape)
				// Ranges starting and ending anywhere, inside blocks and at long rows.
				rng := rand.New(rand.NewPCG(seed, 3))
				for range 20 {
					lo := rng.IntN(shape.NumConstraints + 1)
					hi := lo + rng.IntN(shape.NumConstraints-lo+1)
					out := make([]fr.Element, shape.NumConstraints)
					shape.C.MulVec(asg.W, out, lo, hi)
					for r := lo; r < hi; r++ {
						if !out[r].Equal(&asg.C[r]) {
							t.Fatalf("seed %d: C·w over rows %d..%d differs at row %d", seed, lo, hi, r)
						}
					}
				}
			}
		})
	}
}

// checkRows checks the invariants of every row: columns strictly increasing and in range,
// coefficient indices in the table, and AppendRow agreeing with the term count.
func checkRows(t *testing.T, s *Shape) {
	t.Helper()
	for mi, m := range []*Matrix{&s.A, &s.B, &s.C} {
		var row []MatrixEntry
		terms := 0
		for r := 0; r < m.NumRows(); r++ {
			row = m.AppendRow(row[:0], r)
			for k, e := range row {
				if int(e.Col) >= s.NumInputs+s.NumAux || int(e.Coeff) >= len(s.Coeffs) || k > 0 && row[k-1].Col >= e.Col {
					t.Fatalf("matrix %d row %d term %d: %+v out of range or out of order", mi, r, k, e)
				}
			}
			terms += len(row)
		}
		require.Equal(t, m.NumTerms(), terms)
	}
}

// TestLongRowsPresent makes sure the random circuits exercise the long-row list.
func TestLongRowsPresent(t *testing.T) {
	s, err := compile(newRandomCircuit(1, 3000, 3, 3, 300), 29)
	require.NoError(t, err)
	require.NotEmpty(t, s.A.longRows)
	require.NotEmpty(t, s.C.longRows)
}

// TestCoefficientTableOrderedByUse checks that after 1 and −1 the table lists the most used
// coefficients first.
func TestCoefficientTableOrderedByUse(t *testing.T) {
	c := newRandomCircuit(7, 2000, 2, 0, 50)
	shape, err := Compile(c)
	require.NoError(t, err)
	uses := make([]int, len(shape.Coeffs))
	for _, m := range []*Matrix{&shape.A, &shape.B, &shape.C} {
		var row []MatrixEntry
		for r := 0; r < m.NumRows(); r++ {
			for _, e := range m.AppendRow(row[:0], r) {
				uses[e.Coeff]++
			}
		}
	}
	require.True(t, shape.Coeffs[0].IsOne())
	require.True(t, shape.Coeffs[1].Equal(&frMinus1))
	for i := 3; i < len(uses); i++ {
		require.GreaterOrEqual(t, uses[i-1], uses[i], "coefficient %d", i)
	}
	require.True(t, shape.Coeffs[2].Equal(new(fr.Element).SetUint64(2)), "2 is the most used after ±1")
}

// TestCompileIndependentOfCores compiles the same circuit, with more rows than one encoding
// piece and Parallel branches, under GOMAXPROCS 1 and 4 and requires identical shapes.
func TestCompileIndependentOfCores(t *testing.T) {
	one, four := compileProcs(t, 1), compileProcs(t, 4)
	require.True(t, reflect.DeepEqual(one, four), "shapes differ between GOMAXPROCS 1 and 4")
}

var coresShapes = map[int]*Shape{}

// compileProcs compiles a circuit larger than two encoding pieces, with Parallel branches,
// under GOMAXPROCS procs (once per procs for the tests that share it).
func compileProcs(t *testing.T, procs int) *Shape {
	if s := coresShapes[procs]; s != nil {
		return s
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	s, err := Compile(newRandomCircuit(3, 2*pieceRows+123, 4, 5, 400))
	require.NoError(t, err)
	coresShapes[procs] = s
	return s
}

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// wideRows is a circuit of rows 1…150 terms long of random full-width coefficients and values,
// some terms ±1: the rows MulVec sums by gathering.
type wideRows struct{ want []fr.Element }

func (c *wideRows) Synthesize(cs *CS) error {
	rng := rand.New(rand.NewPCG(7, 7))
	random := func() fr.Element {
		var b [32]byte
		for i := range 4 {
			binary.LittleEndian.PutUint64(b[8*i:], rng.Uint64())
		}
		var x fr.Element
		x.SetBytes(b[:]) // reduced mod r
		return x
	}
	vars := []Variable{One}
	for range 200 {
		vars = append(vars, cs.Alloc(random()))
	}
	for n := 1; n <= 150; n++ {
		lc := NewLC()
		for j := range n {
			switch rng.IntN(5) {
			case 0:
				lc = lc.Add(vars[1+j])
			case 1:
				lc = lc.Sub(vars[1+j])
			default:
				lc = lc.AddTerm(random(), vars[1+j])
			}
		}
		if cs.RecordsLC() {
			c.want = append(c.want, cs.Eval(lc))
		}
		cs.Enforce("wide", lc, V(One), lc)
	}
	return nil
}

// TestMulVecWideRows checks A·w on rows of every length to 150 with random full-width values
// and coefficients, inline and escaped, against the combinations evaluated directly.
func TestMulVecWideRows(t *testing.T) {
	for _, colBits := range []uint{0, 29} {
		c := &wideRows{}
		shape, err := compile(c, colBits)
		require.NoError(t, err)
		asg, err := Synthesize(context.Background(), shape, &wideRows{})
		require.NoError(t, err)
		for r, want := range c.want {
			require.True(t, want.Equal(&asg.A[r]), "colBits %d row %d", colBits, r)
		}
	}
}
