package proofs

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/engine"
	cpost "github.com/cuzk-go/cuzk/filecoin/circuits/post"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// SectorInfo is go-state-types proof.SectorInfo: a sector as the chain knows it.
type SectorInfo struct {
	SealProof    sector.RegisteredSealProof
	SectorNumber uint64
	SealedCID    string // the sealed-sector CID in its string form (multibase base32, "bagboea4b5abc…")
}

// PoStProof is go-state-types proof.PoStProof: a registered PoSt proof type and the Groth16
// proof bytes, 192 bytes per partition in partition order.
type PoStProof struct {
	PoStProof  post.ProofType
	ProofBytes []byte
}

// WinningPoStVerifyInfo is go-state-types proof.WinningPoStVerifyInfo. Randomness must be a
// canonical field element: callers clear its top two bits (randomness[31] &= 0x3f) as lotus does
// before calling filecoin-ffi.
type WinningPoStVerifyInfo struct {
	Randomness        post.Domain
	Proofs            []PoStProof
	ChallengedSectors []SectorInfo
	Prover            uint64 // miner actor id
}

// WindowPoStVerifyInfo is go-state-types proof.WindowPoStVerifyInfo; see WinningPoStVerifyInfo.
type WindowPoStVerifyInfo struct {
	Randomness        post.Domain
	Proofs            []PoStProof
	ChallengedSectors []SectorInfo
	Prover            uint64 // miner actor id
}

// PrivateSectorInfo is what generating a sector's PoSt vanilla proof reads: filecoin-ffi's
// PrivateSectorInfo, with the sector's tree-r-last and comm_c held in memory instead of the
// cache directory and sealed file they are read from there.
type PrivateSectorInfo struct {
	SectorInfo
	PoStProofType post.ProofType
	CommC         fr.Element
	TreeRLast     *sdr.Tree
}

// FallbackChallenges are the leaf challenges of each challenged sector: filecoin-ffi's
// FallbackChallenges. Sectors lists the sector numbers in ascending order.
type FallbackChallenges struct {
	Sectors    []uint64
	Challenges map[uint64][]uint64
}

// GeneratePoStFallbackSectorChallenges returns the leaves each sector's vanilla proof must open,
// as filecoin-ffi GeneratePoStFallbackSectorChallenges (filecoin-proofs api/post_util.rs
// generate_fallback_sector_challenges): for WindowPoSt every sector, its challenges depending on
// its position in sectorIDs (give them in ascending order, as provers and verifiers list
// them); for WinningPoSt the first sector only, at position 0. A repeated sector number is an
// error. minerID completes filecoin-ffi's signature; the challenges do not depend on it.
func GeneratePoStFallbackSectorChallenges(proofType post.ProofType, minerID uint64, randomness post.Domain, sectorIDs []uint64) (*FallbackChallenges, error) {
	info, err := post.Lookup(proofType)
	if err != nil {
		return nil, fmt.Errorf("fallback challenges: %w", err)
	}
	if len(sectorIDs) == 0 {
		return nil, fmt.Errorf("fallback challenges: %s: no sectors", info.Name)
	}
	ids := sectorIDs
	if info.Kind == post.Winning {
		ids = sectorIDs[:1]
	}
	out := &FallbackChallenges{Challenges: make(map[uint64][]uint64, len(ids))}
	for idx, id := range ids {
		if _, dup := out.Challenges[id]; dup {
			return nil, fmt.Errorf("fallback challenges: %s: sector %d listed twice", info.Name, id)
		}
		if out.Challenges[id], err = info.LeafChallenges(randomness, id, idx); err != nil {
			return nil, fmt.Errorf("fallback challenges: %s: %w", info.Name, err)
		}
		out.Sectors = append(out.Sectors, id)
	}
	sort.Slice(out.Sectors, func(a, b int) bool { return out.Sectors[a] < out.Sectors[b] })
	return out, nil
}

