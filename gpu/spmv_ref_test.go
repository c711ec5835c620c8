package gpu

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
)

// spmvHeavyMin is csrc/src/spmv.cu's default CUZK_SPMV_HEAVY: rows of this many words or more
// are summed by a warp.
const spmvHeavyMin = 16

// refMulVec is the matrix-vector product read straight from the encoding's description
// (synth.Matrix), row after row: the reference for encodings that no synth.Matrix holds.
func refMulVec(enc synth.MatrixEncoding, coeffs, w []fr.Element) []fr.Element {
	out := make([]fr.Element, len(enc.RowLen))
	cb := uint(enc.ColBits)
	mask, esc := uint32(1)<<cb-1, ^uint32(0)>>cb
	k, long := 0, 0
	for r, l := range enc.RowLen {
		n := int(l)
		if l == synth.LongRow {
			n = int(enc.LongLens[long])
			long++
		}
		var acc, t fr.Element
		for end := k + n; k < end; k++ {
			x := enc.Words[k]
			code := x >> cb
			if code == esc {
				k++
				code = enc.Words[k]
			}
			t.Mul(&w[x&mask], &coeffs[code])
			acc.Add(&acc, &t)
		}
		out[r] = acc
	}
	return out
}

// kernelMulVec computes the product the way csrc/src/spmv.cu's kernels do, step by step: per row
// block of 32 rows, the lanes' first words by a Hillis–Steele scan of the lengths added to the
// block offset; rows shorter than heavyMin summed by their lane (row_dot: ±1 terms inline, the
// others one product per round); the others by 32 lanes taking words j, j+32, … that skip a
// word following an escape code, then a shuffle-down tree (spmv_heavy). It also checks what
// spmv_check checks: each block's last row ends at the next block's offset.
func kernelMulVec(t testing.TB, enc synth.MatrixEncoding, coeffs, w []fr.Element, heavyMin uint64) []fr.Element {
	rows := len(enc.RowLen)
	out := make([]fr.Element, rows)
	cb := uint(enc.ColBits)
	mask, esc := uint32(1)<<cb-1, ^uint32(0)>>cb
	term := func(acc *fr.Element, x, code uint32) {
		var p fr.Element
		p.Mul(&w[x&mask], &coeffs[code])
		acc.Add(acc, &p)
	}
	for b := 0; b*32 < rows; b++ {
		var lens, inc [32]uint64
		for lane := range 32 {
			if r := b*32 + lane; r < rows {
				lens[lane] = uint64(enc.RowLen[r])
				if enc.RowLen[r] == synth.LongRow {
					i, ok := slices.BinarySearch(enc.LongRows, uint32(r))
					require.True(t, ok, "row %d marked long, not listed", r)
					lens[lane] = uint64(enc.LongLens[i])
				}
			}
		}
		inc = lens
		for d := 1; d < 32; d <<= 1 {
			prev := inc
			for lane := d; lane < 32; lane++ {
				inc[lane] = prev[lane] + prev[lane-d]
			}
		}
		require.Equal(t, uint64(enc.BlockPtr[b+1]), uint64(enc.BlockPtr[b])+inc[31], "block %d", b)
		for lane := range 32 {
			r := b*32 + lane
			if r >= rows {
				break
			}
			start := uint64(enc.BlockPtr[b]) + inc[lane] - lens[lane]
			end := start + lens[lane]
			var acc fr.Element
			if lens[lane] < heavyMin {
				k := start
				for {
					var x uint32
					other := false
					for ; k < end; k++ {
						x = enc.Words[k]
						code := x >> cb
						if code > 1 {
							other = true
							break
						}
						if code == 1 {
							acc.Sub(&acc, &w[x&mask])
						} else {
							acc.Add(&acc, &w[x&mask])
						}
					}
					if !other {
						break
					}
					code := x >> cb
					if code == esc {
						k++
						code = enc.Words[k]
					}
					term(&acc, x, code)
					k++
				}
			} else {
				var part [32]fr.Element
				for l := range uint64(32) {
					for k := start + l; k < end; k += 32 {
						if k > start && enc.Words[k-1]>>cb == esc {
							continue
						}
						x := enc.Words[k]
						code := x >> cb
						switch {
						case code == 0:
							part[l].Add(&part[l], &w[x&mask])
						case code == 1:
							part[l].Sub(&part[l], &w[x&mask])
						case code == esc:
							term(&part[l], x, enc.Words[k+1])
						default:
							term(&part[l], x, code)
						}
					}
				}
				for d := 16; d >= 1; d >>= 1 {
					prev := part
					for l := range 32 {
						if l+d < 32 {
							part[l].Add(&prev[l], &prev[l+d])
						} else {
							part[l].Add(&prev[l], &prev[l])
						}
					}
				}
				acc = part[0]
			}
			out[r] = acc
		}
	}
	return out
}

