package proofs

import (
	"context"
	"testing"

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
		gpus, err := gpu.ProverDevices()
		if err != nil {
			b.Skipf("no GPU: %v", err)
		}
		defer func() {
			for _, g := range gpus {
				g.Close()
			}
		}()
		dev := prover.WithDevice(prover.NewDevice(gpus[0]))
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
