package proofs

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/engine"
	cupdate "github.com/cuzk-go/cuzk/filecoin/circuits/update"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/update"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// UpdateProofInfo returns the ProofInfo of a registered update proof (SnapDeals): its
// partitions (1 at 2 KiB, 16 at 32 GiB) and v28 file names.
func UpdateProofInfo(t update.ProofType) (ProofInfo, error) {
	p, err := t.Params()
	if err != nil {
		return ProofInfo{}, fmt.Errorf("proofs: %w", err)
	}
	return ProofInfo{
		Circuit: EmptySectorUpdate, Name: t.String(), SectorSize: t.SectorSize(), SectorsPerPartition: 1,
		ParamsFile: p.ParamsFile(), VKFile: p.VKFile(), partitions: p.PartitionCount,
		shape: func() (*synth.Shape, error) { return UpdateCircuitShape(t) },
	}, nil
}

// updateShapes holds the compiled EmptySectorUpdate shape per cupdate.Params.
var updateShapes shapeCache

// UpdateCircuitShape returns the compiled EmptySectorUpdate circuit of a registered update proof
// type, compiled on first use and kept (1,705,039 constraints at 2 KiB, 81,049,499 at 32 GiB).
func UpdateCircuitShape(t update.ProofType) (*synth.Shape, error) {
	p, err := t.Params()
	if err != nil {
		return nil, fmt.Errorf("proofs: %w", err)
	}
	shape, err := updateShapes.get(p, func() synth.Circuit { return cupdate.Blank(p) })
	if err != nil {
		return nil, fmt.Errorf("%s: compile circuit: %w", t, err)
	}
	return shape, nil
}

// ReplicaUpdateInfo is go-state-types proof.ReplicaUpdateInfo with the commitments as
// 32-byte little-endian field elements in place of the sealed and unsealed CIDs.
type ReplicaUpdateInfo struct {
	UpdateProofType update.ProofType
	CommROld        [32]byte // the sealed sector's comm_r (OldSealedSectorCID)
	CommRNew        [32]byte // the updated sector's comm_r (NewSealedSectorCID)
	CommDNew        [32]byte // the new data's comm_d (NewUnsealedSectorCID)
	Proof           []byte   // partitions × 192 bytes
}

