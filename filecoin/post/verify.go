package post

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// ErrInvalidVanilla is wrapped by every error VerifySectorProof returns for a vanilla proof
// that does not check. The concrete error is a *VerifyError.
var ErrInvalidVanilla = errors.New("invalid vanilla proof")

// VerifyError says where a vanilla sector proof fails.
type VerifyError struct {
	SectorID uint64
	// Challenge is the challenge (inclusion proof) index, or -1 for a sector-level failure.
	Challenge int
	// Level is the tree level counted from the leaf (0 = the leaf's siblings), over base, sub
	// and top layers in turn, or -1 when the failure is not tied to a level. A changed leaf or
	// sibling only shows at the root: its error names the root level (the number of levels).
	Level int
	// Layer names the level's layer: "base", "sub", "top" or "root"; empty with Level -1.
	Layer  string
	Reason string
}

// Error formats the sector, challenge, level and reason.
func (e *VerifyError) Error() string {
	s := fmt.Sprintf("vanilla proof of sector %d", e.SectorID)
	if e.Challenge >= 0 {
		s += fmt.Sprintf(", challenge %d", e.Challenge)
	}
	if e.Level >= 0 {
		s += fmt.Sprintf(", level %d (%s)", e.Level, e.Layer)
	}
	return s + ": " + e.Reason
}

// Unwrap returns ErrInvalidVanilla.
func (e *VerifyError) Unwrap() error { return ErrInvalidVanilla }

// layer is one layer of a tree-r-last: its name, arity and number of levels.
type layer struct {
	name   string
	arity  int
	levels int
}

// layers returns the tree's layers from the leaves up: the base trees (arity Base, log_Base of
// their leaf count levels), then one sub level (arity Sub) and one top level (arity Top) when
// present (storage-proofs-core merkle/proof.rs base_path_length, compound_path_length).
func (i Info) layers() []layer {
	baseLeaves := i.Leaves()
	if i.Shape.Sub > 0 {
		baseLeaves /= uint64(i.Shape.Sub)
	}
	if i.Shape.Top > 0 {
		baseLeaves /= uint64(i.Shape.Top)
	}
	n := 0
	for l := uint64(1); l < baseLeaves; l *= uint64(i.Shape.Base) {
		n++
	}
	out := []layer{{"base", i.Shape.Base, n}}
	if i.Shape.Sub > 0 {
		out = append(out, layer{"sub", i.Shape.Sub, 1})
	}
	if i.Shape.Top > 0 {
		out = append(out, layer{"top", i.Shape.Top, 1})
	}
	return out
}

// proofKind returns the Merkle proof variant the tree shape produces.
func (i Info) proofKind() ProofKind {
	switch {
	case i.Shape.Top > 0:
		return TopProof
	case i.Shape.Sub > 0:
		return SubProof
	}
	return SingleProof
}

// VerifySectorProof checks the vanilla proof p of the sector pub, at position sectorIndex in
// the prover's sector list (0 for WinningPoSt; see Info.LeafChallenges), against randomness.
// It checks what FallbackPoSt's vanilla verifier checks (storage-proofs-post
// fallback/vanilla.rs verify) and what the circuit will need to be satisfied:
//
//   - p names pub's sector and comm_r, and holds one SectorProof of ConfigChallenges
//     inclusion proofs, each of the variant and path length the tree shape gives;
//   - comm_r = Poseidon_2(comm_c, comm_r_last);
//   - each path hashes its leaf up to its root with Poseidon of the layer's arity (insert the
//     running hash at the level's index among the siblings; neptune Merkle-tree domain tag
//     2^arity − 1), and that root is both the proof's root and comm_r_last;
//   - each path's indices spell the derived leaf challenge: index at level l =
//     ⌊leaf / Π arity below l⌋ mod arity_l.
//
// Rust's vanilla verifier takes comm_r_last as the first inclusion proof's root; requiring the
// stored comm_r_last to match too is stricter, and is what the circuit (which allocates the
// stored one) needs. Every field element read must be canonical (Fr::from_repr). Errors are *VerifyError values
// wrapping ErrInvalidVanilla, naming the challenge and level; bad arguments give plain errors.
func (i Info) VerifySectorProof(randomness Domain, sectorIndex int, pub PublicSector, p *FallbackPoStSectorProof) error {
	_, err := i.checkSectorProof(randomness, sectorIndex, pub, p)
	return err
}

