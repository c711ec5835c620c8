package proofs

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/circuits/stacked"
	"github.com/cuzk-go/cuzk/filecoin/internal/sectortest"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

const (
	sealTestMiner  = 1000
	sealTestSector = 7
)

// sealTestC1 seals a 2 KiB sector of pseudo-random fr32 data in Go for miner 1000's sector 7
// and returns its C1 output for seed {seedByte, 2, 0, …}.
func sealTestC1(t testing.TB, seedByte byte) *c1.SealCommitPhase1Output {
	return sealTestC1Of(t, sector.StackedDrg2KiBV1_1, seedByte)
}

// sealTestC1Of is sealTestC1 for a sector of proof type p.
func sealTestC1Of(t testing.TB, p sector.RegisteredSealProof, seedByte byte) *c1.SealCommitPhase1Output {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, uint64(seedByte)))
	data := sectortest.RandomData(rng, p.SectorSize())
	ticket := [32]byte{0: 5, 31: 0x11}
	s, err := sdr.Seal(context.Background(), p, sector.ProverID(sealTestMiner), sealTestSector, ticket, data)
	require.NoError(t, err)
	out, err := c1.Commit1(context.Background(), s, [32]byte{0: seedByte, 1: 2})
	require.NoError(t, err)
	return out
}

// sealTestParams are INSECURE parameters of the 2 KiB PoRep circuit, made once per test binary.
var sealTestParams = sync.OnceValues(func() (*prover.Parameters, error) {
	return sealTestSetup(sector.StackedDrg2KiBV1_1)
})

// sealTestSetup makes INSECURE parameters (fixed toxic waste) of proof type p's PoRep circuit.
func sealTestSetup(p sector.RegisteredSealProof) (*prover.Parameters, error) {
	shape, err := SealShape(p)
	if err != nil {
		return nil, err
	}
	tw, err := devsetup.NewToxicWaste(rand.NewChaCha8([32]byte{1}))
	if err != nil {
		return nil, err
	}
	return devsetup.InsecureSetup(shape, tw)
}

func sealTestInfo(o *c1.SealCommitPhase1Output, proof []byte) SealVerifyInfo {
	return SealVerifyInfo{
		SealProof: o.RegisteredProof, Miner: sealTestMiner, SectorNumber: sealTestSector,
		Randomness: o.Ticket, InteractiveRandomness: o.Seed,
		CommR: sdr.Bytes(&o.CommR), CommD: sdr.Bytes(&o.CommD), Proof: proof,
	}
}

// TestSealCommitPhase2EndToEnd: a 2 KiB sector sealed in Go, its C1 JSON, SealCommitPhase2
// with INSECURE parameters of the real 2 KiB StackedCircuit (devsetup.InsecureSetup at 2^22
// rows), then VerifySeal from the verifier's values only: the proof verifies; with another
// seed, ticket, comm_r, comm_d, miner or sector it does not.
func TestSealCommitPhase2EndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("a Groth16 setup and proof of the 2.7 M-constraint 2 KiB PoRep take minutes on 2 cores")
	}
	o := sealTestC1(t, 1)
	js, err := c1.Marshal(o)
	require.NoError(t, err)
	start := time.Now()
	params, err := sealTestParams()
	require.NoError(t, err)
	t.Logf("compile and INSECURE setup: %v", time.Since(start))
	start = time.Now()
	proof, err := SealCommitPhase2(t.Context(), js, sealTestSector, sealTestMiner, WithSealParameters(params))
	require.NoError(t, err)
	require.Len(t, proof, prover.ProofSize)
	t.Logf("SealCommitPhase2 (parse, synthesize, prove on the CPU, verify): %v", time.Since(start))

	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	require.NoError(t, err)
	info := sealTestInfo(o, proof)
	require.NoError(t, VerifySeal(pvk, &info))

	requireSealRefusedIfChanged(t, pvk, o, proof)

	// The C1 of another seed proves too, and its proof is not the first's.
	o2 := sealTestC1(t, 2)
	proof2, err := SealCommitPhase2Output(t.Context(), o2, sealTestSector, sealTestMiner, WithSealParameters(params))
	require.NoError(t, err)
	info2 := sealTestInfo(o2, proof2)
	require.NoError(t, VerifySeal(pvk, &info2))
	info2.Proof = proof
	require.ErrorIs(t, VerifySeal(pvk, &info2), prover.ErrInvalidProof)
}

