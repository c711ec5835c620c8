package update

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestBincodeRoundTrip: a 2 KiB partition proof decodes to itself, and its length is the
// layout's: comm_c 32 + apex 8 + 8·32 + count 8 + 10 challenges × (2 Single tree R proofs of
// 2 levels of 7 siblings + 1 Single tree D proof of 6 levels of 1 sibling).
func TestBincodeRoundTrip(t *testing.T) {
	r := updated2KiB(t)
	pp, err := r.PartitionProof(0)
	require.NoError(t, err)
	b, err := pp.MarshalBinary()
	require.NoError(t, err)
	proof := func(levels, sib int) int { return 4 + 32 + 32 + 8 + levels*(8+32*sib+8) }
	require.Len(t, b, 32+8+8*32+8+10*(2*proof(2, 7)+proof(6, 1)))
	back, err := DecodePartitionProof(b)
	require.NoError(t, err)
	require.Equal(t, pp, back)
}

// TestBincodeMerkleProofMatchesPoSt: the Merkle proofs MarshalBinary writes, of all three
// variants (8-0-0, 8-8-0, 8-8-2 trees), decode with filecoin/post's reader of
// FallbackPoStSectorProof, which reads the same storage-proofs-core MerkleProof bincode and is
// tested on filecoin-ffi's real vanilla proofs.
func TestBincodeMerkleProofMatchesPoSt(t *testing.T) {
	for _, shape := range []sector.TreeShape{{Base: 8}, {Base: 8, Sub: 8}, {Base: 8, Sub: 8, Top: 2}} {
		leaves := make([]fr.Element, 64*shape.BaseTrees())
		for i := range leaves {
			leaves[i].SetUint64(uint64(i*i + 3))
		}
		tree, err := sdr.NewTreeRC(shape, leaves)
		require.NoError(t, err)
		mp := tree.Proof(uint64(len(leaves) - 5))
		b, err := (&PartitionProof{ChallengeProofs: []ChallengeProof{{ROld: mp, DNew: mp, RNew: mp}}}).MarshalBinary()
		require.NoError(t, err)
		one := b[32+8+8:] // after comm_c, no apex leaves, the challenge count
		one = one[:len(one)/3]
		var vp []byte
		vp = binary.LittleEndian.AppendUint64(vp, 9) // sector_id
		vp = append(vp, make([]byte, 32)...)         // comm_r
		vp = binary.LittleEndian.AppendUint64(vp, 1) // one SectorProof
		vp = binary.LittleEndian.AppendUint64(vp, 1) // one inclusion proof
		vp = append(vp, one...)                      // ours
		vp = append(vp, make([]byte, 64)...)         // comm_c, comm_r_last
		got, err := post.DecodeSectorProof(vp)
		require.NoError(t, err, shape.String())
		ip := got.Sectors[0].InclusionProofs[0]
		require.Equal(t, post.DomainOf(&mp.Root), ip.Root, shape.String())
		require.Equal(t, post.DomainOf(&mp.Leaf), ip.Leaf, shape.String())
		path := mp.Path()
		require.Len(t, ip.Path(), len(path))
		for l, e := range ip.Path() {
			require.Equal(t, path[l].Index, e.Index)
			for j, h := range e.Hashes {
				require.Equal(t, post.DomainOf(&path[l].Hashes[j]), h)
			}
		}
	}
}

// TestBincodeErrors: malformed encodings are *DecodeError naming the field and byte offset.
func TestBincodeErrors(t *testing.T) {
	r := updated2KiB(t)
	pp, err := r.PartitionProof(0)
	require.NoError(t, err)
	good, err := pp.MarshalBinary()
	require.NoError(t, err)
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	firstProof := 32 + 8 + 8*32 + 8
	for _, tc := range []struct {
		name   string
		b      []byte
		field  string
		offset int
	}{
		{"truncated comm_c", good[:20], "comm_c", 0},
		{"huge apex count", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[32:], 1<<60); return b }), "apex_leafs length", 32},
		{"non-canonical apex leaf", mutate(func(b []byte) []byte {
			for i := 40 + 32; i < 40+64; i++ {
				b[i] = 0xff
			}
			return b
		}), "apex_leafs[1]", 40 + 32},
		{"bad variant", mutate(func(b []byte) []byte { b[firstProof] = 7; return b }), "challenge_proofs[0].proof_r_old.data variant", firstProof},
		{"bad index", mutate(func(b []byte) []byte {
			// Single: root, leaf, path count, level 0: hashes count, 7 hashes, index.
			binary.LittleEndian.PutUint64(b[firstProof+4+64+8+8+7*32:], 9)
			return b
		}), "challenge_proofs[0].proof_r_old.Single.path.path[0].index", firstProof + 4 + 64 + 8 + 8 + 7*32},
		{"trailing byte", append(append([]byte(nil), good...), 0), "end", len(good)},
	} {
		_, err := DecodePartitionProof(tc.b)
		var de *DecodeError
		require.True(t, errors.As(err, &de), "%s: %v", tc.name, err)
		require.ErrorIs(t, err, ErrFormat, tc.name)
		require.Equal(t, tc.field, de.Field, tc.name)
		require.Equal(t, tc.offset, de.Offset, tc.name)
	}
}
