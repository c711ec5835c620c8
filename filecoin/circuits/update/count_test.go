package update

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// TestCounts reproduces storage-proofs-update tests/circuit.rs: whole blank circuits of 1, 2, 4
// and 8 KiB (1,248,389; 1,705,039; 2,165,109; 2,620,359 constraints, 4 public inputs), and,
// without -short, 16 and 32 KiB (6,300,021; 6,760,091). Count, which extrapolates from smaller
// circuits, agrees with the whole count.
func TestCounts(t *testing.T) {
	cases := []struct {
		size        uint64
		constraints int
	}{
		{1 << 10, 1_248_389}, {2 << 10, 1_705_039}, {4 << 10, 2_165_109}, {8 << 10, 2_620_359},
		{16 << 10, 6_300_021}, {32 << 10, 6_760_091},
	}
	for _, tc := range cases {
		if testing.Short() && tc.size > 8<<10 {
			continue
		}
		p, err := ParamsFor(tc.size)
		require.NoError(t, err)
		c, in, aux, err := synth.Count(Blank(p))
		require.NoError(t, err)
		require.Equal(t, tc.constraints, c, "size %d", tc.size)
		require.Equal(t, 5, in, "size %d: ONE and 4 public inputs", tc.size)
		c2, in2, aux2, err := Count(p)
		require.NoError(t, err)
		require.Equal(t, []int{c, in, aux}, []int{c2, in2, aux2}, "size %d", tc.size)
	}
}

// TestCount32GiB reproduces the 32 GiB count of tests/circuit.rs
// test_empty_sector_update_constraints_32gib, 81,049,499, through Count (the whole blank
// circuit's aux values alone would take 2.6 GB; Count's largest circuit has 15 M
// constraints).
func TestCount32GiB(t *testing.T) {
	p, err := ParamsFor(32 << 30)
	require.NoError(t, err)
	require.Equal(t, 86, p.ChallengeCount)
	require.Equal(t, 16, p.PartitionCount)
	require.Equal(t, 10, p.DigestsPerPartition())
	c, in, _, err := Count(p)
	require.NoError(t, err)
	require.Equal(t, 81_049_499, c)
	require.Equal(t, 5, in)
}

// gadgetCircuit runs f after allocating what the gadget tests allocate first.
type gadgetCircuit func(cs *synth.CS) error

func (g gadgetCircuit) Synthesize(cs *synth.CS) error { return g(cs) }

// countGadget returns the constraints f adds.
func countGadget(t *testing.T, setup func(cs *synth.CS), f func(cs *synth.CS) error) int {
	t.Helper()
	before, _, _, err := synth.Count(gadgetCircuit(func(cs *synth.CS) error { setup(cs); return nil }))
	require.NoError(t, err)
	all, _, _, err := synth.Count(gadgetCircuit(func(cs *synth.CS) error { setup(cs); return f(cs) }))
	require.NoError(t, err)
	return all - before
}

// TestGenChallengeBitsCount reproduces gadgets.rs test_gen_challenge_bits_gadget: 568
// constraints up to 16 MiB, 4,544 at 512 MiB, 5,680 at 32 and 64 GiB.
func TestGenChallengeBitsCount(t *testing.T) {
	for _, tc := range []struct {
		size uint64
		want int
	}{{1 << 10, 568}, {2 << 10, 568}, {16 << 10, 568}, {32 << 10, 568}, {8 << 20, 568}, {16 << 20, 568},
		{512 << 20, 4544}, {32 << 30, 5680}, {64 << 30, 5680}} {
		p, err := ParamsFor(tc.size)
		require.NoError(t, err)
		var commRNew, partition num.Num
		setup := func(cs *synth.CS) {
			commRNew = num.Alloc(cs, commRNew.Value)
			partition = num.Alloc(cs, partition.Value)
		}
		got := countGadget(t, setup, func(cs *synth.CS) error {
			bits, err := genChallengeBits(cs, p, commRNew, partition, p.ChallengeBits()-p.PartitionBits())
			if err == nil && len(bits) != p.ChallengeCount {
				t.Errorf("size %d: %d challenges", tc.size, len(bits))
			}
			return err
		})
		require.Equal(t, tc.want, got, "size %d", tc.size)
	}
}

// TestApexPoRCount reproduces gadgets.rs test_apex_por_gadget: 8 apex leaves and no partition
// bits 317,654; 128 leaves and 1 bit 5,808,515; 16 leaves and 2 bits 771,448; 8 leaves and 3
// bits 453,797.
func TestApexPoRCount(t *testing.T) {
	for _, tc := range []struct{ leaves, partBits, want int }{
		{8, 0, 317_654}, {128, 1, 5_808_515}, {16, 2, 771_448}, {8, 3, 453_797},
	} {
		if testing.Short() && tc.leaves > 16 {
			continue
		}
		var leafs []num.Num
		var bits []boolean.Bit
		var path [][]num.Num
		var commD num.Num
		setup := func(cs *synth.CS) {
			commD = num.Alloc(cs, commD.Value)
			bits = bits[:0]
			for i := 0; i < tc.partBits; i++ {
				bits = append(bits, boolean.Alloc(cs, false))
			}
			leafs = leafs[:0]
			for i := 0; i < tc.leaves; i++ {
				leafs = append(leafs, num.Alloc(cs, commD.Value))
			}
			path = path[:0]
			for i := 0; i < tc.partBits; i++ {
				path = append(path, []num.Num{num.Alloc(cs, commD.Value)})
			}
		}
		got := countGadget(t, setup, func(cs *synth.CS) error { return apexPoR(cs, leafs, bits, path, commD) })
		require.Equal(t, tc.want, got, "%d leaves, %d bits", tc.leaves, tc.partBits)
	}
}

// TestParamsFiles: the published sizes' v28 .params and .vk names are in Filecoin's
// parameters.json (paramcache's manifest) for the same sector size.
func TestParamsFiles(t *testing.T) {
	m := paramcache.Default()
	for _, size := range []uint64{2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30} {
		p, err := ParamsFor(size)
		require.NoError(t, err)
		for _, name := range []string{p.ParamsFile(), p.VKFile()} {
			e, ok := m[name]
			require.True(t, ok, "%s not in parameters.json", name)
			require.Equal(t, size, e.SectorSize, name)
		}
	}
}
