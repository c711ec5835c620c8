package sdr

import (
	"encoding/binary"

	"golang.org/x/crypto/blake2b"
)

// feistelRounds is the number of rounds of the expander's Feistel permutation
// (storage-proofs-core src/crypto/feistel.rs FEISTEL_ROUNDS).
const feistelRounds = 3

// feistel is the keyed permutation of [0, n) that picks expander parents
// (storage-proofs-core src/crypto/feistel.rs): a 3-round balanced Feistel network on 2·halfBits
// bits (the least even bit count covering n, at least 4), cycle-walked until the result is < n.
type feistel struct {
	n                  uint64
	keys               [4]uint64
	leftMask, rightMsk uint64
	halfBits           uint
}

func newFeistel(n uint64, keys [4]uint64) feistel {
	next, log4 := uint64(4), uint(1)
	for next < n {
		next *= 4
		log4++
	}
	return feistel{n: n, keys: keys, leftMask: ((1 << log4) - 1) << log4, rightMsk: (1 << log4) - 1, halfBits: log4}
}

// round returns the round function F(right, key): the first 8 bytes, big-endian, of
// BLAKE2b-512(right as u64 BE ‖ key as u64 BE), masked to the right half.
func (f *feistel) round(right, key uint64) uint64 {
	var data [16]byte
	binary.BigEndian.PutUint64(data[:8], right)
	binary.BigEndian.PutUint64(data[8:], key)
	h := blake2b.Sum512(data[:])
	return binary.BigEndian.Uint64(h[:8]) & f.rightMsk
}

func (f *feistel) encode(index uint64) uint64 {
	left, right := (index&f.leftMask)>>f.halfBits, index&f.rightMsk
	for i := 0; i < feistelRounds; i++ {
		left, right = right, left^f.round(right, f.keys[i])
	}
	return left<<f.halfBits | right
}

func (f *feistel) decode(index uint64) uint64 {
	left, right := (index&f.leftMask)>>f.halfBits, index&f.rightMsk
	for i := feistelRounds - 1; i >= 0; i-- {
		left, right = right^f.round(left, f.keys[i]), left
	}
	return left<<f.halfBits | right
}

// permute maps index in [0, n) to its image in [0, n).
func (f *feistel) permute(index uint64) uint64 {
	u := f.encode(index)
	for u >= f.n {
		u = f.encode(u)
	}
	return u
}

// invert is the inverse of permute.
func (f *feistel) invert(index uint64) uint64 {
	u := f.decode(index)
	for u >= f.n {
		u = f.decode(u)
	}
	return u
}
