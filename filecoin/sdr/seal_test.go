package sdr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/filecoin/internal/sectortest"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// zeroPieceComms[i] is the comm_d (tree D root) of 128·2^i zero bytes: the zero-piece table of
// lotus/go-commp-utils zerocomm (copied in cpp-filecoin's runtime_impl.cpp); entries 0 and 4
// (128 B, 2 KiB) are also asserted by rust-fil-proofs filecoin-proofs/tests/pieces.rs
// test_compute_comm_d_empty.
var zeroPieceComms = []string{
	"3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333",
	"642a607ef886b004bf2c1978463ae1d4693ac0f410eb2d1b7a47fe205e5e750f",
	"57a2381a28652bf47f6bef7aca679be4aede5871ab5cf3eb2c08114488cb8526",
	"1f7ac9595510e09ea41c460b176430bb322cd6fb412ec57cb17d989a4310372f",
	"fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833",
	"08c47b38ee13bc43f41b915c0eed9911a26086b3ed62401bf9d58b8d19dff624",
	"b2e47bfb11facd941f62af5c750f3ea5cc4df517d5c4f16db2b4d77baec1a32f",
	"f9226160c8f927bfdcc418cdf203493146008eaefb7d02194d5e548189005108",
	"2c1a964bb90b59ebfe0f6da29ad65ae3e417724a8f7c11745a40cac1e5e74011",
	"fee378cef16404b199ede0b13e11b624ff9d784fbbed878d83297e795e024f02",
	"8e9e2403fa884cf6237f60df25f83ee40dca9ed879eb6f6352d15084f5ad0d3f",
	"752d9693fa167524395476e317a98580f00947afb7a30540d625a9291cc12a07",
	"7022f60f7ef6adfa17117a52619e30cea82c68075adf1c667786ec506eef2d19",
	"d99887b973573a96e11393645236c17b1f4c7034d723c7a99f709bb4da61162b",
	"d0b530dbb0b4f25c5d2f2a28dfee808b53412a02931f18c499f5a254086b1326",
	"84c0421ba0685a01bf795a2344064fe424bd52a9d24377b394ff4c4b4568e811",
	"65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c",
	"a2247508285850965b7e334b3127b0c042b1d046dc54402137627cd8799ce13a",
	"dafdab6da9364453c26d33726b9fefe343be8f81649ec009aad3faff50617508",
	"d941d5e0d6314a995c33ffbd4fbe69118d73d4e5fd2cd31f0f7c86ebdd14e706",
	"514c435c3d04d349a5365fbd59ffc713629111785991c1a3c53af22079741a2f",
	"ad06853969d37d34ff08e09f56930a4ad19a89def60cbfee7e1d3381c1e71c37",
	"39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06",
	"ccc3c012f5b05e811a2bbfdd0f6833b84275b47bf229c0052a82484f3c1a5b3d",
	"7df29b69773199e8f2b40b77919d048509eed768e2c7297b1f1437034fc3c62c",
	"66ce05a3667552cf45c02bcc4e8392919bdeac35de2ff56271848e9f7b675107",
	"d8610218425ab5e95b1ca6239d29a2e420d706a96f373e2f9c9a91d759d19b01",
	"6d364b1ef846441a5a4a68862314acc0a46f016717e53443e839eedf83c2853c",
	"077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e",
	"e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02",
}

// TestZeroCommD checks tree D over all-zero sectors: a real tree for 2 KiB (and 8 MiB outside
// -short), and for every size of the table the root of zero subtrees hashed level by level.
func TestZeroCommD(t *testing.T) {
	hexOf := func(x fr.Element) string { b := Bytes(&x); return hex.EncodeToString(b[:]) }
	var z fr.Element
	for depth := 1; depth < 2+len(zeroPieceComms); depth++ {
		z = sha256Node([]fr.Element{z, z})
		if depth >= 2 {
			require.Equal(t, zeroPieceComms[depth-2], hexOf(z), "%d bytes", 32<<depth)
		}
	}
	sizes := []uint64{sector.Size2KiB}
	if !testing.Short() {
		sizes = append(sizes, sector.Size8MiB)
	}
	for _, size := range sizes {
		tr, err := NewTreeD(make([]fr.Element, size/32))
		require.NoError(t, err)
		i := 0
		for 128<<i < size {
			i++
		}
		require.Equal(t, zeroPieceComms[i], hexOf(tr.Root()))
	}
}