// GenerateSingleVanillaProof returns the bincode FallbackPoStSectorProof of one sector for the
// given leaf challenges (post.Info.LeafChallenges), as filecoin-ffi GenerateSingleVanillaProof:
// per challenge the tree-r-last inclusion proof, then comm_c and comm_r_last (filecoin-proofs
// api/post_util.rs generate_single_vanilla_proof). comm_r, from the sealed CID, must equal
// Poseidon₂(comm_c, root of TreeRLast).
func GenerateSingleVanillaProof(replica PrivateSectorInfo, challenges []uint64) ([]byte, error) {
	info, err := post.Lookup(replica.PoStProofType)
	if err != nil {
		return nil, fmt.Errorf("generate vanilla proof: %w", err)
	}
	t := replica.TreeRLast
	if t == nil {
		return nil, fmt.Errorf("generate vanilla proof of sector %d: no tree-r-last", replica.SectorNumber)
	}
	if t.Leaves() != info.Leaves() || t.Shape.Base != info.Shape.Base || t.Shape.Sub != info.Shape.Sub || t.Shape.Top != info.Shape.Top {
		return nil, fmt.Errorf("generate vanilla proof of sector %d: tree-r-last of %d leaves, shape %s; %s wants %d leaves, shape %s",
			replica.SectorNumber, t.Leaves(), t.Shape, info.Name, info.Leaves(), info.Shape)
	}
	commR, err := post.CommRFromCID(replica.SealedCID)
	if err != nil {
		return nil, fmt.Errorf("generate vanilla proof of sector %d: %w", replica.SectorNumber, err)
	}
	root := t.Root()
	if got := sdr.CommR(&replica.CommC, &root); post.DomainOf(&got) != commR {
		return nil, fmt.Errorf("generate vanilla proof of sector %d: Poseidon(comm_c, comm_r_last) = %s, sealed CID's comm_r %s",
			replica.SectorNumber, post.DomainOf(&got), commR)
	}
	sp := post.SectorProof{CommC: post.DomainOf(&replica.CommC), CommRLast: post.DomainOf(&root)}
	for n, c := range challenges {
		if c >= t.Leaves() {
			return nil, fmt.Errorf("generate vanilla proof of sector %d: challenge %d is leaf %d of %d", replica.SectorNumber, n, c, t.Leaves())
		}
		sp.InclusionProofs = append(sp.InclusionProofs, postMerkleProof(t.Proof(c)))
	}
	p := &post.FallbackPoStSectorProof{SectorID: replica.SectorNumber, CommR: commR, Sectors: []post.SectorProof{sp}}
	return p.MarshalBinary()
}

// postMerkleProof converts an sdr inclusion proof into filecoin/post's form, choosing the Rust
// ProofData variant from the levels present.
func postMerkleProof(mp sdr.MerkleProof) post.MerkleProof {
	conv := func(path []sdr.PathElement) []post.PathElement {
		out := make([]post.PathElement, len(path))
		for i, e := range path {
			out[i].Index = e.Index
			for k := range e.Hashes {
				out[i].Hashes = append(out[i].Hashes, post.DomainOf(&e.Hashes[k]))
			}
		}
		return out
	}
	out := post.MerkleProof{Kind: post.SingleProof, Base: conv(mp.BaseProof), Root: post.DomainOf(&mp.Root), Leaf: post.DomainOf(&mp.Leaf)}
	if len(mp.SubProof) > 0 {
		out.Kind, out.Sub = post.SubProof, conv(mp.SubProof)
	}
	if len(mp.TopProof) > 0 {
		out.Kind, out.Top = post.TopProof, conv(mp.TopProof)
	}
	return out
}

// postShapes holds the compiled FallbackPoSt shape per circuit, keyed by its cpost.Params.
var postShapes shapeCache

