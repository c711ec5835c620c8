package synth

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

func encodeShape(t testing.TB, s *Shape, identity string) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteShape(&buf, s, identity))
	return buf.Bytes()
}

func readBytes(b []byte, identity string) (*Shape, error) {
	return ReadShape(bytes.NewReader(b), int64(len(b)), identity)
}

// sectionOffsets returns the file offset and length of every section of a valid file.
func sectionOffsets(b []byte) (offs, lens [numSections]int) {
	tab := fixedHeaderSize + int(binary.LittleEndian.Uint32(b[52:]))
	for i := range numSections {
		offs[i] = int(binary.LittleEndian.Uint64(b[tab+24*i+8:]))
		lens[i] = int(binary.LittleEndian.Uint64(b[tab+24*i+16:]))
	}
	return
}

// fixChecksums recomputes every chunk checksum and the header checksum of b in place, where the
// header's sizes still allow it, so that a mutated file reaches the structural checks.
func fixChecksums(b []byte) {
	if len(b) < fixedHeaderSize {
		return
	}
	hs := int(binary.LittleEndian.Uint32(b[12:]))
	tab := fixedHeaderSize + int(binary.LittleEndian.Uint32(b[52:]))
	if hs < 4 || hs > len(b) || tab+24*numSections > hs-4 {
		return
	}
	var lens [numSections]int
	var offs [numSections]int
	for i := range numSections {
		o, n := binary.LittleEndian.Uint64(b[tab+24*i+8:]), binary.LittleEndian.Uint64(b[tab+24*i+16:])
		if o > uint64(len(b)) || n > uint64(len(b))-o {
			return
		}
		offs[i], lens[i] = int(o), int(n)
	}
	crcOff := tab + 24*numSections
	for c, ch := range chunksOf(lens) {
		if crcOff+4*c+4 > hs-4 {
			return
		}
		sum := crc32.Checksum(b[offs[ch.section]+ch.lo:offs[ch.section]+ch.hi], castagnoli)
		binary.LittleEndian.PutUint32(b[crcOff+4*c:], sum)
	}
	binary.LittleEndian.PutUint32(b[hs-4:], crc32.Checksum(b[:hs-4], castagnoli))
}

func testShape(t testing.TB) (*Shape, *randomCircuit) {
	c := newRandomCircuit(11, 3000, 3, 3, 300)
	s, err := compile(c, 29) // 3 code bits: escapes present
	require.NoError(t, err)
	return s, c
}

// TestShapeFileRoundTrip writes and reads back a shape with Parallel layouts and escaped
// coefficients: the shape read is equal, encodes to the same bytes and synthesizes the same
// evaluations.
func TestShapeFileRoundTrip(t *testing.T) {
	s, c := testShape(t)
	b := encodeShape(t, s, "random-v1")
	got, err := readBytes(b, "random-v1")
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(s, got), "shape read back differs")
	require.Equal(t, b, encodeShape(t, got, "random-v1"))
	a1, err := Synthesize(context.Background(), s, c)
	require.NoError(t, err)
	a2, err := Synthesize(context.Background(), got, c)
	require.NoError(t, err)
	require.Equal(t, a1.A, a2.A)
	require.Equal(t, a1.B, a2.B)
	require.Equal(t, a1.C, a2.C)

	// A shape without Parallel calls and without escapes, a small circuit, an empty one.
	empty := circuitFunc(func(*CS) error { return nil })
	for _, c := range []Circuit{newRandomCircuit(12, 500, 0, 0, 20), &cubic{x: 3}, empty} {
		s, err := Compile(c)
		require.NoError(t, err)
		got, err := readBytes(encodeShape(t, s, "x"), "x")
		require.NoError(t, err)
		require.True(t, reflect.DeepEqual(s, got))
	}
}

