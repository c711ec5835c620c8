// Package u32 holds 32-bit word gadgets for SHA-256 over synth.CS: a UInt32 is 32 boolean.Bits,
// least significant first, with its value. Rotations and shifts are free (they permute bits);
// Xor costs one constraint per non-constant bit pair; AddMany adds up to 10 words modulo 2^32 by
// allocating the bits of the full sum (one booleanity constraint each) and enforcing one
// equality, which MultiEq packs with other equalities into one constraint per 253 bits.
//
// This follows bellman's src/gadgets/{uint32,multieq}.rs (zkcrypto/bellman), so constraint
// counts match: see the sha256 package.
//
// The package is named u32 rather than uint32 so that importing it does not shadow the builtin.
package u32
