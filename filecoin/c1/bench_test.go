package c1

import (
	"context"
	"testing"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

var benchSink any

// BenchmarkUnmarshal32GiB parses and fully checks a synthetic 32 GiB C1 output (about 39 MB of
// JSON, 180 challenge proofs).
func BenchmarkUnmarshal32GiB(b *testing.B) {
	o, err := Synthetic(context.Background(), sector.StackedDrg32GiBV1_1, [32]byte{1})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := Marshal(o)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		got, err := Unmarshal(raw)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = got
	}
}
