// Package num holds field-element gadgets over synth.CS: Num (bellman's AllocatedNum) with mul,
// square, inverse, equality, conditional swap and pick, and packing between bits and field
// elements (bellman's multipack, Filecoin's pack_bits).
//
// Constraint counts follow bellman (src/gadgets/num.rs, src/gadgets/multipack.rs) and
// rust-fil-proofs (storage-proofs-core/src/gadgets/{constraint,insertion,multipack}.rs):
//
//	Alloc 0, Mul 1, Square 1, Inverse 1, AssertNonzero 1, EnforceEqual 1, IsEqual 2, Add 1,
//	Pick 1, ConditionalSwap 2, Inputize 1, ToBitsLE 256 (255 booleanity + 1 unpacking),
//	PackBits 1, PackIntoInputs 1 per 254 bits.
//
// Usage:
//
//	x := num.Alloc(cs, v)
//	y := num.Square(cs, x)
//	bits := x.ToBitsLE(cs, nil) // 255 bits, least significant first
package num
