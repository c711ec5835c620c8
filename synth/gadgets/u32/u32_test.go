package u32

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

func value(u *UInt32) uint32 {
	var v uint32
	for i := 31; i >= 0; i-- {
		v <<= 1
		if u.Bits[i].Value() {
			v |= 1
		}
	}
	return v
}

func TestOpsAgreeWithNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for it := 0; it < 20; it++ {
		x, y, z := rng.Uint32(), rng.Uint32(), rng.Uint32()
		n := 2 + it%9
		addends := make([]uint32, n)
		for i := range addends {
			addends[i] = rng.Uint32()
		}
		r := rng.IntN(32)
		var xr, xs, xo, ch, maj, sum, sumConst UInt32
		var sumConstraints int
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			a, b := Alloc(cs, x), Alloc(cs, y)
			c := Constant(z) // mixed constant operand
			xr, xs = a.Rotr(r), a.Shr(r)
			xo = Xor(cs, &a, &b)
			ch = Ch(cs, &a, &b, &c)
			maj = Maj(cs, &a, &b, &c)
			ops := make([]UInt32, n)
			for i := range ops {
				ops[i] = Alloc(cs, addends[i])
			}
			ops[0] = Constant(addends[0])
			me := NewMultiEq(cs)
			before := cs.NumConstraints()
			sum = AddMany(cs, me, ops)
			me.Flush()
			sumConstraints = cs.NumConstraints() - before
			sumConst = AddMany(cs, me, []UInt32{Constant(x), Constant(y)})
			return nil
		})
		gadgettest.Run(t, circuit)
		require.Equal(t, bits.RotateLeft32(x, -r), value(&xr))
		require.Equal(t, x>>uint(r), value(&xs))
		require.Equal(t, x^y, value(&xo))
		require.Equal(t, (x&y)^(^x&z), value(&ch))
		require.Equal(t, (x&y)^(x&z)^(y&z), value(&maj))
		var want uint32
		for _, v := range addends {
			want += v
		}
		require.Equal(t, want, value(&sum))
		require.Equal(t, want, sum.Value)
		require.Equal(t, bits.Len64(uint64(n)*uint64(^uint32(0)))+1, sumConstraints, "result bits + one packed equality")
		require.Equal(t, x+y, value(&sumConst))
		require.True(t, sumConst.Bits[0].IsConstant())
	}
}

func TestTamperedSumRejected(t *testing.T) {
	var sum UInt32
	circuit := gadgettest.Func(func(cs *synth.CS) error {
		a, b := Alloc(cs, 0xdeadbeef), Alloc(cs, 0x12345678)
		me := NewMultiEq(cs)
		sum = AddMany(cs, me, []UInt32{a, b})
		me.Flush()
		return nil
	})
	gadgettest.Run(t, circuit)
	v, _, _ := sum.Bits[7].Variable()
	path := gadgettest.FlipAux(t, circuit, v)
	require.True(t, strings.HasPrefix(path, "multieq[0]/"), path)
}
