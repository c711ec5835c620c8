package boolean

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/synth/gadgets/internal/gadgettest"
)

// mk builds a bit of value val and kind k (0 constant, 1 allocated, 2 negated allocation).
func mk(cs *synth.CS, k int, val bool) Bit {
	switch k {
	case 0:
		return Constant(val)
	case 1:
		return Alloc(cs, val)
	default:
		return Alloc(cs, !val).Not()
	}
}

// TestOpsAgreeWithNative runs every gadget on every combination of values and bit kinds
// (constant, allocated, negated) and compares with Go's Boolean operators; each circuit must be
// satisfied and the number of constraints must match bellman's for that case.
func TestOpsAgreeWithNative(t *testing.T) {
	type op struct {
		name   string
		arity  int
		gadget func(cs *synth.CS, x []Bit) Bit
		native func(x []bool) bool
	}
	ops := []op{
		{"xor", 2, func(cs *synth.CS, x []Bit) Bit { return Xor(cs, x[0], x[1]) }, func(x []bool) bool { return x[0] != x[1] }},
		{"and", 2, func(cs *synth.CS, x []Bit) Bit { return And(cs, x[0], x[1]) }, func(x []bool) bool { return x[0] && x[1] }},
		{"or", 2, func(cs *synth.CS, x []Bit) Bit { return Or(cs, x[0], x[1]) }, func(x []bool) bool { return x[0] || x[1] }},
		{"not", 1, func(cs *synth.CS, x []Bit) Bit { return x[0].Not() }, func(x []bool) bool { return !x[0] }},
		{"select", 3, func(cs *synth.CS, x []Bit) Bit { return Select(cs, x[0], x[1], x[2]) }, func(x []bool) bool {
			if x[0] {
				return x[1]
			}
			return x[2]
		}},
		{"ch", 3, func(cs *synth.CS, x []Bit) Bit { return Ch(cs, x[0], x[1], x[2]) }, func(x []bool) bool { return (x[0] && x[1]) != (!x[0] && x[2]) }},
		{"maj", 3, func(cs *synth.CS, x []Bit) Bit { return Maj(cs, x[0], x[1], x[2]) }, func(x []bool) bool {
			return (x[0] && x[1]) != (x[0] && x[2]) != (x[1] && x[2])
		}},
	}
	for _, o := range ops {
		nk := 1
		for i := 0; i < o.arity; i++ {
			nk *= 3 * 2
		}
		for code := 0; code < nk; code++ {
			kinds := make([]int, o.arity)
			vals := make([]bool, o.arity)
			c := code
			for i := range kinds {
				kinds[i] = c % 3
				c /= 3
				vals[i] = c%2 == 1
				c /= 2
			}
			want := o.native(vals)
			var got Bit
			var alloc, after int
			circuit := gadgettest.Func(func(cs *synth.CS) error {
				x := make([]Bit, o.arity)
				for i := range x {
					x[i] = mk(cs, kinds[i], vals[i])
				}
				alloc = cs.NumConstraints()
				got = o.gadget(cs, x)
				after = cs.NumConstraints()
				// Expose the result so that it is constrained to the native value.
				EnforceEqual(cs, got, Constant(want))
				return nil
			})
			gadgettest.Run(t, circuit)
			require.Equal(t, want, got.Value(), "%s kinds %v vals %v", o.name, kinds, vals)
			n := after - alloc
			allVar := true
			for _, k := range kinds {
				allVar = allVar && k != 0
			}
			switch o.name {
			case "not":
				require.Equal(t, 0, n)
			case "maj":
				if allVar {
					require.Equal(t, 2, n, "maj on variables costs 2 constraints")
				}
			default:
				if allVar {
					require.Equal(t, 1, n, "%s on variables costs one constraint", o.name)
				}
			}
		}
	}
}

// TestTamperedBitsRejected flips a gadget's output variable and checks that the constraint that
// rejects it is the gadget's own, named.
func TestTamperedBitsRejected(t *testing.T) {
	cases := []struct {
		name string
		f    func(cs *synth.CS, a, b, c Bit) Bit
	}{
		{"xor", func(cs *synth.CS, a, b, c Bit) Bit { return Xor(cs, a, b) }},
		{"and", func(cs *synth.CS, a, b, c Bit) Bit { return And(cs, a, b.Not()) }},
		{"select", func(cs *synth.CS, a, b, c Bit) Bit { return Select(cs, a, b, c) }},
		{"ch", func(cs *synth.CS, a, b, c Bit) Bit { return Ch(cs, a, b, c) }},
		{"maj", func(cs *synth.CS, a, b, c Bit) Bit { return Maj(cs, a, b, c) }},
	}
	for _, tc := range cases {
		var out Bit
		circuit := gadgettest.Func(func(cs *synth.CS) error {
			a, b, c := Alloc(cs, true), Alloc(cs, false), Alloc(cs, true)
			cs.Push("gadget")
			out = tc.f(cs, a, b, c)
			cs.Pop()
			return nil
		})
		gadgettest.Run(t, circuit)
		v, _, ok := out.Variable()
		require.True(t, ok)
		path := gadgettest.FlipAux(t, circuit, v)
		require.True(t, strings.HasPrefix(path, "gadget/"), "%s: %q", tc.name, path)
		require.True(t, strings.HasSuffix(path, tc.name), "%s: %q", tc.name, path)
	}
	// A non-boolean value in an allocated bit violates its booleanity constraint.
	var a Bit
	circuit := gadgettest.Func(func(cs *synth.CS) error { a = Alloc(cs, true); return nil })
	gadgettest.Run(t, circuit)
	v, _, _ := a.Variable()
	require.Equal(t, "boolean", gadgettest.TamperAux(t, circuit, v, frTwo))
}

func TestEnforceEqualConstantsDiffer(t *testing.T) {
	circuit := gadgettest.Func(func(cs *synth.CS) error {
		EnforceEqual(cs, Constant(true), Constant(false))
		return nil
	})
	shape, err := synth.Compile(circuit)
	require.NoError(t, err)
	require.Equal(t, 1, shape.NumConstraints)
}