func TestCompoundTreeProofs(t *testing.T) {
	for _, shape := range []sector.TreeShape{{Base: 8}, {Base: 8, Sub: 8}, {Base: 8, Sub: 8, Top: 2}, {Base: 8, Sub: 4}} {
		n := 8 * 8 * shape.BaseTrees()
		leaves := make([]fr.Element, n)
		for i := range leaves {
			leaves[i].SetUint64(uint64(i*i + 7))
		}
		tr, err := NewTreeRC(shape, leaves)
		require.NoError(t, err)
		for _, i := range []int{0, 1, 63, 64, n / 2, n - 1} {
			if i >= n {
				continue
			}
			p := tr.Proof(uint64(i))
			require.NoError(t, p.VerifyPoseidon(uint64(i)), "%v leaf %d", shape, i)
			require.Equal(t, len(p.BaseProof), 2)
			require.Equal(t, shape.Sub > 0, len(p.SubProof) == 1)
			require.Equal(t, shape.Top > 0, len(p.TopProof) == 1)
			require.Error(t, p.VerifyPoseidon(uint64(i+1)%uint64(n)))
			p.Leaf.SetUint64(1)
			require.ErrorIs(t, p.VerifyPoseidon(uint64(i)), ErrInvalidProof)
		}
	}
	_, err := NewTreeRC(sector.TreeShape{Base: 8}, make([]fr.Element, 48))
	require.Error(t, err)
}

// TestInteractiveChallengesLittleEndian recomputes challenges by Horner's rule over the digest
// bytes from the most significant (byte 31), i.e. reading the digest little-endian as
// challenges.rs BigUint::from_bytes_le does.
func TestInteractiveChallengesLittleEndian(t *testing.T) {
	var id fr.Element
	id.SetUint64(12345)
	seed := [32]byte{1, 2, 3}
	nodes := uint64(1 << 30)
	all := InteractiveChallenges(nodes, &id, seed, 0, 180)
	for k := 0; k < 10; k++ {
		part := InteractiveChallenges(nodes, &id, seed, k, 18)
		require.Equal(t, all[18*k:18*k+18], part)
		for i, c := range part {
			idb := Bytes(&id)
			var j [4]byte
			binary.LittleEndian.PutUint32(j[:], uint32(18*k+i))
			d := sha256.Sum256(append(append(idb[:], seed[:]...), j[:]...))
			var r uint64
			for b := 31; b >= 0; b-- {
				r = (r<<8 | uint64(d[b])) % (nodes - 1)
			}
			require.Equal(t, r+1, c)
		}
	}
}

func sealAndProve(t *testing.T, p sector.RegisteredSealProof, seedByte byte) (*Sealed, *PublicInputs, [][]Proof) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(p), uint64(seedByte)))
	data := sectortest.RandomData(rng, p.SectorSize())
	prover, ticket, seed := [32]byte{seedByte, 1}, [32]byte{seedByte, 2}, [32]byte{seedByte, 3}
	s, err := Seal(context.Background(), p, prover, 4242, ticket, data)
	require.NoError(t, err)
	proofs, err := s.Prove(context.Background(), seed)
	require.NoError(t, err)
	pub := &PublicInputs{Proof: p, ReplicaID: s.ReplicaID, CommD: s.CommD, CommR: s.CommR, Seed: seed}
	return s, pub, proofs
}

func TestSeal2KiB(t *testing.T) {
	for _, p := range []sector.RegisteredSealProof{sector.StackedDrg2KiBV1, sector.StackedDrg2KiBV1_1} {
		s, pub, proofs := sealAndProve(t, p, 7)
		require.Len(t, proofs, 1)
		require.Len(t, proofs[0], 2)
		require.NoError(t, Verify(pub, proofs))
		d := Bytes(&s.CommD)
		require.Equal(t, ReplicaID(s.ProverID, s.SectorID, s.Ticket, d, p.PoRepID()), s.ReplicaID)

		// The label of a challenged node recomputed from its labeling proof is its column's.
		pr := proofs[0][0]
		require.Len(t, pr.LabelingProofs, 2)
		require.Len(t, pr.LabelingProofs[1].Parents, TotalParents)
		require.Equal(t, Bytes(&pr.ReplicaColumnProofs.CX.Column.Rows[1]), [32]byte(s.Labels.Label(2, pr.LabelingProofs[1].Node)))

		bad := *pub
		bad.Seed[0] ^= 1
		require.ErrorIs(t, Verify(&bad, proofs), ErrInvalidProof)
		bad = *pub
		bad.CommR.SetUint64(1)
		require.ErrorIs(t, Verify(&bad, proofs), ErrInvalidProof)
		bad = *pub
		bad.ReplicaID.SetUint64(1)
		require.ErrorIs(t, Verify(&bad, proofs), ErrInvalidProof)

		tamper := func(f func(p *Proof)) error {
			c := cloneProof(proofs[0][1])
			f(&c)
			return Verify(pub, [][]Proof{{proofs[0][0], c}})
		}
		require.NoError(t, tamper(func(*Proof) {}))
		require.ErrorIs(t, tamper(func(p *Proof) { p.LabelingProofs[0].Parents[3].SetUint64(9) }), ErrInvalidProof)
		require.ErrorIs(t, tamper(func(p *Proof) { p.ReplicaColumnProofs.ExpParents[2].Column.Rows[0].SetUint64(9) }), ErrInvalidProof)
		require.ErrorIs(t, tamper(func(p *Proof) { p.CommDProofs.Leaf.SetUint64(9) }), ErrInvalidProof)
		require.ErrorIs(t, tamper(func(p *Proof) { p.EncodingProof.Parents[36].SetUint64(9) }), ErrInvalidProof)
		require.ErrorIs(t, tamper(func(p *Proof) { p.ReplicaColumnProofs.DrgParents = p.ReplicaColumnProofs.DrgParents[:5] }), ErrInvalidProof)
	}
}

