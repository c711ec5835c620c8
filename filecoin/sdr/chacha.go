package sdr

import (
	"encoding/binary"
	"math/bits"
)

// chacha8 is the ChaCha8 keystream generator of rand_chacha's ChaCha8Rng as BucketGraph seeds it:
// the 32-byte seed is the key, the 64-bit block counter starts at 0 and the 64-bit stream id is
// 0. Uint64 returns two consecutive 32-bit keystream words, the first as the low half (rand_core
// BlockRng::next_u64 when only u64s are drawn).
type chacha8 struct {
	key   [8]uint32
	ctr   uint64
	buf   [16]uint32
	index int
}

func newChaCha8(seed *[32]byte) *chacha8 {
	c := &chacha8{index: 16}
	for i := range c.key {
		c.key[i] = binary.LittleEndian.Uint32(seed[4*i:])
	}
	return c
}

func quarter(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d = bits.RotateLeft32(d^a, 16)
	c += d
	b = bits.RotateLeft32(b^c, 12)
	a += b
	d = bits.RotateLeft32(d^a, 8)
	c += d
	b = bits.RotateLeft32(b^c, 7)
	return a, b, c, d
}

// chachaBlock writes the block at counter ctr with stream id 0 after the given number of rounds.
func chachaBlock(out *[16]uint32, key *[8]uint32, ctr uint64, rounds int) {
	in := [16]uint32{0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
		key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
		uint32(ctr), uint32(ctr >> 32), 0, 0}
	x := in
	for r := 0; r < rounds; r += 2 {
		x[0], x[4], x[8], x[12] = quarter(x[0], x[4], x[8], x[12])
		x[1], x[5], x[9], x[13] = quarter(x[1], x[5], x[9], x[13])
		x[2], x[6], x[10], x[14] = quarter(x[2], x[6], x[10], x[14])
		x[3], x[7], x[11], x[15] = quarter(x[3], x[7], x[11], x[15])
		x[0], x[5], x[10], x[15] = quarter(x[0], x[5], x[10], x[15])
		x[1], x[6], x[11], x[12] = quarter(x[1], x[6], x[11], x[12])
		x[2], x[7], x[8], x[13] = quarter(x[2], x[7], x[8], x[13])
		x[3], x[4], x[9], x[14] = quarter(x[3], x[4], x[9], x[14])
	}
	for i := range out {
		out[i] = x[i] + in[i]
	}
}

func (c *chacha8) word() uint32 {
	if c.index == 16 {
		chachaBlock(&c.buf, &c.key, c.ctr, 8)
		c.ctr++
		c.index = 0
	}
	w := c.buf[c.index]
	c.index++
	return w
}

// Uint64 returns the next 64 bits of keystream, low word first.
func (c *chacha8) Uint64() uint64 {
	lo := c.word()
	return uint64(c.word())<<32 | uint64(lo)
}
