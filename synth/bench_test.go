package synth_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/synth"
)

var sinkAssignment *synth.Assignment

// BenchmarkSynthesize measures witness generation plus A·w, B·w, C·w on the scalable circuit.
func BenchmarkSynthesize(b *testing.B) {
	for _, logN := range []int{16, 20} {
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			c := &circuits.Scalable{Constraints: 1<<logN - 8, Inputs: 4, Seed: 1}
			shape, err := synth.Compile(c)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if sinkAssignment, err = synth.Synthesize(context.Background(), shape, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}
