package update

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// BenchmarkVanilla2KiB measures, on a sealed 2 KiB sector, encoding new data (trees D and R
// new), one partition proof, and its native verification.
func BenchmarkVanilla2KiB(b *testing.B) {
	r := updated2KiB(b)
	nodes := make([]fr.Element, r.Params.SectorNodes)
	for i := range nodes {
		nodes[i] = r.TreeD.Leaf(uint64(i))
	}
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			if _, err := Encode(StackedDrg2KiBV1, r.TreeROld, r.CommC, nodes); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prove", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.PartitionProof(0); err != nil {
				b.Fatal(err)
			}
		}
	})
	pp, err := r.PartitionProof(0)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, r.CommRNew, pp); err != nil {
				b.Fatal(err)
			}
		}
	})
}
