package circuits

import (
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// Scalable is a synthetic circuit of exactly Constraints constraints and Inputs public inputs
// (One not counted), with a witness shaped like Filecoin's: half the aux variables are bits.
//
// Its constraints alternate between a booleanity check b·(1 − b) = 0 on a fresh bit b and a
// product v_k = (v_{k−1} + b) · (v_{k−2} + x_j) that chains the previous values with a public
// input x_j, so inputs appear in B and One appears in B. The public inputs and the bits derive
// from Seed and Partition, so every partition has its own satisfiable witness.
type Scalable struct {
	Constraints int
	Inputs      int
	Seed        uint64
	Partition   int
}

// Validate reports whether the sizes are usable.
func (c *Scalable) Validate() error {
	if c.Constraints < 1 || c.Inputs < 0 {
		return fmt.Errorf("circuits: scalable circuit needs ≥ 1 constraint and ≥ 0 inputs, got %d and %d", c.Constraints, c.Inputs)
	}
	return nil
}

// PublicInputs returns the public inputs without the leading One.
func (c *Scalable) PublicInputs() []fr.Element {
	in := make([]fr.Element, c.Inputs)
	for j := range in {
		in[j] = c.derive(uint64(j), 1)
	}
	return in
}

// mix returns a deterministic 64-bit value from the seed, the partition, a counter and a tag
// (splitmix64's finaliser).
func (c *Scalable) mix(k uint64, tag uint64) uint64 {
	z := c.Seed*0x9e3779b97f4a7c15 ^ uint64(c.Partition)*0xc2b2ae3d27d4eb4f ^ k*0x165667b19e3779f9 ^ tag<<59
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// derive returns a deterministic field element: four mixed words as a big-endian integer,
// reduced mod r.
func (c *Scalable) derive(k uint64, tag uint64) fr.Element {
	var buf [32]byte
	for i := 0; i < 4; i++ {
		binary.BigEndian.PutUint64(buf[8*i:], c.mix(k, tag+uint64(i)<<2))
	}
	var e fr.Element
	e.SetBytes(buf[:])
	return e
}

// Synthesize implements synth.Circuit.
func (c *Scalable) Synthesize(cs *synth.CS) error {
	if err := c.Validate(); err != nil {
		return err
	}
	inputs := make([]synth.Variable, c.Inputs)
	for j, x := range c.PublicInputs() {
		inputs[j] = cs.AllocInput(x)
	}
	prev2, prev1 := synth.One, synth.One // v_{k−2}, v_{k−1}
	var bit synth.Variable = synth.One
	for k := 0; k < c.Constraints; k++ {
		if k%2 == 0 {
			var bv fr.Element
			if c.mix(uint64(k), 2)&1 == 1 {
				bv.SetOne()
			}
			bit = cs.Alloc(bv)
			cs.Enforce("bit", synth.V(bit), synth.NewLC().Add(synth.One).Sub(bit), nil)
			continue
		}
		x := synth.One
		if c.Inputs > 0 {
			x = inputs[(k/2)%c.Inputs]
		}
		l := cs.Eval(synth.NewLC().Add(prev1).Add(bit))
		r := cs.Eval(synth.NewLC().Add(prev2).Add(x))
		var v fr.Element
		v.Mul(&l, &r)
		vv := cs.Alloc(v)
		cs.Enforce("chain", synth.NewLC().Add(prev1).Add(bit), synth.NewLC().Add(prev2).Add(x), synth.V(vv))
		prev2, prev1 = prev1, vv
	}
	return nil
}
