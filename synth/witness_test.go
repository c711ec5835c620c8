package synth_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/synth"
)

func randomWitness(rng *rand.Rand, n int, pZero, pOne float64) []fr.Element {
	w := make([]fr.Element, n)
	for i := range w {
		switch x := rng.Float64(); {
		case x < pZero:
		case x < pZero+pOne:
			w[i].SetOne()
		default:
			w[i] = fr.NewElement(rng.Uint64() | 2) // never 0 or 1
			if rng.IntN(3) == 0 {
				w[i].SetRandom()
			}
		}
	}
	return w
}

func roundTrip(t *testing.T, w []fr.Element) *synth.CompactWitness {
	t.Helper()
	c, err := synth.EncodeWitness(w)
	require.NoError(t, err)
	got := make([]fr.Element, len(w))
	for i := range got {
		got[i].SetUint64(12345) // overwritten
	}
	require.NoError(t, c.Decode(got))
	require.Equal(t, w, got)
	return c
}

// TestCompactWitnessRoundTrip encodes and decodes vectors of many lengths (0, 1, around the
// 32-element word and the block) and mixes, and the witness of the scalable circuit.
func TestCompactWitnessRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 31, 32, 33, synth.WitnessBlock - 1, synth.WitnessBlock, synth.WitnessBlock + 1, 5*synth.WitnessBlock + 77} {
		for _, mix := range [][2]float64{{0.51, 0.47}, {1, 0}, {0, 1}, {0, 0}} {
			c := roundTrip(t, randomWitness(rng, n, mix[0], mix[1]))
			if mix == [2]float64{0, 0} {
				require.Len(t, c.Others, n)
			}
		}
	}
	sc := &circuits.Scalable{Constraints: 5000, Inputs: 3, Seed: 4}
	shape, err := synth.Compile(sc)
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, sc)
	require.NoError(t, err)
	roundTrip(t, asg.W)
}

// TestCompactWitnessPoRep round-trips the witness of the smallest PoRep-shaped circuit and
// checks its size: below 1.2 bytes an element (32 uncompressed).
// TestEncodeWitnessBounded: within its bound the bounded encoder gives EncodeWitness's encoding;
// one value neither 0 nor 1 past it, none; at any size around the block boundaries.
func TestEncodeWitnessBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 31, synth.WitnessBlock, 3*synth.WitnessBlock + 7} {
		w := randomWitness(rng, n, 0.5, 0.3)
		want, err := synth.EncodeWitness(w)
		require.NoError(t, err)
		others := len(want.Others)
		got, ok, err := synth.EncodeWitnessBounded(w, others)
		require.NoError(t, err)
		require.True(t, ok, "n = %d, %d others, bound %d", n, others, others)
		require.Equal(t, want, got, "n = %d", n)
		if others > 0 {
			got, ok, err = synth.EncodeWitnessBounded(w, others-1)
			require.NoError(t, err)
			require.False(t, ok, "n = %d, %d others, bound %d", n, others, others-1)
			require.Nil(t, got)
		}
	}
}

func TestCompactWitnessPoRep(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes a 1.2 M-constraint circuit")
	}
	w := porepWitness(t)
	c := roundTrip(t, w)
	perElem := float64(c.Bytes()) / float64(len(w))
	require.Less(t, perElem, 1.2, "bytes per element")
}

func porepWitness(tb testing.TB) []fr.Element {
	sector, err := porep.NewSector(porep.Sizes()[0].Cfg, [32]byte{9})
	require.NoError(tb, err)
	c := sector.Circuit(0)
	shape, err := synth.Compile(c)
	require.NoError(tb, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(tb, err)
	return asg.W
}

// TestCompactWitnessRefused damages encodings: each is refused with ErrCompactWitness.
func TestCompactWitnessRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := randomWitness(rng, 3*synth.WitnessBlock+5, 0.5, 0.3)
	fresh := func() *synth.CompactWitness {
		c, err := synth.EncodeWitness(w)
		require.NoError(t, err)
		return c
	}
	dst := make([]fr.Element, len(w))
	for name, damage := range map[string]func(c *synth.CompactWitness){
		"class 3":             func(c *synth.CompactWitness) { c.Classes[7] |= 3 << 10 },
		"one other missing":   func(c *synth.CompactWitness) { c.Others = c.Others[:len(c.Others)-1] },
		"block count off":     func(c *synth.CompactWitness) { c.BlockOthers[1]++ },
		"zero becomes other":  func(c *synth.CompactWitness) { c.Classes[0] = otherAt(c.Classes[0], w[:32]) },
		"class beyond N":      func(c *synth.CompactWitness) { c.Classes[len(c.Classes)-1] |= 1 << 62 },
		"too few class words": func(c *synth.CompactWitness) { c.Classes = c.Classes[1:] },
		"N larger than dst":   func(c *synth.CompactWitness) { c.N = len(dst) + 1 },
	} {
		c := fresh()
		damage(c)
		require.ErrorIs(t, c.Decode(dst), synth.ErrCompactWitness, name)
	}
}

// otherAt turns the first zero of the 32 elements of word into an "other".
func otherAt(word uint64, w []fr.Element) uint64 {
	for j := range w {
		if w[j].IsZero() {
			return word | synth.WitnessOther<<(2*j)
		}
	}
	panic("no zero")
}

var sinkWitness *synth.CompactWitness

// BenchmarkWitnessCodec encodes and decodes the witness of the smallest PoRep-shaped circuit
// (1.2 M elements), reporting bytes per element and elements per second.
func BenchmarkWitnessCodec(b *testing.B) {
	w := porepWitness(b)
	c, err := synth.EncodeWitness(w)
	require.NoError(b, err)
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			sinkWitness, _ = synth.EncodeWitness(w)
		}
		b.ReportMetric(float64(c.Bytes())/float64(len(w)), "B/elem")
		b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
	b.Run("decode", func(b *testing.B) {
		dst := make([]fr.Element, len(w))
		for b.Loop() {
			if err := c.Decode(dst); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
}
