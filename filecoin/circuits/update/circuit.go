package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/merkle"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// ChallengeProof is one challenge's witness (circuit.rs ChallengeProof, without leaf_r_new,
// which the circuit computes): the challenged node in the old replica's tree R and its path,
// the new data's node in tree D and its binary path (one sibling per level), and the path in
// the new replica's tree R. Paths run from the leaves up; a tree R level holds arity − 1
// siblings.
type ChallengeProof struct {
	LeafROld fr.Element
	PathROld [][]fr.Element
	LeafDNew fr.Element
	PathDNew []fr.Element
	PathRNew [][]fr.Element
}

// Circuit is EmptySectorUpdateCircuit for partition K of a sector of Params.
type Circuit struct {
	Params Params

	// Public: the partition index K, the number of high challenge bits H (one of Params.HS),
	// and the commitments.
	K                            int
	H                            int
	CommROld, CommDNew, CommRNew fr.Element

	// Private: comm_c of the old replica, the roots of the old and new tree R, the partition's
	// ApexLeafCount apex leaves of tree D, and ChallengeCount challenge proofs.
	CommC, RootROld, RootRNew fr.Element
	ApexLeafs                 []fr.Element
	Challenges                []ChallengeProof

	blank bool
}

// Blank returns the circuit of p with zero values, for Compile and Count.
func Blank(p Params) *Circuit { return &Circuit{Params: p, H: p.HS[0], blank: true} }

// genRandomness is Poseidon arity 2 with storage-proofs-update constants.rs
// HASH_TYPE_GEN_RANDOMNESS = HashType::Custom(CType::Arbitrary(1)): the custom domain tag
// identifier·2^40 (neptune v11.0.0 src/hash_type.rs CType::domain_tag) in place of the
// Merkle-tree tag; the round constants and matrices are those of arity 2, which do not depend
// on the hash type.
var genRandomness = func() *poseidon.Params {
	p := *poseidon.Must(2)
	var tag fr.Element
	tag.SetUint64(1 << 40)
	p.DomainTag = tag
	return &p
}()

// GenRandomnessHash returns Poseidon₂ with the gen-randomness domain tag of a and b, as the
// circuit computes phi, rho and the challenge digests.
func GenRandomnessHash(a, b fr.Element) fr.Element {
	h, _ := genRandomness.Hash([]fr.Element{a, b}) // arity 2, two inputs: never fails
	return h
}

// KAndHSelect returns the packed public input k | h_select << PartitionBits, h_select = 2^i for
// H = HS[i] (circuit.rs PublicInputs::new; constants.rs h_select).
func (p Params) KAndHSelect(k, h int) (uint64, error) {
	if k < 0 || k >= p.PartitionCount {
		return 0, fmt.Errorf("update: partition %d out of %d", k, p.PartitionCount)
	}
	for i, allowed := range p.HS {
		if allowed == h {
			return uint64(k) | uint64(1)<<uint(i)<<uint(p.PartitionBits()), nil
		}
	}
	return 0, fmt.Errorf("update: h = %d not among %v", h, p.HS)
}

// check validates the witness lengths against the parameters.
func (c *Circuit) check() (uint64, error) {
	p := c.Params
	khs, err := p.KAndHSelect(c.K, c.H)
	if err != nil || c.blank {
		return khs, err
	}
	if len(c.ApexLeafs) != p.ApexLeafCount {
		return 0, fmt.Errorf("update: %d apex leaves, want %d", len(c.ApexLeafs), p.ApexLeafCount)
	}
	if len(c.Challenges) != p.ChallengeCount {
		return 0, fmt.Errorf("update: %d challenge proofs, want %d", len(c.Challenges), p.ChallengeCount)
	}
	arities := p.Arities()
	for i, ch := range c.Challenges {
		if len(ch.PathDNew) != p.ChallengeBits() {
			return 0, fmt.Errorf("update: challenge %d: tree D path of %d levels, want %d", i, len(ch.PathDNew), p.ChallengeBits())
		}
		for name, path := range map[string][][]fr.Element{"old": ch.PathROld, "new": ch.PathRNew} {
			if len(path) != len(arities) {
				return 0, fmt.Errorf("update: challenge %d: %s tree R path of %d levels, want %d", i, name, len(path), len(arities))
			}
			for l, s := range path {
				if len(s) != arities[l]-1 {
					return 0, fmt.Errorf("update: challenge %d: %s tree R level %d has %d siblings, want %d", i, name, l, len(s), arities[l]-1)
				}
			}
		}
		for j := p.ChallengeBits() - p.PartitionBits(); j < p.ChallengeBits(); j++ {
			if !ch.PathDNew[j].Equal(&c.Challenges[0].PathDNew[j]) {
				return 0, fmt.Errorf("update: challenge %d: tree D path level %d leaves the partition path of challenge 0", i, j)
			}
		}
	}
	return khs, nil
}

