package poseidon

import (
	"fmt"
	"math"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Params are the constants of Poseidon for one arity.
type Params struct {
	Arity, Width int
	FullRounds   int // R_F, all full rounds (half before, half after the partial rounds)
	Partial      int // R_P
	// RoundConstants[r·Width + i] is added to element i in round r.
	RoundConstants []fr.Element
	MDS            [][]fr.Element // Width × Width, symmetric
	DomainTag      fr.Element     // 2^Arity − 1

	opt *optimized // the preprocessed constants of the circuit
}

// roundNumbersSecure reports whether (rf, rp) satisfies the Poseidon paper's inequalities for
// width t at 128-bit security over a 256-bit prime (neptune src/round_numbers.rs, a port of
// hadeshash calc_round_numbers.py; computed in float32 as neptune does).
func roundNumbersSecure(t, rf, rp int) bool {
	// Variables, not constants, and explicit conversions: every operation rounds to float32 as
	// neptune's f32 code does.
	n, m := float32(256), float32(128)
	T, RP := float32(t), float32(rp)
	rfStat := float32(10)
	if m <= float32(float32(n-3)*float32(T+1)) {
		rfStat = 6
	}
	c043, c021, c014 := float32(0.43), float32(0.21), float32(0.14)
	rfInterp := float32(float32(c043*m)+float32(math.Log2(float64(T)))) - RP
	rfGrob1 := float32(c021*n) - RP
	rfGrob2 := float32(float32(float32(c014*n)-1)-RP) / float32(T-1)
	need := 0
	for _, x := range []float32{rfStat, rfInterp, rfGrob1, rfGrob2} {
		need = max(need, int(float32(math.Ceil(float64(x)))))
	}
	return rf >= need
}

// RoundNumbers returns (R_F, R_P) for arity with neptune's security margin: the secure pair of
// least S-box cost t·R_F + R_P, after R_F += 2 and R_P = ⌈1.075·R_P⌉.
func RoundNumbers(arity int) (rf, rp int) {
	t := arity + 1
	best := math.MaxInt
	for rfT := 2; rfT <= 1000; rfT += 2 {
		for rpT := 4; rpT < 200; rpT++ {
			if !roundNumbersSecure(t, rfT, rpT) {
				continue
			}
			f := rfT + 2
			c1075 := float32(1.075)
			p := int(math.Ceil(float64(float32(c1075 * float32(rpT)))))
			cost := t*f + p
			if cost < best || (cost == best && f < rf) {
				rf, rp, best = f, p, cost
			}
		}
	}
	return rf, rp
}

// grain is the Grain LFSR of the Poseidon reference in self-shrinking mode.
type grain struct {
	s   [80]bool
	pos int // s[pos] is bit b_i, s[(pos+k)%80] is b_{i+k}
}

func newGrain(fieldBits, t, rf, rp int) *grain {
	g := &grain{}
	i := 0
	put := func(n int, v uint64) {
		for k := n - 1; k >= 0; k-- {
			g.s[i] = v>>uint(k)&1 == 1
			i++
		}
	}
	put(2, 1) // field: GF(p)
	put(4, 1) // S-box, as neptune passes it
	put(12, uint64(fieldBits))
	put(12, uint64(t))
	put(10, uint64(rf))
	put(10, uint64(rp))
	put(30, 1<<30-1)
	for k := 0; k < 160; k++ {
		g.step()
	}
	return g
}

// step computes b_{i+80} = b_{i+62} ⊕ b_{i+51} ⊕ b_{i+38} ⊕ b_{i+23} ⊕ b_{i+13} ⊕ b_i, shifts
// and returns it.
func (g *grain) step() bool {
	at := func(k int) bool { return g.s[(g.pos+k)%80] }
	nb := at(62) != at(51) != at(38) != at(23) != at(13) != at(0)
	g.s[g.pos] = nb
	g.pos = (g.pos + 1) % 80
	return nb
}

// next returns the next output bit: bits are taken in pairs and the second is output when the
// first is 1.
func (g *grain) next() bool {
	for {
		if g.step() {
			return g.step()
		}
		g.step()
	}
}

// roundConstants generates n field elements of fieldBits bits each, most significant first,
// rejecting values ≥ r.
func roundConstants(t, rf, rp int) []fr.Element {
	const fieldBits = 255
	g := newGrain(fieldBits, t, rf, rp)
	n := (rf + rp) * t
	out := make([]fr.Element, 0, n)
	for len(out) < n {
		var b [32]byte // big-endian
		for k := 0; k < fieldBits; k++ {
			if g.next() {
				bit := fieldBits - 1 - k
				b[31-bit/8] |= 1 << uint(bit%8)
			}
		}
		e, err := fr.BigEndian.Element(&b)
		if err != nil {
			continue // ≥ r: draw again
		}
		out = append(out, e)
	}
	return out
}

// mds returns neptune's Cauchy matrix M_ij = 1/(i + t + j).
func mds(t int) [][]fr.Element {
	m := make([][]fr.Element, t)
	for i := range m {
		m[i] = make([]fr.Element, t)
		for j := range m[i] {
			var x fr.Element
			x.SetUint64(uint64(i + t + j))
			m[i][j].Inverse(&x)
		}
	}
	return m
}

var (
	cacheMu sync.Mutex
	cache   = map[int]*Params{}
)

// maxArity is the largest arity New accepts, maxWidth the largest width (arity + 1): the
// bounds of the fixed-size scratch arrays of the hashes.
const (
	maxArity = 36
	maxWidth = maxArity + 1
)

// New returns the parameters for arity (1 ≤ arity ≤ maxArity = 36), computed once and shared;
// the result must not be modified.
func New(arity int) (*Params, error) {
	if arity < 1 || arity > maxArity {
		return nil, fmt.Errorf("poseidon: arity %d out of range 1..%d", arity, maxArity)
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if p, ok := cache[arity]; ok {
		return p, nil
	}
	rf, rp := RoundNumbers(arity)
	t := arity + 1
	p := &Params{
		Arity: arity, Width: t, FullRounds: rf, Partial: rp,
		RoundConstants: roundConstants(t, rf, rp),
		MDS:            mds(t),
	}
	p.DomainTag.SetUint64(1<<uint(arity) - 1)
	opt, err := newOptimized(p)
	if err != nil {
		return nil, fmt.Errorf("poseidon: arity %d: %w", arity, err)
	}
	p.opt = opt
	cache[arity] = p
	return p, nil
}

// Must is New for arities known to be valid; it panics otherwise.
func Must(arity int) *Params {
	p, err := New(arity)
	if err != nil {
		panic(err)
	}
	return p
}
