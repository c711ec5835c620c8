package post

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	fpost "github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/synth"
)

const windowDir = "testdata/filecoin-windowpost-32gib-vanilla/"

// realWindow returns Curio's real 32 GiB WindowPoSt vanilla proof with its public data, the
// proof type's Info, and the sector slots of partition 0 (the real sector, then padding).
func realWindow(t *testing.T) (fpost.Info, *fpost.VerifyInfo, []fpost.SectorWitness) {
	t.Helper()
	raw, err := os.ReadFile(windowDir + "post.vproof")
	require.NoError(t, err)
	vp, err := fpost.DecodeSectorProof(raw)
	require.NoError(t, err)
	pub, err := os.ReadFile(windowDir + "postpub.json")
	require.NoError(t, err)
	vi, err := fpost.ParseVerifyInfo(pub)
	require.NoError(t, err)
	require.Len(t, vi.Proofs, 1)
	info, err := fpost.Lookup(vi.Proofs[0].Type)
	require.NoError(t, err)
	require.Equal(t, fpost.StackedDrgWindow32GiBV1, info.Type)
	ws, err := info.PartitionWitness(vi.Randomness, vi.PublicSectors(), []*fpost.FallbackPoStSectorProof{vp}, 0)
	require.NoError(t, err)
	return info, vi, ws
}

// TestRealWindowPublicInputs: for the real WindowPoSt partition (sector 1 padded to 2349 slots),
// the circuit's public inputs over SectorsFromWitness equal filecoin/post's Info.PublicInputs
// derived from postpub.json alone (randomness, sector number, sealed CID): 25,839 elements.
func TestRealWindowPublicInputs(t *testing.T) {
	info, vi, ws := realWindow(t)
	p, err := ParamsFor(info)
	require.NoError(t, err)
	require.Equal(t, 2349, p.SectorCount)
	secs, err := SectorsFromWitness(ws)
	require.NoError(t, err)
	require.Len(t, secs, p.SectorCount)
	got := PublicInputs(secs)
	want, err := info.PublicInputs(vi.Randomness, vi.PublicSectors(), 0)
	require.NoError(t, err)
	require.Len(t, want, 25_839)
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.True(t, want[i].Equal(&got[i]), "input %d", i)
	}
	// The padding slots are the real sector repeated, as PadSectors pads.
	padded := PadSectors(secs[:1], p.SectorCount)
	require.Equal(t, PublicInputs(padded), got)
}

// realSectorCircuit returns the Window 32 GiB circuit restricted to the real sector's slot: the
// same Params (tree 8-8-0, 10 challenges) with SectorCount 1, its compiled shape, and the
// sector. The full partition repeats this slot 2349 times (125,279,217 constraints).
func realSectorCircuit(t *testing.T) (*synth.Shape, Params, Sector, []fr.Element) {
	t.Helper()
	info, vi, ws := realWindow(t)
	p, err := ParamsFor(info)
	require.NoError(t, err)
	p.SectorCount = 1
	secs, err := SectorsFromWitness(ws[:1])
	require.NoError(t, err)
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	require.Equal(t, 313+10*(2+10*530), shape.NumConstraints)
	want, err := info.PublicInputs(vi.Randomness, vi.PublicSectors(), 0)
	require.NoError(t, err)
	return shape, p, secs[0], want[:11]
}