// PoStCircuitShape returns the compiled FallbackPoSt circuit of a registered PoSt proof type,
// compiled on first use and kept: the shape devsetup.InsecureSetup and prover.CheckParameters
// take. WindowPoSt at 32 GiB is 125,279,217 constraints; its shape alone takes tens of GiB.
func PoStCircuitShape(t post.ProofType) (*synth.Shape, error) {
	info, err := post.Lookup(t)
	if err != nil {
		return nil, fmt.Errorf("proofs: %w", err)
	}
	p, err := cpost.ParamsFor(info)
	if err != nil {
		return nil, err
	}
	shape, err := postShapes.get(p, func() synth.Circuit { return cpost.Blank(p) })
	if err != nil {
		return nil, fmt.Errorf("%s: compile circuit: %w", info.Name, err)
	}
	return shape, nil
}

// GenerateWinningPoStWithVanilla proves a WinningPoSt from the vanilla proof of the challenged
// sector (the bincode FallbackPoStSectorProof GenerateSingleVanillaProof or filecoin-ffi
// returns), as filecoin-ffi GenerateWinningPoStWithVanilla: the one sector's 66 inclusion
// proofs become the circuit's 66 one-challenge slots, public inputs per
// post.Info.PublicInputs with prover id of minerID. The proof runs through eng with params,
// the type's Groth16 parameters (ProofInfo.OpenParameters, or devsetup's for tests), and
// comes back as one PoStProof of 192 bytes. minerID completes filecoin-ffi's signature: the
// circuit's inputs do not depend on the prover id (leaf challenges derive from the randomness,
// sector number and challenge index alone). A vanilla proof that does not check (wrong
// challenges, path or comm_r) is an error naming the sector, challenge and level.
func GenerateWinningPoStWithVanilla(ctx context.Context, eng *engine.Engine, params *prover.Parameters,
	proofType post.ProofType, minerID uint64, randomness post.Domain, vanilla [][]byte) ([]PoStProof, error) {
	info, err := post.Lookup(proofType)
	if err != nil {
		return nil, fmt.Errorf("generate winning PoSt: %w", err)
	}
	if info.Kind != post.Winning {
		return nil, fmt.Errorf("generate winning PoSt: %s is not a WinningPoSt type", info.Name)
	}
	proof, err := postGenerate(ctx, eng, params, info, randomness, vanilla)
	if err != nil {
		return nil, err
	}
	return []PoStProof{proof}, nil
}

// GenerateWindowPoStWithVanilla proves a WindowPoSt from the vanilla proofs of the challenged
// sectors, in ascending sector-number order (the order verifiers see them in), as
// filecoin-ffi GenerateWindowPoStWithVanilla: ⌈sectors / WINDOW_POST_SECTOR_COUNT⌉ partitions,
// the last one padded by repeating its last sector, proved through eng with params. The result
// is one PoStProof holding the partitions' proofs, 192 bytes each in partition order.
func GenerateWindowPoStWithVanilla(ctx context.Context, eng *engine.Engine, params *prover.Parameters,
	proofType post.ProofType, minerID uint64, randomness post.Domain, vanilla [][]byte) ([]PoStProof, error) {
	info, err := post.Lookup(proofType)
	if err != nil {
		return nil, fmt.Errorf("generate window PoSt: %w", err)
	}
	if info.Kind != post.Window {
		return nil, fmt.Errorf("generate window PoSt: %s is not a WindowPoSt type", info.Name)
	}
	proof, err := postGenerate(ctx, eng, params, info, randomness, vanilla)
	if err != nil {
		return nil, err
	}
	return []PoStProof{proof}, nil
}

