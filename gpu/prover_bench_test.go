package gpu

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// BenchmarkProvePartitionGPU proves one partition per iteration on GPU 0 with the SRS resident
// and reports the device time (the kernel-lock region) per stage. Workloads: the scalable
// circuit at 2^20 and the PoRep-shaped circuit at 2^21 and 2^24, all with INSECURE real setups
// (their proofs verify, checked once per size); and, only when CUZK_BENCH_PARTITION=1, a full
// PoRep-shaped partition (≈130 M constraints, 2^27 domain) with random parameters — its proofs
// do not verify. The device-eval variants prove the same partition from w alone (the device
// computes A·w, B·w, C·w from the resident shape) and report the staging's evaluate-ms.
func BenchmarkProvePartitionGPU(b *testing.B) {
	d := testDevice(b)
	type workload struct {
		name   string
		random bool
		build  func() (synth.Circuit, error)
	}
	porepAt := func(size string) func() (synth.Circuit, error) {
		return func() (synth.Circuit, error) {
			for _, s := range porep.Sizes() {
				if s.Name == size {
					sec, err := porep.NewSector(s.Cfg, [32]byte{1})
					if err != nil {
						return nil, err
					}
					return sec.Circuit(0), nil
				}
			}
			b.Fatalf("no porep size %q", size)
			return nil, nil
		}
	}
	loads := []workload{
		{"scalable-2^20", false, func() (synth.Circuit, error) {
			return &circuits.Scalable{Constraints: 1<<20 - 6, Inputs: 5, Seed: 3}, nil
		}},
		{"porep-2^21", false, porepAt("tiny")},
		{"porep-2^24", false, porepAt("2^24")},
	}
	if os.Getenv("CUZK_BENCH_PARTITION") == "1" {
		loads = append(loads, workload{"porep-partition-random-params", true, porepAt("partition")})
	}
	ctx := context.Background()
	for _, w := range loads {
		for _, deviceEval := range []bool{false, true} {
			name := w.name
			if deviceEval {
				name += "/device-eval"
			}
			b.Run(name, func(b *testing.B) {
				st, ok := benchSetups[w.name]
				if !ok {
					st = setupWorkload(b, w.name, w.random, w.build)
					benchSetups[w.name] = st
				}
				asg, params := st.asg, st.params
				if deviceEval { // the same w, without its evaluations
					asg = &synth.Assignment{Shape: asg.Shape, W: asg.W, Inputs: asg.Inputs, Aux: asg.Aux}
				}
				pd := NewProverDevice(d)
				defer pd.Close()
				dev := prover.NewDevice(pd)
				// Warm up: uploads the SRS, allocates the NTT buffers, builds the NTT tables.
				proof, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(dev), prover.WithoutSelfCheck())
				if err != nil {
					b.Fatal(err)
				}
				if !w.random {
					pvk, err := prover.PrepareVerifyingKey(&params.VK)
					if err != nil {
						b.Fatal(err)
					}
					if err := prover.Verify(pvk, proof, asg.PublicInputs()); err != nil {
						b.Fatal(err)
					}
				}
				warm := pd.Breakdown()
				b.Logf("SRS upload %s, shape upload %s", warm.SRSUpload, warm.ShapeUpload)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(dev), prover.WithoutSelfCheck()); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				bd := pd.Breakdown()
				n := float64(bd.Partitions - warm.Partitions)
				ms := func(a, w time.Duration) float64 { return float64(a-w) / float64(time.Millisecond) / n }
				b.ReportMetric(ms(bd.Locked(), warm.Locked()), "device-ms")
				b.ReportMetric(ms(bd.Upload, warm.Upload), "upload-ms")
				b.ReportMetric(ms(bd.Evaluate, warm.Evaluate), "evaluate-ms")
				b.ReportMetric(ms(bd.NTT, warm.NTT), "ntt-ms")
				b.ReportMetric(ms(bd.Pointwise, warm.Pointwise), "pointwise-ms")
				b.ReportMetric(ms(bd.MSMH, warm.MSMH), "msmH-ms")
				b.ReportMetric(ms(bd.MSMA, warm.MSMA), "msmA-ms")
				b.ReportMetric(ms(bd.MSMB1, warm.MSMB1), "msmB1-ms")
				b.ReportMetric(ms(bd.MSML, warm.MSML), "msmL-ms")
				b.ReportMetric(ms(bd.MSMB2, warm.MSMB2), "msmB2-ms")
				b.ReportMetric(float64(st.cpuB2)/float64(time.Millisecond), "cpuB2-ms")
			})
		}
	}
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// benchSetup is a workload compiled, synthesized and given parameters, kept across the calls of
// one benchmark (b.N = 1 first, then more) so that it is built once.
type benchSetup struct {
	shape  *synth.Shape
	asg    *synth.Assignment
	params *prover.Parameters
	cpuB2  time.Duration // B_G2 as one gnark MSM on all cores, to choose where it runs
}

var benchSetups = map[string]*benchSetup{}

func setupWorkload(b *testing.B, name string, random bool, build func() (synth.Circuit, error)) *benchSetup {
	ctx := context.Background()
	c, err := build()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	shape, err := synth.Compile(c)
	if err != nil {
		b.Fatal(err)
	}
	compiled := time.Since(t0)
	t0 = time.Now()
	asg, err := synth.Synthesize(ctx, shape, c)
	if err != nil {
		b.Fatal(err)
	}
	synthesized := time.Since(t0)
	t0 = time.Now()
	var params *prover.Parameters
	if random {
		params = devsetup.RandomParameters(shape, 1)
	} else {
		tw, err := devsetup.NewToxicWaste(rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		if params, err = devsetup.InsecureSetup(shape, tw); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: %d constraints, domain 2^%d, %d aux; compile %s, synthesize %s, params %s (random=%v)",
		name, shape.NumConstraints, log2(shape.DomainSize()), shape.NumAux, compiled, synthesized, time.Since(t0), random)
	// B_G2 on the CPU instead, for the choice of where it runs: one gnark MSM on all cores.
	var sc []fr.Element // the B queries' scalars: inputs b_input marks, then aux b_aux marks
	for i, v := range asg.Inputs {
		if shape.BDensityInput.Has(i) {
			sc = append(sc, v)
		}
	}
	for i, v := range asg.Aux {
		if shape.BDensityAux.Has(i) {
			sc = append(sc, v)
		}
	}
	var cpuB2 bls12381.G2Jac
	t0 = time.Now()
	if len(sc) > 0 {
		if _, err := cpuB2.MultiExp(params.BG2, sc, ecc.MultiExpConfig{}); err != nil {
			b.Fatal(err)
		}
	}
	return &benchSetup{shape: shape, asg: asg, params: params, cpuB2: time.Since(t0)}
}
