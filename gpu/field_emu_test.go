package gpu

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"
)

// fpEdgeInputs returns raw Montgomery limbs < p that stress carries: 0, 1, p − k for small
// k, p − 2^(64j), values whose 64-bit limbs are all ones below p's top limb, and single
// limbs set to all ones.
func fpEdgeInputs() []fp.Element {
	p := fp.Modulus()
	var out []fp.Element
	raw := func(v *big.Int) {
		var e fp.Element
		words := v.Bits()
		for i := 0; i < len(words) && i < fp.Limbs; i++ {
			e[i] = uint64(words[i])
		}
		out = append(out, e)
	}
	raw(big.NewInt(0))
	raw(big.NewInt(1))
	for k := int64(1); k <= 64; k++ {
		raw(new(big.Int).Sub(p, big.NewInt(k)))
	}
	for j := 0; j < fp.Limbs; j++ {
		raw(new(big.Int).Sub(p, new(big.Int).Lsh(big.NewInt(1), uint(64*j))))
		one := new(big.Int).Lsh(new(big.Int).SetUint64(^uint64(0)), uint(64*j))
		if one.Cmp(p) < 0 {
			raw(one)
		}
	}
	top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 380), big.NewInt(1)) // 2^380 − 1 < p
	raw(top)
	return out
}

// TestFpDeviceMulEmulated runs field.cuh's device Fp product (mul_device) on the host with
// the PTX carry instructions emulated (csrc/emu/field_check.cpp), as a·a (the device's
// square) and a·b, and compares every output with gnark-crypto's Square and Mul, for edge
// inputs (carry-heavy limb patterns, p − k) and random ones; the emulation must also see no
// carry dropped.
func TestFpDeviceMulEmulated(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build the host emulation of the field arithmetic")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "field_check")
	out, err := exec.Command("g++", "-std=c++17", "-O1", "-o", bin, "../csrc/emu/field_check.cpp").CombinedOutput()
	require.NoError(t, err, "build csrc/emu/field_check.cpp: %s", out)

	rng := newRand(t)
	pTop := uint64(fp.Modulus().Bits()[fp.Limbs-1])
	a := fpEdgeInputs()
	b := make([]fp.Element, len(a))
	for i := range b {
		b[i] = a[len(a)-1-i]
	}
	n := 20000
	if testing.Short() {
		n = 4000
	}
	for i := 0; i < n; i++ {
		var x, y fp.Element
		for j := range x {
			x[j], y[j] = rng.Uint64(), rng.Uint64()
			if i%3 == 1 && rng.Uint64N(4) != 0 {
				x[j] = ^uint64(0)
			}
		}
		x[fp.Limbs-1] %= pTop + 1
		y[fp.Limbs-1] %= pTop + 1
		if new(big.Int).SetBits(limbWords(x)).Cmp(fp.Modulus()) >= 0 || new(big.Int).SetBits(limbWords(y)).Cmp(fp.Modulus()) >= 0 {
			continue
		}
		a, b = append(a, x), append(b, y)
	}

	var in bytes.Buffer
	require.NoError(t, binary.Write(&in, binary.LittleEndian, uint64(len(a))))
	in.Write(fpBytes(a))
	in.Write(fpBytes(b))
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(inPath, in.Bytes(), 0o600))
	msg, err := exec.Command(bin, inPath, outPath).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	res, err := os.ReadFile(outPath)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(res, []byte("OK  ")), "field_check: %q", res[:min(len(res), 64)])
	m := len(a)
	require.Len(t, res, 4+2*m*fp.Bytes+8)
	got := make([]fp.Element, 2*m)
	copy(fpBytes(got), res[4:4+2*m*fp.Bytes])
	dropped := binary.LittleEndian.Uint64(res[4+2*m*fp.Bytes:])
	require.Zero(t, dropped, "carries dropped by the device arithmetic")
	for i := range a {
		var sq, pr fp.Element
		sq.Square(&a[i])
		pr.Mul(&a[i], &b[i])
		if got[i] != sq {
			t.Fatalf("mul_device(%x, itself) = %x, gnark Square %x", a[i], got[i], sq)
		}
		if got[m+i] != pr {
			t.Fatalf("mul_device(%x, %x) = %x, gnark Mul %x", a[i], b[i], got[m+i], pr)
		}
	}
	t.Logf("%d squares and products match gnark", m)
}

// limbWords returns the raw limbs of x as big.Int words (64-bit platforms).
func limbWords(x fp.Element) []big.Word {
	w := make([]big.Word, fp.Limbs)
	for i := range w {
		w[i] = big.Word(x[i])
	}
	return w
}

// fpBytes views x as its bytes (gnark's limb layout, little-endian limbs).
func fpBytes(x []fp.Element) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), fp.Bytes*len(x))
}
