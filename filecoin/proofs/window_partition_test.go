package proofs

import (
	"context"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cpost "github.com/cuzk-go/cuzk/filecoin/circuits/post"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/synth"
)

const windowDir = "testdata/filecoin-windowpost-32gib-vanilla/"

// windowPartitionConstraints is the constraint count of one 32 GiB WindowPoSt partition, 2349
// sectors × 10 challenges (filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT comment).
const windowPartitionConstraints = 125_279_217

// realWindowPartition returns a 32 GiB WindowPoSt partition built from Curio's real vanilla
// proof (sector 1 of miner 1000, zero randomness): the circuit parameters with SectorCount
// sectors (0: the full partition, 2349), the circuit whose first slot is the real sector and
// whose other slots repeat it, as the last partition of a WindowPoSt is padded
// (cpost.PadSectors), and the public inputs post.Info.PublicInputs derives for those slots
// from postpub.json alone. The vanilla proof is checked natively on the way
// (post.Info.PartitionWitness).
func realWindowPartition(tb testing.TB, sectors int) (cpost.Params, *cpost.Circuit, []fr.Element) {
	tb.Helper()
	raw, err := os.ReadFile(windowDir + "post.vproof")
	if err != nil {
		tb.Fatal(err)
	}
	vp, err := post.DecodeSectorProof(raw)
	if err != nil {
		tb.Fatal(err)
	}
	pub, err := os.ReadFile(windowDir + "postpub.json")
	if err != nil {
		tb.Fatal(err)
	}
	vi, err := post.ParseVerifyInfo(pub)
	if err != nil {
		tb.Fatal(err)
	}
	if len(vi.Proofs) != 1 || vi.Proofs[0].Type != post.StackedDrgWindow32GiBV1 {
		tb.Fatalf("postpub.json: want one StackedDrgWindow32GiBV1 proof, have %+v", vi.Proofs)
	}
	info, err := post.Lookup(vi.Proofs[0].Type)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := cpost.ParamsFor(info)
	if err != nil {
		tb.Fatal(err)
	}
	if sectors == 0 {
		sectors = p.SectorCount
	}
	if sectors < 1 || sectors > p.SectorCount {
		tb.Fatalf("%d sectors: a partition holds 1 to %d", sectors, p.SectorCount)
	}
	ws, err := info.PartitionWitness(vi.Randomness, vi.PublicSectors(), []*post.FallbackPoStSectorProof{vp}, 0)
	if err != nil {
		tb.Fatal(err)
	}
	first, err := cpost.SectorsFromWitness(ws[:1])
	if err != nil {
		tb.Fatal(err)
	}
	inputs, err := info.PublicInputs(vi.Randomness, vi.PublicSectors(), 0)
	if err != nil {
		tb.Fatal(err)
	}
	perSector := 1 + p.ChallengeCount
	p.SectorCount = sectors
	c := &cpost.Circuit{Params: p, Sectors: cpost.PadSectors(first, sectors)}
	return p, c, inputs[:sectors*perSector]
}

// TestRealWindowPartitionSmall builds the WindowPoSt partition of the benchmark at 3 sectors
// (the real sector and 2 padding copies, 160 k constraints): its shape has 3 × 53,333
// constraints, the witness satisfies every constraint (synth.Check), and its public inputs
// equal those filecoin/post derives from postpub.json. The full partition's count, 2349
// sectors, is checked with cpost.Count against the published 125,279,217.
func TestRealWindowPartitionSmall(t *testing.T) {
	p, c, want := realWindowPartition(t, 3)
	full := p
	full.SectorCount = 2349
	n, _, _, err := cpost.Count(full)
	if err != nil {
		t.Fatal(err)
	}
	if n != windowPartitionConstraints {
		t.Fatalf("full partition: %d constraints, want %d", n, windowPartitionConstraints)
	}

	shape, err := synth.Compile(cpost.Blank(p))
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * (313 + 10*(2+10*530)); shape.NumConstraints != want {
		t.Fatalf("3 sectors: %d constraints, want %d", shape.NumConstraints, want)
	}
	asg, err := synth.Synthesize(context.Background(), shape, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Check(shape, asg, c); err != nil {
		t.Fatal(err)
	}
	got := asg.PublicInputs()
	if len(got) != 33 || len(want) != 33 {
		t.Fatalf("%d public inputs, %d derived; want 33", len(got), len(want))
	}
	for i := range want {
		if !want[i].Equal(&got[i]) {
			t.Fatalf("public input %d: circuit %s, derived %s", i, got[i].String(), want[i].String())
		}
	}
	// The padding slots repeat the real sector's inputs: comm_r and the same 10 leaf indices.
	for i := 11; i < 33; i++ {
		if !got[i].Equal(&got[i-11]) {
			t.Fatalf("public input %d differs from %d: padding is not the repeated sector", i, i-11)
		}
	}
}
