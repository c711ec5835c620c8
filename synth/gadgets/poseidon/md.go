package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
)

// MDArity is the arity of Filecoin's Merkle–Damgård Poseidon (filecoin-hashers poseidon_types.rs
// PoseidonMDArity = U36).
const MDArity = 36

// HashMD is filecoin-hashers PoseidonFunction::hash_md: the chaining value starts at inputs[0];
// each chunk of up to 35 further inputs is hashed with Poseidon arity 36 as [acc, chunk…, 0…].
// It needs at least two inputs.
func HashMD(inputs []fr.Element) (fr.Element, error) {
	if len(inputs) < 2 {
		return fr.Element{}, fmt.Errorf("poseidon: hash_md of %d elements, needs at least 2", len(inputs))
	}
	p := Must(MDArity)
	acc := inputs[0]
	pre := make([]fr.Element, MDArity)
	for i := 1; i < len(inputs); i += MDArity - 1 {
		chunk := inputs[i:min(i+MDArity-1, len(inputs))]
		clear(pre)
		pre[0] = acc
		copy(pre[1:], chunk)
		var err error
		if acc, err = p.Hash(pre); err != nil {
			return fr.Element{}, err
		}
	}
	return acc, nil
}

// HashMDCircuit is HashMD in a circuit (filecoin-hashers hash_md_circuit): a short last chunk is
// padded with allocated zeros (no constraint), and each chunk costs one arity-36 Poseidon
// (1,385 constraints).
func HashMDCircuit(cs *synth.CS, elements []num.Num) (num.Num, error) {
	if len(elements) < 2 {
		return num.Num{}, fmt.Errorf("poseidon: hash_md of %d elements, needs at least 2", len(elements))
	}
	p := Must(MDArity)
	hash := elements[0]
	pre := make([]num.Num, MDArity)
	for k, i := 0, 1; i < len(elements); k, i = k+1, i+MDArity-1 {
		chunk := elements[i:min(i+MDArity-1, len(elements))]
		pre[0] = hash
		copy(pre[1:], chunk)
		for j := len(chunk) + 1; j < MDArity; j++ {
			pre[j] = num.Alloc(cs, fr.Element{})
		}
		cs.PushIndex("hash md", k)
		var err error
		hash, err = p.HashCircuit(cs, pre)
		cs.Pop()
		if err != nil {
			return num.Num{}, err
		}
	}
	return hash, nil
}
