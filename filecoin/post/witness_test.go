package post

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// testTree is a tree-r-last of shape info.Shape over random leaves, built here to make vanilla
// proofs for shapes and sector sets no real vector covers.
type testTree struct {
	info   Info
	levels [][]fr.Element // levels[0] = leaves; each next level hashes groups of the layer's arity
	arity  []int          // arity[l] joins levels[l] into levels[l+1]
}

func newTestTree(t *testing.T, info Info, rng *rand.Rand) *testTree {
	t.Helper()
	tr := &testTree{info: info}
	leaves := make([]fr.Element, info.Leaves())
	for j := range leaves {
		leaves[j].SetUint64(rng.Uint64())
	}
	tr.levels = [][]fr.Element{leaves}
	for _, ly := range info.layers() {
		for range ly.levels {
			tr.arity = append(tr.arity, ly.arity)
		}
	}
	for _, a := range tr.arity {
		cur := tr.levels[len(tr.levels)-1]
		next := make([]fr.Element, len(cur)/a)
		for j := range next {
			h, err := poseidon.Must(a).Hash(cur[j*a : (j+1)*a])
			if err != nil {
				t.Fatal(err)
			}
			next[j] = h
		}
		tr.levels = append(tr.levels, next)
	}
	if len(tr.levels[len(tr.levels)-1]) != 1 {
		t.Fatalf("tree of %d leaves did not reduce to one root", info.Leaves())
	}
	return tr
}

func (tr *testTree) root() fr.Element { return tr.levels[len(tr.levels)-1][0] }

// proof returns the inclusion proof of leaf idx in the shape's variant.
func (tr *testTree) proof(idx uint64) MerkleProof {
	mp := MerkleProof{Kind: tr.info.proofKind(), Leaf: DomainOf(&tr.levels[0][idx])}
	r := tr.root()
	mp.Root = DomainOf(&r)
	pos := idx
	var path []PathElement
	for l, a := range tr.arity {
		start := pos / uint64(a) * uint64(a)
		e := PathElement{Index: pos % uint64(a)}
		for j := start; j < start+uint64(a); j++ {
			if j != pos {
				e.Hashes = append(e.Hashes, DomainOf(&tr.levels[l][j]))
			}
		}
		path = append(path, e)
		pos /= uint64(a)
	}
	n := tr.info.layers()[0].levels
	mp.Base = path[:n]
	if tr.info.Shape.Sub > 0 {
		mp.Sub = path[n : n+1]
	}
	if tr.info.Shape.Top > 0 {
		mp.Top = path[n+1 : n+2]
	}
	return mp
}

// sector makes a sector on tr with a random comm_c and its vanilla proof for the challenges
// of position sectorIndex.
func (tr *testTree) sector(t *testing.T, id uint64, rnd Domain, sectorIndex int, rng *rand.Rand) (PublicSector, *FallbackPoStSectorProof) {
	t.Helper()
	var commC fr.Element
	commC.SetUint64(rng.Uint64())
	rl := tr.root()
	commR, err := poseidon.Must(2).Hash([]fr.Element{commC, rl})
	if err != nil {
		t.Fatal(err)
	}
	pub := PublicSector{ID: id, CommR: DomainOf(&commR)}
	ch, err := tr.info.LeafChallenges(rnd, id, sectorIndex)
	if err != nil {
		t.Fatal(err)
	}
	sp := SectorProof{CommC: DomainOf(&commC), CommRLast: DomainOf(&rl)}
	for _, c := range ch {
		sp.InclusionProofs = append(sp.InclusionProofs, tr.proof(c))
	}
	return pub, &FallbackPoStSectorProof{SectorID: id, CommR: pub.CommR, Sectors: []SectorProof{sp}}
}

