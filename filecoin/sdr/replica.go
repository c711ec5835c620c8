package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// truncatedElement reads a 32-byte digest as a little-endian field element after clearing its
// top two bits (fr32 bytes_into_fr_repr_safe; the value is < 2^254 < r).
func truncatedElement(d *[32]byte) fr.Element {
	b := *d
	b[31] &= 0x3f
	e, _ := fr.LittleEndian.Element(&b)
	return e
}

// Bytes returns the 32-byte little-endian encoding of x, a hash domain value's bytes.
func Bytes(x *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *x)
	return b
}

// ReplicaID returns SHA-256(prover_id ‖ sector_id u64 BE ‖ ticket ‖ comm_d ‖ porep_id) with the
// top two bits cleared, as a field element (storage-proofs-porep stacked/vanilla/params.rs
// generate_replica_id; filecoin-proofs api/seal.rs passes the porep id as porep_seed).
func ReplicaID(proverID [32]byte, sectorID uint64, ticket, commD, porepID [32]byte) fr.Element {
	h := sha256.New()
	h.Write(proverID[:])
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], sectorID)
	h.Write(s[:])
	h.Write(ticket[:])
	h.Write(commD[:])
	h.Write(porepID[:])
	var d [32]byte
	h.Sum(d[:0])
	return truncatedElement(&d)
}

// InteractiveChallenges returns the perPartition challenges of partition k: challenge i is
// (H mod (nodes − 1)) + 1 with H = SHA-256(replica_id ‖ seed ‖ j u32 LE) read as a little-endian
// integer and j = perPartition·k + i (stacked/vanilla/challenges.rs InteractiveChallenges::derive;
// never node 0).
func InteractiveChallenges(nodes uint64, replicaID *fr.Element, seed [32]byte, k, perPartition int) []uint64 {
	id := Bytes(replicaID)
	out := make([]uint64, perPartition)
	m := new(big.Int).SetUint64(nodes - 1)
	for i := range out {
		h := sha256.New()
		h.Write(id[:])
		h.Write(seed[:])
		var j [4]byte
		binary.LittleEndian.PutUint32(j[:], uint32(perPartition*k+i))
		h.Write(j[:])
		d := h.Sum(nil)
		for a, b := 0, len(d)-1; a < b; a, b = a+1, b-1 {
			d[a], d[b] = d[b], d[a]
		}
		v := new(big.Int).SetBytes(d)
		out[i] = v.Mod(v, m).Uint64() + 1
	}
	return out
}
