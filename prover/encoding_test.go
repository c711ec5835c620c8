package prover

import (
	"errors"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// randScalars returns n pseudo-random non-zero scalars from a seeded generator.
func randScalars(seed uint64, n int) []fr.Element {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([]fr.Element, n)
	for i := range out {
		var b [32]byte
		for j := range 4 {
			v := rng.Uint64()
			for k := range 8 {
				b[8*j+k] = byte(v >> (8 * k))
			}
		}
		out[i].SetBytes(b[:])
		if out[i].IsZero() {
			out[i].SetOne()
		}
	}
	return out
}

// randG1 returns n random points of G1 (generator times seeded random scalars).
func randG1(seed uint64, n int) []bls12381.G1Affine {
	if n == 0 {
		return []bls12381.G1Affine{}
	}
	_, _, g1, _ := bls12381.Generators()
	return bls12381.BatchScalarMultiplicationG1(&g1, randScalars(seed, n))
}

// randG2 returns n random points of G2.
func randG2(seed uint64, n int) []bls12381.G2Affine {
	if n == 0 {
		return []bls12381.G2Affine{}
	}
	_, _, _, g2 := bls12381.Generators()
	return bls12381.BatchScalarMultiplicationG2(&g2, randScalars(seed, n))
}

// g1NotInSubgroup returns a point on E(Fp) outside the order-r subgroup.
func g1NotInSubgroup(t testing.TB) bls12381.G1Affine {
	t.Helper()
	var x fp.Element
	x.SetUint64(3)
	for {
		var y2, y fp.Element
		y2.Square(&x).Mul(&y2, &x).Add(&y2, &g1B)
		if y.Sqrt(&y2) != nil {
			p := bls12381.G1Affine{X: x, Y: y}
			if p.IsOnCurve() && !p.IsInSubGroup() {
				return p
			}
		}
		var one fp.Element
		one.SetOne()
		x.Add(&x, &one)
	}
}

// g2NotInSubgroup returns a point on E'(Fp²) outside the order-r subgroup.
func g2NotInSubgroup(t testing.TB) bls12381.G2Affine {
	t.Helper()
	var x bls12381.E2
	x.A0.SetUint64(1)
	x.A1.SetUint64(1)
	for {
		var y2, y, chk bls12381.E2
		y2.Square(&x).Mul(&y2, &x).Add(&y2, &g2B)
		y.Sqrt(&y2)
		if chk.Square(&y).Equal(&y2) {
			p := bls12381.G2Affine{X: x, Y: y}
			if p.IsOnCurve() && !p.IsInSubGroup() {
				return p
			}
		}
		var one fp.Element
		one.SetOne()
		x.A0.Add(&x.A0, &one)
	}
}

// fpModulusBytes is p big-endian: the smallest non-canonical coordinate.
func fpModulusBytes() [48]byte {
	var b [48]byte
	fp.Modulus().FillBytes(b[:])
	return b
}

func TestG1CodecRoundTrip(t *testing.T) {
	pts := randG1(1, 32)
	pts = append(pts, bls12381.G1Affine{}) // infinity
	for i := range pts {
		p := &pts[i]
		raw := p.RawBytes()
		for _, mode := range []DecodeMode{Checked, Unchecked} {
			var q bls12381.G1Affine
			if err := decodeG1Uncompressed(&q, raw[:], mode); err != nil || !q.Equal(p) {
				t.Fatalf("point %d %s uncompressed: err %v, equal %v", i, mode, err, q.Equal(p))
			}
			c := p.Bytes()
			if err := decodeG1Compressed(&q, c[:], mode, true); err != nil || !q.Equal(p) {
				t.Fatalf("point %d %s compressed: err %v", i, mode, err)
			}
		}
		// gnark-crypto agrees on what the encoding means.
		var g bls12381.G1Affine
		if _, err := g.SetBytes(raw[:]); err != nil || !g.Equal(p) {
			t.Fatalf("gnark-crypto disagrees on point %d: %v", i, err)
		}
	}
}

func TestG2CodecRoundTrip(t *testing.T) {
	pts := randG2(2, 16)
	pts = append(pts, bls12381.G2Affine{})
	for i := range pts {
		p := &pts[i]
		raw := p.RawBytes()
		for _, mode := range []DecodeMode{Checked, Unchecked} {
			var q bls12381.G2Affine
			if err := decodeG2Uncompressed(&q, raw[:], mode); err != nil || !q.Equal(p) {
				t.Fatalf("point %d %s uncompressed: err %v", i, mode, err)
			}
			c := p.Bytes()
			if err := decodeG2Compressed(&q, c[:], mode, true); err != nil || !q.Equal(p) {
				t.Fatalf("point %d %s compressed: err %v", i, mode, err)
			}
		}
	}
	// A y with y.c1 = 0 exercises the c0 branch of the sort flag: −P has the other y.
	for i := range pts[:4] {
		var n bls12381.G2Affine
		n.Neg(&pts[i])
		c := n.Bytes()
		var q bls12381.G2Affine
		if err := decodeG2Compressed(&q, c[:], Checked, true); err != nil || !q.Equal(&n) {
			t.Fatalf("negated point %d: %v", i, err)
		}
	}
}

func TestG1DecodeErrors(t *testing.T) {
	p := randG1(3, 1)[0]
	good := p.RawBytes()
	mod := fpModulusBytes()
	bad := g1NotInSubgroup(t)
	badRaw := bad.RawBytes()

	type tc struct {
		name string
		b    []byte
		want error
	}
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good[:]...)
		f(b)
		return b
	}
	cases := []tc{
		{"short", good[:95], errShort},
		{"compressed flag", mut(func(b []byte) { b[0] |= flagCompressed }), errCompressedFlag},
		{"sort flag", mut(func(b []byte) { b[0] |= flagSort }), errSortFlag},
		{"infinity with data", mut(func(b []byte) { b[0] |= flagInfinity }), errInfinityBits},
		{"infinity with sort", func() []byte { b := make([]byte, 96); b[0] = flagInfinity | flagSort; return b }(), errSortFlag},
		{"x = p", mut(func(b []byte) { copy(b[:48], mod[:]) }), errNonCanonical},
		{"y = p", mut(func(b []byte) { copy(b[48:], mod[:]) }), errNonCanonical},
		{"off curve", mut(func(b []byte) { b[95] ^= 1 }), errNotOnCurve},
		{"(0,0) without infinity flag", make([]byte, 96), errNotOnCurve},
	}
	for _, c := range cases {
		for _, mode := range []DecodeMode{Checked, Unchecked} {
			var q bls12381.G1Affine
			if err := decodeG1Uncompressed(&q, c.b, mode); !errors.Is(err, c.want) {
				t.Errorf("%s (%s): got %v, want %v", c.name, mode, err, c.want)
			}
		}
	}
	var q bls12381.G1Affine
	if err := decodeG1Uncompressed(&q, badRaw[:], Checked); !errors.Is(err, errNotInSubgroup) {
		t.Errorf("non-subgroup point, checked: got %v", err)
	}
	if err := decodeG1Uncompressed(&q, badRaw[:], Unchecked); err != nil || !q.Equal(&bad) {
		t.Errorf("non-subgroup point, unchecked: got %v (Unchecked skips only the subgroup check)", err)
	}

	// Compressed.
	gc := p.Bytes()
	cmut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), gc[:]...)
		f(b)
		return b
	}
	inf := make([]byte, 48)
	inf[0] = flagCompressed | flagInfinity
	ccases := []tc{
		{"short", gc[:47], errShort},
		{"no compressed flag", cmut(func(b []byte) { b[0] &^= flagCompressed }), errCompressedFlag},
		{"infinity with data", cmut(func(b []byte) { b[0] |= flagInfinity }), errInfinityBits},
		{"infinity with sort", func() []byte { b := append([]byte(nil), inf...); b[0] |= flagSort; return b }(), errInfinityBits},
		{"x = p", func() []byte { b := append([]byte(nil), mod[:]...); b[0] |= flagCompressed; return b }(), errNonCanonical},
	}
	// An x with no y on the curve.
	var x fp.Element
	for x.SetUint64(1); ; {
		var y2, y fp.Element
		y2.Square(&x).Mul(&y2, &x).Add(&y2, &g1B)
		if y.Sqrt(&y2) == nil {
			break
		}
		var one fp.Element
		one.SetOne()
		x.Add(&x, &one)
	}
	xb := x.Bytes()
	xb[0] |= flagCompressed
	ccases = append(ccases, tc{"x not on curve", xb[:], errNoSqrt})
	for _, c := range ccases {
		if err := decodeG1Compressed(&q, c.b, Checked, true); !errors.Is(err, c.want) {
			t.Errorf("compressed %s: got %v, want %v", c.name, err, c.want)
		}
	}
	if err := decodeG1Compressed(&q, inf, Checked, false); !errors.Is(err, errInfinity) {
		t.Errorf("compressed infinity disallowed: got %v", err)
	}
	badC := bad.Bytes()
	if err := decodeG1Compressed(&q, badC[:], Checked, true); !errors.Is(err, errNotInSubgroup) {
		t.Errorf("compressed non-subgroup point: got %v", err)
	}
}

