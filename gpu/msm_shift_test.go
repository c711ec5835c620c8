package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// halfEdgeScalars returns n scalars cycling through values at the edges of the cut
// s = s_lo + 2^128·s_hi of bases with a shift table: halves of 0, 1 and 2^128 − 1 (whose
// signed digits carry through every window of the half), 2^127 and 2^128 ± 1, r − 1, and
// random values with one half zeroed.
func halfEdgeScalars(seed uint64, n int) []fr.Element {
	two128 := new(big.Int).Lsh(big.NewInt(1), 128)
	lowMask := new(big.Int).Sub(two128, big.NewInt(1))
	fromBig := func(v *big.Int) fr.Element {
		var x fr.Element
		x.SetBigInt(v)
		return x
	}
	edges := []fr.Element{
		fromBig(big.NewInt(1)),
		fromBig(lowMask),
		fromBig(two128),
		fromBig(new(big.Int).Add(two128, big.NewInt(1))),
		fromBig(new(big.Int).Lsh(big.NewInt(1), 127)),
		fromBig(new(big.Int).Add(new(big.Int).Lsh(lowMask, 128), lowMask)), // both halves 2^128 − 1, reduced mod r
		fromBig(new(big.Int).Lsh(lowMask, 126)),                            // high half's top bits
		rMinusOne(),
	}
	s := randScalars(seed, n)
	for i := range s {
		switch k := i % (len(edges) + 3); {
		case k < len(edges):
			s[i] = edges[k]
		case k == len(edges): // low half zero
			var v big.Int
			s[i].BigInt(&v)
			s[i] = fromBig(v.AndNot(&v, lowMask))
		case k == len(edges)+1: // high half zero
			var v big.Int
			s[i].BigInt(&v)
			s[i] = fromBig(v.And(&v, lowMask))
		}
	}
	return s
}

