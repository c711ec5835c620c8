// Package sha256 is the SHA-256 compression function and hash (FIPS 180-4) as a circuit over
// synth.CS, bit-exact with crypto/sha256, following bellman's src/gadgets/sha256.rs
// (zkcrypto/bellman): message schedule and rounds on u32 words, additions deferred and packed
// with u32.MultiEq.
//
// Constraint counts (measured by this package's tests, equal to bellman's):
//
//	Compress, variable 512-bit block, constant IV:     25,840
//	Compress, variable block and variable state:      26,192
//	Hash of 512 variable bits (2 blocks, IV constant): 44,874
//
// Bits are most significant first within each 32-bit word and bytes in message order, as in
// bellman: Hash(cs, bits of message bytes MSB-first) returns the 256 digest bits MSB-first.
package sha256
