// Package sector describes Filecoin's PoRep sector configurations as rust-fil-proofs v28 and
// rust-filecoin-proofs-api define them: the published sector sizes with their node counts,
// layers, partitions, challenges and Merkle tree shapes; the RegisteredSealProof ids with their
// porep ids and API versions; and the names of the v28 PoRep parameter files.
//
// Usage:
//
//	p, err := sector.ParseRegisteredSealProof("StackedDrg32GiBV1_1")
//	cfg := p.Config()          // 2^30 nodes, 11 layers, 10 partitions × 18 challenges, 8-8-0
//	id := p.PoRepID()          // [8, 0, …] (registered proof id as u64 LE, then a zero nonce)
//	name := cfg.ParamsFileName() // v28-stacked-proof-of-replication-…-82a357d2….params
package sector