// GenerateEmptySectorUpdatePartitionProofs returns the bincode vanilla proof of every partition
// of an updated replica held in memory, in partition order: what filecoin-ffi's
// GenerateUpdateVanillaProofs returns (rust-filecoin-proofs-api update.rs
// generate_partition_proofs, one PartitionProofBytes per partition, with h = h_default).
func GenerateEmptySectorUpdatePartitionProofs(r *update.Replica) ([][]byte, error) {
	if r == nil {
		return nil, errors.New("update partition proofs: no replica")
	}
	pps, err := r.PartitionProofs()
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(pps))
	for k, pp := range pps {
		if out[k], err = pp.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updateCommitments decodes the three commitments as canonical field elements.
func updateCommitments(commROld, commRNew, commDNew [32]byte) (rOld, rNew, dNew fr.Element, err error) {
	for _, c := range []struct {
		name string
		b    *[32]byte
		dst  *fr.Element
	}{{"comm_r_old", &commROld, &rOld}, {"comm_r_new", &commRNew, &rNew}, {"comm_d_new", &commDNew, &dNew}} {
		if *c.dst, err = fr.LittleEndian.Element(c.b); err != nil {
			return rOld, rNew, dNew, fmt.Errorf("%s is not a field element: %w", c.name, err)
		}
	}
	return rOld, rNew, dNew, nil
}

// UpdatePublicInputs returns every partition's public inputs of an update proof, from the
// verifier's values alone (circuit.rs PublicInputs with h = h_default): [k | h_select ≪
// partition bits, comm_r_old, comm_d_new, comm_r_new].
func UpdatePublicInputs(t update.ProofType, commROld, commRNew, commDNew [32]byte) ([][]fr.Element, error) {
	p, err := t.Params()
	if err != nil {
		return nil, fmt.Errorf("proofs: %w", err)
	}
	rOld, rNew, dNew, err := updateCommitments(commROld, commRNew, commDNew)
	if err != nil {
		return nil, fmt.Errorf("proofs: %s: %w", t, err)
	}
	out := make([][]fr.Element, p.PartitionCount)
	for k := range out {
		khs, err := p.KAndHSelect(k, update.HDefault(p))
		if err != nil {
			return nil, err
		}
		var x fr.Element
		x.SetUint64(khs)
		out[k] = []fr.Element{x, rOld, dNew, rNew}
	}
	return out, nil
}

// GenerateEmptySectorUpdateProofWithVanilla proves a SnapDeals update from its partitions'
// bincode vanilla proofs, as filecoin-ffi GenerateUpdateProofWithVanilla
// (rust-filecoin-proofs-api generate_empty_sector_update_proof_with_vanilla): every partition
// proof is decoded and checked natively (update.Verify) before any proving, then all partitions
// run as one engine job with params (ProofInfo.OpenParameters, or devsetup's for tests). The
// result is the partitions' 192-byte Groth16 proofs in partition order. A proof for other
// commitments, a wrong count or a malformed encoding is an error naming the partition.
func GenerateEmptySectorUpdateProofWithVanilla(ctx context.Context, eng *engine.Engine, params *prover.Parameters,
	proofType update.ProofType, commROld, commRNew, commDNew [32]byte, vanillaProofs [][]byte) ([]byte, error) {
	p, err := proofType.Params()
	if err != nil {
		return nil, fmt.Errorf("generate update proof: %w", err)
	}
	if eng == nil || params == nil {
		return nil, fmt.Errorf("generate %s update proof: engine and parameters are required", proofType)
	}
	if len(vanillaProofs) != p.PartitionCount {
		return nil, fmt.Errorf("generate %s update proof: %d partition proofs, want %d", proofType, len(vanillaProofs), p.PartitionCount)
	}
	want, err := UpdatePublicInputs(proofType, commROld, commRNew, commDNew)
	if err != nil {
		return nil, err
	}
	rOld, rNew, dNew, _ := updateCommitments(commROld, commRNew, commDNew)
	pps := make([]*update.PartitionProof, len(vanillaProofs))
	for k, b := range vanillaProofs {
		if pps[k], err = update.DecodePartitionProof(b); err != nil {
			return nil, fmt.Errorf("generate %s update proof: partition %d: %w", proofType, k, err)
		}
		if err := update.Verify(proofType, k, rOld, dNew, rNew, pps[k]); err != nil {
			return nil, fmt.Errorf("generate %s update proof: %w", proofType, err)
		}
	}
	shape, err := UpdateCircuitShape(proofType)
	if err != nil {
		return nil, err
	}
	h, err := eng.Submit(ctx, &engine.Job{
		Params: params, Shape: shape, Partitions: p.PartitionCount,
		Circuit: func(k int) (synth.Circuit, error) {
			return pps[k].Circuit(proofType, k, rOld, dNew, rNew)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("generate %s update proof: %w", proofType, err)
	}
	res, err := waitJob(h)
	if err != nil {
		return nil, fmt.Errorf("generate %s update proof: %w", proofType, err)
	}
	for k := range want {
		if len(res.Inputs[k]) != len(want[k]) {
			return nil, fmt.Errorf("generate %s update proof: partition %d has %d public inputs, verifiers derive %d", proofType, k, len(res.Inputs[k]), len(want[k]))
		}
		for i := range want[k] {
			if !want[k][i].Equal(&res.Inputs[k][i]) {
				return nil, fmt.Errorf("generate %s update proof: partition %d public input %d differs from the one verifiers derive", proofType, k, i)
			}
		}
	}
	return res.Proof, nil
}

// VerifyEmptySectorUpdateProof verifies an update proof as filecoin-ffi VerifyUpdateProof does,
// loading the verifying key from keys (checked against its manifest digest). It returns false
// with a nil error for a proof that does not verify and an error for malformed input.
func VerifyEmptySectorUpdateProof(ctx context.Context, info ReplicaUpdateInfo, keys *paramcache.Cache) (bool, error) {
	pi, err := UpdateProofInfo(info.UpdateProofType)
	if err != nil {
		return false, fmt.Errorf("verify update proof: %w", err)
	}
	if keys == nil {
		return false, errors.New("verify update proof: no parameter cache")
	}
	vk, err := pi.LoadVerifyingKey(ctx, keys)
	if err != nil {
		return false, err
	}
	return VerifyEmptySectorUpdateProofWithKey(info, vk)
}

// VerifyEmptySectorUpdateProofWithKey is VerifyEmptySectorUpdateProof with a verifying key the
// caller holds: the public inputs of every partition come from UpdatePublicInputs, and the
// proof must be PartitionCount proofs of 192 bytes.
func VerifyEmptySectorUpdateProofWithKey(info ReplicaUpdateInfo, vk *prover.VerifyingKey) (bool, error) {
	t := info.UpdateProofType
	inputs, err := UpdatePublicInputs(t, info.CommROld, info.CommRNew, info.CommDNew)
	if err != nil {
		return false, fmt.Errorf("verify update proof: %w", err)
	}
	if vk == nil {
		return false, fmt.Errorf("verify %s update proof: no verifying key", t)
	}
	if n := len(inputs) * prover.ProofSize; len(info.Proof) != n {
		return false, fmt.Errorf("verify %s update proof: proof of %d bytes, %d partitions take %d", t, len(info.Proof), len(inputs), n)
	}
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		return false, fmt.Errorf("verify %s update proof: %w", t, err)
	}
	if n := pvk.NumPublicInputs(); n != 4 {
		return false, fmt.Errorf("verify %s update proof: verifying key of %d public inputs, want 4", t, n)
	}
	if err := prover.VerifyAssembled(pvk, info.Proof, inputs); err != nil {
		if errors.Is(err, prover.ErrInvalidProof) {
			return false, nil
		}
		return false, fmt.Errorf("verify %s update proof: %w", t, err)
	}
	return true, nil
}