// TestRealWindowSatisfied: the real sector's slot of the real 32 GiB WindowPoSt partition
// satisfies the circuit, with the public inputs derived from postpub.json. A flipped sibling
// (in the sub-tree level), a flipped leaf and a changed leaf index each make Check name the
// failing constraint: the root equality of the tampered challenge.
func TestRealWindowSatisfied(t *testing.T) {
	shape, p, sec, want := realSectorCircuit(t)
	c := &Circuit{Params: p, Sectors: []Sector{sec}}
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	got := asg.PublicInputs()
	require.Len(t, got, len(want))
	for i := range want {
		require.True(t, want[i].Equal(&got[i]), "input %d", i)
	}

	// tamper returns a copy of sec with challenge ch changed by f.
	tamper := func(ch int, f func(*Challenge)) Sector {
		s := sec
		s.Challenges = append([]Challenge(nil), sec.Challenges...)
		c := s.Challenges[ch]
		c.Path = append([][]fr.Element(nil), c.Path...)
		for l := range c.Path {
			c.Path[l] = append([]fr.Element(nil), c.Path[l]...)
		}
		f(&c)
		s.Challenges[ch] = c
		return s
	}
	one := fr.One()
	cases := []struct {
		name string
		s    Sector
		ch   int
	}{
		{"sub-tree sibling", tamper(3, func(c *Challenge) { c.Path[9][4].Add(&c.Path[9][4], &one) }), 3},
		{"base sibling", tamper(7, func(c *Challenge) { c.Path[0][0].Add(&c.Path[0][0], &one) }), 7},
		{"leaf", tamper(0, func(c *Challenge) { c.Leaf.Add(&c.Leaf, &one) }), 0},
		{"leaf index", tamper(9, func(c *Challenge) { c.LeafIndex ^= 1 }), 9},
	}
	for _, tc := range cases {
		bad := &Circuit{Params: p, Sectors: []Sector{tc.s}}
		asg, err := synth.Synthesize(context.Background(), shape, bad)
		require.NoError(t, err, tc.name)
		err = synth.Check(shape, asg, bad)
		var ue *synth.UnsatisfiedError
		require.True(t, errors.As(err, &ue), "%s: %v", tc.name, err)
		require.Equal(t, "sector[0]/challenge_inclusion["+string(rune('0'+tc.ch))+"]/enforce root is correct/equal", ue.Path, tc.name)
	}
}

// TestSectorsFromWitnessBadIndex: a level index that does not spell the leaf index, or is not
// below the arity, is an error naming the slot, challenge and level.
func TestSectorsFromWitnessBadIndex(t *testing.T) {
	_, _, ws := realWindow(t)
	w := ws[0]
	w.Paths = append([][]fpost.LevelWitness(nil), w.Paths...)
	w.Paths[2] = append([]fpost.LevelWitness(nil), w.Paths[2]...)
	w.Paths[2][4].Index = (w.Paths[2][4].Index + 1) % 8
	_, err := SectorsFromWitness([]fpost.SectorWitness{w})
	require.ErrorContains(t, err, "slot 0 (sector 1) challenge 2: path indices spell leaf")
	w.Paths[2][4].Index = 8
	_, err = SectorsFromWitness([]fpost.SectorWitness{w})
	require.ErrorContains(t, err, "slot 0 (sector 1) challenge 2 level 4: index 8, arity 8")
	w = ws[0]
	w.Leafs = w.Leafs[:3]
	_, err = SectorsFromWitness([]fpost.SectorWitness{w})
	require.ErrorContains(t, err, "10 leaf indices, 3 leaves, 10 paths")
}

// TestRealWindowPaddedSlots synthesizes the first 64 slots of the real 32 GiB WindowPoSt
// partition (the real sector, then padding copies, 3.4 M constraints) through the same code
// path as the full 2349-slot partition, whose 125 M constraints take far more memory than a
// test may use: satisfied, with the first 64·11 public inputs derived from postpub.json.
func TestRealWindowPaddedSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("3.4 M constraints")
	}
	const slots = 64
	info, vi, ws := realWindow(t)
	p, err := ParamsFor(info)
	require.NoError(t, err)
	secs, err := SectorsFromWitness(ws[:slots])
	require.NoError(t, err)
	p.SectorCount = slots
	shape, err := synth.Compile(Blank(p))
	require.NoError(t, err)
	c := &Circuit{Params: p, Sectors: secs}
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	want, err := info.PublicInputs(vi.Randomness, vi.PublicSectors(), 0)
	require.NoError(t, err)
	got := asg.PublicInputs()
	require.Len(t, got, slots*11)
	for i := range got {
		require.True(t, want[i].Equal(&got[i]), "input %d", i)
	}
}
