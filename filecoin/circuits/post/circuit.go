package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// Challenge is one challenged leaf of a sector: rust-fil-proofs Sector.leafs[i] and paths[i].
type Challenge struct {
	// LeafIndex is the challenged leaf's index in tree R; the circuit exposes it as a public
	// input through the path's index bits (per level, the position among the siblings).
	LeafIndex uint64
	// Leaf is the leaf's value.
	Leaf fr.Element
	// Path holds, per level from the leaves up, the arity − 1 siblings in order (the node on the
	// path left out).
	Path [][]fr.Element
}

// Sector is one sector's part of the circuit: rust-fil-proofs fallback::circuit::Sector.
type Sector struct {
	CommR      fr.Element // comm_r = Poseidon2(comm_c, comm_r_last), public
	CommC      fr.Element // comm_c
	CommRLast  fr.Element // comm_r_last, the root of tree R
	Challenges []Challenge
}

// Circuit is FallbackPoStCircuit: Params.SectorCount sectors of Params.ChallengeCount
// challenges each. Pad a short WindowPoSt partition with PadSectors first.
type Circuit struct {
	Params  Params
	Sectors []Sector
	blank   bool
}

// Blank returns the circuit of p with zero values, for Compile and Count.
func Blank(p Params) *Circuit { return &Circuit{Params: p, blank: true} }

// PadSectors returns sectors extended to n by repeating the last one, as a WindowPoSt
// partition is padded (storage-proofs-post fallback prove_all_partitions).
func PadSectors(sectors []Sector, n int) []Sector {
	out := append([]Sector(nil), sectors...)
	for len(out) > 0 && len(out) < n {
		out = append(out, out[len(out)-1])
	}
	return out
}

// PublicInputs returns the public inputs of sectors, without the leading One:
// [comm_r, leaf index_1 … leaf index_n] per sector (fallback compound.rs
// generate_public_inputs).
func PublicInputs(sectors []Sector) []fr.Element {
	var out []fr.Element
	for _, s := range sectors {
		out = append(out, s.CommR)
		for _, c := range s.Challenges {
			var x fr.Element
			x.SetUint64(c.LeafIndex)
			out = append(out, x)
		}
	}
	return out
}

// treeHashes returns the tree R node hash for each arity in arities, Poseidon with neptune's
// MerkleTree constants, looked up once rather than per level.
func treeHashes(arities []int) (func(arity int) (merkle.HashCircuit, error), error) {
	m := map[int]merkle.HashCircuit{}
	for _, a := range arities {
		p, err := poseidon.New(a)
		if err != nil {
			return nil, err
		}
		m[a] = merkle.PoseidonNodeCircuit(p)
	}
	return func(arity int) (merkle.HashCircuit, error) {
		h, ok := m[arity]
		if !ok {
			return nil, fmt.Errorf("post: no tree hash of arity %d", arity)
		}
		return h, nil
	}, nil
}

// check validates the sectors against the parameters and returns the level arities.
func (c *Circuit) check() ([]int, error) {
	p := c.Params
	if err := p.Validate(); err != nil {
		return nil, err
	}
	arities, err := p.Arities()
	if err != nil {
		return nil, err
	}
	if c.blank {
		return arities, nil
	}
	if len(c.Sectors) != p.SectorCount {
		return nil, fmt.Errorf("post: %d sectors, the circuit takes %d (pad with PadSectors)", len(c.Sectors), p.SectorCount)
	}
	for i, s := range c.Sectors {
		if len(s.Challenges) != p.ChallengeCount {
			return nil, fmt.Errorf("post: sector %d has %d challenges, want %d", i, len(s.Challenges), p.ChallengeCount)
		}
		for j, ch := range s.Challenges {
			if ch.LeafIndex >= p.Leaves() {
				return nil, fmt.Errorf("post: sector %d challenge %d: leaf index %d out of %d leaves", i, j, ch.LeafIndex, p.Leaves())
			}
			if len(ch.Path) != len(arities) {
				return nil, fmt.Errorf("post: sector %d challenge %d: path has %d levels, tree R %d", i, j, len(ch.Path), len(arities))
			}
			for l, sib := range ch.Path {
				if len(sib) != arities[l]-1 {
					return nil, fmt.Errorf("post: sector %d challenge %d level %d: %d siblings, want %d", i, j, l, len(sib), arities[l]-1)
				}
			}
		}
	}
	return arities, nil
}

