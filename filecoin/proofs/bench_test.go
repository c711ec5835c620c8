package proofs

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/devsetup"
	cpost "github.com/cuzk-go/cuzk/filecoin/circuits/post"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

var (
	benchAssignment *synth.Assignment
	benchProof      *prover.Proof
)

// syntheticWinning32GiB returns a satisfiable WinningPoSt 32 GiB circuit whose 66 slots are one
// synthetic sector: a random leaf with random siblings at a random position on each of the 10
// arity-8 levels (9 base, 1 sub), hashed natively up to comm_r_last, and comm_r =
// Poseidon₂(comm_c, comm_r_last). No 32 GiB tree is built; the circuit's work does not depend
// on the values.
func syntheticWinning32GiB(b *testing.B) (cpost.Params, *cpost.Circuit) {
	info, err := post.Lookup(post.StackedDrgWinning32GiBV1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := cpost.ParamsFor(info)
	if err != nil {
		b.Fatal(err)
	}
	arities, err := p.Arities()
	if err != nil {
		b.Fatal(err)
	}
	var ch cpost.Challenge
	_, _ = ch.Leaf.SetRandom()
	cur, mul := ch.Leaf, uint64(1)
	for l, a := range arities {
		idx := uint64(l*3+1) % uint64(a)
		in := make([]fr.Element, a)
		sib := make([]fr.Element, 0, a-1)
		for j := range in {
			if uint64(j) == idx {
				in[j] = cur
				continue
			}
			_, _ = in[j].SetRandom()
			sib = append(sib, in[j])
		}
		if cur, err = poseidon.Must(a).Hash(in); err != nil {
			b.Fatal(err)
		}
		ch.Path = append(ch.Path, sib)
		ch.LeafIndex += idx * mul
		mul *= uint64(a)
	}
	s := cpost.Sector{CommRLast: cur, Challenges: []cpost.Challenge{ch}}
	_, _ = s.CommC.SetRandom()
	if s.CommR, err = poseidon.Must(2).Hash([]fr.Element{s.CommC, s.CommRLast}); err != nil {
		b.Fatal(err)
	}
	return p, &cpost.Circuit{Params: p, Sectors: cpost.PadSectors([]cpost.Sector{s}, p.SectorCount)}
}

// BenchmarkWinningPoSt32GiB measures one WinningPoSt 32 GiB partition (370,590 constraints,
// 133 inputs) on the CPU: "synthesize" is synth.Synthesize (witness and A·w, B·w, C·w) of a
// synthetic satisfiable circuit; "prove-cpu" is prover.ProvePartition of that assignment on the
// CPU with devsetup.RandomParameters (points of the right counts, so the work is real but the
// proof does not verify). "prove-gpu" is the same on GPU 0 with the parameters resident, when
// libcuzk.so and a device are there.
func BenchmarkWinningPoSt32GiB(b *testing.B) {
	p, c := syntheticWinning32GiB(b)
	shape, err := synth.Compile(cpost.Blank(p))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	asg, err := synth.Synthesize(ctx, shape, c)
	if err != nil {
		b.Fatal(err)
	}
	if err := synth.Check(shape, asg, c); err != nil {
		b.Fatal(err)
	}
	b.Run("synthesize", func(b *testing.B) {
		for b.Loop() {
			if benchAssignment, err = synth.Synthesize(ctx, shape, c); err != nil {
				b.Fatal(err)
			}
		}
	})
	params := devsetup.RandomParameters(shape, 1)
	b.Run("prove-cpu", func(b *testing.B) {
		for b.Loop() {
			if benchProof, err = prover.ProvePartition(ctx, params, asg, prover.WithoutSelfCheck()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prove-gpu", func(b *testing.B) {
		dev := prover.WithDevice(prover.NewDevice(firstGPU(b)))
		noCheck := prover.WithoutSelfCheck() // random parameters: the proof cannot verify
		// The first proof uploads the parameters; it is not timed.
		if _, err := prover.ProvePartition(ctx, params, asg, dev, noCheck); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if benchProof, err = prover.ProvePartition(ctx, params, asg, dev, noCheck); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWindowPoSt32GiBPartition measures one full 32 GiB WindowPoSt partition (2349 sectors
// × 10 challenges, 125,279,217 constraints, 25,839 public inputs), the real vanilla proof of
// testdata repeated into every slot (realWindowPartition). The shape is compiled first with
// synth.Compile, the path cmd/cuzk and filecoin/proofs take (the branches concurrently, each
// Poseidon hash from its arity's template), its time logged. "synthesize" is synth.Synthesize
// (witness and A·w, B·w, C·w) on all cores, "witness" synth.SynthesizeWitness (w alone). "prove-gpu-device-eval" is prover.ProvePartition on
// GPU 0 from w alone, the device evaluating A·w, B·w, C·w from the resident shape;
// "prove-gpu" the same with the host's evaluations. Both use INSECURE parameters from
// devsetup.InsecureSetup on that GPU (made once, its time logged); one proof, not timed, uploads
// them and is verified against the public inputs filecoin/post derives. Each reports the
// device's time per proof by stage, in ms. The setup holds its scalars and about 57 GiB of points
// on the heap beside the shape and w, about 80 GiB in all, so it needs a large host and a GPU:
// it runs only with CUZK_BENCH_PARTITION=1.
func BenchmarkWindowPoSt32GiBPartition(b *testing.B) {
	if os.Getenv("CUZK_BENCH_PARTITION") != "1" {
		b.Skip("set CUZK_BENCH_PARTITION=1: the 32 GiB WindowPoSt partition needs a GPU and about 80 GiB of memory")
	}
	p, c, inputs := realWindowPartition(b, 0)
	start := time.Now()
	shape, err := synth.Compile(cpost.Blank(p))
	if err != nil {
		b.Fatal(err)
	}
	if shape.NumConstraints != windowPartitionConstraints || shape.NumInputs != 1+len(inputs) {
		b.Fatalf("shape: %d constraints, %d inputs; want %d, %d", shape.NumConstraints, shape.NumInputs, windowPartitionConstraints, 1+len(inputs))
	}
	b.Logf("compiled in %s: %d constraints, %d inputs, %d aux, domain %d", time.Since(start).Round(time.Millisecond),
		shape.NumConstraints, shape.NumInputs, shape.NumAux, shape.DomainSize())
	ctx := context.Background()
	asg, err := synth.Synthesize(ctx, shape, c)
	if err != nil {
		b.Fatal(err)
	}
	for i, x := range asg.PublicInputs() {
		if !x.Equal(&inputs[i]) {
			b.Fatalf("public input %d: circuit %s, derived %s", i, x.String(), inputs[i].String())
		}
	}
	b.Run("synthesize", func(b *testing.B) {
		for b.Loop() {
			a, err := synth.Synthesize(ctx, shape, c)
			if err != nil {
				b.Fatal(err)
			}
			a.ReleaseEvaluations()
		}
		b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
	})
	b.Run("witness", func(b *testing.B) { // w alone, what the device-evaluation path needs
		for b.Loop() {
			if _, err := synth.SynthesizeWitness(ctx, shape, c, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
	})
	// The setup below holds its scalars and all the points (about 70 GiB at this size): only w
	// stays meanwhile, and the host evaluations are computed again when needed.
	asg.ReleaseEvaluations()
	debug.FreeOSMemory()

	var params *prover.Parameters
	var pvk *prover.PreparedVerifyingKey
	for _, deviceEval := range []bool{true, false} {
		name := "prove-gpu"
		if deviceEval {
			name += "-device-eval"
		}
		b.Run(name, func(b *testing.B) {
			pd := firstGPU(b)
			if params == nil {
				tw, err := devsetup.NewToxicWaste(rand.Reader)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if params, err = devsetup.InsecureSetup(shape, tw, devsetup.WithFixedBase(pd.Device())); err != nil {
					b.Fatal(err)
				}
				b.Logf("INSECURE setup on %s in %s", pd.Name(), time.Since(start).Round(time.Millisecond))
				debug.FreeOSMemory() // the setup's scalars
				if pvk, err = prover.PrepareVerifyingKey(&params.VK); err != nil {
					b.Fatal(err)
				}
			}
			a := asg
			if deviceEval { // w alone
				a = &synth.Assignment{Shape: asg.Shape, W: asg.W, Inputs: asg.Inputs, Aux: asg.Aux}
			} else if !asg.HasEvaluations() {
				if err := asg.Evaluate(ctx); err != nil {
					b.Fatal(err)
				}
			}
			dev := prover.WithDevice(prover.NewDevice(pd))
			noCheck := prover.WithoutSelfCheck() // verified once below
			// The first proof uploads the parameters (and the shape); it is not timed.
			proof, err := prover.ProvePartition(ctx, params, a, dev, noCheck)
			if err != nil {
				b.Fatal(err)
			}
			if err := prover.Verify(pvk, proof, inputs); err != nil {
				b.Fatal(err)
			}
			warm := pd.Breakdown()
			b.Logf("SRS upload %s, shape upload %s", warm.SRSUpload, warm.ShapeUpload)
			b.ResetTimer()
			for b.Loop() {
				if benchProof, err = prover.ProvePartition(ctx, params, a, dev, noCheck); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportBreakdown(b, warm, pd.Breakdown())
		})
	}
}

// reportBreakdown reports the device time per proof by stage, in ms, between two breakdowns
// of one gpu.ProverDevice.
func reportBreakdown(b *testing.B, before, after gpu.Breakdown) {
	n := float64(after.Partitions - before.Partitions)
	if n == 0 {
		return
	}
	ms := func(a, w time.Duration) float64 { return float64(a-w) / float64(time.Millisecond) / n }
	b.ReportMetric(ms(after.Locked(), before.Locked()), "device-ms")
	b.ReportMetric(ms(after.Upload, before.Upload), "upload-ms")
	b.ReportMetric(ms(after.Evaluate, before.Evaluate), "evaluate-ms")
	b.ReportMetric(ms(after.NTT, before.NTT), "ntt-ms")
	b.ReportMetric(ms(after.Pointwise, before.Pointwise), "pointwise-ms")
	b.ReportMetric(ms(after.MSMH, before.MSMH), "msmH-ms")
	b.ReportMetric(ms(after.MSMA, before.MSMA), "msmA-ms")
	b.ReportMetric(ms(after.MSMB1, before.MSMB1), "msmB1-ms")
	b.ReportMetric(ms(after.MSML, before.MSML), "msmL-ms")
	b.ReportMetric(ms(after.MSMB2, before.MSMB2), "msmB2-ms")
}

// firstGPU returns the first GPU's prover device, closed with every other at the end of the
// benchmark; without a GPU the benchmark is skipped.
func firstGPU(b *testing.B) *gpu.ProverDevice {
	b.Helper()
	gpus, err := gpu.ProverDevices()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	b.Cleanup(func() {
		for _, g := range gpus {
			g.Close()
		}
	})
	return gpus[0]
}

// BenchmarkWindowSynthesize measures a reduced 32 GiB WindowPoSt partition, the real sector of
// realWindowPartition in each of 128 slots (6.8 M constraints, the size of one 32 GiB PoRep
// challenge): "compile" is synth.Compile of its blank circuit, "synthesize" synth.Synthesize
// (witness and A·w, B·w, C·w), "witness" synth.SynthesizeWitness (w alone, as for a device
// that evaluates the matrices itself). Each reports constraints per second.
func BenchmarkWindowSynthesize(b *testing.B) {
	for _, sectors := range []int{128} {
		b.Run(fmt.Sprintf("sectors=%d", sectors), func(b *testing.B) {
			p, c, _ := realWindowPartition(b, sectors)
			var shape *synth.Shape
			b.Run("compile", func(b *testing.B) {
				for b.Loop() {
					s, err := synth.Compile(cpost.Blank(p))
					if err != nil {
						b.Fatal(err)
					}
					shape = s
				}
				b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			})
			if shape == nil { // the compile benchmark was filtered out
				var err error
				if shape, err = synth.Compile(cpost.Blank(p)); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("synthesize", func(b *testing.B) {
				for b.Loop() {
					a, err := synth.Synthesize(b.Context(), shape, c)
					if err != nil {
						b.Fatal(err)
					}
					benchAssignment = a
				}
				b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			})
			b.Run("witness", func(b *testing.B) {
				for b.Loop() {
					a, err := synth.SynthesizeWitness(b.Context(), shape, c, nil)
					if err != nil {
						b.Fatal(err)
					}
					benchAssignment = a
				}
				b.ReportMetric(float64(shape.NumConstraints)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
			})
		})
	}
}
