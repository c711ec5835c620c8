// Package boolean holds Boolean gadgets over synth.CS: allocation with booleanity, not, and, or,
// xor, select and SHA-256's ch and maj.
//
// A Bit is either a constant (known 0 or 1, no variable, as bellman's Boolean::Constant), an
// allocated variable b, or the negation 1 − b of one. Constants and negations cost no constraint;
// gadgets fold them away where bellman does, so constraint counts match bellman's gadgets
// (src/gadgets/boolean.rs, zkcrypto/bellman).
//
// Every gadget computes its witness values natively and, while the circuit is only being
// synthesized (cs.RecordsLC() false), passes no linear combinations to Enforce: the witness path
// allocates nothing on the heap.
//
// Usage:
//
//	a := boolean.Alloc(cs, true)
//	b := boolean.Alloc(cs, false)
//	c := boolean.Xor(cs, a, b.Not()) // one constraint "xor"
package boolean
