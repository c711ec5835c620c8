package synth_test

import (
	"fmt"
	"testing"

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
