package porep

import (
	"context"
	"flag"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
)

var benchBig = flag.Bool("porep.big", false, "also benchmark the 2^24, 2^26 and full-partition sizes")

var sinkAsg *synth.Assignment

// BenchmarkSynthesizePoRep measures synth.Synthesize (witness and A·w, B·w, C·w on all cores) on
// the PoRep-shaped circuit. It reports constraints per second per core (M/s/core). Sizes above
// 2^21 run only with -porep.big.
func BenchmarkSynthesizePoRep(b *testing.B) {
	for _, sz := range Sizes() {
		if sz.Cfg.Layers == Full.Layers && !*benchBig {
			continue
		}
		b.Run(sz.Name, func(b *testing.B) {
			s, err := NewSector(sz.Cfg, [32]byte{9})
			require.NoError(b, err)
			c := s.Circuit(0)
			shape, err := synth.Compile(c)
			require.NoError(b, err)
			if os.Getenv("POREP_STATS") != "" {
				asg, err := synth.Synthesize(context.Background(), shape, c)
				require.NoError(b, err)
				Measure(shape, asg).Write(os.Stderr, sz.Name)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				asg, err := synth.Synthesize(context.Background(), shape, c)
				if err != nil {
					b.Fatal(err)
				}
				sinkAsg = asg
			}
			b.StopTimer()
			sec := b.Elapsed().Seconds() / float64(b.N)
			cores := runtime.GOMAXPROCS(0)
			b.ReportMetric(float64(shape.NumConstraints)/sec/1e6/float64(cores), "M/s/core")
			b.ReportMetric(float64(shape.NumConstraints), "constraints")
		})
	}
}

// BenchmarkWitnessPoRep measures the circuit's witness generation alone (synth.Count: one run in
// counting mode, single-threaded).
func BenchmarkWitnessPoRep(b *testing.B) {
	sz := Sizes()[0]
	s, err := NewSector(sz.Cfg, [32]byte{9})
	require.NoError(b, err)
	c := s.Circuit(0)
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		n, _, _, err = synth.Count(c)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/(b.Elapsed().Seconds()/float64(b.N))/1e6, "M/s")
}
