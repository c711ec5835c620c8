package proofs

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestProofInfoFilesInManifest: every registered seal proof (but NonInteractive) and every
// registered PoSt proof names a .params and a .vk file that Filecoin's v28 parameters.json
// lists, for the same sector size.
func TestProofInfoFilesInManifest(t *testing.T) {
	m := paramcache.Default()
	check := func(pi ProofInfo) {
		t.Helper()
		for _, name := range []string{pi.ParamsFile, pi.VKFile} {
			e, ok := m[name]
			require.True(t, ok, "%s: %s not in parameters.json", pi.Name, name)
			require.Equal(t, pi.SectorSize, e.SectorSize, "%s: %s", pi.Name, name)
		}
	}
	seals := 0
	for p := sector.RegisteredSealProof(0); p.Valid(); p++ {
		pi, err := SealProofInfo(p)
		if p >= sector.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep {
			require.ErrorIs(t, err, ErrUnsupported, "%s", p)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, PoRep, pi.Circuit)
		check(pi)
		seals++
	}
	require.Equal(t, 15, seals)
	for pt := post.StackedDrgWinning2KiBV1; pt <= post.StackedDrgWindow64GiBV1_1; pt++ {
		pi, err := PoStProofInfo(pt)
		require.NoError(t, err)
		check(pi)
	}
	_, err := PoStProofInfo(15)
	require.ErrorContains(t, err, "unknown registered PoSt proof type 15")
	_, err = SealProofInfo(20)
	require.ErrorContains(t, err, "unknown registered seal proof 20")
}

// TestProofInfoPartitions: PoRep 32 GiB has 10 partitions and 2 KiB 1 (filecoin-proofs
// POREP_PARTITIONS); WinningPoSt 1 whatever the sectors; WindowPoSt 32 GiB ⌈n / 2349⌉ and 2 KiB
// ⌈n / 2⌉.
func TestProofInfoPartitions(t *testing.T) {
	pi, err := SealProofInfo(sector.StackedDrg32GiBV1_1)
	require.NoError(t, err)
	require.Equal(t, 10, pi.Partitions(1))
	pi, err = SealProofInfo(sector.StackedDrg2KiBV1_1_Feat_SyntheticPoRep)
	require.NoError(t, err)
	require.Equal(t, 1, pi.Partitions(1))
	pi, err = PoStProofInfo(post.StackedDrgWinning32GiBV1)
	require.NoError(t, err)
	require.Equal(t, WinningPoSt, pi.Circuit)
	require.Equal(t, 1, pi.Partitions(1))
	pi, err = PoStProofInfo(post.StackedDrgWindow32GiBV1_1)
	require.NoError(t, err)
	require.Equal(t, WindowPoSt, pi.Circuit)
	require.Equal(t, "StackedDrgWindow32GiBV1_1", pi.Name)
	require.Equal(t, 2349, pi.SectorsPerPartition)
	require.Equal(t, []int{1, 1, 1, 2, 2, 3}, []int{pi.Partitions(0), pi.Partitions(1), pi.Partitions(2349), pi.Partitions(2350), pi.Partitions(4698), pi.Partitions(4699)})
	pi, err = PoStProofInfo(post.StackedDrgWindow2KiBV1)
	require.NoError(t, err)
	require.Equal(t, 2, pi.Partitions(3))
	require.Equal(t, "window-post", pi.Circuit.String())
}
