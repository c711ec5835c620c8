package prover_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"testing"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

var sinkProof *prover.Proof

// benchPartition is one size's circuit, assignment and parameters, set up once a test binary
// (the benchmark function runs several times while it sizes b.N), and folded on first use.
type benchPartition struct {
	once, foldOnce sync.Once
	asg            *synth.Assignment
	shape          *synth.Shape
	params, folded *prover.Parameters
	err            error
}

var benchPartitions sync.Map // log size → *benchPartition

func partitionFor(b *testing.B, logN int, fold bool) (*prover.Parameters, *synth.Assignment) {
	v, _ := benchPartitions.LoadOrStore(logN, &benchPartition{})
	p := v.(*benchPartition)
	p.once.Do(func() {
		c := &circuits.Scalable{Constraints: 1<<logN - 8, Inputs: 4, Seed: 1}
		if p.shape, p.err = synth.Compile(c); p.err != nil {
			return
		}
		tw, err := devsetup.NewToxicWaste(rand.Reader)
		if err != nil {
			p.err = err
			return
		}
		if p.params, p.err = devsetup.InsecureSetup(p.shape, tw); p.err != nil {
			return
		}
		p.asg, p.err = synth.Synthesize(context.Background(), p.shape, c)
	})
	if p.err != nil {
		b.Fatal(p.err)
	}
	if !fold {
		return p.params, p.asg
	}
	p.foldOnce.Do(func() { p.folded, p.err = prover.FoldC(context.Background(), p.params, p.shape) })
	if p.err != nil {
		b.Fatal(p.err)
	}
	return p.folded, p.asg
}

// BenchmarkProvePartition measures one partition's proof on the prover.CPU (synthesis excluded),
// at 2^16 also with C folded into L (prover.FoldC; the fold, ≈ 20 s on 2 cores, excluded).
func BenchmarkProvePartition(b *testing.B) {
	for _, bc := range []struct {
		logN int
		fold bool
	}{{16, false}, {16, true}, {20, false}} {
		name := fmt.Sprintf("2^%d/cpu", bc.logN)
		if bc.fold {
			name += "/c-folded"
		}
		b.Run(name, func(b *testing.B) {
			params, asg := partitionFor(b, bc.logN, bc.fold)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var err error
				if sinkProof, err = prover.ProvePartition(context.Background(), params, asg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