// encodingSpec shapes a random encoding.
type encodingSpec struct {
	rows, cols, colBits, nCoeffs int
	longEvery                    int // one row in longEvery is long (≥ 255 words); 0: none
}

// randomEncoding returns a valid encoding of spec's shape with rows of every kind: empty, one to
// three terms, 8–40 words (light and heavy around spmvHeavyMin), long ones of 255–700 words,
// coefficient codes 0, 1, inline and escaped (when nCoeffs exceeds the escape code), and its
// coefficient table: 1, −1, then edge values (0, 2, r−1) and random ones.
func randomEncoding(rng *rand.Rand, sp encodingSpec) (synth.MatrixEncoding, []fr.Element) {
	cb := uint(sp.colBits)
	esc := ^uint32(0) >> cb
	coeffs := make([]fr.Element, sp.nCoeffs)
	coeffs[0].SetOne()
	coeffs[1].SetOne()
	coeffs[1].Neg(&coeffs[1])
	for i := 2; i < sp.nCoeffs; i++ {
		switch i {
		case 2:
			coeffs[i].SetUint64(2)
		case 3:
			coeffs[i] = rMinusOne()
		case 4: // zero
		default:
			coeffs[i].SetRandom()
		}
	}
	enc := synth.MatrixEncoding{ColBits: sp.colBits, RowLen: make([]uint8, sp.rows)}
	addTerm := func(row []uint32) []uint32 {
		col := uint32(rng.IntN(sp.cols))
		var code uint32
		switch p := rng.IntN(10); {
		case p < 4:
			code = 0
		case p < 6 || sp.nCoeffs == 2:
			code = uint32(p % 2)
		default:
			code = uint32(2 + rng.IntN(sp.nCoeffs-2))
		}
		if code >= esc {
			return append(row, esc<<cb|col, code)
		}
		return append(row, code<<cb|col)
	}
	for r := range sp.rows {
		if r%synth.RowBlock == 0 {
			enc.BlockPtr = append(enc.BlockPtr, uint32(len(enc.Words)))
		}
		var terms int
		switch p := rng.IntN(100); {
		case sp.longEvery > 0 && rng.IntN(sp.longEvery) == 0:
			terms = 200 + rng.IntN(400)
		case p < 10:
			terms = 0
		case p < 90:
			terms = 1 + rng.IntN(3)
		default:
			terms = 5 + rng.IntN(30)
		}
		row := make([]uint32, 0, 2*terms)
		for range terms {
			row = addTerm(row)
		}
		if len(row) >= synth.LongRow {
			enc.RowLen[r] = synth.LongRow
			enc.LongRows = append(enc.LongRows, uint32(r))
			enc.LongLens = append(enc.LongLens, uint32(len(row)))
		} else {
			enc.RowLen[r] = uint8(len(row))
		}
		enc.Words = append(enc.Words, row...)
	}
	enc.BlockPtr = append(enc.BlockPtr, uint32(len(enc.Words)))
	return enc, coeffs
}

// randomWitness returns n elements: a fifth each 0, 1 and r−1, the rest random.
func randomWitness(rng *rand.Rand, n int) []fr.Element {
	w := make([]fr.Element, n)
	for i := range w {
		switch rng.IntN(5) {
		case 0:
		case 1:
			w[i].SetOne()
		case 2:
			w[i] = rMinusOne()
		default:
			w[i].SetRandom()
		}
	}
	return w
}

// witnessMixes are mixWitness's kinds of assignment.
var witnessMixes = []string{"zero", "bits", "mixed", "other"}

// mixWitness returns n elements of a kind: "zero" all 0; "bits" 0 or 1 at random; "mixed" the
// same but for 2 % that are r−1 or random (PoRep's aux has about 1 % such values); "other" r−1
// or random.
func mixWitness(rng *rand.Rand, n int, mix string) []fr.Element {
	others := map[string]int{"zero": 0, "bits": 0, "mixed": 2, "other": 100}
	pct, ok := others[mix]
	if !ok {
		panic("mixWitness: unknown mix " + mix)
	}
	w := make([]fr.Element, n)
	if mix == "zero" {
		return w
	}
	for i := range w {
		switch p := rng.IntN(100); {
		case p >= pct:
			if rng.IntN(2) == 1 {
				w[i].SetOne()
			}
		case p%2 == 0:
			w[i] = rMinusOne()
		default:
			w[i].SetRandom()
		}
	}
	return w
}

// randomCircuit is a synth.Circuit of random constraints over nVars variables (3 of them public
// inputs, and the One) whose coefficients
// come from a pool of poolSize values (1, −1, 2, then random), with a long row (a packing of 300
// variables) every longEvery constraints.
type randomCircuit struct {
	seed                                    uint64
	nVars, constraints, poolSize, longEvery int
}