// postGenerate decodes the vanilla proofs, submits one engine job of all partitions (each
// partition's circuit built lazily from its checked witness), and checks that each partition's
// public inputs are those a verifier derives.
func postGenerate(ctx context.Context, eng *engine.Engine, params *prover.Parameters, info post.Info,
	randomness post.Domain, vanilla [][]byte) (PoStProof, error) {
	if eng == nil || params == nil {
		return PoStProof{}, fmt.Errorf("generate %s: engine and parameters are required", info.Name)
	}
	proofs := make([]*post.FallbackPoStSectorProof, len(vanilla))
	sectors := make([]post.PublicSector, len(vanilla))
	for k, b := range vanilla {
		p, err := post.DecodeSectorProof(b)
		if err != nil {
			return PoStProof{}, fmt.Errorf("generate %s: vanilla proof %d: %w", info.Name, k, err)
		}
		proofs[k] = p
		sectors[k] = post.PublicSector{ID: p.SectorID, CommR: p.CommR}
	}
	shape, err := PoStCircuitShape(info.Type)
	if err != nil {
		return PoStProof{}, err
	}
	p, err := cpost.ParamsFor(info)
	if err != nil {
		return PoStProof{}, err
	}
	parts := info.Partitions(len(sectors))
	want := make([][]fr.Element, parts)
	for k := range want {
		if want[k], err = info.PublicInputs(randomness, sectors, k); err != nil {
			return PoStProof{}, fmt.Errorf("generate %s: %w", info.Name, err)
		}
	}
	h, err := eng.Submit(ctx, &engine.Job{
		Params: params, Shape: shape, Partitions: parts,
		Circuit: func(k int) (synth.Circuit, error) {
			ws, err := info.PartitionWitness(randomness, sectors, proofs, k)
			if err != nil {
				return nil, err
			}
			secs, err := cpost.SectorsFromWitness(ws)
			if err != nil {
				return nil, err
			}
			return &cpost.Circuit{Params: p, Sectors: secs}, nil
		},
	})
	if err != nil {
		return PoStProof{}, fmt.Errorf("generate %s: %w", info.Name, err)
	}
	res, err := waitJob(h)
	if err != nil {
		return PoStProof{}, fmt.Errorf("generate %s: %w", info.Name, err)
	}
	for k := range want {
		if len(res.Inputs[k]) != len(want[k]) {
			return PoStProof{}, fmt.Errorf("generate %s: partition %d has %d public inputs, verifiers derive %d", info.Name, k, len(res.Inputs[k]), len(want[k]))
		}
		for i := range want[k] {
			if !want[k][i].Equal(&res.Inputs[k][i]) {
				return PoStProof{}, fmt.Errorf("generate %s: partition %d public input %d differs from the one verifiers derive", info.Name, k, i)
			}
		}
	}
	return PoStProof{PoStProof: info.Type, ProofBytes: res.Proof}, nil
}

// VerifyWinningPoSt verifies a WinningPoSt as filecoin-ffi VerifyWinningPoSt does, loading the
// verifying key from keys (checked against its manifest digest). It returns false with a nil
// error for a proof that does not verify, and an error for malformed input: not exactly one
// proof or one challenged sector, a sector of another size, a bad CID, a proof of the wrong
// length or encoding.
func VerifyWinningPoSt(ctx context.Context, info WinningPoStVerifyInfo, keys *paramcache.Cache) (bool, error) {
	vk, err := postLoadKey(ctx, info.Proofs, keys)
	if err != nil {
		return false, err
	}
	return VerifyWinningPoStWithKey(info, vk)
}

// VerifyWindowPoSt verifies a WindowPoSt as filecoin-ffi VerifyWindowPoSt does; see
// VerifyWinningPoSt. The challenged sectors are taken in ascending sector-number order, as
// filecoin-proofs keeps them (a BTreeMap), whatever order they are given in.
func VerifyWindowPoSt(ctx context.Context, info WindowPoStVerifyInfo, keys *paramcache.Cache) (bool, error) {
	vk, err := postLoadKey(ctx, info.Proofs, keys)
	if err != nil {
		return false, err
	}
	return VerifyWindowPoStWithKey(info, vk)
}

// VerifyWinningPoStWithKey is VerifyWinningPoSt with a verifying key the caller holds.
func VerifyWinningPoStWithKey(info WinningPoStVerifyInfo, vk *prover.VerifyingKey) (bool, error) {
	return postVerify(post.Winning, info.Randomness, info.Proofs, info.ChallengedSectors, vk)
}

// VerifyWindowPoStWithKey is VerifyWindowPoSt with a verifying key the caller holds.
func VerifyWindowPoStWithKey(info WindowPoStVerifyInfo, vk *prover.VerifyingKey) (bool, error) {
	return postVerify(post.Window, info.Randomness, info.Proofs, info.ChallengedSectors, vk)
}

