package gpu

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
)

// hostDecodeMessages is the cause of the host's *prover.DecodeError for each reason code of
// the device decode (cuzk_bases_write_encoded, csrc/src/decode.cuh).
var hostDecodeMessages = [...]string{
	1: "compression flag mismatch",
	2: "sort flag set on an uncompressed or infinity point",
	3: "infinity flag set but other bits non-zero",
	4: "point at infinity not allowed here",
	5: "coordinate not canonical (>= field modulus)",
	6: "point not on curve",
}

// TestDeviceDecodeEmulated runs the device decode of parameters points (csrc/src/decode.cuh,
// the kernel body of cuzk_bases_write_encoded) on the host (csrc/emu/decode_check.cpp) over G1
// and G2 encodings: random points, a point on the curve outside the subgroup (accepted, as in
// Unchecked mode), and every class of bad input (compression, sort and infinity flags, the
// infinity encoding, each coordinate non-canonical, off the curve, (0, 0)). Each point is
// compared with the host decode of package prover (MappedParameters in Unchecked mode): the
// same verdict, the same gnark-crypto affine point in memory when accepted, the reason code
// whose host error the host gives when rejected; and decoding all of them as one chunk
// reports the lowest failing index. The Fp products take field.cuh's host path; the device
// product they compile to on a GPU is checked by TestFpDeviceSquareEmulated.
func TestDeviceDecodeEmulated(t *testing.T) {
	bin := buildEmulation(t, "decode_check")
	dir := filepath.Dir(bin)
	rng := newRand(t)
	n := 300
	if testing.Short() {
		n = 60
	}
	_, _, g1, g2 := bls12381.Generators()
	var g1Enc, g2Enc [][]byte
	for i := 0; i < n; i++ {
		k := new(big.Int).SetUint64(rng.Uint64())
		var p bls12381.G1Affine
		p.ScalarMultiplication(&g1, k)
		b := p.RawBytes()
		g1Enc = append(g1Enc, b[:])
		if i < n/3 {
			var q bls12381.G2Affine
			q.ScalarMultiplication(&g2, k)
			b := q.RawBytes()
			g2Enc = append(g2Enc, b[:])
		}
	}
	g1Enc = append(g1Enc, badEncodings(rng, g1Enc[:8], 1, offSubgroupG1(t))...)
	g2Enc = append(g2Enc, badEncodings(rng, g2Enc[:8], 2, nil)...)
	rng.Shuffle(len(g1Enc), func(i, j int) { g1Enc[i], g1Enc[j] = g1Enc[j], g1Enc[i] })
	rng.Shuffle(len(g2Enc), func(i, j int) { g2Enc[i], g2Enc[j] = g2Enc[j], g2Enc[i] })

	m := mapEncodings(t, g1Enc, g2Enc)
	for group, encs := range map[int][][]byte{1: g1Enc, 2: g2Enc} {
		size := 96 * group
		in := binary.LittleEndian.AppendUint64(nil, uint64(len(encs)))
		for _, e := range encs {
			in = append(in, e...)
		}
		inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
		require.NoError(t, os.WriteFile(inPath, in, 0o600))
		msg, err := exec.Command(bin, []string{"", "1", "2"}[group], inPath, outPath).CombinedOutput()
		require.NoError(t, err, "%s", msg)
		res, err := os.ReadFile(outPath)
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(res, []byte("OK  ")))
		require.Len(t, res, 4+len(encs)*(4+size)+8)
		firstBad := uint64(^uint64(0))
		rec := res[4:]
		for i := range encs {
			reason := binary.LittleEndian.Uint32(rec)
			got := rec[4 : 4+size]
			rec = rec[4+size:]
			var herr error
			var want []byte
			if group == 1 {
				var q [1]bls12381.G1Affine
				herr = m.G1(primitive.SectionH, i, q[:])
				want = unsafe.Slice((*byte)(unsafe.Pointer(&q[0])), size)
			} else {
				var q [1]bls12381.G2Affine
				herr = m.G2(i, q[:])
				want = unsafe.Slice((*byte)(unsafe.Pointer(&q[0])), size)
			}
			if herr == nil {
				require.Zerof(t, reason, "G%d point %d (%x): the device rejects what the host accepts", group, i, encs[i])
				require.Equalf(t, want, got, "G%d point %d: decoded point", group, i)
				continue
			}
			var de *prover.DecodeError
			require.ErrorAs(t, herr, &de)
			require.NotZerof(t, reason, "G%d point %d (%x): the device accepts what the host rejects: %v", group, i, encs[i], herr)
			require.Lessf(t, int(reason), len(hostDecodeMessages), "G%d point %d: reason %d", group, i, reason)
			require.Equalf(t, hostDecodeMessages[reason], de.Err.Error(), "G%d point %d (%x): reason %d", group, i, encs[i], reason)
			if firstBad == ^uint64(0) {
				firstBad = uint64(i)<<3 | uint64(reason)
			}
		}
		require.Equal(t, firstBad, binary.LittleEndian.Uint64(rec), "G%d: fault key of the chunk", group)
	}
}