// requireSealRefusedIfChanged checks that proof, valid for o, fails VerifySeal with
// prover.ErrInvalidProof once any one of the seed, ticket, comm_r, comm_d, miner or sector
// number is changed.
func requireSealRefusedIfChanged(t *testing.T, pvk *prover.PreparedVerifyingKey, o *c1.SealCommitPhase1Output, proof []byte) {
	t.Helper()
	flip := func(b *[32]byte) { b[3] ^= 1 }
	for name, change := range map[string]func(*SealVerifyInfo){
		"seed":   func(i *SealVerifyInfo) { flip(&i.InteractiveRandomness) },
		"ticket": func(i *SealVerifyInfo) { flip(&i.Randomness) },
		"comm_r": func(i *SealVerifyInfo) { flip(&i.CommR) },
		"comm_d": func(i *SealVerifyInfo) { flip(&i.CommD) },
		"miner":  func(i *SealVerifyInfo) { i.Miner++ },
		"sector": func(i *SealVerifyInfo) { i.SectorNumber++ },
	} {
		bad := sealTestInfo(o, proof)
		change(&bad)
		require.ErrorIs(t, VerifySeal(pvk, &bad), prover.ErrInvalidProof, name)
	}
}

// TestSealCommitPhase2EndToEnd8MiB: as TestSealCommitPhase2EndToEnd for an 8 MiB sector
// (StackedDrg8MiBV1_1: 2^18 nodes, 2 layers, one partition of 2 challenges; the circuit has
// 3,844,929 constraints and 2^22 rows): sealed in Go, its C1 JSON, SealCommitPhase2 with
// INSECURE parameters of the real 8 MiB StackedCircuit, VerifySeal from the verifier's values
// only; the proof verifies, and with another seed, ticket, comm_r, comm_d, miner or sector it
// does not.
func TestSealCommitPhase2EndToEnd8MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("seals 8 MiB, then a Groth16 setup and proof of the 3.8 M-constraint 8 MiB PoRep take minutes on 2 cores")
	}
	start := time.Now()
	o := sealTestC1Of(t, sector.StackedDrg8MiBV1_1, 1)
	js, err := c1.Marshal(o)
	require.NoError(t, err)
	t.Logf("seal 8 MiB, C1 (%d bytes of JSON): %v", len(js), time.Since(start))

	start = time.Now()
	shape, err := SealShape(sector.StackedDrg8MiBV1_1)
	require.NoError(t, err)
	require.Equal(t, 3_844_929, shape.NumConstraints)
	require.Equal(t, 1<<22, shape.DomainSize())
	params, err := sealTestSetup(sector.StackedDrg8MiBV1_1)
	require.NoError(t, err)
	t.Logf("compile and INSECURE setup: %v", time.Since(start))

	start = time.Now()
	proof, err := SealCommitPhase2(t.Context(), js, sealTestSector, sealTestMiner, WithSealParameters(params))
	require.NoError(t, err)
	require.Len(t, proof, prover.ProofSize)
	t.Logf("SealCommitPhase2 (parse, synthesize, prove on the CPU, verify): %v", time.Since(start))

	pvk, err := prover.PrepareVerifyingKey(&params.VK)
	require.NoError(t, err)
	info := sealTestInfo(o, proof)
	require.NoError(t, VerifySeal(pvk, &info))
	requireSealRefusedIfChanged(t, pvk, o, proof)
}

