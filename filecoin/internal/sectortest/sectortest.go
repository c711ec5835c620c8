// Package sectortest holds test helpers shared by the Filecoin packages.
package sectortest

import "math/rand/v2"

// RandomData returns size bytes of fr32 sector data from rng: byte i is byte(rng.Uint32()),
// then the top two bits of every 32-byte word's last byte are cleared, so that each word, read
// little-endian, is below 2^254 and hence a field element.
func RandomData(rng *rand.Rand, size uint64) []byte {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f
	}
	return data
}
