package synth_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/synth"
)

var sinkShape *synth.Shape

// BenchmarkCompile measures Compile on the scalable circuit and on the smallest PoRep-shaped
// circuit (1.2 M constraints), reporting constraints per second and the compiled matrices'
// bytes per stored term.
func BenchmarkCompile(b *testing.B) {
	type bench struct {
		name string
		c    synth.Circuit
	}
	var cases []bench
	for _, logN := range []int{16, 20} {
		cases = append(cases, bench{fmt.Sprintf("scalable-2^%d", logN), &circuits.Scalable{Constraints: 1<<logN - 8, Inputs: 4, Seed: 1}})
	}
	sector, err := porep.NewSector(porep.Sizes()[0].Cfg, [32]byte{9})
	if err != nil {
		b.Fatal(err)
	}
	cases = append(cases, bench{"porep-tiny", sector.Circuit(0)})
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := synth.Compile(bc.c)
				if err != nil {
					b.Fatal(err)
				}
				sinkShape = s
			}
			b.ReportMetric(float64(sinkShape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			terms := sinkShape.A.NumTerms() + sinkShape.B.NumTerms() + sinkShape.C.NumTerms()
			b.ReportMetric(float64(sinkShape.A.Bytes()+sinkShape.B.Bytes()+sinkShape.C.Bytes())/float64(terms), "B/term")
		})
	}
}

// wideMatrix is the compressed-row form Compile produced before the compact matrices: a
// uint32 column and a uint32 coefficient index per term. BenchmarkMatVec keeps it as the
// baseline of the row evaluation.
type wideMatrix struct {
	rowPtr, cols, coeffs []uint32
}

func widen(m *synth.Matrix) wideMatrix {
	w := wideMatrix{rowPtr: []uint32{0}}
	var row []synth.MatrixEntry
	for r := 0; r < m.NumRows(); r++ {
		for _, e := range m.AppendRow(row[:0], r) {
			w.cols = append(w.cols, e.Col)
			w.coeffs = append(w.coeffs, e.Coeff)
		}
		w.rowPtr = append(w.rowPtr, uint32(len(w.cols)))
	}
	return w
}

func (m *wideMatrix) mulVec(coeffs, w, out []fr.Element) {
	var t fr.Element
	for r := 0; r+1 < len(m.rowPtr); r++ {
		var acc fr.Element
		for k := m.rowPtr[r]; k < m.rowPtr[r+1]; k++ {
			x := &w[m.cols[k]]
			switch ci := m.coeffs[k]; ci {
			case 0:
				acc.Add(&acc, x)
			case 1:
				acc.Sub(&acc, x)
			default:
				t.Mul(x, &coeffs[ci])
				acc.Add(&acc, &t)
			}
		}
		out[r] = acc
	}
}

// BenchmarkMatVec evaluates A·w, B·w and C·w of the smallest PoRep-shaped circuit on one core,
// from the compact matrices and from the wide baseline, on the circuit's own witness; both
// results are compared once.
func BenchmarkMatVec(b *testing.B) {
	sector, err := porep.NewSector(porep.Sizes()[0].Cfg, [32]byte{9})
	if err != nil {
		b.Fatal(err)
	}
	c := sector.Circuit(0)
	shape, err := synth.Compile(c)
	if err != nil {
		b.Fatal(err)
	}
	asg, err := synth.Synthesize(context.Background(), shape, c)
	if err != nil {
		b.Fatal(err)
	}
	mats := []*synth.Matrix{&shape.A, &shape.B, &shape.C}
	var wide []wideMatrix
	for _, m := range mats {
		wide = append(wide, widen(m))
	}
	n := shape.NumConstraints
	out, ref := make([]fr.Element, n), make([]fr.Element, n)
	for i, m := range mats {
		m.MulVec(asg.W, out, 0, n)
		wide[i].mulVec(shape.Coeffs, asg.W, ref)
		for r := range out {
			if !out[r].Equal(&ref[r]) {
				b.Fatalf("matrix %d row %d: compact and wide evaluations differ", i, r)
			}
		}
	}
	b.Run("compact", func(b *testing.B) {
		for b.Loop() {
			for _, m := range mats {
				m.MulVec(asg.W, out, 0, n)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
	})
	b.Run("wide", func(b *testing.B) {
		for b.Loop() {
			for i := range wide {
				wide[i].mulVec(shape.Coeffs, asg.W, out)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
	})
}