// Synthesize builds the circuit (FallbackPoStCircuit::synthesize; the sectors are independent
// and Synthesize runs them concurrently, as synthesize_extendable does).
func (c *Circuit) Synthesize(cs *synth.CS) error {
	arities, err := c.check()
	if err != nil {
		return err
	}
	hash2, err := poseidon.New(2)
	if err != nil {
		return err
	}
	hashFor, err := treeHashes(arities)
	if err != nil {
		return err
	}
	var blank Sector
	if c.blank {
		blank = blankSector(c.Params, arities)
	}
	return cs.Parallel(c.Params.SectorCount, func(i int, sub *synth.CS) error {
		s := &blank
		if !c.blank {
			s = &c.Sectors[i]
		}
		sub.PushIndex("sector", i)
		defer sub.Pop()
		if err := synthesizeSector(sub, s, arities, hash2, hashFor); err != nil {
			return fmt.Errorf("sector %d: %w", i, err)
		}
		return nil
	})
}

// blankSector returns a sector of zeros shaped by p.
func blankSector(p Params, arities []int) Sector {
	path := make([][]fr.Element, len(arities))
	for l, a := range arities {
		path[l] = make([]fr.Element, a-1)
	}
	s := Sector{Challenges: make([]Challenge, p.ChallengeCount)}
	for j := range s.Challenges {
		s.Challenges[j].Path = path
	}
	return s
}

// synthesizeSector is `impl Circuit for &Sector`.
func synthesizeSector(cs *synth.CS, s *Sector, arities []int, hash2 *poseidon.Params, hashFor func(int) (merkle.HashCircuit, error)) error {
	cs.Push("comm_r_last")
	commRLast := num.Alloc(cs, s.CommRLast)
	cs.Pop()
	cs.Push("comm_c")
	commC := num.Alloc(cs, s.CommC)
	cs.Pop()
	cs.Push("comm_r")
	commR := num.Alloc(cs, s.CommR)
	cs.Pop()
	cs.Push("comm_r_input")
	commR.Inputize(cs)
	cs.Pop()
	cs.Push("H_comm_c_comm_r_last")
	h, err := hash2.HashCircuit(cs, []num.Num{commC, commRLast})
	cs.Pop()
	if err != nil {
		return err
	}
	cs.Push("enforce_comm_c_comm_r_last_hash_comm_r")
	num.EnforceEqual(cs, commR, h)
	cs.Pop()
	for j := range s.Challenges {
		ch := &s.Challenges[j]
		cs.PushIndex("challenge_inclusion", j)
		cs.Push("value")
		leaf := num.Alloc(cs, ch.Leaf)
		cs.Pop()
		err := merkle.PoR(cs, leaf, ch.LeafIndex, arities, ch.Path, commRLast, hashFor)
		cs.Pop()
		if err != nil {
			return fmt.Errorf("challenge %d: %w", j, err)
		}
	}
	return nil
}

// Count returns the number of constraints, of public inputs (One included) and of aux
// variables of the circuit of p, without building it whole: it counts one blank sector and
// scales, which is exact because every sector is synthesized the same way, independently of the
// others (the property synthesize_extendable relies on), and the circuit's shape does not depend
// on its values.
func Count(p Params) (constraints, inputs, aux int, err error) {
	one := p
	one.SectorCount = 1
	c, in, a, err := synth.Count(Blank(one))
	if err != nil {
		return 0, 0, 0, err
	}
	n := p.SectorCount
	return c * n, 1 + (in-1)*n, a * n, nil
}
