package poseidon

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// hashReference is the Poseidon permutation as specified, round by round: add the round's
// constants, the S-box x⁵ on every element (full rounds) or on the first (partial rounds), then
// the MDS matrix; the hash is element 1 of the state that starts as DomainTag ‖ inputs. Hash
// computes the same value with the compressed constants and sparse layers (hashOptimized); the
// tests hold it to this reference.
func (p *Params) hashReference(inputs []fr.Element) fr.Element {
	var buf [2 * 37]fr.Element
	s, tmp := buf[:p.Width], buf[p.Width:2*p.Width]
	s[0] = p.DomainTag
	copy(s[1:], inputs)
	half := p.FullRounds / 2
	rounds := p.FullRounds + p.Partial
	for r := 0; r < rounds; r++ {
		rc := p.RoundConstants[r*p.Width : (r+1)*p.Width]
		for i := range s {
			s[i].Add(&s[i], &rc[i])
		}
		if r < half || r >= half+p.Partial {
			for i := range s {
				sbox(&s[i])
			}
		} else {
			sbox(&s[0])
		}
		p.mulMDS(s, tmp)
	}
	return s[1]
}

// mulMDS sets s = M·s using scratch tmp (len Width).
func (p *Params) mulMDS(s, tmp []fr.Element) {
	var t fr.Element
	for i := range tmp {
		var acc fr.Element
		row := p.MDS[i]
		for j := range s {
			t.Mul(&row[j], &s[j])
			acc.Add(&acc, &t)
		}
		tmp[i] = acc
	}
	copy(s, tmp)
}

// BenchmarkHash times Hash beside the round-by-round reference permutation, at the arities
// Filecoin's trees and columns use (2, 8, 11).
func BenchmarkHash(b *testing.B) {
	for _, arity := range []int{2, 8, 11} {
		p := Must(arity)
		in := make([]fr.Element, arity)
		for i := range in {
			in[i].SetUint64(uint64(i + 1))
		}
		b.Run(fmt.Sprintf("arity=%d/reference", arity), func(b *testing.B) {
			for b.Loop() {
				benchOut = p.hashReference(in)
			}
		})
		b.Run(fmt.Sprintf("arity=%d/hash", arity), func(b *testing.B) {
			for b.Loop() {
				benchOut, _ = p.Hash(in)
			}
		})
	}
}

var benchOut fr.Element
