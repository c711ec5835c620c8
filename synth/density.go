package synth

import (
	"math/bits"
	"sync/atomic"
)

// Density is a bitmap over the variables of one kind (inputs or aux): bit i is set when variable i
// appears in the matrix the density belongs to.
type Density struct {
	words []uint64
	n     int
}

// NewDensity returns an empty density over n variables.
func NewDensity(n int) *Density { return &Density{words: make([]uint64, (n+63)/64), n: n} }

// Set marks variable i.
func (d *Density) Set(i int) { d.words[i>>6] |= 1 << (uint(i) & 63) }

// Has reports whether variable i is marked.
func (d *Density) Has(i int) bool { return d.words[i>>6]>>(uint(i)&63)&1 == 1 }

// Len returns the number of variables the density covers.
func (d *Density) Len() int { return d.n }

// Count returns the number of marked variables.
func (d *Density) Count() int {
	c := 0
	for _, w := range d.words {
		c += bits.OnesCount64(w)
	}
	return c
}

// Words returns the bitmap, 64 variables a word, least significant bit first.
func (d *Density) Words() []uint64 { return d.words }

// setAtomic marks variable i; concurrent calls may mark variables of the same word. A variable
// already marked costs a plain load.
func (d *Density) setAtomic(i int) {
	w, bit := &d.words[i>>6], uint64(1)<<(uint(i)&63)
	if atomic.LoadUint64(w)&bit == 0 {
		atomic.OrUint64(w, bit)
	}
}
