package gpu

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"
)

// TestNTTTableMatchesGnark checks the transforms that read the device's NTT table (from 2^21,
// three passes) against gnark-crypto's, forward and inverse, without coset, on 7 and on ω_{2n},
// in three index orders, with a table kept for 2^22 that serves 2^21 with a shift (-short:
// 2^21 alone), then the quotient in one call (which hands the coset's row factor to the
// inverses, whose n⁻¹ then rides on the second diagonal) against its steps. The table takes
// its size of device memory and gives it back when dropped, and the transforms stay right
// without it.
func TestNTTTableMatchesGnark(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	rng := newRand(t)
	logs := []int{21, 22}
	if testing.Short() {
		logs = logs[:1]
	}
	top := logs[len(logs)-1]
	for _, bad := range []int{0, MaxLogNTT + 1} {
		require.ErrorContains(t, d.KeepNTTTable(bad), "log size must be in [1, 28]")
	}
	before, err := d.Properties()
	require.NoError(t, err)
	require.NoError(t, d.KeepNTTTable(top))
	t.Cleanup(func() { require.NoError(t, d.DropNTTTable()) })
	after, err := d.Properties()
	require.NoError(t, err)
	require.GreaterOrEqual(t, before.FreeMem-after.FreeMem, NTTTableBytes(top), "free memory %d → %d", before.FreeMem, after.FreeMem)
	require.NoError(t, d.KeepNTTTable(21), "a smaller size keeps the table")

	check := func(label string, logN int) {
		n := 1 << logN
		psi, err := fft.Generator(2 * uint64(n))
		require.NoError(t, err)
		for _, shift := range []fr.Element{{}, fr.NewElement(7), psi} {
			dom := fft.NewDomain(uint64(n))
			if !shift.IsZero() {
				dom = fft.NewDomain(uint64(n), fft.WithShift(shift))
			}
			for _, inv := range []bool{false, true} {
				for _, o := range nttOrders[:3] {
					a := randScalars(rng.Uint64(), n)
					want := append([]fr.Element(nil), a...)
					gnarkNTT(dom, want, inv, !shift.IsZero(), o.inBR, o.outBR)
					cfg := NTTConfig{Inverse: inv, Coset: !shift.IsZero(), Shift: shift, InputBitReversed: o.inBR,
						OutputBitReversed: o.outBR}
					require.NoError(t, d.NTT(ctx, a, cfg))
					name := fmt.Sprintf("%s 2^%d inverse=%v shift=%s %s", label, logN, inv, shift.String(), o.name)
					for i := range a {
						if a[i] != want[i] {
							t.Fatalf("%s: element %d differs from gnark", name, i)
						}
					}
				}
			}
		}
	}
	for _, logN := range logs {
		check("with the table", logN)
		vecs := make([][]fr.Element, 3)
		for i := range vecs {
			vecs[i] = randScalars(rng.Uint64(), 1<<logN+1)
		}
		psi, err := fft.Generator(2 << logN)
		require.NoError(t, err)
		groth16HMatchesSteps(t, d, logN, vecs, "ω_2n with the table", psi, true)
		groth16HMatchesSteps(t, d, logN, vecs, "ω_2n with the table", psi, false)
	}

	require.NoError(t, d.DropNTTTable())
	dropped, err := d.Properties()
	require.NoError(t, err)
	require.GreaterOrEqual(t, dropped.FreeMem-after.FreeMem, NTTTableBytes(top), "free memory %d → %d", after.FreeMem, dropped.FreeMem)
	check("without the table", 21)
}

// TestProverNTTTable checks a prover device's decision on the NTT table: kept at its first
// quotient of 2^21 or more where the memory allows, not for smaller ones, freed for room and
// not kept again.
func TestProverNTTTable(t *testing.T) {
	d := testDevice(t)
	p := NewProverDevice(d)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	p.keepNTTTable(20)
	require.Zero(t, p.NTTTableBytes(), "a quotient of 2^20 keeps no table")
	require.True(t, p.nttDecided)

	p.nttDecided = false
	p.keepNTTTable(21)
	require.Equal(t, NTTTableBytes(21), p.NTTTableBytes())
	require.Equal(t, 1, p.freeAutoTables(math.MaxUint64))
	require.Zero(t, p.NTTTableBytes())
	p.keepNTTTable(21)
	require.Zero(t, p.NTTTableBytes(), "a table freed for room is not kept again")
	require.Equal(t, 0, p.freeAutoTables(math.MaxUint64))
}

// keepNTTTable keeps d's NTT table for 2^logN for the rest of b.
func keepNTTTable(b *testing.B, d *Device, logN int) {
	if err := d.KeepNTTTable(logN); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := d.DropNTTTable(); err != nil {
			b.Error(err)
		}
	})
}

func TestNTTTableBytes(t *testing.T) {
	for _, c := range []struct {
		logN int
		want uint64
	}{{21, 64 << 20}, {27, 4 << 30}, {28, 4 << 30}} {
		require.Equal(t, c.want, NTTTableBytes(c.logN), "2^%d", c.logN)
		require.Equal(t, c.want+c.want/4, autoTableNeed(NTTTableBytes(c.logN)), "2^%d", c.logN)
	}
}