// TestMSMShiftTableMatchesGnark adds a shift table (Q_i = 2^128·P_i) to G1 bases holding
// infinity, a duplicate and a point with its negation, and compares MSMs over them, whose scalars
// are then cut in two halves, with gnark MultiExp over the plain points: random, 0/1, mostly-bit,
// small and half-edge scalars at the sizes of TestMSMG1MatchesGnark, window widths the cost
// model does not pick at this size (CUZK_MSM_C, to 24 bits), scalars in a device buffer at an
// offset, and a batch job. The table is built once: a second AddShiftTable does nothing.
func TestMSMShiftTableMatchesGnark(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	ctx := context.Background()
	sizes := msmSizes()
	maxN := slices.Max(sizes)
	pts := specialG1Points(maxN)
	bases, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer bases.Close()
	if bases.Shifted() {
		t.Fatal("new bases report a shift table")
	}
	for range 2 {
		if err := bases.AddShiftTable(); err != nil {
			t.Fatal(err)
		}
	}
	if !bases.Shifted() {
		t.Fatal("AddShiftTable: Shifted() = false")
	}
	check := func(t *testing.T, sc []fr.Element) {
		t.Helper()
		checkG1MSM(t, ctx, bases, pts, sc)
	}
	for _, n := range sizes {
		for _, k := range g1MSMKinds(n) {
			t.Run(fmt.Sprintf("n=%d/%v", n, k), func(t *testing.T) { check(t, makeScalars(rng.Uint64(), n, k)) })
		}
		t.Run(fmt.Sprintf("n=%d/half-edges", n), func(t *testing.T) { check(t, halfEdgeScalars(rng.Uint64(), n)) })
	}
	n := min(maxN, 3000)
	for _, c := range []int{4, 7, 13, 16, 19, 22, 24} {
		t.Run(fmt.Sprintf("c=%d", c), func(t *testing.T) {
			t.Setenv("CUZK_MSM_C", fmt.Sprint(c))
			check(t, halfEdgeScalars(rng.Uint64(), n))
			check(t, makeScalars(rng.Uint64(), n, kindRandom))
		})
	}
	t.Run("device-scalars", func(t *testing.T) {
		sc := makeScalars(rng.Uint64(), n, kindRandom)
		buf := checkG1MSMDevice(t, ctx, d, bases, pts, sc)
		jobs, err := d.MSMs(ctx, []MSMJob{{G1: bases, Scalars: buf, Off: deviceScalarOff, N: n}})
		if err != nil {
			t.Fatal(err)
		}
		var want, gb bls12381.G1Affine
		if _, err := want.MultiExp(pts[:n], sc, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		gb.FromJacobian(&jobs[0].G1)
		if gb != want {
			t.Fatalf("G1 MSMs n=%d over shifted bases: got %s want %s", n, gb.String(), want.String())
		}
	})
	t.Run("bit-reversed", func(t *testing.T) {
		// h as Scalars.Groth16H leaves it: 2^b − 1 scalars, scalar i paired with base rev(i), as
		// plain integers, and the same in Montgomery form; a few ones, which take the sum of the
		// ones rather than the digits, and the scalar R mod r, whose plain integer is Montgomery
		// one's limbs. Then â·b̂ as it leaves it for folded parameters: 2^b plain scalars in
		// natural order.
		b := bits.Len(uint(n)) - 1
		m := 1<<b - 1
		sc := makeScalars(rng.Uint64(), m+1, kindRandom)
		var wantAll bls12381.G1Affine
		if _, err := wantAll.MultiExp(pts[:m+1], sc, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		all := testScalars(t, d, m+1)
		if err := all.Upload(ctx, 0, plainScalars(sc)); err != nil {
			t.Fatal(err)
		}
		res, err := d.MSMs(ctx, []MSMJob{{G1: bases, Scalars: all, N: m + 1, Plain: true}})
		if err != nil {
			t.Fatal(err)
		}
		var gAll bls12381.G1Affine
		gAll.FromJacobian(&res[0].G1)
		if gAll != wantAll {
			t.Fatalf("G1 MSM of 2^%d plain scalars over shifted bases: got %s want %s", b, gAll.String(), wantAll.String())
		}
		sc = sc[:m]
		for i := 0; i < m; i += 17 {
			sc[i].SetOne()
		}
		one := fr.One()
		sc[5].SetBigInt(limbsInt(one[:]))
		var want bls12381.G1Affine
		if _, err := want.MultiExp(pts[:m], bitRevOrder(sc, b), ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		for _, plain := range []bool{false, true} {
			up := sc
			if plain {
				up = plainScalars(sc)
			}
			buf := testScalars(t, d, m)
			if err := buf.Upload(ctx, 0, up); err != nil {
				t.Fatal(err)
			}
			jobs, err := d.MSMs(ctx, []MSMJob{{G1: bases, Scalars: buf, N: m, BitRev: b, Plain: plain}})
			if err != nil {
				t.Fatal(err)
			}
			var gb bls12381.G1Affine
			gb.FromJacobian(&jobs[0].G1)
			if gb != want {
				t.Fatalf("G1 MSMs of 2^%d − 1 bit-reversed scalars (plain %v) over shifted bases: got %s want %s", b, plain, gb.String(), want.String())
			}
		}
	})
}

// plainScalars returns sc as plain integers below r in fr.Elements' place (MSMJob.Plain).
func plainScalars(sc []fr.Element) []fr.Element {
	out := make([]fr.Element, len(sc))
	for i := range sc {
		out[i] = fr.Element(sc[i].Bits())
	}
	return out
}

// limbsInt is the integer of little-endian 64-bit limbs.
func limbsInt(limbs []uint64) *big.Int {
	x := new(big.Int)
	for i := len(limbs) - 1; i >= 0; i-- {
		x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(limbs[i]))
	}
	return x
}

// TestMSMShiftTableRefused checks that a shift table is refused for closed bases and for more than
// MaxShiftedBases points (checked before the device is asked), and that bases with a table
// refuse new points, which the table would not follow.
func TestMSMShiftTableRefused(t *testing.T) {
	d := testDevice(t)
	pts := g1Points(4)
	small, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := small.AddShiftTable(); err != nil {
		t.Fatal(err)
	}
	if err := small.b.write(0, unsafe.Pointer(&pts[0]), 1); err == nil || !strings.Contains(err.Error(), "shift table") {
		t.Fatalf("write to bases with a shift table: err = %v, want a refusal naming the table", err)
	}
	tooMany := &G1Bases{&bases{dev: d, group: 1, n: MaxShiftedBases + 1, h: 1}}
	if err := tooMany.AddShiftTable(); err == nil {
		t.Fatal("AddShiftTable over 2^30 points succeeded")
	}
	if err := small.Close(); err != nil {
		t.Fatal(err)
	}
	if err := small.AddShiftTable(); !errors.Is(err, ErrClosed) {
		t.Fatalf("AddShiftTable on closed bases: err = %v, want ErrClosed", err)
	}
}
