package synth

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/crypto/blake2s"
)

// HashShape returns the constraint-system hash of bellpepper-core's TestConstraintSystem::hash
// (util_cs/test_cs.rs) for the compiled shape s: two circuits with equal hashes have the same
// variables, the same constraints in the same order and the same coefficients.
//
// The hash is Blake2s-256 (no key) over
//
//	u64 BE NumInputs (One included) ‖ u64 BE NumAux ‖ u64 BE NumConstraints
//
// followed, for each constraint and for each of its combinations A, B, C in that order, by
//
//	u64 BE n ‖ n × ( tag ‖ u64 BE index ‖ coefficient as 32 bytes BE )
//
// where the terms are those of the combination after adding the coefficients of repeated
// variables and dropping the variables whose coefficient is then zero, sorted with every input
// (tag 'I', One is input 0) before every aux variable (tag 'A'), each kind by index. The input
// constraints bellperson's prover appends (input_i·0 = 0) are not part of it.
//
// Rust's hash() prints the digest as 64 lower-case hex digits; fmt's %x of the result does too.
func HashShape(s *Shape) [32]byte {
	h, _ := blake2s.New256(nil) // no key: cannot fail
	var buf [9 + 32]byte
	binary.BigEndian.PutUint64(buf[0:8], uint64(s.NumInputs))
	h.Write(buf[:8])
	binary.BigEndian.PutUint64(buf[0:8], uint64(s.NumAux))
	h.Write(buf[:8])
	binary.BigEndian.PutUint64(buf[0:8], uint64(s.NumConstraints))
	h.Write(buf[:8])

	var row []hashTerm
	var entries []MatrixEntry
	for r := 0; r < s.NumConstraints; r++ {
		for _, m := range []*Matrix{&s.A, &s.B, &s.C} {
			row, entries = normalizedRow(row[:0], entries[:0], s, m, r)
			binary.BigEndian.PutUint64(buf[0:8], uint64(len(row)))
			h.Write(buf[:8])
			for _, t := range row {
				if t.col < uint32(s.NumInputs) {
					buf[0] = 'I'
					binary.BigEndian.PutUint64(buf[1:9], uint64(t.col))
				} else {
					buf[0] = 'A'
					binary.BigEndian.PutUint64(buf[1:9], uint64(t.col)-uint64(s.NumInputs))
				}
				fr.BigEndian.PutElement((*[32]byte)(buf[9:]), t.coeff)
				h.Write(buf[:])
			}
		}
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// HashCircuit compiles circuit and returns HashShape of it.
func HashCircuit(circuit Circuit) ([32]byte, error) {
	s, err := Compile(circuit)
	if err != nil {
		return [32]byte{}, err
	}
	return HashShape(s), nil
}

type hashTerm struct {
	col   uint32 // column of w = inputs ‖ aux: inputs sort before aux
	coeff fr.Element
}

// normalizedRow appends row r of m to dst as bellpepper's proc_lc leaves it: sorted by column,
// repeated columns merged by adding their coefficients, zero coefficients dropped. scratch is
// reused for the row's raw entries and returned for the next call.
func normalizedRow(dst []hashTerm, scratch []MatrixEntry, s *Shape, m *Matrix, r int) ([]hashTerm, []MatrixEntry) {
	scratch = m.AppendRow(scratch, r)
	for _, e := range scratch {
		dst = append(dst, hashTerm{col: e.Col, coeff: s.Coeffs[e.Coeff]})
	}
	slices.SortStableFunc(dst, func(x, y hashTerm) int { return cmp.Compare(x.col, y.col) })
	out := dst[:0]
	for i := 0; i < len(dst); {
		t := dst[i]
		for i++; i < len(dst) && dst[i].col == t.col; i++ {
			t.coeff.Add(&t.coeff, &dst[i].coeff)
		}
		if !t.coeff.IsZero() {
			out = append(out, t)
		}
	}
	return out, scratch
}
