package post

import (
	"encoding/hex"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Domain is a Poseidon-hasher domain element as rust-fil-proofs stores it (filecoin-hashers
// poseidon.rs PoseidonDomain): the 32-byte little-endian representation of an Fr element.
// Commitments (comm_r, comm_c, comm_r_last), tree nodes and PoSt randomness are Domains.
type Domain [32]byte

// Element returns d as an Fr element, or an error if d is not canonical (≥ r), as
// Fr::from_repr rejects it.
func (d Domain) Element() (fr.Element, error) {
	e, err := fr.LittleEndian.Element((*[32]byte)(&d))
	if err != nil {
		return fr.Element{}, fmt.Errorf("domain element %s not canonical: %w", hex.EncodeToString(d[:]), err)
	}
	return e, nil
}

// DomainOf returns the little-endian representation of e.
func DomainOf(e *fr.Element) Domain {
	var d Domain
	fr.LittleEndian.PutElement((*[32]byte)(&d), *e)
	return d
}

// String returns d in hex, in storage (little-endian) byte order.
func (d Domain) String() string { return hex.EncodeToString(d[:]) }
