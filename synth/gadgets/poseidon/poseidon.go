package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func sbox(x *fr.Element) {
	var x2, x4 fr.Element
	x2.Square(x)
	x4.Square(&x2)
	x.Mul(x, &x4)
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

// Hash returns Poseidon of inputs (len Arity): the permutation of [tag, inputs…], element 1.
func (p *Params) Hash(inputs []fr.Element) (fr.Element, error) {
	if len(inputs) != p.Arity {
		return fr.Element{}, fmt.Errorf("poseidon: hash %d inputs with arity %d", len(inputs), p.Arity)
	}
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
	return s[1], nil
}
