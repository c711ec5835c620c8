package num

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/boolean"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

func randFr(t *testing.T) fr.Element {
	var x fr.Element
	_, err := x.SetRandom()
	require.NoError(t, err)
	return x
}

func TestArithmeticAgreesWithNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []fr.Element{{}, fr.One(), frMinus1}
	for i := 0; i < 20; i++ {
		a, b := randFr(t), randFr(t)
		if i < len(edge) {
			a = edge[i]
		}
		if i == 3 {
			b = a
		}
		cond := rng.IntN(2) == 1
		var mul, sq, inv, sum *Num
		var eq boolean.Bit
		var c, d, p Num
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			x, y := Alloc(cs, a), Alloc(cs, b)
			m, s, ad := Mul(cs, x, y), Square(cs, x), Add(cs, x, y)
			mul, sq, sum = &m, &s, &ad
			if !a.IsZero() {
				iv, err := Inverse(cs, x)
				if err != nil {
					return err
				}
				inv = &iv
			}
			eq = IsEqual(cs, x, y)
			cb := boolean.Alloc(cs, cond)
			c, d = ConditionalSwap(cs, x, y, cb)
			p = Pick(cs, cb, x, y)
			return nil
		})
		gadgettest.Run(t, circuit)
		var want fr.Element
		require.True(t, mul.Value.Equal(want.Mul(&a, &b)))
		require.True(t, sq.Value.Equal(want.Square(&a)))
		require.True(t, sum.Value.Equal(want.Add(&a, &b)))
		if inv != nil {
			require.True(t, inv.Value.Equal(want.Inverse(&a)))
		}
		require.Equal(t, a.Equal(&b), eq.Value())
		if cond {
			require.True(t, c.Value.Equal(&b) && d.Value.Equal(&a) && p.Value.Equal(&a))
		} else {
			require.True(t, c.Value.Equal(&a) && d.Value.Equal(&b) && p.Value.Equal(&b))
		}
	}
}

func TestInverseOfZero(t *testing.T) {
	circuit := gadgettest.Func(func(cs *synth.CS) error {
		_, err := Inverse(cs, Alloc(cs, fr.Element{}))
		return err
	})
	_, err := synth.Compile(circuit)
	require.ErrorIs(t, err, ErrDivisionByZero)
}

func TestTamperedNumsRejected(t *testing.T) {
	cases := []struct {
		name string
		f    func(cs *synth.CS, x, y Num, c boolean.Bit) Num
	}{
		{"mul", func(cs *synth.CS, x, y Num, _ boolean.Bit) Num { return Mul(cs, x, y) }},
		{"square", func(cs *synth.CS, x, _ Num, _ boolean.Bit) Num { return Square(cs, x) }},
		{"add", func(cs *synth.CS, x, y Num, _ boolean.Bit) Num { return Add(cs, x, y) }},
		{"inverse", func(cs *synth.CS, x, _ Num, _ boolean.Bit) Num { n, _ := Inverse(cs, x); return n }},
		{"pick", func(cs *synth.CS, x, y Num, c boolean.Bit) Num { return Pick(cs, c, x, y) }},
		{"first conditional reversal", func(cs *synth.CS, x, y Num, c boolean.Bit) Num {
			a, _ := ConditionalSwap(cs, x, y, c)
			return a
		}},
		{"is equal inverse", func(cs *synth.CS, x, y Num, _ boolean.Bit) Num {
			b := IsEqual(cs, x, x)
			v, _, _ := b.Variable()
			return Num{Var: v}
		}},
	}
	for _, tc := range cases {
		var out Num
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			var a, b fr.Element
			a.SetUint64(5)
			b.SetUint64(7)
			x, y := Alloc(cs, a), Alloc(cs, b)
			c := boolean.Alloc(cs, true)
			cs.Push("g")
			out = tc.f(cs, x, y, c)
			cs.Pop()
			return nil
		})
		gadgettest.Run(t, circuit)
		var bad fr.Element
		bad.SetUint64(12345)
		path := gadgettest.TamperAux(t, circuit, out.Var, bad)
		require.Equal(t, "g/"+tc.name, path)
	}
}

func TestBitsRoundTrip(t *testing.T) {
	for i := 0; i < 5; i++ {
		v := randFr(t)
		if i == 0 {
			v = frMinus1
		}
		var bits []boolean.Bit
		var packed, packedLow Num
		var inputs []Num
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			n := Alloc(cs, v)
			bits = n.ToBitsLE(cs, nil)
			packed = PackBits(cs, bits)
			inputs = PackIntoInputs(cs, bits)
			packedLow = PackBits(cs, bits[:64])
			return nil
		})
		shape, asg := gadgettest.Run(t, circuit)
		require.Len(t, bits, NumBits)
		require.Equal(t, NumBits+1+1+2+1, shape.NumConstraints) // bits, unpacking, PackBits, 2 inputs, PackBits
		// Native: the canonical bits.
		limbs := v.Bits()
		bools := make([]bool, NumBits)
		for j := range bools {
			bools[j] = limbs[j/64]>>(j%64)&1 == 1
			require.Equal(t, bools[j], bits[j].Value())
		}
		// PackBits keeps the low 254 bits: v with bit 254 cleared.
		var trunc fr.Element
		trunc.Set(&v)
		if bools[254] {
			trunc.Sub(&v, &Pow2[254])
		}
		require.True(t, packed.Value.Equal(&trunc))
		require.True(t, packedLow.Value.Equal(new(fr.Element).SetUint64(limbs[0])))
		want := ComputeMultipacking(bools)
		require.Len(t, inputs, 2)
		require.Equal(t, len(want), len(asg.PublicInputs()))
		for j := range want {
			require.True(t, want[j].Equal(&asg.PublicInputs()[j]))
		}
		// Tampering with one bit breaks the unpacking constraint.
		bv, _, _ := bits[3].Variable()
		path := gadgettest.FlipAux(t, circuit, bv)
		require.True(t, strings.HasSuffix(path, "unpacking"), path)
	}
}
