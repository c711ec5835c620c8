package prover

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// TestMappedParameters: the points decoded from a mapped file, by range and in chunks of
// every size, are those DecodeParameters returns; so are Decode's, and Identity is the decoded
// parameters' Identity.
func TestMappedParameters(t *testing.T) {
	p := randParams(31, 3, 37, 11, 13, 9, 9)
	path := filepath.Join(t.TempDir(), "p.params")
	if err := os.WriteFile(path, encodeParams(t, p), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := OpenParametersFile(path, Checked)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	gotVK, _ := m.VK.MarshalBinary()
	wantVK, _ := p.VK.MarshalBinary()
	if string(gotVK) != string(wantVK) {
		t.Fatal("verifying key differs")
	}
	if got, want := m.Bytes(), p.EncodedSize()-int64(p.VK.EncodedSize())-5*4; got != want {
		t.Fatalf("Bytes %d, want %d", got, want)
	}
	g1s := map[primitive.Section][]bls12381.G1Affine{
		primitive.SectionH: p.H, primitive.SectionL: p.L, primitive.SectionA: p.A, primitive.SectionBG1: p.BG1,
	}
	for sec, want := range g1s {
		if m.Len(sec) != len(want) {
			t.Fatalf("%v: %d points, want %d", sec, m.Len(sec), len(want))
		}
		for _, chunk := range []int{1, 4, len(want) - 1, len(want), len(want) + 5} {
			var got []bls12381.G1Affine
			next := 0
			err := m.EachG1(sec, make([]bls12381.G1Affine, chunk), func(off int, pts []bls12381.G1Affine) error {
				if off != next {
					t.Fatalf("%v chunk %d: offset %d, want %d", sec, chunk, off, next)
				}
				next += len(pts)
				got = append(got, pts...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !equalG1(got, want) {
				t.Fatalf("%v in chunks of %d: points differ", sec, chunk)
			}
		}
		mid := make([]bls12381.G1Affine, 3)
		if err := m.G1(sec, 2, mid); err != nil || !equalG1(mid, want[2:5]) {
			t.Fatalf("%v points 2..5: %v", sec, err)
		}
	}
	var g2 []bls12381.G2Affine
	if err := m.EachG2(make([]bls12381.G2Affine, 2), func(_ int, pts []bls12381.G2Affine) error {
		g2 = append(g2, pts...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(g2) != len(p.BG2) {
		t.Fatalf("b_g2: %d points, want %d", len(g2), len(p.BG2))
	}
	for i := range g2 {
		if !g2[i].Equal(&p.BG2[i]) {
			t.Fatalf("b_g2 point %d differs", i)
		}
	}
	for sec := primitive.SectionH; sec <= primitive.SectionBG2; sec++ {
		if err := m.DropPages(sec); err != nil {
			t.Fatal(err)
		}
	}
	all, err := m.Decode() // after DropPages: the pages are read again
	if err != nil {
		t.Fatal(err)
	}
	if !equalG1(all.H, p.H) || !equalG1(all.BG1, p.BG1) || len(all.BG2) != len(p.BG2) {
		t.Fatal("Decode differs from the parameters written")
	}
	id, err := m.Identity()
	if err != nil {
		t.Fatal(err)
	}
	if id != p.Identity() {
		t.Fatalf("identity %s, want %s", id, p.Identity())
	}
	other := randParams(32, 3, 37, 11, 13, 9, 9)
	mo, err := MapParameters(encodeParams(t, other), Checked)
	if err != nil {
		t.Fatal(err)
	}
	if oid, _ := mo.Identity(); oid == id || oid != other.Identity() {
		t.Fatal("identities of other parameters")
	}
}

func equalG1(a, b []bls12381.G1Affine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(&b[i]) {
			return false
		}
	}
	return true
}

// TestMappedParametersErrors: a bad point is reported when its range is decoded, with its
// section, index and offset; ranges outside a section, a section of the other group, and a
// closed mapping are errors; counts that do not fit the file are refused when it is opened.
func TestMappedParametersErrors(t *testing.T) {
	p := randParams(33, 2, 6, 4, 3, 3, 2)
	good := encodeParams(t, p)
	offs := sectionOffsets(p)
	b := append([]byte(nil), good...)
	at := offs["l"] + 4 + 2*96
	b[at+95] ^= 1 // l point 2 off the curve
	m, err := MapParameters(b, Unchecked)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.G1(primitive.SectionL, 0, make([]bls12381.G1Affine, 2)); err != nil {
		t.Fatalf("points before the bad one: %v", err)
	}
	err = m.EachG1(primitive.SectionL, make([]bls12381.G1Affine, 3), func(int, []bls12381.G1Affine) error { return nil })
	wantDecodeErr(t, err, "l", 2, int64(at))
	if err := m.G1(primitive.SectionH, 4, make([]bls12381.G1Affine, 3)); err == nil {
		t.Fatal("range past the section's end accepted")
	}
	if err := m.G1(primitive.SectionBG2, 0, make([]bls12381.G1Affine, 1)); err == nil {
		t.Fatal("b_g2 decoded as G1")
	}
	if err := m.G2(-1, make([]bls12381.G2Affine, 1)); err == nil {
		t.Fatal("negative offset accepted")
	}
	if _, err := m.Decode(); err == nil {
		t.Fatal("Decode accepted the bad point")
	}
	stop := errors.New("stop")
	if err := m.EachG1(primitive.SectionH, make([]bls12381.G1Affine, 2), func(int, []bls12381.G1Affine) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.G1(primitive.SectionH, 0, make([]bls12381.G1Affine, 1)); err == nil {
		t.Fatal("decoded after Close")
	}

	short := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(short[offs["a"]:], 0xFFFFFFF0)
	_, err = MapParameters(short, Checked)
	wantDecodeErr(t, err, "a", -1, int64(offs["a"]))
	path := filepath.Join(t.TempDir(), "short.params")
	if err := os.WriteFile(path, short, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenParametersFile(path, Checked); err == nil {
		t.Fatal("file with a count past its end opened")
	}
}

// TestMappedParametersEncoded: Encoded returns the file's bytes of a range of each section
// (from a mapped file, whose pages it prefetches, and from bytes in memory), refuses ranges
// outside a section and a closed file; Unchecked follows the mode.
func TestMappedParametersEncoded(t *testing.T) {
	p := randParams(35, 3, 7, 5, 4, 3, 3)
	file := encodeParams(t, p)
	offs := sectionOffsets(p)
	path := filepath.Join(t.TempDir(), "p.params")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	opened, err := OpenParametersFile(path, Unchecked)
	if err != nil {
		t.Fatal(err)
	}
	inMemory, err := MapParameters(file, Checked)
	if err != nil {
		t.Fatal(err)
	}
	if !opened.Unchecked() || inMemory.Unchecked() {
		t.Fatalf("Unchecked: %v for an Unchecked file, %v for a Checked one", opened.Unchecked(), inMemory.Unchecked())
	}
	names := map[primitive.Section]string{primitive.SectionH: "h", primitive.SectionL: "l", primitive.SectionA: "a",
		primitive.SectionBG1: "b_g1", primitive.SectionBG2: "b_g2"}
	for _, m := range []*MappedParameters{opened, inMemory} {
		for sec, name := range names {
			size := 96
			if sec == primitive.SectionBG2 {
				size = 192
			}
			n := m.Len(sec)
			for _, r := range [][2]int{{0, n}, {1, n - 1}, {n - 1, 1}, {0, 0}} {
				got, err := m.Encoded(sec, r[0], r[1])
				if err != nil {
					t.Fatalf("%s[%d:+%d]: %v", name, r[0], r[1], err)
				}
				at := int(offs[name]) + 4 + r[0]*size
				if want := file[at : at+r[1]*size]; string(got) != string(want) {
					t.Fatalf("%s[%d:+%d]: bytes differ from the file's", name, r[0], r[1])
				}
			}
			if _, err := m.Encoded(sec, n, 1); err == nil {
				t.Fatalf("%s: a range past the end accepted", name)
			}
		}
		if _, err := m.Encoded(primitive.Section(7), 0, 1); err == nil {
			t.Fatal("an unknown section accepted")
		}
	}
	if err := opened.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Encoded(primitive.SectionH, 0, 1); err == nil {
		t.Fatal("Encoded on a closed file")
	}
}