func cloneProof(p Proof) Proof {
	cp := func(m MerkleProof) MerkleProof {
		out := m
		out.BaseProof = nil
		for _, e := range m.BaseProof {
			out.BaseProof = append(out.BaseProof, PathElement{Hashes: append([]fr.Element(nil), e.Hashes...), Index: e.Index})
		}
		return out
	}
	col := func(c ColumnProof) ColumnProof {
		return ColumnProof{Column: Column{Index: c.Column.Index, Rows: append([]fr.Element(nil), c.Column.Rows...)}, InclusionProof: cp(c.InclusionProof)}
	}
	q := Proof{CommDProofs: cp(p.CommDProofs), CommRLastProof: cp(p.CommRLastProof)}
	q.ReplicaColumnProofs.CX = col(p.ReplicaColumnProofs.CX)
	for _, c := range p.ReplicaColumnProofs.DrgParents {
		q.ReplicaColumnProofs.DrgParents = append(q.ReplicaColumnProofs.DrgParents, col(c))
	}
	for _, c := range p.ReplicaColumnProofs.ExpParents {
		q.ReplicaColumnProofs.ExpParents = append(q.ReplicaColumnProofs.ExpParents, col(c))
	}
	for _, l := range p.LabelingProofs {
		q.LabelingProofs = append(q.LabelingProofs, LabelingProof{Parents: append([]fr.Element(nil), l.Parents...), LayerIndex: l.LayerIndex, Node: l.Node})
	}
	q.EncodingProof = EncodingProof{Parents: append([]fr.Element(nil), p.EncodingProof.Parents...), LayerIndex: p.EncodingProof.LayerIndex, Node: p.EncodingProof.Node}
	return q
}

func TestSeal8MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MiB sealing takes tens of seconds on 2 cores")
	}
	_, pub, proofs := sealAndProve(t, sector.StackedDrg8MiBV1_1, 9)
	require.NoError(t, Verify(pub, proofs))
	require.Len(t, proofs[0][0].CommRLastProof.BaseProof, 6)
	require.Len(t, proofs[0][0].CommDProofs.BaseProof, 18)
}

func TestSealRejects(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 2048)
	_, err := Seal(ctx, sector.StackedDrg2KiBV1, [32]byte{}, 1, [32]byte{}, data[:2016])
	require.Error(t, err)
	data[63] = 0x80
	_, err = Seal(ctx, sector.StackedDrg2KiBV1, [32]byte{}, 1, [32]byte{}, data)
	require.ErrorContains(t, err, "node 1")
	_, err = Seal(ctx, sector.StackedDrg32GiBV1_1, [32]byte{}, 1, [32]byte{}, nil)
	require.True(t, errors.Is(err, ErrUnsupported))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	data[63] = 0
	_, err = Seal(cctx, sector.StackedDrg2KiBV1, [32]byte{}, 1, [32]byte{}, data)
	require.ErrorIs(t, err, context.Canceled)
	s, err := Seal(ctx, sector.StackedDrg2KiBV1_1_Feat_SyntheticPoRep, [32]byte{}, 1, [32]byte{}, data)
	require.NoError(t, err)
	_, err = s.Prove(ctx, [32]byte{})
	require.ErrorIs(t, err, ErrUnsupported)
}