// checkWitness hashes every slot's paths back to comm_r_last and Poseidon(comm_c, comm_r_last)
// to comm_r — what the circuit enforces — and checks the slots against the public inputs.
func checkWitness(t *testing.T, info Info, slots []SectorWitness, inputs []fr.Element) {
	t.Helper()
	if len(slots) != info.CircuitSectors || len(inputs) != info.NumPublicInputs() {
		t.Fatalf("%d slots, %d inputs", len(slots), len(inputs))
	}
	per := 1 + info.CircuitChallenges
	for s, w := range slots {
		h2, _ := poseidon.Must(2).Hash([]fr.Element{w.CommC, w.CommRLast})
		if !h2.Equal(&w.CommR) || !w.CommR.Equal(&inputs[s*per]) {
			t.Fatalf("slot %d: comm_r mismatch", s)
		}
		if len(w.Leafs) != info.CircuitChallenges || len(w.Paths) != info.CircuitChallenges || len(w.LeafIndices) != info.CircuitChallenges {
			t.Fatalf("slot %d: %d leafs, %d paths", s, len(w.Leafs), len(w.Paths))
		}
		for n := range w.Leafs {
			var idx fr.Element
			idx.SetUint64(w.LeafIndices[n])
			if !idx.Equal(&inputs[s*per+1+n]) {
				t.Fatalf("slot %d challenge %d: leaf index %d differs from public input", s, n, w.LeafIndices[n])
			}
			cur, pos, mul := w.Leafs[n], uint64(0), uint64(1)
			for _, lv := range w.Paths[n] {
				a := len(lv.Siblings) + 1
				in := append(append(append([]fr.Element{}, lv.Siblings[:lv.Index]...), cur), lv.Siblings[lv.Index:]...)
				cur, _ = poseidon.Must(a).Hash(in)
				pos += lv.Index * mul
				mul *= uint64(a)
			}
			if !cur.Equal(&w.CommRLast) || pos != w.LeafIndices[n] {
				t.Fatalf("slot %d challenge %d: path does not reach comm_r_last at leaf %d", s, n, w.LeafIndices[n])
			}
		}
	}
}

