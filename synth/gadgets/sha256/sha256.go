package sha256

import (
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/u32"
)

// roundConstants are SHA-256's K (FIPS 180-4 §4.2.2).
var roundConstants = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// initialState is SHA-256's H(0) (FIPS 180-4 §5.3.3).
var initialState = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// IV returns SHA-256's initial state as constant words.
func IV() [8]u32.UInt32 {
	var s [8]u32.UInt32
	for i, v := range initialState {
		s[i] = u32.Constant(v)
	}
	return s
}

// maybe is a word whose addition may still be pending (bellman's Maybe): the sum of ops[:n].
type maybe struct {
	concrete bool
	v        u32.UInt32
	ops      [8]u32.UInt32
	n        int
}

func (m *maybe) compute(cs *synth.CS, me *u32.MultiEq, others ...*u32.UInt32) u32.UInt32 {
	if m.concrete {
		return m.v
	}
	for _, o := range others {
		m.ops[m.n] = *o
		m.n++
	}
	return u32.AddMany(cs, me, m.ops[:m.n])
}

// Compress returns SHA-256's compression function of the 512-bit block (most significant bit of
// each word first) applied to state.
func Compress(cs *synth.CS, block []boolean.Bit, state *[8]u32.UInt32) [8]u32.UInt32 {
	if len(block) != 512 {
		panic("sha256: Compress needs a 512-bit block")
	}
	var w [64]u32.UInt32
	for i := 0; i < 16; i++ {
		w[i] = u32.FromBitsBE(block[32*i:])
	}
	me := u32.NewMultiEq(cs)
	var ops [4]u32.UInt32
	for i := 16; i < 64; i++ {
		cs.PushIndex("w extension", i)
		// s0 = (w[i-15] rotr 7) ⊕ (w[i-15] rotr 18) ⊕ (w[i-15] shr 3)
		x, y, z := w[i-15].Rotr(7), w[i-15].Rotr(18), w[i-15].Shr(3)
		cs.Push("s0")
		s0 := u32.Xor(cs, &x, &y)
		s0 = u32.Xor(cs, &s0, &z)
		cs.Pop()
		// s1 = (w[i-2] rotr 17) ⊕ (w[i-2] rotr 19) ⊕ (w[i-2] shr 10)
		x, y, z = w[i-2].Rotr(17), w[i-2].Rotr(19), w[i-2].Shr(10)
		cs.Push("s1")
		s1 := u32.Xor(cs, &x, &y)
		s1 = u32.Xor(cs, &s1, &z)
		cs.Pop()
		ops[0], ops[1], ops[2], ops[3] = w[i-16], s0, w[i-7], s1
		cs.Push("w")
		w[i] = u32.AddMany(cs, me, ops[:])
		cs.Pop()
		cs.Pop()
	}

	a := maybe{concrete: true, v: state[0]}
	b, c, d := state[1], state[2], state[3]
	e := maybe{concrete: true, v: state[4]}
	f, g, h := state[5], state[6], state[7]
	for i := 0; i < 64; i++ {
		cs.PushIndex("round", i)
		cs.Push("e")
		newE := e.compute(cs, me)
		cs.Pop()
		// S1 = (e rotr 6) ⊕ (e rotr 11) ⊕ (e rotr 25)
		x, y, z := newE.Rotr(6), newE.Rotr(11), newE.Rotr(25)
		cs.Push("S1")
		s1 := u32.Xor(cs, &x, &y)
		s1 = u32.Xor(cs, &s1, &z)
		cs.Pop()
		ch := u32.Ch(cs, &newE, &f, &g)
		// temp1 = h + S1 + ch + K[i] + w[i]
		k := u32.Constant(roundConstants[i])
		cs.Push("a")
		newA := a.compute(cs, me)
		cs.Pop()
		// S0 = (a rotr 2) ⊕ (a rotr 13) ⊕ (a rotr 22)
		x, y, z = newA.Rotr(2), newA.Rotr(13), newA.Rotr(22)
		cs.Push("S0")
		s0 := u32.Xor(cs, &x, &y)
		s0 = u32.Xor(cs, &s0, &z)
		cs.Pop()
		maj := u32.Maj(cs, &newA, &b, &c)
		oldH := h
		h, g, f = g, f, newE
		// e = d + temp1 and a = temp1 + temp2, temp2 = S0 + maj, both deferred
		e = maybe{ops: [8]u32.UInt32{oldH, s1, ch, k, w[i], d}, n: 6}
		d, c, b = c, b, newA
		a = maybe{ops: [8]u32.UInt32{oldH, s1, ch, k, w[i], s0, maj}, n: 7}
		cs.Pop()
	}
	var out [8]u32.UInt32
	cs.Push("h0")
	out[0] = a.compute(cs, me, &state[0])
	cs.Pop()
	for i, x := range []*u32.UInt32{&b, &c, &d} {
		cs.PushIndex("h", i+1)
		out[i+1] = u32.AddMany(cs, me, []u32.UInt32{state[i+1], *x})
		cs.Pop()
	}
	cs.Push("h4")
	out[4] = e.compute(cs, me, &state[4])
	cs.Pop()
	for i, x := range []*u32.UInt32{&f, &g, &h} {
		cs.PushIndex("h", i+5)
		out[i+5] = u32.AddMany(cs, me, []u32.UInt32{state[i+5], *x})
		cs.Pop()
	}
	me.Flush()
	return out
}