// zeros returns n zero elements.
func zeros(n int) []fr.Element { return make([]fr.Element, n) }

// Synthesize builds the circuit exactly as circuit.rs EmptySectorUpdateCircuit::synthesize:
// the same variables in the same order and the same constraints.
func (c *Circuit) Synthesize(cs *synth.CS) error {
	khsValue, err := c.check()
	if err != nil {
		return err
	}
	p := c.Params
	chBits, partBits, apexBits := p.ChallengeBits(), p.PartitionBits(), p.ApexLeafBits()
	arities := p.Arities()
	apexLeafVals, challenges := c.ApexLeafs, c.Challenges
	if c.blank {
		apexLeafVals = zeros(p.ApexLeafCount)
		challenges = make([]ChallengeProof, p.ChallengeCount)
		for i := range challenges {
			ch := &challenges[i]
			ch.PathDNew = zeros(chBits)
			ch.PathROld = make([][]fr.Element, len(arities))
			for l, a := range arities {
				ch.PathROld[l] = zeros(a - 1)
			}
			ch.PathRNew = ch.PathROld
		}
	}

	// k_and_h_select: allocated, inputized, and decomposed into partition and h-select bits.
	var khsElt fr.Element
	khsElt.SetUint64(khsValue)
	cs.Push("k_and_h_select")
	khs := num.Alloc(cs, khsElt)
	cs.Pop()
	cs.Push("k_and_h_select (public input)")
	khs.Inputize(cs)
	cs.Pop()
	nbits := partBits + len(p.HS)
	khsBits := make([]boolean.Bit, nbits)
	for i := range khsBits {
		cs.PushIndex("k_and_h_select_bit", i)
		khsBits[i] = boolean.Alloc(cs, khsValue>>uint(i)&1 == 1)
		cs.Pop()
	}
	enforcePacked(cs, "k_and_h_select binary decomp", khsBits, khs)
	partitionBits, hSelectBits := khsBits[:partBits], khsBits[partBits:]
	cs.Push("pack partition bits")
	partition := num.PackBits(cs, partitionBits)
	cs.Pop()

	commROld := allocInput(cs, "comm_r_old", c.CommROld)
	commDNew := allocInput(cs, "comm_d_new", c.CommDNew)
	commRNew := allocInput(cs, "comm_r_new", c.CommRNew)

	cs.Push("phi")
	phi, err := genRandomness.HashCircuit(cs, []num.Num{commDNew, commROld})
	cs.Pop()
	if err != nil {
		return err
	}

	cs.Push("comm_c")
	commC := num.Alloc(cs, c.CommC)
	cs.Pop()
	cs.Push("root_r_old")
	rootROld := num.Alloc(cs, c.RootROld)
	cs.Pop()
	cs.Push("root_r_new")
	rootRNew := num.Alloc(cs, c.RootRNew)
	cs.Pop()
	apexLeafs := make([]num.Num, p.ApexLeafCount)
	for i := range apexLeafs {
		cs.PushIndex("apex_leaf", i)
		apexLeafs[i] = num.Alloc(cs, apexLeafVals[i])
		cs.Pop()
	}
	partitionPath := make([][]num.Num, partBits)
	for i := range partitionPath {
		cs.PushIndex("partition_path_sibling", i)
		partitionPath[i] = []num.Num{num.Alloc(cs, challenges[0].PathDNew[chBits-partBits+i])}
		cs.Pop()
	}

	// comm_r = Poseidon₂(comm_c, root_r) for the old and the new replica.
	p2 := poseidon.Must(2)
	for _, r := range []struct {
		name       string
		root, comm num.Num
	}{{"comm_r_old", rootROld, commROld}, {"comm_r_new", rootRNew, commRNew}} {
		cs.Push(r.name + "_calc")
		calc, err := p2.HashCircuit(cs, []num.Num{commC, r.root})
		cs.Pop()
		if err != nil {
			return err
		}
		cs.Push("enforce " + r.name + "_calc == " + r.name)
		num.EnforceEqual(cs, calc, r.comm)
		cs.Pop()
	}

	cs.Push("apex_gadget")
	err = apexPoR(cs, apexLeafs, partitionBits, partitionPath, commDNew)
	cs.Pop()
	if err != nil {
		return err
	}

	cs.Push("gen_challenge_bits")
	generated, err := genChallengeBits(cs, p, commRNew, partition, chBits-partBits)
	cs.Pop()
	if err != nil {
		return err
	}

	treeR := func(arity int) (merkle.HashCircuit, error) {
		h, err := poseidon.New(arity)
		if err != nil {
			return nil, err
		}
		return merkle.PoseidonNodeCircuit(h), nil
	}
	treeD := func(int) (merkle.HashCircuit, error) { return merkle.Sha256NodeCircuit, nil }
	binary := make([]int, chBits-partBits-apexBits)
	for i := range binary {
		binary[i] = 2
	}
	for ci, gen := range generated {
		if err := synthesizeChallenge(cs, ci, p, &challenges[ci], append(gen, partitionBits...), hSelectBits,
			phi, rootROld, rootRNew, apexLeafs, arities, binary, treeR, treeD); err != nil {
			return fmt.Errorf("challenge %d: %w", ci, err)
		}
	}
	return nil
}

