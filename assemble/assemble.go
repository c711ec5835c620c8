// Package assemble joins partition proofs into the multi-partition proof Filecoin expects and
// splits it back. A multi-partition proof is the concatenation of the partitions' 192-byte proofs
// in partition order (PoRep's 10 partitions: 1920 bytes).
//
//	all, err := assemble.Assemble(10, parts) // parts in any order
//	proofs, err := assemble.Split(all)
package assemble

import (
	"errors"
	"fmt"
)

// ProofSize is the size in bytes of one partition's proof (A‖B‖C compressed).
const ProofSize = 192

// ErrAssemble is wrapped by every error of this package.
var ErrAssemble = errors.New("assemble")

// Part is one partition's proof and its index.
type Part struct {
	Index int
	Proof []byte
}

// Assemble returns the proofs of partitions 0…n−1 concatenated in partition order. parts may come
// in any order; a missing, duplicate or out-of-range partition, or a proof that is not ProofSize
// bytes, is an error naming the partition.
func Assemble(n int, parts []Part) ([]byte, error) {
	if n <= 0 {
		return nil, fmt.Errorf("%w: partition count %d, want ≥ 1", ErrAssemble, n)
	}
	out := make([]byte, n*ProofSize)
	seen := make([]bool, n)
	for _, p := range parts {
		if p.Index < 0 || p.Index >= n {
			return nil, fmt.Errorf("%w: partition %d out of range [0, %d)", ErrAssemble, p.Index, n)
		}
		if seen[p.Index] {
			return nil, fmt.Errorf("%w: partition %d given twice", ErrAssemble, p.Index)
		}
		if len(p.Proof) != ProofSize {
			return nil, fmt.Errorf("%w: partition %d proof is %d bytes, want %d", ErrAssemble, p.Index, len(p.Proof), ProofSize)
		}
		seen[p.Index] = true
		copy(out[p.Index*ProofSize:], p.Proof)
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%w: partition %d missing (%d of %d given)", ErrAssemble, i, len(parts), n)
		}
	}
	return out, nil
}

// Split cuts a multi-partition proof into its partitions' proofs, in partition order. The
// returned slices alias b.
func Split(b []byte) ([][]byte, error) {
	if len(b) == 0 || len(b)%ProofSize != 0 {
		return nil, fmt.Errorf("%w: proof of %d bytes is not a positive multiple of %d", ErrAssemble, len(b), ProofSize)
	}
	out := make([][]byte, len(b)/ProofSize)
	for i := range out {
		out[i] = b[i*ProofSize : (i+1)*ProofSize : (i+1)*ProofSize]
	}
	return out, nil
}