// postLoadKey loads the verifying key of the one proof's type.
func postLoadKey(ctx context.Context, proofs []PoStProof, keys *paramcache.Cache) (*prover.VerifyingKey, error) {
	if len(proofs) != 1 {
		return nil, fmt.Errorf("verify PoSt: %d proofs, want 1", len(proofs))
	}
	if keys == nil {
		return nil, errors.New("verify PoSt: no parameter cache")
	}
	pi, err := PoStProofInfo(proofs[0].PoStProof)
	if err != nil {
		return nil, fmt.Errorf("verify PoSt: %w", err)
	}
	return pi.LoadVerifyingKey(ctx, keys)
}

// postVerify derives every partition's public inputs and checks the assembled proof.
func postVerify(kind post.Kind, randomness post.Domain, proofs []PoStProof, sectors []SectorInfo, vk *prover.VerifyingKey) (bool, error) {
	if len(proofs) != 1 {
		return false, fmt.Errorf("verify %s PoSt: %d proofs, want 1", kind, len(proofs))
	}
	info, err := post.Lookup(proofs[0].PoStProof)
	if err != nil {
		return false, fmt.Errorf("verify %s PoSt: %w", kind, err)
	}
	if info.Kind != kind {
		return false, fmt.Errorf("verify %s PoSt: proof type %s is a %s type", kind, info.Name, info.Kind)
	}
	if vk == nil {
		return false, fmt.Errorf("verify %s: no verifying key", info.Name)
	}
	if len(sectors) == 0 {
		return false, fmt.Errorf("verify %s: no challenged sectors", info.Name)
	}
	if kind == post.Winning && len(sectors) != info.ConfigSectors {
		return false, fmt.Errorf("verify %s: %d challenged sectors, want %d", info.Name, len(sectors), info.ConfigSectors)
	}
	pub := make([]post.PublicSector, len(sectors))
	for k, s := range sectors {
		if !s.SealProof.Valid() {
			return false, fmt.Errorf("verify %s: ChallengedSectors[%d] (sector %d): unknown registered seal proof %d",
				info.Name, k, s.SectorNumber, uint64(s.SealProof))
		}
		if s.SealProof.SectorSize() != info.SectorSize {
			return false, fmt.Errorf("verify %s: ChallengedSectors[%d] (sector %d) is sealed with %s, another sector size",
				info.Name, k, s.SectorNumber, s.SealProof)
		}
		commR, err := post.CommRFromCID(s.SealedCID)
		if err != nil {
			return false, fmt.Errorf("verify %s: ChallengedSectors[%d] (sector %d): %w", info.Name, k, s.SectorNumber, err)
		}
		pub[k] = post.PublicSector{ID: s.SectorNumber, CommR: commR}
	}
	sort.SliceStable(pub, func(a, b int) bool { return pub[a].ID < pub[b].ID })
	for k := 1; k < len(pub); k++ {
		if pub[k].ID == pub[k-1].ID {
			return false, fmt.Errorf("verify %s: sector %d challenged twice", info.Name, pub[k].ID)
		}
	}
	parts := info.Partitions(len(pub))
	if got := len(proofs[0].ProofBytes); got != parts*prover.ProofSize {
		return false, fmt.Errorf("verify %s: proof of %d bytes, %d partitions take %d", info.Name, got, parts, parts*prover.ProofSize)
	}
	inputs := make([][]fr.Element, parts)
	for k := range inputs {
		if inputs[k], err = info.PublicInputs(randomness, pub, k); err != nil {
			return false, fmt.Errorf("verify %s: %w", info.Name, err)
		}
	}
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		return false, fmt.Errorf("verify %s: %w", info.Name, err)
	}
	if err := prover.VerifyAssembled(pvk, proofs[0].ProofBytes, inputs); err != nil {
		if errors.Is(err, prover.ErrInvalidProof) {
			return false, nil
		}
		return false, fmt.Errorf("verify %s: %w", info.Name, err)
	}
	return true, nil
}
