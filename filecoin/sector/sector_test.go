package sector

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParamsFileNamesInManifest derives the PoRep parameter and verifying-key file names of every
// published size and finds each in Filecoin's parameters.json, with the manifest's sector size.
func TestParamsFileNamesInManifest(t *testing.T) {
	raw, err := os.ReadFile("testdata/parameters.json")
	require.NoError(t, err)
	var manifest map[string]struct {
		SectorSize uint64 `json:"sector_size"`
	}
	require.NoError(t, json.Unmarshal(raw, &manifest))
	for _, c := range Configs() {
		for _, name := range []string{c.ParamsFileName(), c.VKFileName()} {
			e, ok := manifest[name]
			require.True(t, ok, "%s not in parameters.json", name)
			require.Equal(t, c.SectorSize, e.SectorSize, name)
		}
	}
	// The identifier asserted in rust-fil-proofs storage-proofs-porep
	// stacked/vanilla/params.rs test_public_params_identifier.
	c, err := ConfigFor(Size32GiB)
	require.NoError(t, err)
	require.Equal(t, "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 1073741824; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-0 }", c.ParamsIdentifier())
}

func TestConfigs(t *testing.T) {
	want := []struct {
		size  uint64
		depth int
		shape string
	}{{Size2KiB, 6, "8-0-0"}, {Size8MiB, 18, "8-0-0"}, {Size512MiB, 24, "8-0-0"}, {Size32GiB, 30, "8-8-0"}, {Size64GiB, 31, "8-8-2"}}
	for _, w := range want {
		c, err := ConfigFor(w.size)
		require.NoError(t, err)
		require.Equal(t, w.depth, c.DataDepth())
		require.Equal(t, w.shape, c.Shape.String())
		require.Equal(t, (c.MinChallenges+c.Partitions-1)/c.Partitions, c.ChallengesPerPartition)
	}
	_, err := ConfigFor(4096)
	require.ErrorIs(t, err, ErrUnknownSize)
}

func TestRegisteredSealProofs(t *testing.T) {
	for p := RegisteredSealProof(0); p.Valid(); p++ {
		q, err := ParseRegisteredSealProof(p.String())
		require.NoError(t, err)
		require.Equal(t, p, q)
		id := p.PoRepID()
		require.Equal(t, byte(p), id[0])
		r, err := FromPoRepID(id)
		require.NoError(t, err)
		require.Equal(t, p, r)
	}
	require.Equal(t, "StackedDrg32GiBV1_1", StackedDrg32GiBV1_1.String())
	require.Equal(t, uint64(8), uint64(StackedDrg32GiBV1_1))
	require.Equal(t, V1_1_0, StackedDrg32GiBV1_1.APIVersion())
	require.Equal(t, V1_2_0, StackedDrg64GiBV1_2_Feat_NonInteractivePoRep.APIVersion())
	require.Equal(t, []Feature{SyntheticPoRep}, StackedDrg2KiBV1_1_Feat_SyntheticPoRep.Features())
	require.Equal(t, Size64GiB, StackedDrg64GiBV1_2_Feat_NonInteractivePoRep.SectorSize())
	require.Equal(t, 126, StackedDrg32GiBV1_2_Feat_NonInteractivePoRep.NonInteractivePartitions())
	_, err := ParseRegisteredSealProof("StackedDrg4KiBV1")
	require.Error(t, err)
	var bad [32]byte
	bad[0], bad[9] = 5, 1 // nonzero nonce
	_, err = FromPoRepID(bad)
	require.Error(t, err)
	bad[0], bad[9] = 20, 0
	_, err = FromPoRepID(bad)
	require.Error(t, err)
}

// TestSealRegressionConfigs reads the porep_config of rust-fil-proofs' 124 2 KiB seal regression
// records: each porep id is a 2 KiB registered proof's, the legacy id 0 goes with V1_0_0, and
// every api version parses.
func TestSealRegressionConfigs(t *testing.T) {
	f, err := os.Open("testdata/seal_regression_configs.jsonl")
	require.NoError(t, err)
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var cfg struct {
			SectorSize uint64   `json:"sector_size"`
			Partitions int      `json:"partitions"`
			PoRepID    [32]byte `json:"porep_id"`
			APIVersion string   `json:"api_version"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &cfg))
		p, err := FromPoRepID(cfg.PoRepID)
		require.NoError(t, err)
		require.Equal(t, cfg.SectorSize, p.SectorSize())
		require.Equal(t, p.Config().Partitions, cfg.Partitions)
		v, err := ParseAPIVersion(cfg.APIVersion)
		require.NoError(t, err)
		require.Equal(t, v == V1_0_0, p == StackedDrg2KiBV1, "record %d", n)
		n++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 124, n)
}

func TestProverID(t *testing.T) {
	id := ProverID(1000) // f01000: ID-address payload e8 07
	require.Equal(t, [32]byte{0xe8, 0x07}, id)
	require.Equal(t, [32]byte{}, ProverID(0))
}
