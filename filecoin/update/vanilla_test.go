package update

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	cupdate "github.com/cuzk-go/cuzk/filecoin/circuits/update"
	"github.com/cuzk-go/cuzk/filecoin/internal/sectortest"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/synth"
)

// updated2KiB seals a random 2 KiB sector with filecoin/sdr and encodes new random data into it.
func updated2KiB(t testing.TB) *Replica {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	var ticket [32]byte
	ticket[0] = 7
	s, err := sdr.Seal(context.Background(), sector.StackedDrg2KiBV1_1, sector.ProverID(1000), 3, ticket,
		sectortest.RandomData(rng, sector.Size2KiB))
	require.NoError(t, err)
	data, err := sdr.DataNodes(sectortest.RandomData(rng, sector.Size2KiB))
	require.NoError(t, err)
	r, err := Encode(StackedDrg2KiBV1, s.TreeR, s.CommC, data)
	require.NoError(t, err)
	require.True(t, r.CommROld.Equal(&s.CommR), "comm_r_old is the sealed sector's comm_r")
	return r
}

// TestEncodeDecodes: every node of the new replica is old + data·rho with rho of the node's
// high bit (h = 1 at 2 KiB), so subtracting data·rho gives back the sealed replica.
func TestEncodeDecodes(t *testing.T) {
	r := updated2KiB(t)
	require.Equal(t, 1, r.H)
	phi := Phi(r.CommDNew, r.CommROld)
	for i := uint64(0); i < r.Params.SectorNodes; i++ {
		rho := Rho(phi, i>>5)
		d, n, o := r.TreeD.Leaf(i), r.TreeRNew.Leaf(i), r.TreeROld.Leaf(i)
		var back fr.Element
		back.Mul(&d, &rho)
		back.Sub(&n, &back)
		require.True(t, back.Equal(&o), "node %d", i)
	}
}

// TestVanilla2KiB: the partition proof of a 2 KiB update verifies natively, its circuit is
// satisfied (synth.Check on the 1,705,039-constraint shape) with the public inputs verifiers
// derive, and a changed comm_r_new, replica label, apex leaf or comm_c fails Verify naming what.
func TestVanilla2KiB(t *testing.T) {
	r := updated2KiB(t)
	pp, err := r.PartitionProof(0)
	require.NoError(t, err)
	require.NoError(t, Verify(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, r.CommRNew, pp))

	c, err := pp.Circuit(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, r.CommRNew)
	require.NoError(t, err)
	shape, err := synth.Compile(cupdate.Blank(r.Params))
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	khs, err := r.Params.KAndHSelect(0, 1)
	require.NoError(t, err)
	var khsElt fr.Element
	khsElt.SetUint64(khs)
	want := []fr.Element{khsElt, r.CommROld, r.CommDNew, r.CommRNew}
	got := asg.PublicInputs()
	require.Len(t, got, 4)
	for i := range want {
		require.True(t, want[i].Equal(&got[i]), "input %d", i)
	}

	one := fr.One()
	var bumped fr.Element
	bumped.Add(&r.CommRNew, &one)
	err = Verify(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, bumped, pp)
	require.ErrorIs(t, err, ErrInvalidProof)
	require.Contains(t, err.Error(), "comm_r_new")

	clone := func() *PartitionProof {
		b, err := pp.MarshalBinary()
		require.NoError(t, err)
		q, err := DecodePartitionProof(b)
		require.NoError(t, err)
		return q
	}
	bad := clone()
	bad.ChallengeProofs[3].RNew.Leaf.Add(&bad.ChallengeProofs[3].RNew.Leaf, &one)
	err = Verify(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, r.CommRNew, bad)
	require.ErrorIs(t, err, ErrInvalidProof)
	require.Contains(t, err.Error(), "challenge 3")
	require.Contains(t, err.Error(), "tree R new")

	bad = clone()
	bad.ApexLeafs[2].Add(&bad.ApexLeafs[2], &one)
	err = Verify(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, r.CommRNew, bad)
	require.ErrorIs(t, err, ErrInvalidProof)
	require.Contains(t, err.Error(), "apex tree")

	bad = clone()
	bad.CommC.Add(&bad.CommC, &one)
	err = Verify(StackedDrg2KiBV1, 0, r.CommROld, r.CommDNew, r.CommRNew, bad)
	require.ErrorIs(t, err, ErrInvalidProof)
	require.Contains(t, err.Error(), "comm_r_old")

	require.Error(t, Verify(StackedDrg2KiBV1, 1, r.CommROld, r.CommDNew, r.CommRNew, pp), "partition 1 of 1")
}

// TestEncodeRejects: wrong sizes and shapes are errors.
func TestEncodeRejects(t *testing.T) {
	r := updated2KiB(t)
	_, err := Encode(StackedDrg2KiBV1, r.TreeROld, r.CommC, make([]fr.Element, 10))
	require.ErrorContains(t, err, "10 data nodes")
	_, err = Encode(StackedDrg8MiBV1, r.TreeROld, r.CommC, make([]fr.Element, 1<<18))
	require.ErrorContains(t, err, "old tree R")
	_, err = Encode(ProofType(9), r.TreeROld, r.CommC, nil)
	require.ErrorContains(t, err, "unknown registered update proof 9")
	var de *DecodeError
	_, err = DecodePartitionProof([]byte{1, 2, 3})
	require.True(t, errors.As(err, &de))
}