func TestG2DecodeErrors(t *testing.T) {
	p := randG2(4, 1)[0]
	good := p.RawBytes()
	mod := fpModulusBytes()
	mut := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good[:]...)
		f(b)
		return b
	}
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"short", good[:191], errShort},
		{"compressed flag", mut(func(b []byte) { b[0] |= flagCompressed }), errCompressedFlag},
		{"sort flag", mut(func(b []byte) { b[0] |= flagSort }), errSortFlag},
		{"infinity with data", mut(func(b []byte) { b[0] |= flagInfinity }), errInfinityBits},
		{"x.c1 = p", mut(func(b []byte) { copy(b[:48], mod[:]) }), errNonCanonical},
		{"x.c0 = p", mut(func(b []byte) { copy(b[48:], mod[:]) }), errNonCanonical},
		{"y.c1 = p", mut(func(b []byte) { copy(b[96:], mod[:]) }), errNonCanonical},
		{"y.c0 = p", mut(func(b []byte) { copy(b[144:], mod[:]) }), errNonCanonical},
		{"off curve", mut(func(b []byte) { b[191] ^= 1 }), errNotOnCurve},
		{"zero without infinity flag", make([]byte, 192), errNotOnCurve},
		{"swapped c0/c1", mut(func(b []byte) {
			var t [48]byte
			copy(t[:], b[48:96])
			copy(b[48:96], b[:48])
			copy(b[:48], t[:])
		}), errNotOnCurve},
	}
	for _, c := range cases {
		for _, mode := range []DecodeMode{Checked, Unchecked} {
			var q bls12381.G2Affine
			if err := decodeG2Uncompressed(&q, c.b, mode); !errors.Is(err, c.want) {
				t.Errorf("%s (%s): got %v, want %v", c.name, mode, err, c.want)
			}
		}
	}
	bad := g2NotInSubgroup(t)
	badRaw := bad.RawBytes()
	var q bls12381.G2Affine
	if err := decodeG2Uncompressed(&q, badRaw[:], Checked); !errors.Is(err, errNotInSubgroup) {
		t.Errorf("non-subgroup point, checked: got %v", err)
	}
	if err := decodeG2Uncompressed(&q, badRaw[:], Unchecked); err != nil || !q.Equal(&bad) {
		t.Errorf("non-subgroup point, unchecked: got %v", err)
	}
	badC := bad.Bytes()
	if err := decodeG2Compressed(&q, badC[:], Checked, true); !errors.Is(err, errNotInSubgroup) {
		t.Errorf("compressed non-subgroup point: got %v", err)
	}
	gc := p.Bytes()
	if err := decodeG2Compressed(&q, gc[:95], Checked, true); !errors.Is(err, errShort) {
		t.Errorf("compressed short: got %v", err)
	}
	nc := append([]byte(nil), gc[:]...)
	nc[0] &^= flagCompressed
	if err := decodeG2Compressed(&q, nc, Checked, true); !errors.Is(err, errCompressedFlag) {
		t.Errorf("compressed without flag: got %v", err)
	}
	// An x with no point: find one by incrementing x.c0.
	x := p.X
	for {
		var one fp.Element
		one.SetOne()
		x.A0.Add(&x.A0, &one)
		var y2, y, chk bls12381.E2
		y2.Square(&x).Mul(&y2, &x).Add(&y2, &g2B)
		y.Sqrt(&y2)
		if !chk.Square(&y).Equal(&y2) {
			break
		}
	}
	var xb [96]byte
	fp.BigEndian.PutElement((*[48]byte)(xb[:48]), x.A1)
	fp.BigEndian.PutElement((*[48]byte)(xb[48:]), x.A0)
	xb[0] |= flagCompressed
	if err := decodeG2Compressed(&q, xb[:], Checked, true); !errors.Is(err, errNoSqrt) {
		t.Errorf("compressed x without a point: got %v", err)
	}
}

// TestDecodeModeString documents the zero value.
func TestDecodeModeString(t *testing.T) {
	var m DecodeMode
	if m != Checked || m.String() != "checked" || Unchecked.String() != "unchecked" {
		t.Fatal("zero DecodeMode must be Checked")
	}
}
