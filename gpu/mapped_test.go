package gpu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// TestProverMappedMatchesInMemory uploads parameters streamed from a mapped file, in chunks of
// several sizes (one chunk through the pinned staging, a few, and many small ones), decoded on
// the device (Unchecked) or on the host (Checked), and proves
// with them: the proofs are byte-identical to those of the same parameters uploaded from memory
// (UploadG1Bases, UploadG2Bases; another ProverDevice, so that nothing is shared) and to the
// CPU's, and verify.
func TestProverMappedMatchesInMemory(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	type config struct {
		logN  int
		chunk int // bytes per chunk buffer
		mode  prover.DecodeMode
	}
	configs := []config{
		{10, 96 * 100, prover.Unchecked},         // G1 chunks of 100 points, G2 of 50
		{10, 96 * 100, prover.Checked},           // the same decoded on the host
		{12, streamChunkBytes, prover.Unchecked}, // one chunk a section
		{18, 20 << 20, prover.Unchecked},         // two chunks of H (24 MiB), through the pinned staging
	}
	if !testing.Short() {
		configs = append(configs, config{18, streamChunkBytes, prover.Unchecked}) // one chunk of 24 MiB
	}
	for _, tc := range configs {
		t.Run(fmt.Sprintf("2^%d/chunk=%d/%v", tc.logN, tc.chunk, tc.mode), func(t *testing.T) {
			c, shape, params := setupScalable(t, tc.logN, 3)
			path := filepath.Join(t.TempDir(), "p.params")
			if err := params.WriteParametersFile(path); err != nil {
				t.Fatal(err)
			}
			mp := openMapped(t, path, tc.mode)
			streamed := NewProverDevice(d)
			streamed.streamChunk = tc.chunk
			defer streamed.Close()
			inMemory := NewProverDevice(d)
			defer inMemory.Close()
			pvk, err := prover.PrepareVerifyingKey(&params.VK)
			if err != nil {
				t.Fatal(err)
			}
			for part := 0; part < 2; part++ {
				c.Partition = part
				asg, err := synth.Synthesize(ctx, shape, c)
				if err != nil {
					t.Fatal(err)
				}
				rs, err := prover.NewRandomness()
				if err != nil {
					t.Fatal(err)
				}
				fromFile, err := prover.ProvePartition(ctx, mp, asg, prover.WithDevice(prover.NewDevice(streamed)), prover.WithRandomness(rs))
				if err != nil {
					t.Fatal(err)
				}
				fromMemory, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(prover.NewDevice(inMemory)), prover.WithRandomness(rs))
				if err != nil {
					t.Fatal(err)
				}
				onCPU, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
				if err != nil {
					t.Fatal(err)
				}
				f, g, cp := fromFile.Bytes(), fromMemory.Bytes(), onCPU.Bytes()
				if !bytes.Equal(f[:], g[:]) || !bytes.Equal(f[:], cp[:]) {
					t.Fatalf("partition %d: the proof from mapped parameters differs (in-memory upload equal: %v, CPU equal: %v)",
						part, bytes.Equal(f[:], g[:]), bytes.Equal(f[:], cp[:]))
				}
				if err := prover.Verify(pvk, fromFile, c.PublicInputs()); err != nil {
					t.Fatalf("partition %d: %v", part, err)
				}
			}
			if mp.HeapBytes() != 0 {
				t.Fatalf("the GPU proofs decoded the mapped points onto the heap (%d bytes)", mp.HeapBytes())
			}
			if got := streamed.Breakdown().SRSUpload; got <= 0 {
				t.Fatalf("SRS upload time %v", got)
			}
		})
	}
}

