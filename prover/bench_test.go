package prover_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

var sinkProof *prover.Proof

// BenchmarkProvePartition measures one partition's proof on the prover.CPU (synthesis excluded).
func BenchmarkProvePartition(b *testing.B) {
	for _, logN := range []int{16, 20} {
		b.Run(fmt.Sprintf("2^%d/cpu", logN), func(b *testing.B) {
			c := &circuits.Scalable{Constraints: 1<<logN - 8, Inputs: 4, Seed: 1}
			shape, err := synth.Compile(c)
			if err != nil {
				b.Fatal(err)
			}
			tw, err := devsetup.NewToxicWaste(rand.Reader)
			if err != nil {
				b.Fatal(err)
			}
			params, err := devsetup.InsecureSetup(shape, tw)
			if err != nil {
				b.Fatal(err)
			}
			asg, err := synth.Synthesize(context.Background(), shape, c)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if sinkProof, err = prover.ProvePartition(context.Background(), params, asg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