// TestSealPublicInputsMatchCircuit: the inputs VerifySeal derives from (proof type, comm_r,
// comm_d, miner, sector, ticket, seed) are exactly those the partition circuit built from the
// C1 exposes when synthesized.
func TestSealPublicInputsMatchCircuit(t *testing.T) {
	o := sealTestC1(t, 3)
	shape, err := SealShape(o.RegisteredProof)
	require.NoError(t, err)
	c, err := stacked.FromC1(o, 0)
	require.NoError(t, err)
	asg, err := synth.Synthesize(t.Context(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	info := sealTestInfo(o, nil)
	in, err := SealPublicInputs(&info)
	require.NoError(t, err)
	require.Equal(t, [][]fr.Element{asg.PublicInputs()}, in)
}

// TestSealCommitPhase2Refuses: bad input is refused before any proving, with an error naming
// what is wrong: a tampered label (JSON field), another miner or sector than the replica id's,
// missing or mismatched parameters.
func TestSealCommitPhase2Refuses(t *testing.T) {
	o := sealTestC1(t, 4)
	js, err := c1.Marshal(o)
	require.NoError(t, err)
	ctx := t.Context()

	// A challenged node's label in layer 1.
	o2 := *o
	o2.VanillaProofs = [][]sdr.Proof{append([]sdr.Proof(nil), o.VanillaProofs[0]...)}
	pr := &o2.VanillaProofs[0][1]
	rows := append([]fr.Element(nil), pr.ReplicaColumnProofs.CX.Column.Rows...)
	rows[0].SetUint64(12345)
	pr.ReplicaColumnProofs.CX.Column.Rows = rows
	bad, err := c1.Marshal(&o2)
	require.NoError(t, err)
	require.False(t, bytes.Equal(bad, js))
	_, err = SealCommitPhase2(ctx, bad, sealTestSector, sealTestMiner, WithSealParameters(&prover.Parameters{}))
	var fe *c1.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Contains(t, err.Error(), "vanilla_proofs.StackedDrg2KiBV1")
	require.Contains(t, err.Error(), "partition 0 challenge 1")

	_, err = SealCommitPhase2(ctx, js, sealTestSector, sealTestMiner)
	require.ErrorContains(t, err, "no parameters")
	_, err = SealCommitPhase2(ctx, js, sealTestSector+1, sealTestMiner, WithSealParameters(&prover.Parameters{}))
	require.ErrorContains(t, err, "replica_id is not the one of miner 1000 sector 8")
	_, err = SealCommitPhase2(ctx, js, sealTestSector, sealTestMiner+1, WithSealParameters(&prover.Parameters{}))
	require.ErrorContains(t, err, "replica_id is not the one of miner 1001 sector 7")
	_, err = SealCommitPhase2(ctx, js, sealTestSector, sealTestMiner, WithSealParameters(&prover.Parameters{}))
	require.ErrorContains(t, err, "parameters for StackedDrg2KiBV1_1")
	_, err = SealCommitPhase2(ctx, js[:100], sealTestSector, sealTestMiner)
	require.ErrorIs(t, err, c1.ErrMalformed)
	require.ErrorContains(t, WithSealEngine(nil)(&sealConfig{}), "nil engine")
}

// TestVerifySealRefuses: zero or non-canonical commitments and unknown proof types are refused.
func TestVerifySealRefuses(t *testing.T) {
	o := sealTestC1(t, 5)
	info := sealTestInfo(o, make([]byte, prover.ProofSize))
	info.CommR = [32]byte{}
	_, err := SealPublicInputs(&info)
	require.ErrorContains(t, err, "comm_r is all zero")
	info = sealTestInfo(o, nil)
	info.CommD = [32]byte{31: 0xff}
	_, err = SealPublicInputs(&info)
	require.ErrorContains(t, err, "comm_d is not a field element")
	info = sealTestInfo(o, nil)
	info.SealProof = 99
	_, err = SealPublicInputs(&info)
	require.ErrorContains(t, err, "unknown seal proof type 99")
}
