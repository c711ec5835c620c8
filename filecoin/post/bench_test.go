package post

import (
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

var benchInputs []fr.Element

// BenchmarkPublicInputs derives a full partition's inputs: Window 32 GiB is 2349 sectors ×
// 10 leaf challenges (one sector, padded), Winning 66 × 1.
func BenchmarkPublicInputs(b *testing.B) {
	for _, pt := range []ProofType{StackedDrgWinning2KiBV1, StackedDrgWindow32GiBV1} {
		info, _ := Lookup(pt)
		sectors := []PublicSector{{ID: 1, CommR: Domain{1}}}
		b.Run(info.Name, func(b *testing.B) {
			for b.Loop() {
				in, err := info.PublicInputs(Domain{}, sectors, 0)
				if err != nil {
					b.Fatal(err)
				}
				benchInputs = in
			}
		})
	}
}

// BenchmarkVerifySectorProof decodes and checks curio's 32 GiB vanilla proof: 10 paths of 10
// Poseidon levels plus one Poseidon-2.
func BenchmarkVerifySectorProof(b *testing.B) {
	raw, err := os.ReadFile(windowDir + "post.vproof")
	if err != nil {
		b.Fatal(err)
	}
	pub, err := os.ReadFile(windowDir + "postpub.json")
	if err != nil {
		b.Fatal(err)
	}
	vi, err := ParseVerifyInfo(pub)
	if err != nil {
		b.Fatal(err)
	}
	info, _ := Lookup(StackedDrgWindow32GiBV1)
	for b.Loop() {
		p, err := DecodeSectorProof(raw)
		if err != nil {
			b.Fatal(err)
		}
		if err := info.VerifySectorProof(vi.Randomness, 0, vi.PublicSectors()[0], p); err != nil {
			b.Fatal(err)
		}
	}
}
