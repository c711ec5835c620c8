package prover

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Randomness holds a proof's blinding scalars r and s. They must be secret and uniformly random:
// anyone who learns them for a proof learns the witness. NewRandomness draws them from
// crypto/rand; fixed values are for tests only.
type Randomness struct {
	R, S fr.Element
}

// NewRandomness draws r and s uniformly from Fr with crypto/rand.
func NewRandomness() (Randomness, error) { return randomnessFrom(rand.Reader) }

func randomnessFrom(src io.Reader) (Randomness, error) {
	var rs Randomness
	for _, e := range []*fr.Element{&rs.R, &rs.S} {
		if err := randomElement(src, e); err != nil {
			return Randomness{}, fmt.Errorf("draw proof randomness: %w", err)
		}
	}
	return rs, nil
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