// TestWindowPoSt32GiBWitness turns curio's real vanilla proof into the 2349 slots of partition 0
// (sector 1 then 2348 repeats) and checks them against the derived public inputs.
func TestWindowPoSt32GiBWitness(t *testing.T) {
	_, p, vi := readWindow(t)
	info, _ := Lookup(StackedDrgWindow32GiBV1)
	slots, err := info.PartitionWitness(vi.Randomness, vi.PublicSectors(), []*FallbackPoStSectorProof{p}, 0)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := info.PublicInputs(vi.Randomness, vi.PublicSectors(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// The slots after the first repeat it (the padding): hash-check two, compare the rest.
	for s := 1; s < len(slots); s++ {
		if !reflect.DeepEqual(slots[s], slots[0]) {
			t.Fatalf("padding slot %d differs from slot 0", s)
		}
	}
	small := info
	small.CircuitSectors = 2
	checkWitness(t, small, slots[:2], inputs[:small.NumPublicInputs()])
	per := 1 + info.CircuitChallenges
	for s := 1; s < info.CircuitSectors; s++ {
		for j := range per {
			if !inputs[s*per+j].Equal(&inputs[j]) {
				t.Fatalf("padding input %d of slot %d differs", j, s)
			}
		}
	}
	if len(slots[0].Paths[0]) != 10 || len(slots[0].Paths[0][9].Siblings) != 7 {
		t.Errorf("32 GiB path: %d levels", len(slots[0].Paths[0]))
	}
	if _, err := info.PartitionWitness(vi.Randomness, vi.PublicSectors(), []*FallbackPoStSectorProof{p}, 1); err == nil {
		t.Error("partition 1 of a one-sector set accepted")
	}
}

// TestWinningWitnessSynthetic builds a 2 KiB sector, proves the 66 challenges of lantern's
// randomness for it, and unrolls the vanilla proof into the 66 one-challenge slots.
func TestWinningWitnessSynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	info, _ := Lookup(StackedDrgWinning2KiBV1)
	v := readLantern(t)
	var rnd Domain
	copy(rnd[:], mustHex(t, v.RandomnessHex))
	tr := newTestTree(t, info, rng)
	pub, p := tr.sector(t, 7, rnd, 0, rng)
	if err := info.VerifySectorProof(rnd, 0, pub, p); err != nil {
		t.Fatal(err)
	}
	slots, err := info.PartitionWitness(rnd, []PublicSector{pub}, []*FallbackPoStSectorProof{p}, 0)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := info.PublicInputs(rnd, []PublicSector{pub}, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkWitness(t, info, slots, inputs)
	// The vanilla challenges (1 sector × 66) are the circuit's (66 sectors × 1).
	for n, w := range slots {
		if w.LeafIndices[0] != p.Sectors[0].InclusionProofs[n].Path()[0].Index+8*p.Sectors[0].InclusionProofs[n].Path()[1].Index {
			t.Fatalf("slot %d: leaf %d", n, w.LeafIndices[0])
		}
	}
}

// TestWindowPartitionsSynthetic proves three 2 KiB sectors with WindowPoSt V1 and V1_1: two
// partitions, the second padded; the API 1.2.0 challenge rule differs from 1.0.0 for every
// sector after the first.
func TestWindowPartitionsSynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var rnd Domain
	rnd[0], rnd[31] = 0x5a, 0x1f
	ids := []uint64{3, 5, 9}
	for _, pt := range []ProofType{StackedDrgWindow2KiBV1, StackedDrgWindow2KiBV1_1} {
		info, _ := Lookup(pt)
		var pubs []PublicSector
		var proofs []*FallbackPoStSectorProof
		for j, id := range ids {
			pub, p := newTestTree(t, info, rng).sector(t, id, rnd, j, rng)
			pubs = append(pubs, pub)
			proofs = append([]*FallbackPoStSectorProof{p}, proofs...) // any order
		}
		if info.Partitions(len(pubs)) != 2 {
			t.Fatalf("%s: %d partitions", info.Name, info.Partitions(len(pubs)))
		}
		for k := range 2 {
			slots, err := info.PartitionWitness(rnd, pubs, proofs, k)
			if err != nil {
				t.Fatalf("%s partition %d: %v", info.Name, k, err)
			}
			inputs, err := info.PublicInputs(rnd, pubs, k)
			if err != nil {
				t.Fatal(err)
			}
			checkWitness(t, info, slots, inputs)
			if k == 1 && (slots[0].ID != 9 || slots[1].ID != 9 || !inputs[0].Equal(&inputs[11]) || !inputs[10].Equal(&inputs[21])) {
				t.Fatalf("%s: partition 1 not padded with sector 9", info.Name)
			}
		}
		// Sector 9 at position 2 under the other API version's challenge rule fails.
		other := info
		other.API = 1 - info.API
		err := other.VerifySectorProof(rnd, 2, pubs[2], proofs[0])
		if !errors.Is(err, ErrInvalidVanilla) {
			t.Errorf("%s proof under API %s: %v", info.Name, other.API, err)
		}
		// Unsorted sectors and a missing proof are refused.
		if _, err := info.PublicInputs(rnd, []PublicSector{pubs[1], pubs[0]}, 0); err == nil {
			t.Error("descending sector ids accepted")
		}
		if _, err := info.PartitionWitness(rnd, pubs, proofs[1:], 1); err == nil {
			t.Error("missing vanilla proof accepted")
		}
	}
}

// TestSubTopShapesSynthetic checks the verifier and witness on small trees of the 8-8-0 and
// 8-8-2 shapes (Sub and Top proofs), which only 32 and 64 GiB sectors have in production.
func TestSubTopShapesSynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var rnd Domain
	rnd[3] = 9
	for _, shape := range []TreeShape{{Base: 8, Sub: 8}, {Base: 8, Sub: 8, Top: 2}} {
		info, _ := Lookup(StackedDrgWindow2KiBV1)
		info.Shape = shape
		info.SectorSize = NodeSize * 64 * uint64(shape.Sub) * uint64(max(shape.Top, 1))
		tr := newTestTree(t, info, rng)
		pub, p := tr.sector(t, 11, rnd, 0, rng)
		if err := info.VerifySectorProof(rnd, 0, pub, p); err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		slots, err := info.PartitionWitness(rnd, []PublicSector{pub}, []*FallbackPoStSectorProof{p}, 0)
		if err != nil {
			t.Fatal(err)
		}
		inputs, _ := info.PublicInputs(rnd, []PublicSector{pub}, 0)
		checkWitness(t, info, slots, inputs)
		// A top/sub sibling changed: caught at the root.
		last := &p.Sectors[0].InclusionProofs[0]
		if shape.Top > 0 {
			last.Top[0].Hashes[0][0] ^= 1
		} else {
			last.Sub[0].Hashes[6][0] ^= 1
		}
		var ve *VerifyError
		if err := info.VerifySectorProof(rnd, 0, pub, p); !errors.As(err, &ve) || ve.Challenge != 0 || ve.Layer != "root" {
			t.Errorf("%s: tampered upper sibling: %v", shape, err)
		}
	}
}
