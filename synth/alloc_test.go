package synth_test

import (
	"context"
	"testing"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/synth"
)

// TestSynthesizeAllocationsDoNotGrowWithConstraints checks that Synthesize makes no heap
// allocation per constraint: quadrupling the circuit adds at most a handful of allocations
// (chunk goroutines), not thousands.
func TestSynthesizeAllocationsDoNotGrowWithConstraints(t *testing.T) {
	allocs := func(n int) float64 {
		c := &circuits.Scalable{Constraints: n, Inputs: 3, Seed: 2}
		shape, err := synth.Compile(c)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(3, func() {
			if _, err := synth.Synthesize(context.Background(), shape, c); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(4000), allocs(16000)
	if large-small > 64 {
		t.Fatalf("Synthesize allocates per constraint: %.0f allocations at 4000 constraints, %.0f at 16000", small, large)
	}
}
