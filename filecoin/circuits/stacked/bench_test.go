package stacked

import (
	"os"
	"testing"

	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/synth"
)

// benchSynthesize compiles the partition circuit of seal proof p once, then synthesizes
// partition 0 of a synthetic C1 output (c1.Synthetic) per iteration: the witness, A·w, B·w and
// C·w. It reports constraints per second.
// With challenges > 0 the partition keeps only its first challenges (a smaller circuit of the
// same per-challenge shape).
func benchSynthesize(b *testing.B, p sector.RegisteredSealProof, challenges int) {
	o, err := c1.Synthetic(b.Context(), p, [32]byte{1})
	if err != nil {
		b.Fatal(err)
	}
	params, err := SealParams(p)
	if err != nil {
		b.Fatal(err)
	}
	if challenges > 0 {
		params.Challenges = challenges
		o.VanillaProofs[0] = o.VanillaProofs[0][:challenges]
	}
	shape, err := synth.Compile(Blank(params))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		c, err := FromVanilla(params, o.ReplicaID, o.CommD, o.CommR, o.VanillaProofs[0])
		if err != nil {
			b.Fatal(err)
		}
		asg, err := synth.Synthesize(b.Context(), shape, c)
		if err != nil {
			b.Fatal(err)
		}
		asg.ReleaseEvaluations()
	}
	b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
}

// BenchmarkSynthesize2KiBPartition synthesizes the 2 KiB PoRep partition (2,687,921 constraints).
func BenchmarkSynthesize2KiBPartition(b *testing.B) { benchSynthesize(b, sector.StackedDrg2KiBV1_1, 0) }

// BenchmarkSynthesize32GiBChallenge synthesizes one challenge of the 32 GiB partition (11
// layers, trees of 2^30 leaves: 7.2 M constraints), an eighteenth of BenchmarkSynthesize32GiBPartition.
func BenchmarkSynthesize32GiBChallenge(b *testing.B) {
	benchSynthesize(b, sector.StackedDrg32GiBV1_1, 1)
}

// BenchmarkSynthesize32GiBPartition synthesizes one real 32 GiB PoRep partition (130,278,541
// constraints, 18 challenges). Compiling its shape takes tens of GiB, so it runs only with
// CUZK_BENCH_PARTITION=1.
func BenchmarkSynthesize32GiBPartition(b *testing.B) {
	if os.Getenv("CUZK_BENCH_PARTITION") != "1" {
		b.Skip("set CUZK_BENCH_PARTITION=1: the 32 GiB partition needs tens of GiB of memory")
	}
	benchSynthesize(b, sector.StackedDrg32GiBV1_1, 0)
}
