package devsetup

import (
	"io"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
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

// randomElement sets e to a uniform element of Fr read from src: 64 bytes reduced mod r, so the
// bias is below 2^-250.
func randomElement(src io.Reader, e *fr.Element) error {
	var buf [64]byte
	if _, err := io.ReadFull(src, buf[:]); err != nil {
		return err
	}
	e.SetBigInt(new(big.Int).SetBytes(buf[:]))
	return nil
}

// appendDense appends the elements of v whose index d marks.
func appendDense(dst, v []fr.Element, d *synth.Density) []fr.Element {
	for i := range v {
		if d.Has(i) {
			dst = append(dst, v[i])
		}
	}
	return dst
}
