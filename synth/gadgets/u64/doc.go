// Package u64 is storage-proofs-core's UInt64 gadget (gadgets/uint64.rs): a 64-bit number as
// 64 Booleans, least significant first, exposed as one public input by PackIntoInput.
package u64
