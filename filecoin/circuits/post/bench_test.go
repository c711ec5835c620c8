package post

import (
	"context"
	"testing"

	"github.com/cuzk-go/cuzk/synth"
)

var benchSink *synth.Assignment

// BenchmarkSynthesize measures synth.Synthesize (witness and A·w, B·w, C·w) of blank FallbackPoSt
// circuits on their compiled shapes.
func BenchmarkSynthesize(b *testing.B) {
	for _, tc := range []struct {
		name string
		p    func(uint64) (Params, error)
		size uint64
	}{{"window-2KiB", WindowParams, 2 << 10}, {"winning-32GiB", WinningParams, 32 << 30}} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := tc.p(tc.size)
			if err != nil {
				b.Fatal(err)
			}
			shape, err := synth.Compile(Blank(p))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if benchSink, err = synth.Synthesize(context.Background(), shape, Blank(p)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
