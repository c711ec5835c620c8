package post

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

const windowDir = "testdata/filecoin-windowpost-32gib-vanilla/"

// readWindow returns curio's golden 32 GiB WindowPoSt vanilla proof and its public data.
func readWindow(t *testing.T) ([]byte, *FallbackPoStSectorProof, *VerifyInfo) {
	t.Helper()
	raw, err := os.ReadFile(windowDir + "post.vproof")
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecodeSectorProof(raw)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(windowDir + "postpub.json")
	if err != nil {
		t.Fatal(err)
	}
	vi, err := ParseVerifyInfo(pub)
	if err != nil {
		t.Fatal(err)
	}
	return raw, p, vi
}

// TestWindowPoSt32GiBVanilla decodes curio's real vanilla proof, derives its challenges from
// postpub.json (miner 1000, sector 1, zero randomness, type 8) and checks it natively.
func TestWindowPoSt32GiBVanilla(t *testing.T) {
	raw, p, vi := readWindow(t)
	if len(raw) != 24960 || p.SectorID != 1 || len(p.Sectors) != 1 || len(p.Sectors[0].InclusionProofs) != 10 {
		t.Fatalf("decoded %d bytes: sector %d, %d sector proofs", len(raw), p.SectorID, len(p.Sectors))
	}
	if vi.Prover != 1000 || len(vi.Proofs) != 1 || vi.Proofs[0].Type != StackedDrgWindow32GiBV1 || len(vi.Sectors) != 1 ||
		vi.Sectors[0].Number != 1 || vi.Randomness != (Domain{}) {
		t.Fatalf("postpub.json: %+v", vi)
	}
	if vi.Sectors[0].CommR != p.CommR {
		t.Fatalf("sealed CID comm_r %s, vanilla proof comm_r %s", vi.Sectors[0].CommR, p.CommR)
	}
	info, _ := Lookup(vi.Proofs[0].Type)
	if err := info.VerifySectorProof(vi.Randomness, 0, vi.PublicSectors()[0], p); err != nil {
		t.Fatal(err)
	}
	// The proof's leaf indices are the derived challenges (VerifySectorProof checks the index
	// digits; list them here too).
	want, _ := info.LeafChallenges(vi.Randomness, 1, 0)
	for c, mp := range p.Sectors[0].InclusionProofs {
		idx, mul := uint64(0), uint64(1)
		for _, e := range mp.Path() {
			idx += e.Index * mul
			mul *= uint64(len(e.Hashes) + 1)
		}
		if idx != want[c] {
			t.Errorf("challenge %d: path index %d, derived %d", c, idx, want[c])
		}
	}
	// Round trip: our encoding is byte-for-byte the Rust bincode.
	enc, err := p.MarshalBinary()
	if err != nil || !bytes.Equal(enc, raw) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
}

func cloneProof(t *testing.T, raw []byte) *FallbackPoStSectorProof {
	t.Helper()
	p, err := DecodeSectorProof(raw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWindowPoSt32GiBVanillaTampered changes one sibling at every level, the leaf, an index,
// comm_c, comm_r_last and the public data; each must fail with an error naming where. With
// -short, only challenges 0 and 1 are tampered with.
func TestWindowPoSt32GiBVanillaTampered(t *testing.T) {
	raw, _, vi := readWindow(t)
	info, _ := Lookup(StackedDrgWindow32GiBV1)
	pub := vi.PublicSectors()[0]
	check := func(name string, p *FallbackPoStSectorProof, pub PublicSector, rnd Domain, wantChallenge, wantLevel int, wantText string) {
		t.Helper()
		err := info.VerifySectorProof(rnd, 0, pub, p)
		var ve *VerifyError
		if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidVanilla) {
			t.Errorf("%s: %v, want a *VerifyError", name, err)
			return
		}
		if ve.Challenge != wantChallenge || ve.Level != wantLevel || !strings.Contains(err.Error(), wantText) {
			t.Errorf("%s: %v (challenge %d level %d), want challenge %d level %d containing %q",
				name, err, ve.Challenge, ve.Level, wantChallenge, wantLevel, wantText)
		}
	}
	const levels = 10 // 9 base levels + 1 sub level
	challenges := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if testing.Short() {
		challenges = []int{0, 1}
	}
	for _, c := range challenges {
		for l := 0; l < levels; l++ {
			p := cloneProof(t, raw)
			mp := &p.Sectors[0].InclusionProofs[c]
			var e *PathElement
			if l < 9 {
				e = &mp.Base[l]
			} else {
				e = &mp.Sub[0]
			}
			e.Hashes[l%7][0] ^= 1
			check("sibling", p, pub, vi.Randomness, c, levels, "path hashes to")

			p = cloneProof(t, raw)
			mp = &p.Sectors[0].InclusionProofs[c]
			if l < 9 {
				e = &mp.Base[l]
			} else {
				e = &mp.Sub[0]
			}
			e.Index = (e.Index + 1) % 8
			check("index", p, pub, vi.Randomness, c, l, "wants")
		}
		p := cloneProof(t, raw)
		p.Sectors[0].InclusionProofs[c].Leaf[0] ^= 1
		check("leaf", p, pub, vi.Randomness, c, levels, "path hashes to")

		p = cloneProof(t, raw)
		p.Sectors[0].InclusionProofs[c].Root[0] ^= 1
		check("root", p, pub, vi.Randomness, c, levels, "proof's root")

		p = cloneProof(t, raw)
		p.Sectors[0].InclusionProofs[c].Base[3].Hashes[2][31] |= 0x80 // ≥ r
		check("non-canonical sibling", p, pub, vi.Randomness, c, 3, "not canonical")
	}
	p := cloneProof(t, raw)
	p.Sectors[0].CommC[0] ^= 1
	check("comm_c", p, pub, vi.Randomness, -1, -1, "Poseidon(comm_c, comm_r_last)")
	p = cloneProof(t, raw)
	p.Sectors[0].CommRLast[0] ^= 1
	check("comm_r_last", p, pub, vi.Randomness, -1, -1, "Poseidon(comm_c, comm_r_last)")
	p = cloneProof(t, raw)
	p.Sectors[0].InclusionProofs = p.Sectors[0].InclusionProofs[:9]
	check("9 challenges", p, pub, vi.Randomness, -1, -1, "9 inclusion proofs")
	p = cloneProof(t, raw)
	p.Sectors[0].InclusionProofs[4].Sub = nil
	check("missing sub level", p, pub, vi.Randomness, 4, 9, "sub path has 0 levels")

	// Other randomness or sector number: the paths open the wrong leaves.
	rnd := vi.Randomness
	rnd[0] = 1
	check("randomness", cloneProof(t, raw), pub, rnd, 0, 0, "wants")
	other := pub
	other.ID = 2
	p = cloneProof(t, raw)
	p.SectorID = 2
	check("sector number", p, other, vi.Randomness, 0, 0, "wants")
	// Another sector's comm_r.
	other = pub
	other.CommR[0] ^= 1
	check("comm_r", cloneProof(t, raw), other, vi.Randomness, -1, -1, "comm_r")
}