// checkSectorProof is VerifySectorProof, returning the proof's values as field elements.
func (i Info) checkSectorProof(randomness Domain, sectorIndex int, pub PublicSector, p *FallbackPoStSectorProof) (*SectorWitness, error) {
	if p == nil {
		return nil, errors.New("verify vanilla proof: nil proof")
	}
	fail := func(c, level int, layer, format string, args ...any) error {
		return &VerifyError{SectorID: pub.ID, Challenge: c, Level: level, Layer: layer, Reason: fmt.Sprintf(format, args...)}
	}
	challenges, err := i.LeafChallenges(randomness, pub.ID, sectorIndex)
	if err != nil {
		return nil, fmt.Errorf("verify vanilla proof of sector %d: %w", pub.ID, err)
	}
	if p.SectorID != pub.ID {
		return nil, fail(-1, -1, "", "proof is for sector %d", p.SectorID)
	}
	if p.CommR != pub.CommR {
		return nil, fail(-1, -1, "", "proof comm_r %s, sector's comm_r %s", p.CommR, pub.CommR)
	}
	if len(p.Sectors) != 1 {
		return nil, fail(-1, -1, "", "%d sector proofs, want 1", len(p.Sectors))
	}
	sp := &p.Sectors[0]
	w := &SectorWitness{ID: pub.ID, LeafIndices: challenges}
	if w.CommR, err = pub.CommR.Element(); err != nil {
		return nil, fail(-1, -1, "", "comm_r: %v", err)
	}
	if w.CommC, err = sp.CommC.Element(); err != nil {
		return nil, fail(-1, -1, "", "comm_c: %v", err)
	}
	if w.CommRLast, err = sp.CommRLast.Element(); err != nil {
		return nil, fail(-1, -1, "", "comm_r_last: %v", err)
	}
	h2, err := poseidon.Must(2).Hash([]fr.Element{w.CommC, w.CommRLast})
	if err != nil {
		return nil, err
	}
	if !h2.Equal(&w.CommR) {
		return nil, fail(-1, -1, "", "Poseidon(comm_c, comm_r_last) = %s, not comm_r %s", DomainOf(&h2), pub.CommR)
	}
	if len(sp.InclusionProofs) != len(challenges) {
		return nil, fail(-1, -1, "", "%d inclusion proofs, want %d challenges", len(sp.InclusionProofs), len(challenges))
	}
	for c := range sp.InclusionProofs {
		pw, err := i.walkPath(&sp.InclusionProofs[c], challenges[c], &w.CommRLast, func(level int, layer, format string, args ...any) error {
			return fail(c, level, layer, format, args...)
		})
		if err != nil {
			return nil, err
		}
		w.Leafs = append(w.Leafs, pw.Leaf)
		w.Paths = append(w.Paths, pw.Levels)
	}
	return w, nil
}

// walkPath checks one inclusion proof against the tree shape, the challenged leaf and the
// expected root, and returns the leaf and per-level siblings as field elements.
func (i Info) walkPath(mp *MerkleProof, leafIndex uint64, root *fr.Element,
	fail func(level int, layer, format string, args ...any) error) (pathWitness, error) {
	var w pathWitness
	if want := i.proofKind(); mp.Kind != want {
		return w, fail(-1, "", "%s proof, the %s tree shape gives %s proofs", mp.Kind, i.Shape, want)
	}
	layers := i.layers()
	paths := [][]PathElement{mp.Base, mp.Sub, mp.Top}
	cur, err := mp.Leaf.Element()
	if err != nil {
		return w, fail(0, "base", "leaf: %v", err)
	}
	w.Leaf = cur
	level := 0
	rest := leafIndex
	for li, ly := range layers {
		path := paths[li]
		if len(path) != ly.levels {
			return w, fail(level, ly.name, "%s path has %d levels, want %d", ly.name, len(path), ly.levels)
		}
		params, err := poseidon.New(ly.arity)
		if err != nil {
			return w, err
		}
		for _, e := range path {
			if len(e.Hashes) != ly.arity-1 {
				return w, fail(level, ly.name, "%d siblings, arity %d wants %d", len(e.Hashes), ly.arity, ly.arity-1)
			}
			want := rest % uint64(ly.arity)
			rest /= uint64(ly.arity)
			if e.Index != want {
				return w, fail(level, ly.name, "index %d, challenged leaf %d wants %d", e.Index, leafIndex, want)
			}
			in := make([]fr.Element, ly.arity)
			sib := make([]fr.Element, 0, ly.arity-1)
			for j, k := 0, 0; j < ly.arity; j++ {
				if uint64(j) == e.Index {
					in[j] = cur
					continue
				}
				if in[j], err = e.Hashes[k].Element(); err != nil {
					return w, fail(level, ly.name, "sibling %d: %v", k, err)
				}
				sib = append(sib, in[j])
				k++
			}
			if cur, err = params.Hash(in); err != nil {
				return w, err
			}
			w.Levels = append(w.Levels, LevelWitness{Siblings: sib, Index: e.Index})
			level++
		}
	}
	if rest != 0 {
		return w, fail(-1, "", "challenged leaf %d beyond the tree's %d leaves", leafIndex, i.Leaves())
	}
	got := DomainOf(&cur)
	if got != mp.Root {
		return w, fail(level, "root", "path hashes to %s, proof's root is %s", got, mp.Root)
	}
	if !cur.Equal(root) {
		return w, fail(level, "root", "path hashes to %s, comm_r_last is %s", got, DomainOf(root))
	}
	return w, nil
}
