package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// pairScalars are the scalar patterns that decide the pair table's use: n ones (every pair
// both 1), ones and zeros alternating (no pair), 1s at odd positions only (no pair, every tail
// alone), random bits, mostly bits and random scalars; n odd leaves the last scalar without a
// partner.
func pairScalars(seed uint64, n int) map[string][]fr.Element {
	pattern := func(one func(i int) bool) []fr.Element {
		s := make([]fr.Element, n)
		for i := range s {
			if one(i) {
				s[i].SetOne()
			}
		}
		return s
	}
	return map[string][]fr.Element{
		"ones":        pattern(func(int) bool { return true }),
		"even-ones":   pattern(func(i int) bool { return i%2 == 0 }),
		"odd-ones":    pattern(func(i int) bool { return i%2 == 1 }),
		"bits":        makeScalars(seed, n, kindBits),
		"mostly-bits": makeScalars(seed+1, n, kindMostlyBits),
		"random":      makeScalars(seed+2, n, kindRandom),
	}
}

// TestMSMPairTableMatchesGnark checks MSMs over G1 bases with a pair table (S[k] = P[2k] +
// P[2k+1], G1Bases.AddPairTable) against gnark's MultiExp over the plain points: the patterns of
// pairScalars at even and odd sizes, fewer scalars than bases, points whose pair sums double
// (P[5] = P[4]) or vanish (P[7] = −P[6], P[1] and the last at infinity), scalars at an offset of
// a device buffer, a batch job and a bit-reversed one (which the table does not serve); then G2
// bases likewise, and the table's refusals.
func TestMSMPairTableMatchesGnark(t *testing.T) {
	d := testDevice(t)
	rng := newRand(t)
	ctx := context.Background()
	const nb = 5000
	pts := specialG1Points(nb)
	g1, err := d.UploadG1Bases(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer g1.Close()
	for range 2 {
		if err := g1.AddPairTable(); err != nil {
			t.Fatal(err)
		}
	}
	if !g1.Paired() {
		t.Fatal("AddPairTable: Paired() = false")
	}
	for _, n := range []int{1, 2, 3, 8, 11, 1000, 4097, nb} {
		for name, sc := range pairScalars(rng.Uint64(), n) {
			t.Run(fmt.Sprintf("G1/n=%d/%s", n, name), func(t *testing.T) {
				checkG1MSM(t, ctx, g1, pts, sc)
				checkG1MSMDevice(t, ctx, d, g1, pts, sc)
			})
		}
	}
	t.Run("G1/batch", func(t *testing.T) {
		const b = 12
		m := 1<<b - 1
		sc := makeScalars(rng.Uint64(), m, kindMostlyBits)
		buf := testScalars(t, d, m)
		if err := buf.Upload(ctx, 0, sc); err != nil {
			t.Fatal(err)
		}
		res, err := d.MSMs(ctx, []MSMJob{{G1: g1, Scalars: buf, N: m}, {G1: g1, Scalars: buf, N: m, BitRev: b}})
		if err != nil {
			t.Fatal(err)
		}
		for i, order := range [][]fr.Element{sc, bitRevOrder(sc, b)} {
			var want, got bls12381.G1Affine
			if _, err := want.MultiExp(pts[:m], order, ecc.MultiExpConfig{}); err != nil {
				t.Fatal(err)
			}
			got.FromJacobian(&res[i].G1)
			if got != want {
				t.Fatalf("job %d over paired bases: got %s want %s", i, got.String(), want.String())
			}
		}
	})

	const n2 = 1024
	pts2 := g2Points(n2)
	pts2[3] = pts2[2]
	pts2[9].Neg(&pts2[8])
	g2, err := d.UploadG2Bases(pts2)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if err := g2.AddPairTable(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 7, 10, 333, n2} {
		for name, sc := range pairScalars(rng.Uint64(), n) {
			t.Run(fmt.Sprintf("G2/n=%d/%s", n, name), func(t *testing.T) { checkG2MSM(t, ctx, g2, pts2, sc) })
		}
	}

	// Refusals: a write to bases with a table (which would not follow), a table of one base, and
	// closed bases; dropping the table allows writes again.
	if err := g2.b.write(0, unsafe.Pointer(&pts2[0]), 1); err == nil || !strings.Contains(err.Error(), "pair table") {
		t.Fatalf("write to bases with a pair table: err = %v, want a refusal naming the table", err)
	}
	if err := g2.DropPairTable(); err != nil || g2.Paired() {
		t.Fatalf("DropPairTable: err %v, Paired() %v", err, g2.Paired())
	}
	if err := g2.b.write(0, unsafe.Pointer(&pts2[0]), 1); err != nil {
		t.Fatalf("write after DropPairTable: %v", err)
	}
	one, err := d.UploadG1Bases(pts[:1])
	if err != nil {
		t.Fatal(err)
	}
	if err := one.AddPairTable(); err == nil || !strings.Contains(err.Error(), "two or more") {
		t.Fatalf("pair table of one base: err = %v, want a refusal", err)
	}
	one.Close()
	two, err := d.UploadG1Bases(pts[:2])
	if err != nil {
		t.Fatal(err)
	}
	two.Close()
	if err := two.AddPairTable(); !errors.Is(err, ErrClosed) {
		t.Fatalf("pair table of closed bases: err = %v, want ErrClosed", err)
	}
}
