package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// SparseMatrix is a Width × Width matrix whose minor at (0,0) is the identity: its first column
// WHat and the rest of its first row VRest (neptune src/mds.rs SparseMatrix).
type SparseMatrix struct {
	WHat  []fr.Element // column 0, Width elements
	VRest []fr.Element // row 0 without its first element, Width − 1 elements
}

// optimized holds neptune's preprocessed constants, the ones its circuit (src/circuit.rs) uses.
type optimized struct {
	// Compressed[k]: the round constants pushed back through the linear layers
	// (neptune src/preprocessing.rs compress_round_constants with every partial round
	// preprocessed), R_F·Width + R_P elements.
	Compressed []fr.Element
	// PreSparse replaces M after the last initial full round; Sparse[r] replaces M after
	// partial round r (neptune factor_to_sparse_matrixes).
	PreSparse [][]fr.Element
	Sparse    []SparseMatrix

	// The columns of M and of PreSparse: column j of m is what element j of v·m takes the
	// inner product of v with.
	mdsCols, preSparseCols []fr.Vector
}

// columns returns the columns of the square matrix m.
func columns(m [][]fr.Element) []fr.Vector {
	cols := make([]fr.Vector, len(m))
	for j := range cols {
		cols[j] = make(fr.Vector, len(m))
		for i := range m {
			cols[j][i] = m[i][j]
		}
	}
	return cols
}

// matrix helpers over Fr. Vectors multiply matrices from the left, as neptune's apply_matrix:
// (v·M)_j = Σ_i v_i·M[i][j].

func newMatrix(n int) [][]fr.Element {
	m := make([][]fr.Element, n)
	for i := range m {
		m[i] = make([]fr.Element, n)
	}
	return m
}

// vecMat returns v·m.
func vecMat(v []fr.Element, m [][]fr.Element) []fr.Element {
	out := make([]fr.Element, len(v))
	var t fr.Element
	for j := range out {
		for i := range v {
			t.Mul(&m[i][j], &v[i])
			out[j].Add(&out[j], &t)
		}
	}
	return out
}

// matMul returns a·b.
func matMul(a, b [][]fr.Element) [][]fr.Element {
	n := len(a)
	out := newMatrix(n)
	var t fr.Element
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				t.Mul(&a[i][k], &b[k][j])
				out[i][j].Add(&out[i][j], &t)
			}
		}
	}
	return out
}

// invert returns m⁻¹ by Gauss–Jordan elimination.
func invert(m [][]fr.Element) ([][]fr.Element, error) {
	n := len(m)
	a := newMatrix(n)
	inv := newMatrix(n)
	for i := range a {
		copy(a[i], m[i])
		inv[i][i].SetOne()
	}
	var t fr.Element
	for c := 0; c < n; c++ {
		p := c
		for p < n && a[p][c].IsZero() {
			p++
		}
		if p == n {
			return nil, fmt.Errorf("poseidon: singular %d×%d matrix", n, n)
		}
		a[c], a[p] = a[p], a[c]
		inv[c], inv[p] = inv[p], inv[c]
		var s fr.Element
		s.Inverse(&a[c][c])
		for j := 0; j < n; j++ {
			a[c][j].Mul(&a[c][j], &s)
			inv[c][j].Mul(&inv[c][j], &s)
		}
		for r := 0; r < n; r++ {
			if r == c || a[r][c].IsZero() {
				continue
			}
			f := a[r][c]
			for j := 0; j < n; j++ {
				t.Mul(&f, &a[c][j])
				a[r][j].Sub(&a[r][j], &t)
				t.Mul(&f, &inv[c][j])
				inv[r][j].Sub(&inv[r][j], &t)
			}
		}
	}
	return inv, nil
}

// minor00 returns m without its first row and column.
func minor00(m [][]fr.Element) [][]fr.Element {
	out := make([][]fr.Element, len(m)-1)
	for i := range out {
		out[i] = append([]fr.Element(nil), m[i+1][1:]...)
	}
	return out
}

// factor splits m into M'·M” = m, M' with first row e_0 and M” sparse (neptune mds.rs
// make_prime and make_double_prime).
func factor(m [][]fr.Element) (prime [][]fr.Element, sparse SparseMatrix, err error) {
	n := len(m)
	hatInv, err := invert(minor00(m))
	if err != nil {
		return nil, SparseMatrix{}, err
	}
	prime = newMatrix(n)
	prime[0][0].SetOne()
	for i := 1; i < n; i++ {
		copy(prime[i][1:], m[i][1:])
	}
	w := make([]fr.Element, n-1) // column 0 below the diagonal
	for i := range w {
		w[i] = m[i+1][0]
	}
	sparse.WHat = append([]fr.Element{m[0][0]}, vecMat(w, hatInv)...)
	sparse.VRest = append([]fr.Element(nil), m[0][1:]...)
	return prime, sparse, nil
}

