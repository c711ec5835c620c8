package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestChaChaKeystream checks the block function against the all-zero key and nonce keystreams:
// ChaCha20 from RFC 7539 §2.3.2 / rand_chacha test_chacha_true_values_a, ChaCha8 from
// draft-strombergson-chacha-test-vectors TC1 (8 rounds).
func TestChaChaKeystream(t *testing.T) {
	var key [8]uint32
	bytesOf := func(rounds int) string {
		var out [16]uint32
		chachaBlock(&out, &key, 0, rounds)
		var b [64]byte
		for i, w := range out {
			binary.LittleEndian.PutUint32(b[4*i:], w)
		}
		return hex.EncodeToString(b[:])
	}
	require.Equal(t, "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586", bytesOf(20))
	require.Equal(t, "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42", bytesOf(8))
	var seed [32]byte
	r := newChaCha8(&seed)
	require.Equal(t, uint64(0xd6405f892fef003e), r.Uint64())
}

func TestFeistelIsPermutation(t *testing.T) {
	for _, n := range []uint64{16, 5, 6, 8, 12, 17, 64 * 8, 1000} {
		f := newFeistel(n, [4]uint64{1, 2, 3, 4})
		seen := make([]bool, n)
		for i := uint64(0); i < n; i++ {
			p := f.permute(i)
			require.Less(t, p, n)
			require.False(t, seen[p])
			seen[p] = true
			require.Equal(t, i, f.invert(p))
		}
	}
}

// parentCacheManifest is rust-fil-proofs storage-proofs-porep/parent_cache.json: SHA-256 digests
// of the v28 parent cache files (every node's 14 parents as u32 LE) keyed by the cache id.
var parentCacheManifest = map[string]string{
	"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899": "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
	"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b": "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97",
	"v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5": "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
	"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc": "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce",
	"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42": "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5",
	"v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34": "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a",
	"v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117": "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da",
	"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13": "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6",
	"v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b": "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03",
	"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6": "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c",
}

func parentCacheDigest(g *Graph) string {
	cache := g.ParentCache()
	b := make([]byte, 4*len(cache))
	for i, p := range cache {
		binary.LittleEndian.PutUint32(b[4*i:], p)
	}
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}

// TestParentCacheKnownAnswers rebuilds the parent cache of the v1 and v1.1 graphs of each
// published size: every cache id (which covers the Feistel keys) is one of the manifest's, and for
// 2 KiB (and 8 MiB outside -short) the SHA-256 of all parents equals the manifest's digest.
func TestParentCacheKnownAnswers(t *testing.T) {
	for _, p := range []sector.RegisteredSealProof{
		sector.StackedDrg2KiBV1, sector.StackedDrg2KiBV1_1,
		sector.StackedDrg8MiBV1, sector.StackedDrg8MiBV1_1,
		sector.StackedDrg512MiBV1, sector.StackedDrg512MiBV1_1,
		sector.StackedDrg32GiBV1, sector.StackedDrg32GiBV1_1,
		sector.StackedDrg64GiBV1, sector.StackedDrg64GiBV1_1,
	} {
		g, err := NewGraph(p.Config().Nodes, p.PoRepID(), p.APIVersion())
		require.NoError(t, err)
		want, ok := parentCacheManifest[g.ParentCacheID()]
		require.True(t, ok, "%v: cache id %s not in the manifest", p, g.ParentCacheID())
		if p.SectorSize() > sector.Size8MiB || (testing.Short() && p.SectorSize() > sector.Size2KiB) {
			continue
		}
		require.Equal(t, want, parentCacheDigest(g), "%v", p)
	}
}

func TestParentsShape(t *testing.T) {
	g, err := NewGraph(64, sector.StackedDrg2KiBV1_1.PoRepID(), sector.V1_1_0)
	require.NoError(t, err)
	for n := uint64(2); n < 64; n++ {
		p := g.Parents(n)
		require.Equal(t, uint32(n-1), p[0])
		for _, q := range p[:DegreeBase] {
			require.Less(t, uint64(q), n)
		}
		for _, q := range p[DegreeBase:] {
			require.Less(t, uint64(q), uint64(64))
		}
	}
	p1 := g.Parents(1)
	require.Equal(t, make([]uint32, DegreeBase), p1[:DegreeBase])
}
