package prover

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// bigOf returns e as a canonical integer.
func bigOf(e *fr.Element) *big.Int {
	var b big.Int
	return e.BigInt(&b)
}

func bigUint(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

func fpOne() (e fp.Element) {
	e.SetOne()
	return e
}