// Hash returns the SHA-256 digest bits (most significant first) of the message whose bits, most
// significant bit of each byte first, are input; len(input) must be a multiple of 8. Padding
// bits are constants.
func Hash(cs *synth.CS, input []boolean.Bit) []boolean.Bit {
	if len(input)%8 != 0 {
		panic("sha256: Hash input is not a whole number of bytes")
	}
	l := uint64(len(input))
	nBlocks := (len(input) + 1 + 64 + 511) / 512
	padded := make([]boolean.Bit, 0, nBlocks*512)
	padded = append(padded, input...)
	padded = append(padded, boolean.Constant(true))
	for (len(padded)+64)%512 != 0 {
		padded = append(padded, boolean.Constant(false))
	}
	for i := 63; i >= 0; i-- {
		padded = append(padded, boolean.Constant(l>>uint(i)&1 == 1))
	}
	cur := IV()
	for i := 0; i < nBlocks; i++ {
		cs.PushIndex("block", i)
		cur = Compress(cs, padded[512*i:512*(i+1)], &cur)
		cs.Pop()
	}
	out := make([]boolean.Bit, 0, 256)
	for i := range cur {
		out = cur[i].AppendBitsBE(out)
	}
	return out
}

// CompressNative is the native twin of Compress: SHA-256's compression of a 64-byte block into
// state.
func CompressNative(state [8]uint32, block *[64]byte) [8]uint32 {
	var w [64]uint32
	for i := 0; i < 16; i++ {
		w[i] = uint32(block[4*i])<<24 | uint32(block[4*i+1])<<16 | uint32(block[4*i+2])<<8 | uint32(block[4*i+3])
	}
	rotr := func(x uint32, n uint) uint32 { return x>>n | x<<(32-n) }
	for i := 16; i < 64; i++ {
		s0 := rotr(w[i-15], 7) ^ rotr(w[i-15], 18) ^ w[i-15]>>3
		s1 := rotr(w[i-2], 17) ^ rotr(w[i-2], 19) ^ w[i-2]>>10
		w[i] = w[i-16] + s0 + w[i-7] + s1
	}
	a, b, c, d, e, f, g, h := state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
	for i := 0; i < 64; i++ {
		s1 := rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
		ch := (e & f) ^ (^e & g)
		t1 := h + s1 + ch + roundConstants[i] + w[i]
		s0 := rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
		maj := (a & b) ^ (a & c) ^ (b & c)
		t2 := s0 + maj
		h, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	return [8]uint32{state[0] + a, state[1] + b, state[2] + c, state[3] + d, state[4] + e, state[5] + f, state[6] + g, state[7] + h}
}

// InitialState returns SHA-256's H(0).
func InitialState() [8]uint32 { return initialState }

// BytesToBits appends the bits of data, most significant bit of each byte first: allocated
// (one booleanity constraint each) if allocate, constants otherwise.
func BytesToBits(cs *synth.CS, dst []boolean.Bit, data []byte, allocate bool) []boolean.Bit {
	for _, x := range data {
		for i := 7; i >= 0; i-- {
			v := x>>uint(i)&1 == 1
			if allocate {
				dst = append(dst, boolean.Alloc(cs, v))
			} else {
				dst = append(dst, boolean.Constant(v))
			}
		}
	}
	return dst
}

// BitsToBytes packs bits (most significant bit of each byte first) into bytes.
func BitsToBytes(bits []boolean.Bit) []byte {
	out := make([]byte, len(bits)/8)
	for i, b := range bits {
		if b.Value() {
			out[i/8] |= 0x80 >> uint(i%8)
		}
	}
	return out
}