// synthesizeChallenge is the body of synthesize's challenge loop: rho, the new label, the two
// tree R inclusions and the tree D inclusion up to the selected apex leaf.
func synthesizeChallenge(cs *synth.CS, ci int, p Params, ch *ChallengeProof, cBits, hSelectBits []boolean.Bit,
	phi, rootROld, rootRNew num.Num, apexLeafs []num.Num, arities, binary []int,
	treeR, treeD func(int) (merkle.HashCircuit, error)) error {
	cs.PushIndex("get_challenge_high_bits (c_index)", ci)
	cHigh := challengeHighBits(cs, cBits, hSelectBits, p.HS[:])
	cs.Pop()
	cs.PushIndex("rho (c_index)", ci)
	rho, err := genRandomness.HashCircuit(cs, []num.Num{phi, cHigh})
	cs.Pop()
	if err != nil {
		return err
	}
	cs.PushIndex("leaf_r_old (c_index)", ci)
	leafROld := num.Alloc(cs, ch.LeafROld)
	cs.Pop()
	cs.PushIndex("leaf_d_new (c_index)", ci)
	leafDNew := num.Alloc(cs, ch.LeafDNew)
	cs.Pop()
	// label_r_new = label_r_old + label_d_new·rho (gadgets.rs label_r_new).
	cs.PushIndex("leaf_r_new (c_index)", ci)
	dRho := num.Mul(cs, leafDNew, rho)
	leafRNew := num.Add(cs, leafROld, dRho)
	cs.Pop()

	for _, tr := range []struct {
		name       string
		path       [][]fr.Element
		leaf, root num.Num
	}{{"tree_r_old", ch.PathROld, leafROld, rootROld}, {"tree_r_new", ch.PathRNew, leafRNew, rootRNew}} {
		cs.PushIndex("path_"+tr.name[5:]+" siblings (c_index)", ci)
		sib := allocPath(cs, tr.path)
		cs.Pop()
		cs.PushIndex("por "+tr.name+" (c_index)", ci)
		err := porNoChallengeInput(cs, cBits, tr.leaf, sib, arities, tr.root, treeR)
		cs.Pop()
		if err != nil {
			return err
		}
	}

	chBits, partBits, apexBits := p.ChallengeBits(), p.PartitionBits(), p.ApexLeafBits()
	start := chBits - partBits - apexBits
	cs.PushIndex("select_apex_leaf (c_index)", ci)
	apexLeaf := merkle.Select(cs, apexLeafs, cBits[start:start+apexBits])
	cs.Pop()
	toApex := make([][]fr.Element, start)
	for l := range toApex {
		toApex[l] = ch.PathDNew[l : l+1]
	}
	cs.PushIndex("path_to_apex_leaf siblings (c_index)", ci)
	sib := allocPath(cs, toApex)
	cs.Pop()
	cs.PushIndex("por to_apex_leaf (c_index)", ci)
	err = porNoChallengeInput(cs, cBits[:start], leafDNew, sib, binary, apexLeaf, treeD)
	cs.Pop()
	return err
}