// newOptimized computes the preprocessed constants of p (neptune PoseidonConstants::
// new_with_strength_and_type: compress_round_constants with partial_preprocessed = R_P and
// factor_to_sparse_matrixes(M, R_P)).
func newOptimized(p *Params) (*optimized, error) {
	t := p.Width
	half := p.FullRounds / 2
	mInv, err := invert(p.MDS)
	if err != nil {
		return nil, err
	}
	rk := func(r int) []fr.Element { return p.RoundConstants[r*t : (r+1)*t] }

	c := make([]fr.Element, 0, p.FullRounds*t+p.Partial)
	c = append(c, rk(0)...)
	for i := 0; i < half-1; i++ {
		c = append(c, vecMat(rk(i+1), mInv)...)
	}
	// Walk the partial rounds backwards: invert the accumulated keys, keep element 0 as that
	// round's single post-S-box key, fold the rest into the previous round's keys.
	final := half + p.Partial
	acc := append([]fr.Element(nil), rk(final)...)
	partialKeys := make([]fr.Element, 0, p.Partial)
	for i := 0; i < p.Partial; i++ {
		inv := vecMat(acc, mInv)
		partialKeys = append(partialKeys, inv[0])
		inv[0].SetZero()
		prev := rk(final - i - 1)
		for j := range inv {
			inv[j].Add(&inv[j], &prev[j])
		}
		acc = inv
	}
	c = append(c, vecMat(acc, mInv)...)
	for i := len(partialKeys) - 1; i >= 0; i-- {
		c = append(c, partialKeys[i])
	}
	for i := 1; i < half; i++ {
		c = append(c, vecMat(rk(i+final), mInv)...)
	}

	o := &optimized{Compressed: c, Sparse: make([]SparseMatrix, p.Partial)}
	cur := p.MDS
	for i := 0; i < p.Partial; i++ {
		prime, sparse, err := factor(cur)
		if err != nil {
			return nil, err
		}
		o.Sparse[p.Partial-1-i] = sparse
		cur = matMul(p.MDS, prime)
	}
	o.PreSparse = cur
	o.mdsCols, o.preSparseCols = columns(p.MDS), columns(o.PreSparse)
	return o, nil
}

// hashOptimized returns Poseidon of inputs (len Arity) as the circuit computes its values:
// the compressed round constants and the sparse linear layers of the partial rounds, about a
// third of Hash's multiplications at arity 8 (t² per full round, 3t − 1 per partial round,
// instead of t² per round). It equals Hash.
func (p *Params) hashOptimized(inputs []fr.Element) fr.Element {
	var buf [2 * maxWidth]fr.Element
	t, c, half, o := p.Width, p.opt.Compressed, p.FullRounds/2, p.opt
	s, tmp := buf[:t], buf[t:2*t]
	s[0] = p.DomainTag
	copy(s[1:], inputs)
	for i := range s {
		s[i].Add(&s[i], &c[i])
	}
	off := t
	var x fr.Element
	for r := 0; r < p.FullRounds+p.Partial; r++ {
		full := r < half || r >= half+p.Partial
		if full {
			for i := range s {
				sbox(&s[i])
			}
		} else {
			sbox(&s[0])
		}
		if r < p.FullRounds+p.Partial-1 { // every round but the last adds the next constants
			n := t
			if !full {
				n = 1
			}
			for i := 0; i < n; i++ {
				s[i].Add(&s[i], &c[off+i])
			}
			off += n
		}
		switch {
		case r == half-1:
			mulColumns(s, tmp, o.preSparseCols)
		case !full:
			m := &o.Sparse[r-half]
			s0 := s[0]
			v := fr.Vector(s)
			s[0] = v.InnerProduct(m.WHat)
			for j := 1; j < t; j++ {
				x.Mul(&s0, &m.VRest[j-1])
				s[j].Add(&s[j], &x)
			}
		default:
			mulColumns(s, tmp, o.mdsCols)
		}
	}
	return s[1]
}

// mulColumns sets s = s·m, s_j = ⟨s, column j of m⟩, from m's columns, using scratch tmp
// (len Width). fr.Vector.InnerProduct reduces once per sum on CPUs with AVX-512.
func mulColumns(s, tmp fr.Vector, cols []fr.Vector) {
	for j := range tmp {
		tmp[j] = s.InnerProduct(cols[j])
	}
	copy(s, tmp)
}
