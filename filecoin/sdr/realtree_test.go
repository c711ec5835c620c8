package sdr

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// binReader reads the bincode fields of post.vproof.
type binReader struct {
	b   []byte
	off int
	err error
}

func (r *binReader) take(n int) []byte {
	if r.err != nil || r.off+n > len(r.b) {
		if r.err == nil {
			r.err = fmt.Errorf("short read at offset %d", r.off)
		}
		return make([]byte, n)
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out
}

func (r *binReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *binReader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }

func (r *binReader) elem() fr.Element {
	e, err := fr.LittleEndian.Element((*[32]byte)(r.take(32)))
	if err != nil && r.err == nil {
		r.err = err
	}
	return e
}

func (r *binReader) path() []PathElement {
	n := r.u64()
	out := make([]PathElement, n)
	for i := range out {
		h := make([]fr.Element, r.u64())
		for j := range h {
			h[j] = r.elem()
		}
		out[i] = PathElement{Hashes: h, Index: r.u64()}
	}
	return out
}

// TestRealTreeRPaths verifies the 10 tree R inclusion proofs of a real 32 GiB sector (8-8-0
// shape: 9 base levels of arity 8, one sub level of arity 8) from curio's WindowPoSt golden
// vanilla proof with MerkleProof.VerifyPoseidon, against the sector's comm_r_last.
func TestRealTreeRPaths(t *testing.T) {
	raw, err := os.ReadFile("testdata/post.vproof")
	require.NoError(t, err)
	r := &binReader{b: raw}
	require.Equal(t, uint64(1), r.u64())
	commR := r.elem()
	require.Equal(t, uint64(1), r.u64())
	n := r.u64()
	require.Equal(t, uint64(10), n)
	proofs := make([]MerkleProof, n)
	for i := range proofs {
		require.Equal(t, uint32(1), r.u32(), "variant Sub")
		p := MerkleProof{BaseProof: r.path(), SubProof: r.path()}
		p.Root, p.Leaf = r.elem(), r.elem()
		proofs[i] = p
	}
	commC, commRLast := r.elem(), r.elem()
	require.NoError(t, r.err)
	require.Equal(t, len(raw), r.off)
	want := CommR(&commC, &commRLast)
	require.True(t, want.Equal(&commR))
	for i, p := range proofs {
		require.Len(t, p.BaseProof, 9)
		require.Len(t, p.SubProof, 1)
		require.True(t, p.Root.Equal(&commRLast))
		idx := p.PathIndex()
		require.Less(t, idx, uint64(1)<<30)
		require.NoError(t, p.VerifyPoseidon(idx), "proof %d", i)
		p.Leaf.SetUint64(7)
		require.Error(t, p.VerifyPoseidon(idx))
	}
}
