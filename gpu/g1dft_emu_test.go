package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"
)

// g1DFTDefinition returns out[j] = Σ_i ω^(ij)·(scale·twist^i)·x_i for j < n, x the points followed
// by the point at infinity, point by point with gnark-crypto.
func g1DFTDefinition(points []bls12381.G1Affine, n int, omega, twist, scale fr.Element) []bls12381.G1Affine {
	out := make([]bls12381.G1Jac, n)
	for j := range n {
		for i := range points {
			var w, ti fr.Element
			w.Exp(omega, big.NewInt(int64(i*j)))
			ti.Exp(twist, big.NewInt(int64(i)))
			w.Mul(&w, &ti)
			w.Mul(&w, &scale)
			var term bls12381.G1Jac
			term.FromAffine(&points[i])
			term.ScalarMultiplication(&term, w.BigInt(new(big.Int)))
			out[j].AddAssign(&term)
		}
	}
	return bls12381.BatchJacobianToAffineG1(out)
}

// g1DFTCase is a transform of points: out[j] = Σ_i ω^(ij)·(scale·twist^i)·x_i for j < 2^logN.
type g1DFTCase struct {
	name                string
	points              []bls12381.G1Affine
	logN                int
	omega, twist, scale fr.Element
}

// g1DFTCases are transforms that meet every branch: sizes 2 to 64, fewer points than the size
// (the rest infinity), repeated points and their negatives (doublings and sums to infinity in
// the butterflies), the point at infinity among the inputs, both directions, a random scale
// and 1, and twists 1, random, −1, 0 and ω_(2n)⁻¹ (the inverse of the shift of the coset ω_(2n)·⟨ω⟩,
// with scale n⁻¹).
func g1DFTCases(t *testing.T) []g1DFTCase {
	var cases []g1DFTCase
	for _, logN := range []int{1, 2, 3, 4, 6} {
		n := 1 << logN
		omega, err := fft.Generator(uint64(n))
		require.NoError(t, err)
		shift, err := fft.Generator(uint64(2 * n))
		require.NoError(t, err)
		var inv, shiftInv, nInv, scale, twist, one, minusOne, zero fr.Element
		inv.Inverse(&omega)
		shiftInv.Inverse(&shift)
		nInv.SetUint64(uint64(n))
		nInv.Inverse(&nInv)
		scale.SetRandom()
		twist.SetRandom()
		one.SetOne()
		minusOne.Neg(&one)
		_, _, g, _ := bls12381.Generators()
		pts := bls12381.BatchScalarMultiplicationG1(&g, randScalars(uint64(logN), n))
		if n >= 4 {
			pts[1] = pts[0]
			pts[2].Neg(&pts[0])
			pts[3] = bls12381.G1Affine{}
		}
		for _, c := range []g1DFTCase{
			{name: "forward", points: pts, omega: omega, twist: one, scale: one},
			{name: "inverse, scaled", points: pts, omega: inv, twist: one, scale: scale},
			{name: "padded", points: pts[:n-n/4-1], omega: inv, twist: one, scale: scale},
			{name: "twisted", points: pts, omega: omega, twist: twist, scale: one},
			{name: "padded, twisted, scaled", points: pts[:n-n/4-1], omega: inv, twist: twist, scale: scale},
			{name: "twist -1", points: pts, omega: omega, twist: minusOne, scale: scale},
			{name: "twist 0", points: pts, omega: omega, twist: zero, scale: scale},
			{name: "inverse from the coset", points: pts, omega: inv, twist: shiftInv, scale: nInv},
		} {
			c.name = fmt.Sprintf("2^%d %s", logN, c.name)
			c.logN = logN
			cases = append(cases, c)
		}
	}
	return cases
}

// TestG1DFTEmulated runs the kernels of cuzk_g1_dft on the host (csrc/emu/g1dft_check.cpp) and
// compares their output with the definition (g1DFTCases). It needs a C++17 compiler (g++) and
// skips without one.
func TestG1DFTEmulated(t *testing.T) {
	bin := buildEmulation(t, "g1dft_check")
	dir := filepath.Dir(bin)
	for _, c := range g1DFTCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var in bytes.Buffer
			require.NoError(t, binary.Write(&in, binary.LittleEndian, uint32(c.logN)))
			require.NoError(t, binary.Write(&in, binary.LittleEndian, uint64(len(c.points))))
			in.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c.omega)), fr.Bytes))
			in.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c.twist)), fr.Bytes))
			in.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c.scale)), fr.Bytes))
			if len(c.points) > 0 {
				in.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c.points[0])), len(c.points)*int(g1AffineBytes)))
			}
			inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
			require.NoError(t, os.WriteFile(inPath, in.Bytes(), 0o644))
			msg, err := exec.Command(bin, inPath, outPath).CombinedOutput()
			require.NoError(t, err, "g1dft_check: %s", msg)
			raw, err := os.ReadFile(outPath)
			require.NoError(t, err)
			n := 1 << c.logN
			require.Equal(t, "OK  ", string(raw[:4]))
			require.Len(t, raw, 4+n*int(g1AffineBytes))
			got := unsafe.Slice((*bls12381.G1Affine)(unsafe.Pointer(&raw[4])), n)
			want := g1DFTDefinition(c.points, n, c.omega, c.twist, c.scale)
			for j := range want {
				require.True(t, want[j].Equal(&got[j]), "output %d", j)
			}
		})
	}
}