// allocInput allocates v and inputizes it (AllocatedNum::alloc then inputize).
func allocInput(cs *synth.CS, name string, v fr.Element) num.Num {
	cs.Push(name)
	n := num.Alloc(cs, v)
	cs.Pop()
	cs.Push(name + "_input")
	n.Inputize(cs)
	cs.Pop()
	return n
}

// allocPath allocates every sibling of a path, level by level.
func allocPath(cs *synth.CS, path [][]fr.Element) [][]num.Num {
	out := make([][]num.Num, len(path))
	for l, s := range path {
		out[l] = make([]num.Num, len(s))
		for i := range s {
			out[l][i] = num.Alloc(cs, s[i])
		}
	}
	return out
}

// enforcePacked enforces (Σ 2^i·bits[i])·1 = n, one constraint.
func enforcePacked(cs *synth.CS, name string, bits []boolean.Bit, n num.Num) {
	if !cs.RecordsLC() {
		cs.Enforce(name, nil, nil, nil)
		return
	}
	lc := make(synth.LC, 0, len(bits))
	for i, b := range bits {
		lc = b.AppendLC(lc, num.Pow2[i])
	}
	cs.Enforce(name, lc, synth.V(synth.One), synth.V(n.Var))
}

// toBits allocates the 255 little-endian bits of n and enforces their packing equals n, 256
// constraints (gadgets.rs allocated_num_to_allocated_bits: field_into_allocated_bits_le, then
// (Σ 2^i·b_i)·1 = n).
func toBits(cs *synth.CS, n num.Num) []boolean.Bit {
	limbs := n.Value.Bits()
	out := make([]boolean.Bit, 255)
	for i := range out {
		cs.PushIndex("bit", i)
		out[i] = boolean.Alloc(cs, limbs[i/64]>>uint(i%64)&1 == 1)
		cs.Pop()
	}
	enforcePacked(cs, "binary decomp", out, n)
	return out
}

// apexPoR is gadgets.rs apex_por: the apex tree over the partition's apex leaves (SHA-256
// hash2 per pair, row by row), then its root proven under comm_d along partitionPath with the
// partition bits as the path's index.
func apexPoR(cs *synth.CS, leafs []num.Num, partitionBits []boolean.Bit, partitionPath [][]num.Num, commD num.Num) error {
	row := leafs
	for r := 0; len(row) > 1; r++ {
		next := make([]num.Num, len(row)/2)
		for i := range next {
			cs.Push(fmt.Sprintf("apex_tree generation hash (tree_row=%d, siblings=%d)", r, i))
			h, err := merkle.Sha256NodeCircuit(cs, row[2*i:2*i+2])
			cs.Pop()
			if err != nil {
				return err
			}
			next[i] = h
		}
		row = next
	}
	binary := make([]int, len(partitionPath))
	for i := range binary {
		binary[i] = 2
	}
	cs.Push("partition-tree por")
	defer cs.Pop()
	return porNoChallengeInput(cs, partitionBits, row[0], partitionPath, binary,
		commD, func(int) (merkle.HashCircuit, error) { return merkle.Sha256NodeCircuit, nil })
}

// porNoChallengeInput is storage-proofs-core por.rs por_no_challenge_input: per level, insert
// the running hash among the (already allocated) siblings at the position the next
// log2(arity) challenge bits give, and hash; then computed root·1 = root. The bits are not
// exposed as inputs.
func porNoChallengeInput(cs *synth.CS, bits []boolean.Bit, leaf num.Num, path [][]num.Num, arities []int,
	root num.Num, hashFor func(int) (merkle.HashCircuit, error)) error {
	if len(path) != len(arities) {
		return fmt.Errorf("update: path of %d levels, tree of %d", len(path), len(arities))
	}
	cur := leaf
	var children []num.Num
	used := 0
	for h, a := range arities {
		n := 0
		for 1<<n < a {
			n++
		}
		if used+n > len(bits) {
			return fmt.Errorf("update: %d challenge bits for a tree of %d levels", len(bits), len(arities))
		}
		cs.PushIndex("merkle proof insert (height)", h)
		var err error
		children, err = merkle.Insert(cs, cur, bits[used:used+n], path[h], children[:0])
		cs.Pop()
		if err != nil {
			return err
		}
		used += n
		hash, err := hashFor(a)
		if err != nil {
			return err
		}
		cs.PushIndex("merkle proof hash (height)", h)
		cur, err = hash(cs, children)
		cs.Pop()
		if err != nil {
			return err
		}
	}
	if used != len(bits) {
		return fmt.Errorf("update: %d challenge bits, the tree uses %d", len(bits), used)
	}
	cs.Push("calculated root == provided root")
	num.EnforceEqual(cs, cur, root)
	cs.Pop()
	return nil
}

