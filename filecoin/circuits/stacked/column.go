package stacked

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/num"
	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// AllocColumn allocates a column's rows, one value per layer, in order (column.rs
// AllocatedColumn::alloc; no constraint).
func AllocColumn(cs *synth.CS, rows []fr.Element) []num.Num {
	out := make([]num.Num, len(rows))
	for i, v := range rows {
		out[i] = num.Alloc(cs, v)
	}
	return out
}

// HashColumn returns the Poseidon hash of a column of 2 or 11 rows (hash.rs
// hash_single_column: neptune's circuit with arity 2 or 11, 311 or 598 constraints).
func HashColumn(cs *synth.CS, column []num.Num) (num.Num, error) {
	if n := len(column); n != 2 && n != 11 {
		return num.Num{}, fmt.Errorf("stacked: unsupported column size %d (2 or 11 layers)", n)
	}
	p, err := poseidon.New(len(column))
	if err != nil {
		return num.Num{}, err
	}
	return p.HashCircuit(cs, column)
}
