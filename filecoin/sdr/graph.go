package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/internal/parallel"
)

// Domain-separation tags for the graph seeds (storage-proofs-core src/crypto/mod.rs).
const (
	drsampleDST = "Filecoin_DRSample"
	feistelDST  = "Filecoin_Feistel"
)

// DegreeBase, DegreeExp and Degree are the DRG, expander and total parent counts of a node.
const (
	DegreeBase = sector.BaseDegree
	DegreeExp  = sector.ExpDegree
	Degree     = DegreeBase + DegreeExp
	// TotalParents is the number of parent labels hashed into a label (stacked/vanilla/mod.rs).
	TotalParents = sector.TotalParents
)

// Graph is Filecoin's stacked DRG over Nodes nodes for one porep id and API version
// (storage-proofs-porep src/stacked/vanilla/graph.rs StackedBucketGraph): 6 DRG parents in the
// same layer from the bucket-sampling graph (storage-proofs-core src/drgraph.rs BucketGraph) and
// 8 expander parents in the previous layer from a Feistel permutation of [0, 8·Nodes).
type Graph struct {
	Nodes       uint64
	APIVersion  sector.APIVersion
	DRGSeed     [28]byte  // SHA-256("Filecoin_DRSample" ‖ porep_id)[:28]
	FeistelKeys [4]uint64 // SHA-256("Filecoin_Feistel" ‖ porep_id) as 4 u64 LE
	feistel     feistel
}

func domainSeed(tag string, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(tag))
	h.Write(porepID[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// NewGraph returns the graph of nodes nodes (at least 2, at most 2^32) for porepID and api.
func NewGraph(nodes uint64, porepID [32]byte, api sector.APIVersion) (*Graph, error) {
	if nodes < 2 || nodes > 1<<32 {
		return nil, fmt.Errorf("sdr: graph of %d nodes", nodes)
	}
	g := &Graph{Nodes: nodes, APIVersion: api}
	s := domainSeed(drsampleDST, porepID)
	copy(g.DRGSeed[:], s[:28])
	k := domainSeed(feistelDST, porepID)
	for i := range g.FeistelKeys {
		g.FeistelKeys[i] = binary.LittleEndian.Uint64(k[8*i:])
	}
	g.feistel = newFeistel(nodes*DegreeExp, g.FeistelKeys)
	return g, nil
}

// DRGParents writes the 6 DRG parents of node into dst (len ≥ 6). Nodes 0 and 1 have parents
// all 0. Otherwise, with m' = 5 and metagraph node v = 5·node, each of 5 parents draws from a
// ChaCha8 stream seeded by DRGSeed ‖ node (u32 LE) a bucket b = (r₁ mod ⌈log₂ v⌉) + 1 and a
// distance d in [max(2, min(v, 2^b)/2), min(v, 2^b)], giving parent ⌊(v − d)/5⌋ (node − 1 if
// that is node itself); the sixth parent is node − 1, placed last in API v1.0 and first from
// v1.1 on.
func (g *Graph) DRGParents(node uint64, dst []uint32) {
	dst = dst[:DegreeBase]
	if node < 2 {
		clear(dst)
		return
	}
	var seed [32]byte
	copy(seed[:28], g.DRGSeed[:])
	binary.LittleEndian.PutUint32(seed[28:], uint32(node))
	rng := newChaCha8(&seed)
	const mPrime = DegreeBase - 1
	v := node * mPrime
	nBuckets := uint64(bits.Len64(v - 1)) // ⌈log₂ v⌉, v ≥ 10
	pred, others := DegreeBase-1, dst[:mPrime]
	if g.APIVersion != sector.V1_0_0 {
		pred, others = 0, dst[1:]
	}
	for i := range others {
		bucket := rng.Uint64()%nBuckets + 1
		largest := min(v, uint64(1)<<bucket)
		smallest := max(2, largest>>1)
		distance := smallest + rng.Uint64()%(largest-smallest+1)
		p := (v - distance) / mPrime
		if p == node {
			p = node - 1
		}
		others[i] = uint32(p)
	}
	dst[pred] = uint32(node - 1)
}

// ExpParents writes the 8 expander parents of node into dst (len ≥ 8): parent i is
// π(8·node + i)/8 with π the Feistel permutation of [0, 8·Nodes); API v1.0 truncates π(…) to
// 32 bits before dividing (graph.rs correspondent).
func (g *Graph) ExpParents(node uint64, dst []uint32) {
	for i := range dst[:DegreeExp] {
		t := g.feistel.permute(node*DegreeExp + uint64(i))
		if g.APIVersion == sector.V1_0_0 {
			dst[i] = uint32(t) / DegreeExp
		} else {
			dst[i] = uint32(t / DegreeExp)
		}
	}
}

// Parents returns the 6 DRG parents followed by the 8 expander parents of node.
func (g *Graph) Parents(node uint64) [Degree]uint32 {
	var p [Degree]uint32
	g.DRGParents(node, p[:DegreeBase])
	g.ExpParents(node, p[DegreeBase:])
	return p
}

// identifier is the graph's ParameterSetMetadata identifier with the tree hasher poseidon.
func (g *Graph) identifier() string {
	return fmt.Sprintf("stacked_graph::StackedGraph{expansion_degree: %d base_graph: drgraph::BucketGraph{size: %d; degree: %d; hasher: poseidon_hasher} }",
		DegreeExp, g.Nodes, DegreeBase)
}

// ParentCacheID returns the name rust-fil-proofs gives the graph's parent cache file,
// "v28-sdr-parent-<hex>": hex of SHA-256("poseidon_hasher" ‖ identifier ‖ Feistel keys as u64 LE
// ‖ node count as u32 LE) (storage-proofs-porep stacked/vanilla/cache.rs cache_path).
func (g *Graph) ParentCacheID() string {
	h := sha256.New()
	h.Write([]byte("poseidon_hasher"))
	h.Write([]byte(g.identifier()))
	var b [8]byte
	for _, k := range g.FeistelKeys {
		binary.LittleEndian.PutUint64(b[:], k)
		h.Write(b[:])
	}
	binary.LittleEndian.PutUint32(b[:4], uint32(g.Nodes))
	h.Write(b[:4])
	return fmt.Sprintf("v%d-sdr-parent-%x", sector.ParamsVersion, h.Sum(nil))
}

// ParentCache returns the parents of every node, Degree per node (the content of rust-fil-proofs'
// parent cache file, there as u32 little-endian).
func (g *Graph) ParentCache() []uint32 {
	out := make([]uint32, g.Nodes*Degree)
	parallel.Ranges(int(g.Nodes), func(lo, hi int) {
		for n := lo; n < hi; n++ {
			g.DRGParents(uint64(n), out[n*Degree:])
			g.ExpParents(uint64(n), out[n*Degree+DegreeBase:])
		}
	})
	return out
}