func (c *randomCircuit) Synthesize(cs *synth.CS) error {
	rng := rand.New(rand.NewPCG(c.seed, 7))
	pool := make([]fr.Element, c.poolSize)
	pool[0].SetOne()
	pool[1].Neg(&pool[0])
	pool[2].SetUint64(2)
	for i := 3; i < len(pool); i++ {
		pool[i].SetUint64(rng.Uint64())
	}
	var vars []synth.Variable
	for _, v := range randomWitness(rng, 3) {
		vars = append(vars, cs.AllocInput(v))
	}
	vals := randomWitness(rng, c.nVars-3)
	for _, v := range vals {
		vars = append(vars, cs.Alloc(v))
	}
	lc := func() synth.LC {
		lc := synth.NewLC()
		n := rng.IntN(4)
		if rng.IntN(20) == 0 {
			n = 10 + rng.IntN(20)
		}
		if c.longEvery > 0 && rng.IntN(c.longEvery) == 0 {
			n = 300
		}
		for range n {
			k := rng.IntN(len(pool))
			if rng.IntN(3) > 0 {
				k = rng.IntN(3)
			}
			lc = lc.AddTerm(pool[k], vars[rng.IntN(len(vars))])
		}
		return lc
	}
	for range c.constraints {
		cs.Enforce("r", lc(), lc(), lc())
	}
	return nil
}

// compiledCircuit compiles and synthesizes c.
func compiledCircuit(t testing.TB, c synth.Circuit) (*synth.Shape, *synth.Assignment) {
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	return shape, asg
}

// TestKernelSchemeMatchesMulVec checks the kernels' indexing and summation scheme, emulated on
// the CPU, against synth.Matrix.MulVec on compiled random circuits (escaped coefficients at 2^20
// variables and 3,000 coefficients, long rows), and against refMulVec on random encodings at
// several column widths.
func TestKernelSchemeMatchesMulVec(t *testing.T) {
	rng := newRand(t)
	circuits := []*randomCircuit{
		{seed: rng.Uint64(), nVars: 1000, constraints: 3001, poolSize: 50, longEvery: 400},
		{seed: rng.Uint64(), nVars: 1 << 20, constraints: 20000, poolSize: 3000, longEvery: 2000},
	}
	if testing.Short() {
		circuits[1].nVars, circuits[1].constraints = 1<<20+1, 6000
	}
	for _, c := range circuits {
		shape, asg := compiledCircuit(t, c)
		escapes := 0
		for _, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
			enc := m.Encoding()
			esc := ^uint32(0) >> uint(enc.ColBits)
			for _, x := range enc.Words {
				if x>>uint(enc.ColBits) == esc {
					escapes++
				}
			}
			want := make([]fr.Element, m.NumRows())
			m.MulVec(asg.W, want, 0, m.NumRows())
			require.Equal(t, want, refMulVec(enc, shape.Coeffs, asg.W))
			for _, heavy := range []uint64{2, spmvHeavyMin, 255} {
				require.Equal(t, want, kernelMulVec(t, enc, shape.Coeffs, asg.W, heavy), "heavy from %d words", heavy)
			}
		}
		t.Logf("%d variables, %d constraints, %d coefficients, %d escaped terms", c.nVars, c.constraints, len(shape.Coeffs), escapes)
		if c.poolSize > 2100 {
			require.Positive(t, escapes, "the wide circuit has escaped coefficients")
		}
	}
	for _, sp := range encodingSpecs() {
		enc, coeffs := randomEncoding(rng, sp)
		w := randomWitness(rng, sp.cols)
		want := refMulVec(enc, coeffs, w)
		for _, heavy := range []uint64{2, spmvHeavyMin, 255} {
			require.Equal(t, want, kernelMulVec(t, enc, coeffs, w, heavy), "%+v, heavy from %d words", sp, heavy)
		}
	}
}

// encodingSpecs lists the random encodings of the tests: row counts around the row block,
// narrow and wide columns, with and without escapes and long rows.
func encodingSpecs() []encodingSpec {
	return []encodingSpec{
		{rows: 1, cols: 1, colBits: 1, nCoeffs: 2},
		{rows: 31, cols: 5, colBits: 3, nCoeffs: 7},
		{rows: 32, cols: 100, colBits: 7, nCoeffs: 40},
		{rows: 33, cols: 1000, colBits: 27, nCoeffs: 100, longEvery: 10},     // escape = 31
		{rows: 1000, cols: 3000, colBits: 30, nCoeffs: 20, longEvery: 50},    // escape = 3
		{rows: 4099, cols: 70000, colBits: 24, nCoeffs: 400, longEvery: 300}, // escape = 255
		{rows: 10007, cols: 1 << 20, colBits: 20, nCoeffs: 5000, longEvery: 1000},
	}
}
