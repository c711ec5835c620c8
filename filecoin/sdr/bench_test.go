package sdr

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

var benchSink any

// BenchmarkLabel labels the 2 layers of a 2 KiB and an 8 MiB sector (parent cache included).
func BenchmarkLabel(b *testing.B) {
	for _, p := range []sector.RegisteredSealProof{sector.StackedDrg2KiBV1_1, sector.StackedDrg8MiBV1_1} {
		g, err := NewGraph(p.Config().Nodes, p.PoRepID(), p.APIVersion())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p.String(), func(b *testing.B) {
			for b.Loop() {
				lb, err := Label(context.Background(), g, [32]byte{1}, 2)
				if err != nil {
					b.Fatal(err)
				}
				benchSink = lb
			}
		})
	}
}

// BenchmarkTreeRC builds an arity-8 Poseidon tree over 2^18 leaves (tree C or R of 8 MiB).
func BenchmarkTreeRC(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	leaves := make([]fr.Element, 1<<18)
	for i := range leaves {
		leaves[i].SetUint64(rng.Uint64())
	}
	for b.Loop() {
		t, err := NewTreeRC(sector.TreeShape{Base: 8}, leaves)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = t
	}
}

// BenchmarkPoseidon hashes one tree node of arity 8 and one column of 11 rows.
func BenchmarkPoseidon(b *testing.B) {
	for _, arity := range []int{8, 11} {
		in := make([]fr.Element, arity)
		for i := range in {
			in[i].SetUint64(uint64(i))
		}
		b.Run(map[int]string{8: "arity8", 11: "arity11"}[arity], func(b *testing.B) {
			for b.Loop() {
				benchSink = poseidonNode(in)
			}
		})
	}
}
