package gpu

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// proveBothWays proves circuit c of shape on pd from its witness alone (the device evaluates
// A·w, B·w, C·w) and on the CPU from the full assignment, with the same r and s: the proofs must
// be byte-identical and verify.
func proveBothWays(t *testing.T, pd *ProverDevice, shape *synth.Shape, params *prover.Parameters, c synth.Circuit) {
	t.Helper()
	ctx := context.Background()
	wit, err := synth.SynthesizeWitness(ctx, shape, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	full, err := synth.Synthesize(ctx, shape, c)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := prover.NewRandomness()
	if err != nil {
		t.Fatal(err)
	}
	dev := prover.NewDevice(pd)
	if !prover.EvaluatesOnDevice(dev, shape) {
		t.Fatal("the GPU device does not report device evaluation")
	}
	onGPU, err := prover.ProvePartition(ctx, params, wit, prover.WithDevice(dev), prover.WithRandomness(rs))
	if err != nil {
		t.Fatal(err)
	}
	onCPU, err := prover.ProvePartition(ctx, params, full, prover.WithRandomness(rs))
	if err != nil {
		t.Fatal(err)
	}
	g, cp := onGPU.Bytes(), onCPU.Bytes()
	if !bytes.Equal(g[:], cp[:]) {
		t.Fatal("GPU proof with device evaluation differs from the CPU proof")
	}
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	if err != nil {
		t.Fatal(err)
	}
	if err := prover.Verify(pvk, onGPU, full.PublicInputs()); err != nil {
		t.Fatal(err)
	}
}

// TestProverDeviceEvalMatchesCPU proves witness-only partitions on the GPU, which evaluates
// A·w, B·w, C·w from the resident shape, and full ones on the CPU with the same r and s: the
// proofs must be byte-identical and verify. The shape is uploaded once for its partitions and
// freed by EvictShape.
func TestProverDeviceEvalMatchesCPU(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	ctx := context.Background()
	for _, logN := range []int{10, 12, 14, 16} {
		t.Run(fmt.Sprintf("2^%d", logN), func(t *testing.T) {
			c, shape, params := setupScalable(t, logN, 5)
			for part := 0; part < 2; part++ {
				c.Partition = part
				proveBothWays(t, pd, shape, params, c)
			}
			if got, want := pd.ShapeBytes(), int64(shape.Bytes()); got != want {
				t.Fatalf("resident shapes: %d bytes, want one shape of %d", got, want)
			}
			if err := pd.EvictShape(shape); err != nil {
				t.Fatal(err)
			}
			if got := pd.ShapeBytes(); got != 0 {
				t.Fatalf("after EvictShape: %d bytes of shapes resident", got)
			}
			if err := pd.Evict(ctx, params.Identity()); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("densities", func(t *testing.T) {
		c := denseA{n: 3000}
		shape, err := synth.Compile(c)
		if err != nil {
			t.Fatal(err)
		}
		tw, err := devsetup.NewToxicWaste(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		params, err := devsetup.InsecureSetup(shape, tw)
		if err != nil {
			t.Fatal(err)
		}
		proveBothWays(t, pd, shape, params, c)
	})
}

// TestStageWitnessMatchesHost stages PoRep tiny's first partition (mostly 0/1 values: the
// compact upload) and a scalable circuit's (random values: the plain upload) from w alone and
// checks the workspace's w, A·w, B·w, C·w against the host's synth.Synthesize, element by
// element, padding included.
func TestStageWitnessMatchesHost(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	ctx := context.Background()
	loads := map[string]func() synth.Circuit{
		"scalable":   func() synth.Circuit { return &circuits.Scalable{Constraints: 1<<12 - 4, Inputs: 3, Seed: 21} },
		"porep tiny": func() synth.Circuit { return porepTiny(t) },
	}
	for name, build := range loads {
		t.Run(name, func(t *testing.T) {
			if name == "porep tiny" && testing.Short() {
				t.Skip("PoRep tiny: a synthesis at 2^21")
			}
			c := build()
			shape, err := synth.Compile(c)
			if err != nil {
				t.Fatal(err)
			}
			asg, err := synth.Synthesize(ctx, shape, c)
			if err != nil {
				t.Fatal(err)
			}
			cw, err := synth.EncodeWitness(asg.W)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("w: %d elements, compact %d bytes of %d", len(asg.W), cw.Bytes(), len(asg.W)*fr.Bytes)
			m := max(shape.DomainSize(), 2)
			dims := primitive.Dims{Domain: m, W: len(asg.W)}
			pw, err := pd.Workspace(ctx, dims)
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Release()
			if err := pw.(primitive.WitnessStager).StageWitness(ctx, shape, asg.W, true); err != nil {
				t.Fatal(err)
			}
			ws := pw.(*workspace)
			for _, v := range []struct {
				buf  primitive.Buf
				want []fr.Element
				n    int
			}{{primitive.BufA, asg.A, m}, {primitive.BufB, asg.B, m}, {primitive.BufC, asg.C, m}, {primitive.BufW, asg.W, len(asg.W)}} {
				got := make([]fr.Element, v.n)
				if err := ws.bufs[v.buf].Download(ctx, 0, got); err != nil {
					t.Fatal(err)
				}
				want := slices.Concat(v.want, make([]fr.Element, v.n-len(v.want)))
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("buffer %d element %d of %d: got %s, want %s", v.buf, i, v.n, got[i].String(), want[i].String())
					}
				}
			}
		})
	}
}

// porepTiny returns the circuit of the first partition of a PoRep tiny sector (2^21 domain).
func porepTiny(tb testing.TB) synth.Circuit {
	tb.Helper()
	for _, s := range porep.Sizes() {
		if s.Name == "tiny" {
			sec, err := porep.NewSector(s.Cfg, [32]byte{7})
			if err != nil {
				tb.Fatal(err)
			}
			return sec.Circuit(0)
		}
	}
	tb.Fatal("no porep size tiny")
	return nil
}

// TestProverDeviceEvalPorepTiny proves PoRep tiny's first partition with device evaluation and
// on the CPU with the same r and s (INSECURE parameters made with the GPU's fixed-base
// multiplication): byte-identical proofs that verify.
func TestProverDeviceEvalPorepTiny(t *testing.T) {
	d := testDevice(t)
	if testing.Short() {
		t.Skip("PoRep tiny: a CPU proof at 2^21")
	}
	pd := NewProverDevice(d)
	defer pd.Close()
	c := porepTiny(t)
	shape, err := synth.Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	params, err := devsetup.InsecureSetup(shape, tw, devsetup.WithFixedBase(d))
	if err != nil {
		t.Fatal(err)
	}
	proveBothWays(t, pd, shape, params, c)
	bd := pd.Breakdown()
	t.Logf("shape upload %s, w upload %s, evaluate %s", bd.ShapeUpload, bd.Upload, bd.Evaluate)
}

// TestCompactBound: w is encoded when at most compactOthers of it is neither 0 nor 1, and its
// encoding then takes at most an eighth of w, as EstimateWitnessPartitionBytes counts; one
// value more and it is shipped whole.
func TestCompactBound(t *testing.T) {
	n := 1 << 16
	w := make([]fr.Element, n)
	for i := range w {
		if i%3 == 0 {
			w[i].SetOne()
		}
	}
	if _, ok, err := synth.EncodeWitnessBounded(w, compactOthers(n)); err != nil || !ok {
		t.Fatalf("a witness of 0s and 1s: ok %v, error %v", ok, err)
	}
	limit := compactOthers(n)
	for i := 0; i < limit; i++ {
		w[(i*7919)%n].SetUint64(uint64(i) + 2) // spread over every block
	}
	cw, ok, err := synth.EncodeWitnessBounded(w, compactOthers(n))
	if err != nil || !ok {
		t.Fatalf("%d others of %d: ok %v, error %v", limit, n, ok, err)
	}
	if cw.Bytes() > n*fr.Bytes/8 {
		t.Fatalf("encoding of %d bytes, more than an eighth of %d", cw.Bytes(), n*fr.Bytes)
	}
	for i := range w {
		if w[i].IsZero() || w[i].IsOne() {
			w[i].SetUint64(5)
			break
		}
	}
	if _, ok, _ := synth.EncodeWitnessBounded(w, compactOthers(n)); ok {
		t.Fatalf("%d others of %d: compacted", limit+1, n)
	}
}