// badEncodings returns, from the good encodings of group G (96·G bytes each), one of every
// class of bad input, and extra (if any) as it is.
func badEncodings(rng *rand.Rand, good [][]byte, group int, extra []byte) [][]byte {
	size := 96 * group
	var bad [][]byte
	variant := func(f func(b []byte)) {
		b := bytes.Clone(good[rng.IntN(len(good))])
		f(b)
		bad = append(bad, b)
	}
	modulus := fp.Modulus().FillBytes(make([]byte, fp.Bytes))
	variant(func(b []byte) { b[0] |= 0x80 })                         // compressed
	variant(func(b []byte) { b[0] |= 0xe0 })                         // all three flags: compressed first
	variant(func(b []byte) { b[0] |= 0x20 })                         // sort
	variant(func(b []byte) { b[0] |= 0x60 })                         // sort and infinity: sort first
	variant(func(b []byte) { b[0] |= 0x40 })                         // infinity flag on a point
	variant(func(b []byte) { clear(b); b[0] = 0x40 })                // the infinity encoding
	variant(func(b []byte) { clear(b); b[0] = 0x41 })                // infinity with a low bit of byte 0
	variant(func(b []byte) { clear(b); b[0] = 0x40; b[size-1] = 1 }) // infinity with the last bit
	variant(func(b []byte) { clear(b) })                             // (0, 0)
	for c := 0; c < 2*group; c++ {                                   // each coordinate = p, p + 1 and 2^381 − 1
		coord := func(b []byte) []byte { return b[c*fp.Bytes : (c+1)*fp.Bytes] }
		variant(func(b []byte) { copy(coord(b), modulus) })
		variant(func(b []byte) { copy(coord(b), modulus); coord(b)[fp.Bytes-1]++ })
		variant(func(b []byte) {
			x := coord(b)
			for i := range x {
				x[i] = 0xff
			}
			x[0] = 0x1f
		})
	}
	variant(func(b []byte) { b[0] |= 0x20; copy(b[fp.Bytes:2*fp.Bytes], modulus) }) // flags before canonical
	for k := 0; k < 4; k++ {
		variant(func(b []byte) { b[size-1-rng.IntN(fp.Bytes-1)] ^= byte(1 + rng.IntN(255)) }) // off the curve
	}
	variant(func(b []byte) { b[fp.Bytes-1] ^= 1 }) // x changed: off the curve
	if extra != nil {
		bad = append(bad, extra)
	}
	return bad
}

// offSubgroupG1 returns the encoding of a point of y² = x³ + 4 outside the prime-order subgroup,
// which the Unchecked decode accepts.
func offSubgroupG1(t *testing.T) []byte {
	var p bls12381.G1Affine
	for x := uint64(1); ; x++ {
		p.X.SetUint64(x)
		var y2 fp.Element
		y2.Square(&p.X).Mul(&y2, &p.X)
		var four fp.Element
		four.SetUint64(4)
		y2.Add(&y2, &four)
		if p.Y.Sqrt(&y2) != nil && p.IsOnCurve() && !p.IsInSubGroup() {
			b := p.RawBytes()
			return b[:]
		}
		require.Less(t, x, uint64(1000))
	}
}

// mapEncodings returns parameters (Unchecked) whose H section holds the encodings g1 and whose
// B_G2 section holds g2, as bytes: a host decoder of the points one at a time.
func mapEncodings(t *testing.T, g1, g2 [][]byte) *prover.MappedParameters {
	_, _, a, b := bls12381.Generators()
	p := &prover.Parameters{
		VK: prover.VerifyingKey{AlphaG1: a, BetaG1: a, BetaG2: b, GammaG2: b, DeltaG1: a, DeltaG2: b,
			IC: []bls12381.G1Affine{a}},
		H:   make([]bls12381.G1Affine, len(g1)),
		BG2: make([]bls12381.G2Affine, len(g2)),
	}
	for i := range p.H {
		p.H[i] = a
	}
	for i := range p.BG2 {
		p.BG2[i] = b
	}
	var buf bytes.Buffer
	_, err := p.WriteTo(&buf)
	require.NoError(t, err)
	file := buf.Bytes()
	at := int(p.VK.EncodedSize()) + 4
	for _, e := range g1 {
		at += copy(file[at:], e)
	}
	at += 3 * 4 // the counts of the empty sections L, A and B_G1
	at += 4
	for _, e := range g2 {
		at += copy(file[at:], e)
	}
	require.Equal(t, len(file), at)
	m, err := prover.MapParameters(file, prover.Unchecked)
	require.NoError(t, err)
	return m
}