// TestProverMappedBadPoint: a corrupt point in a mapped file fails the streamed upload with the
// *DecodeError the host decode gives for it (section, index, offset and cause, errors.Is
// matching alike), for every class of bad input, in a G1 and in the G2 section, decoded on the
// device (Unchecked) and on the host (Checked); nothing stays resident, and the device still
// proves with good parameters afterwards.
func TestProverMappedBadPoint(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	_, _, params := setupScalable(t, 10, 2)
	var buf bytes.Buffer
	if _, err := params.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	lAt := params.VK.EncodedSize() + 4 + params.Len(primitive.SectionH)*96 + 4 + 5*96 // l[5]
	g2At := len(good) - 2*192                                                         // b_g2[n−2]
	modulus := fp.Modulus().FillBytes(make([]byte, fp.Bytes))
	classes := []struct {
		name    string
		corrupt func(pt []byte)
		cause   string
	}{
		{"off-curve", func(pt []byte) { pt[len(pt)-1] ^= 1 }, "point not on curve"},
		{"non-canonical", func(pt []byte) { copy(pt[fp.Bytes:], modulus) }, "coordinate not canonical"},
		{"infinity", func(pt []byte) { clear(pt); pt[0] = 0x40 }, "point at infinity"},
		{"infinity-flag", func(pt []byte) { pt[0] |= 0x40 }, "infinity flag set"},
		{"compressed", func(pt []byte) { pt[0] |= 0x80 }, "compression flag"},
		{"sort", func(pt []byte) { pt[0] |= 0x20 }, "sort flag"},
		{"zero", func(pt []byte) { clear(pt) }, "point not on curve"},
	}
	for _, mode := range []prover.DecodeMode{prover.Unchecked, prover.Checked} {
		for _, cl := range classes {
			for _, at := range []struct {
				sec   string
				index int
				off   int
				size  int
			}{{"l", 5, lAt, 96}, {"b_g2", params.Len(primitive.SectionBG2) - 2, g2At, 192}} {
				t.Run(fmt.Sprintf("%v/%s/%s", mode, cl.name, at.sec), func(t *testing.T) {
					file := bytes.Clone(good)
					cl.corrupt(file[at.off : at.off+at.size])
					path := filepath.Join(t.TempDir(), "bad.params")
					if err := os.WriteFile(path, file, 0o644); err != nil {
						t.Fatal(err)
					}
					m, err := prover.OpenParametersFile(path, mode)
					if err != nil {
						t.Fatal(err)
					}
					defer m.Close()
					mp, err := m.Parameters()
					if err != nil {
						t.Fatal(err)
					}
					var host error
					if at.sec == "b_g2" {
						host = m.G2(at.index, make([]bls12381.G2Affine, 1))
					} else {
						host = m.G1(primitive.SectionL, at.index, make([]bls12381.G1Affine, 1))
					}
					pd := NewProverDevice(d)
					pd.streamChunk = 3 * at.size // the bad point is in the second chunk or later
					defer pd.Close()
					_, err = pd.Resident(ctx, mp.SRS())
					var de, hostDE *prover.DecodeError
					if !errors.As(err, &de) || !errors.As(host, &hostDE) || de.Section != at.sec || de.Index != at.index ||
						de.Offset != int64(at.off) || de.Err != hostDE.Err || !errors.Is(err, prover.ErrFormat) ||
						!strings.Contains(de.Err.Error(), cl.cause) {
						t.Fatalf("upload of a bad point: %v (host decode: %v), want a DecodeError at %s[%d], offset %d, %q",
							err, host, at.sec, at.index, at.off, cl.cause)
					}
					pd.mu.Lock()
					resident := len(pd.srs)
					pd.mu.Unlock()
					if resident != 0 {
						t.Fatalf("%d parameter sets resident after a failed upload", resident)
					}
					if _, err := pd.Resident(ctx, params.SRS()); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// BenchmarkStreamSRS times a streamed upload of 2^k G1 points of H (Unchecked): the encodings
// copied in chunks through the pinned staging and decoded on the device (streamEncoded).
// "2^k" streams from an encoding in memory, so no page fault is timed; "2^k/file" from a file
// mapping whose pages are in the page cache (written just before), faulted in, and dropped from
// the resident set, as a parameters file is. BenchmarkUploadG1Bases is the same copy without the
// decode.
func BenchmarkStreamSRS(b *testing.B) {
	d := testDevice(b)
	logN := benchMaxLog(26)
	_, _, g1, g2 := bls12381.Generators()
	p := &prover.Parameters{
		VK: prover.VerifyingKey{AlphaG1: g1, BetaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG1: g1, DeltaG2: g2,
			IC: []bls12381.G1Affine{g1}},
		H: g1Points(1 << logN),
	}
	var enc bytes.Buffer
	if _, err := p.WriteTo(&enc); err != nil {
		b.Fatal(err)
	}
	p.H = nil
	inMemory, err := prover.MapParameters(enc.Bytes(), prover.Unchecked)
	if err != nil {
		b.Fatal(err)
	}
	pd := NewProverDevice(d)
	defer pd.Close()
	run := func(b *testing.B, src primitive.PointSource) {
		b.SetBytes(int64(1<<logN) * 96)
		for i := 0; i < b.N; i++ {
			s, err := pd.streamSRS(context.Background(), "bench", src)
			if err != nil {
				b.Fatal(err)
			}
			s.free()
		}
	}
	b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) { run(b, inMemory) })
	b.Run(fmt.Sprintf("2^%d/file", logN), func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bench.params")
		if err := os.WriteFile(path, enc.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
		m, err := prover.OpenParametersFile(path, prover.Unchecked)
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		run(b, m)
	})
}

// openMapped maps the parameters file at path, decoded in mode, for the rest of the test.
func openMapped(t testing.TB, path string, mode prover.DecodeMode) *prover.Parameters {
	t.Helper()
	m, err := prover.OpenParametersFile(path, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	mp, err := m.Parameters()
	if err != nil {
		t.Fatal(err)
	}
	return mp
}