// genChallengeBits is gadgets.rs gen_challenge_bits: per digest j, digest_index = k·D + j
// (allocated, one constraint), digest = Poseidon_GR(comm_r_new, digest_index), its 255 bits,
// cut into ⌊254/bitsPer⌋ challenges of bitsPer bits (fewer from the last digest).
func genChallengeBits(cs *synth.CS, p Params, commRNew, partition num.Num, bitsPer int) ([][]boolean.Bit, error) {
	perDigest := 254 / bitsPer
	digests := p.DigestsPerPartition()
	var dElt fr.Element
	dElt.SetUint64(uint64(digests))
	out := make([][]boolean.Bit, 0, p.ChallengeCount)
	for j := 0; j < digests; j++ {
		var jElt, v fr.Element
		jElt.SetUint64(uint64(j))
		v.Mul(&partition.Value, &dElt).Add(&v, &jElt)
		cs.PushIndex("digest_index", j)
		idx := num.Alloc(cs, v)
		cs.Pop()
		name := fmt.Sprintf("digest_index_%d == k * digests_per_partition + %d", j, j)
		if cs.RecordsLC() {
			cs.Enforce(name, synth.LC{{Coeff: dElt, Var: partition.Var}, {Coeff: jElt, Var: synth.One}}, synth.V(synth.One), synth.V(idx.Var))
		} else {
			cs.Enforce(name, nil, nil, nil)
		}
		cs.PushIndex("digest", j)
		digest, err := genRandomness.HashCircuit(cs, []num.Num{commRNew, idx})
		cs.Pop()
		if err != nil {
			return nil, err
		}
		cs.PushIndex("digest_bits", j)
		bits := toBits(cs, digest)
		cs.Pop()
		take := perDigest
		if j == digests-1 {
			take = p.ChallengeCount - len(out)
		}
		for t := 0; t < take; t++ {
			out = append(out, bits[t*bitsPer:(t+1)*bitsPer:(t+1)*bitsPer]) // capped: callers append to it
		}
	}
	return out, nil
}

// challengeHighBits is gadgets.rs get_challenge_high_bits: for each allowed h, the h high bits
// of the challenge packed (one constraint), times its h-select bit (allocated, one
// constraint); then their sum (allocated, one constraint), the selected c_high.
func challengeHighBits(cs *synth.CS, cBits, hSelectBits []boolean.Bit, hs []int) num.Num {
	var sum fr.Element
	terms := make([]num.Num, len(hs))
	for k, h := range hs {
		cs.Push(fmt.Sprintf("c_high (h=%d, k=%d)", h, k))
		high := num.PackBits(cs, cBits[len(cBits)-h:])
		cs.Pop()
		var v fr.Element
		if hSelectBits[k].Value() {
			v = high.Value
		}
		cs.Push(fmt.Sprintf("c_high_or_zero (h=%d, k=%d)", h, k))
		terms[k] = num.Alloc(cs, v)
		cs.Pop()
		name := fmt.Sprintf("c_high_or_zero == c_high * h_select_bit (h=%d, k=%d)", h, k)
		if cs.RecordsLC() {
			cs.Enforce(name, synth.V(high.Var), hSelectBits[k].LC(), synth.V(terms[k].Var))
		} else {
			cs.Enforce(name, nil, nil, nil)
		}
		sum.Add(&sum, &v)
	}
	cs.Push("c_high_selected")
	sel := num.Alloc(cs, sum)
	cs.Pop()
	if cs.RecordsLC() {
		lc := make(synth.LC, 0, len(terms))
		for _, t := range terms {
			lc = lc.Add(t.Var)
		}
		cs.Enforce("c_high_selected == dot(c_highs, h_select_bits)", lc, synth.V(synth.One), synth.V(sel.Var))
	} else {
		cs.Enforce("c_high_selected == dot(c_highs, h_select_bits)", nil, nil, nil)
	}
	return sel
}