// TestShapeFileRefused checks that every kind of damage is refused with an error naming the
// section and the byte offset.
func TestShapeFileRefused(t *testing.T) {
	s, _ := testShape(t)
	good := encodeShape(t, s, "id")
	offs, lens := sectionOffsets(good)
	refused := func(b []byte, identity string, sentinel error, section string) *ShapeFileError {
		t.Helper()
		_, err := readBytes(b, identity)
		require.ErrorIs(t, err, sentinel)
		var fe *ShapeFileError
		require.True(t, errors.As(err, &fe), "%v", err)
		require.Equal(t, section, fe.Section, "%v", err)
		require.Contains(t, err.Error(), "section "+section+" at byte ")
		return fe
	}
	clone := func() []byte { return append([]byte(nil), good...) }

	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{0, 7, fixedHeaderSize, offs[0] - 1, offs[2] + 5, offs[4], len(good) - 1} {
			_, err := readBytes(good[:n], "id")
			require.ErrorIs(t, err, ErrShapeFileCorrupt, "length %d", n)
		}
	})
	t.Run("flipped byte in each section", func(t *testing.T) {
		for i, name := range sectionNames {
			if lens[i] == 0 {
				continue
			}
			for _, at := range []int{offs[i], offs[i] + lens[i]/2, offs[i] + lens[i] - 1} {
				b := clone()
				b[at] ^= 0x10
				fe := refused(b, "id", ErrShapeFileCorrupt, name)
				require.Equal(t, int64(offs[i]), fe.Offset, "the chunk holding byte %d starts the section", at)
			}
		}
	})
	t.Run("flipped byte in the header", func(t *testing.T) {
		for _, at := range []int{20, 41, fixedHeaderSize + 1, offs[0] - 100} {
			b := clone()
			b[at] ^= 1
			refused(b, "id", ErrShapeFileCorrupt, "header")
		}
	})
	t.Run("wrong version", func(t *testing.T) {
		b := clone()
		binary.LittleEndian.PutUint32(b[8:], ShapeFileVersion+1)
		fe := refused(b, "id", ErrShapeFileVersion, "header")
		require.Equal(t, int64(8), fe.Offset)
	})
	t.Run("wrong identity", func(t *testing.T) {
		refused(clone(), "other", ErrShapeFileIdentity, "header")
	})
	t.Run("bad magic", func(t *testing.T) {
		b := clone()
		b[0] = 'X'
		refused(b, "id", ErrShapeFileCorrupt, "header")
	})
	// Structural damage under valid checksums: what a buggy writer or a crafted file carries.
	t.Run("structure", func(t *testing.T) {
		word := func(section int, k int) int { return offs[section] + 4*k }
		aWords, bBlocks, bRowLen := matrixSection(0, partWords), matrixSection(1, partBlocks), matrixSection(1, partRowLen)
		cLong := matrixSection(2, partLong)
		nLongC := lens[cLong] / 8
		for _, tc := range []struct {
			name    string
			section string
			mutate  func(b []byte)
		}{
			{"column out of range", "A.words", func(b []byte) {
				binary.LittleEndian.PutUint32(b[word(aWords, 0):], binary.LittleEndian.Uint32(b[word(aWords, 0):])|(1<<29-1))
			}},
			{"block offset backwards", "B.blocks", func(b []byte) { binary.LittleEndian.PutUint32(b[word(bBlocks, 5):], 1<<30) }},
			{"block offset off by one", "B.blocks", func(b []byte) {
				binary.LittleEndian.PutUint32(b[word(bBlocks, 5):], binary.LittleEndian.Uint32(b[word(bBlocks, 5):])+1)
			}},
			{"row marked long but not listed", "B.rowlen", func(b []byte) { b[offs[bRowLen]+7] = LongRow }},
			{"long row too short", "C.long", func(b []byte) { binary.LittleEndian.PutUint32(b[word(cLong, nLongC):], 12) }},
			{"long rows out of order", "C.long", func(b []byte) {
				binary.LittleEndian.PutUint32(b[word(cLong, 1):], binary.LittleEndian.Uint32(b[word(cLong, 0):]))
			}},
			{"coefficient not canonical", "coeffs", func(b []byte) { copy(b[offs[0]+64:], bytes.Repeat([]byte{0xff}, 32)) }},
			{"table not starting with 1", "coeffs", func(b []byte) { b[offs[0]+31] ^= 3 }},
			{"layout beyond the counts", "parallel", func(b []byte) {
				binary.LittleEndian.PutUint64(b[offs[parallelSection]+16+16:], 1<<30)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := clone()
				tc.mutate(b)
				fixChecksums(b)
				refused(b, "id", ErrShapeFileCorrupt, tc.section)
			})
		}
	})
}

// TestShapeFileAtomicAndLoadOrCompile checks the cache: a first call compiles and stores, a
// second loads the same shape, a damaged file is refused (and logged), rebuilt and replaced, and
// no temporary file is left behind.
func TestShapeFileAtomicAndLoadOrCompile(t *testing.T) {
	dir := t.TempDir()
	c := newRandomCircuit(5, 800, 2, 2, 40)
	var log strings.Builder
	logger := newTestLogger(&log)
	s1, err := LoadOrCompile(dir, "random-5", c, logger)
	require.NoError(t, err)
	path := filepath.Join(dir, ShapeFileName("random-5"))
	first, err := os.ReadFile(path)
	require.NoError(t, err)
	s2, err := LoadOrCompile(dir, "random-5", c, logger)
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(s1, s2))

	damaged := append([]byte(nil), first...)
	damaged[len(damaged)-3] ^= 0xff // in the last section
	require.NoError(t, os.WriteFile(path, damaged, 0o644))
	log.Reset()
	s3, err := LoadOrCompile(dir, "random-5", c, logger)
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(s1, s3))
	require.Contains(t, log.String(), "refused")
	require.Contains(t, log.String(), "section parallel")
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, first, again, "the damaged file is replaced by a good one")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
}

// TestCompiledShapeBytesIndependentOfCores compiles under GOMAXPROCS 1 and 4 and compares the
// encoded files byte for byte.
func TestCompiledShapeBytesIndependentOfCores(t *testing.T) {
	one, four := compileProcs(t, 1), compileProcs(t, 4)
	require.Equal(t, encodeShape(t, one, "k"), encodeShape(t, four, "k"))
}

// FuzzReadShape feeds the reader damaged shape files, once as they are and once with their
// checksums recomputed so that the structural checks are reached. The reader must never panic;
// a file it accepts must evaluate without going out of range and survive a round trip.
func FuzzReadShape(f *testing.F) {
	s, err := compile(newRandomCircuit(2, 60, 1, 2, 12), 29)
	require.NoError(f, err)
	var buf bytes.Buffer
	require.NoError(f, WriteShape(&buf, s, "fz"))
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("CUZKSHAP"))
	cub, err := Compile(&cubic{x: 3})
	require.NoError(f, err)
	buf.Reset()
	require.NoError(f, WriteShape(&buf, cub, "fz"))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		for range 2 {
			if s, err := readBytes(b, "fz"); err == nil {
				w := make([]fr.Element, s.NumInputs+s.NumAux)
				out := make([]fr.Element, s.NumConstraints)
				for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
					m.MulVec(w, out, 0, s.NumConstraints)
				}
				var re bytes.Buffer
				if err := WriteShape(&re, s, "fz"); err != nil {
					t.Fatal(err)
				}
				back, err := readBytes(re.Bytes(), "fz")
				if err != nil || !reflect.DeepEqual(s, back) {
					t.Fatalf("accepted shape does not round-trip: %v", err)
				}
			}
			b = append([]byte(nil), b...)
			fixChecksums(b)
		}
	})
}
