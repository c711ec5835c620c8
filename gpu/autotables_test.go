package gpu

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover"
)

// TestSortAutoTables: the tables are freed by rank (pair tables L, A, B_G1, B_G2, then the NTT
// table, then H's shift tables), by SRS identity within a rank.
func TestSortAutoTables(t *testing.T) {
	tables := []autoTable{
		{name: "shift b", rank: rankShift, srs: "b"},
		{name: "l a", rank: rankPairL, srs: "a"},
		{name: "ntt", rank: rankNTT},
		{name: "b_g2 a", rank: rankPairBG2, srs: "a"},
		{name: "shift a", rank: rankShift, srs: "a"},
		{name: "a b", rank: rankPairA, srs: "b"},
		{name: "l b", rank: rankPairL, srs: "b"},
		{name: "b_g1 a", rank: rankPairBG1, srs: "a"},
		{name: "a a", rank: rankPairA, srs: "a"},
	}
	sortAutoTables(tables)
	var names []string
	for _, tb := range tables {
		names = append(names, tb.name)
	}
	require.Equal(t, []string{"l a", "l b", "a a", "a b", "b_g1 a", "b_g2 a", "ntt", "shift a", "shift b"}, names)
}

// TestProverFreesTablesLeastValuableFirst builds every table a prover device builds on its own
// (the four pair tables and H's shift table after AutoTablesAfter partitions, the NTT table),
// then asks freeAutoTables for a little more memory than is free, again and again: each call
// frees one table, the least valuable left; the partitions proved meanwhile and after stay the
// CPU's, byte for byte.
func TestProverFreesTablesLeastValuableFirst(t *testing.T) {
	d := testDevice(t)
	pd := NewProverDevice(d)
	defer pd.Close()
	pd.SetPairTables(true)
	pd.SetShiftTableH(ShiftTableAuto)
	ctx := context.Background()
	c, shape, params := setupScalable(t, 17, 5) // tables of MiBs: freeing each shows in the free memory
	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	require.NoError(t, err)
	part := 0
	for ; part < AutoTablesAfter; part++ {
		provePartition(t, ctx, pd, c, shape, params, pvk, part)
	}
	pd.nttDecided = false // decided at 2^17, where it keeps none
	pd.keepNTTTable(21)
	want := []string{"l pair table", "a pair table", "b_g1 pair table", "b_g2 pair table", "NTT table", "H shift table"}
	for len(want) > 0 {
		var names []string
		tables := pd.autoTables()
		for _, tb := range tables {
			names = append(names, tb.name)
		}
		require.Equal(t, want, names)
		props, err := d.Properties()
		require.NoError(t, err)
		require.Equal(t, 1, pd.freeAutoTables(props.FreeMem+tables[0].bytes/2), "freeing %s", want[0])
		want = want[1:]
		provePartition(t, ctx, pd, c, shape, params, pvk, part)
		part++
	}
	require.Zero(t, pd.freeAutoTables(math.MaxUint64))
	require.Equal(t, 1, pd.Breakdown().ShiftTablesDropped)
}
