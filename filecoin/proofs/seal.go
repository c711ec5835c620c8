package proofs

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/circuits/stacked"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// SealOption configures SealCommitPhase2.
type SealOption func(*sealConfig) error

type sealConfig struct {
	engine   *engine.Engine
	params   *prover.Parameters
	priority int
}

// WithSealEngine proves the partitions on e (its devices, memory budget and queue). Without it
// SealCommitPhase2 starts an engine on the CPU for the call and closes it afterwards.
func WithSealEngine(e *engine.Engine) SealOption {
	return func(c *sealConfig) error {
		if e == nil {
			return errors.New("proofs: nil engine")
		}
		c.engine = e
		return nil
	}
}

// WithSealParameters proves with params: the Groth16 parameters of the C1's seal proof type,
// Filecoin's v28 .params file mapped by ProofInfo.OpenParameters (devsetup's, INSECURE, in
// tests). Required.
func WithSealParameters(params *prover.Parameters) SealOption {
	return func(c *sealConfig) error {
		if params == nil {
			return errors.New("proofs: nil parameters")
		}
		c.params = params
		return nil
	}
}

// WithSealPriority sets the engine job's priority (engine.Job.Priority: lower first).
func WithSealPriority(p int) SealOption {
	return func(c *sealConfig) error { c.priority = p; return nil }
}

// sealShapes holds the compiled StackedCircuit of each seal shape, keyed by its stacked.Params
// as fmt.Sprint spells them.
var sealShapes shapeCache

// SealShape returns the compiled partition circuit of seal proof type p (its R1CS matrices,
// bellperson's StackedCircuit term for term). It is compiled once per process and sector size
// and kept: the 2 KiB shape takes about 1 GiB, the 32 GiB one tens of GiB.
func SealShape(p sector.RegisteredSealProof) (*synth.Shape, error) {
	params, err := stacked.SealParams(p)
	if err != nil {
		return nil, err
	}
	return sealShapes.get(fmt.Sprint(params), func() synth.Circuit { return stacked.Blank(params) })
}

// SealCommitPhase2 is filecoin-ffi's SealCommitPhase2 (proofs.go; filecoin-proofs api/seal.rs
// seal_commit_phase2) without cgo: it parses and checks phase1Output, the JSON of a C1 output
// (c1.Unmarshal: shape, canonical values, every vanilla proof against comm_d, comm_r, replica_id
// and seed), checks that replica_id is the one of miner minerID's sector sectorNum with the C1's
// ticket and comm_d, proves every partition's StackedCircuit through the engine, and returns the
// partitions' 192-byte proofs in partition order (N × 192 bytes, N = 1 up to 512 MiB, 10 for 32
// and 64 GiB). Like Rust, it verifies the assembled proof (VerifySeal) before returning it.
// WithSealParameters is required.
func SealCommitPhase2(ctx context.Context, phase1Output []byte, sectorNum, minerID uint64, opts ...SealOption) ([]byte, error) {
	o, err := c1.Unmarshal(phase1Output)
	if err != nil {
		return nil, fmt.Errorf("proofs: seal commit phase 2: %w", err)
	}
	return SealCommitPhase2Output(ctx, o, sectorNum, minerID, opts...)
}

// SealCommitPhase2Output is SealCommitPhase2 for a C1 output already parsed (c1.Unmarshal,
// c1.UnmarshalCommit2In for the lotus-bench wrapper, or c1.Commit1).
func SealCommitPhase2Output(ctx context.Context, o *c1.SealCommitPhase1Output, sectorNum, minerID uint64, opts ...SealOption) ([]byte, error) {
	var cfg sealConfig
	for _, opt := range opts {
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.params == nil {
		return nil, errors.New("proofs: seal commit phase 2: no parameters (WithSealParameters)")
	}
	p := o.RegisteredProof
	if len(p.Features()) != 0 {
		return nil, fmt.Errorf("proofs: seal commit phase 2: %v: only interactive PoRep is supported", p)
	}
	want := sdr.ReplicaID(sector.ProverID(minerID), sectorNum, o.Ticket, sdr.Bytes(&o.CommD), p.PoRepID())
	if !want.Equal(&o.ReplicaID) {
		return nil, fmt.Errorf("proofs: seal commit phase 2: replica_id is not the one of miner %d sector %d with the C1's ticket and comm_d", minerID, sectorNum)
	}
	shape, err := SealShape(p)
	if err != nil {
		return nil, err
	}
	if err := prover.CheckParameters(cfg.params, shape); err != nil {
		return nil, fmt.Errorf("proofs: seal commit phase 2: parameters for %v: %w", p, err)
	}
	eng := cfg.engine
	if eng == nil {
		if eng, err = engine.New(); err != nil {
			return nil, err
		}
		defer func() { _ = eng.Close(context.WithoutCancel(ctx)) }()
	}
	h, err := eng.Submit(ctx, &engine.Job{
		Priority:   cfg.priority,
		Params:     cfg.params,
		Shape:      shape,
		Partitions: len(o.VanillaProofs),
		Circuit:    func(k int) (synth.Circuit, error) { return stacked.FromC1(o, k) },
	})
	if err != nil {
		return nil, fmt.Errorf("proofs: seal commit phase 2: %w", err)
	}
	res, err := waitJob(h)
	if err != nil {
		return nil, fmt.Errorf("proofs: seal commit phase 2: %w", err)
	}
	pvk, err := prover.PrepareVerifyingKey(&cfg.params.VK)
	if err != nil {
		return nil, err
	}
	info := SealVerifyInfo{
		SealProof: p, Miner: minerID, SectorNumber: sectorNum,
		Randomness: o.Ticket, InteractiveRandomness: o.Seed,
		CommR: sdr.Bytes(&o.CommR), CommD: sdr.Bytes(&o.CommD), Proof: res.Proof,
	}
	if err := VerifySeal(pvk, &info); err != nil {
		return nil, fmt.Errorf("proofs: seal commit phase 2: the proof does not verify: %w", err)
	}
	return res.Proof, nil
}

// SealVerifyInfo is what a verifier knows of a sealed sector (go-state-types proof.SealVerifyInfo,
// with comm_r and comm_d as their 32 bytes rather than CIDs).
type SealVerifyInfo struct {
	SealProof             sector.RegisteredSealProof
	Miner                 uint64 // actor id; the prover id is its ID address payload
	SectorNumber          uint64
	Randomness            [32]byte // the ticket
	InteractiveRandomness [32]byte // the seed
	CommR, CommD          [32]byte // little-endian field elements
	Proof                 []byte   // partitions × 192 bytes
}

// SealPublicInputs returns the public inputs of every partition of the seal proof of info, from
// the verifier's values alone (filecoin-proofs get_seal_inputs): replica_id =
// SHA-256(prover_id ‖ sector u64 BE ‖ ticket ‖ comm_d ‖ porep_id) with the top two bits
// cleared, then stacked.PublicInputs of each partition. comm_r and comm_d must be canonical
// and non-zero (as_safe_commitment).
func SealPublicInputs(info *SealVerifyInfo) ([][]fr.Element, error) {
	p := info.SealProof
	if !p.Valid() {
		return nil, fmt.Errorf("proofs: unknown seal proof type %d", uint64(p))
	}
	commR, err := sealCommitment("comm_r", &info.CommR)
	if err != nil {
		return nil, err
	}
	commD, err := sealCommitment("comm_d", &info.CommD)
	if err != nil {
		return nil, err
	}
	replicaID := sdr.ReplicaID(sector.ProverID(info.Miner), info.SectorNumber, info.Randomness, info.CommD, p.PoRepID())
	cfg := p.Config()
	g, err := sdr.NewGraph(cfg.Nodes, p.PoRepID(), p.APIVersion())
	if err != nil {
		return nil, err
	}
	out := make([][]fr.Element, cfg.Partitions)
	for k := range out {
		if out[k], err = stacked.PublicInputs(p, g, replicaID, commD, commR, info.InteractiveRandomness, k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func sealCommitment(name string, b *[32]byte) (fr.Element, error) {
	if *b == ([32]byte{}) {
		return fr.Element{}, fmt.Errorf("proofs: %s is all zero", name)
	}
	e, err := fr.LittleEndian.Element(b)
	if err != nil {
		return fr.Element{}, fmt.Errorf("proofs: %s is not a field element: %w", name, err)
	}
	return e, nil
}

// VerifySeal verifies the seal proof of info under pvk, the PoRep verifying key of its proof
// type (filecoin-proofs verify_seal): the public inputs come from SealPublicInputs, never from
// the prover, and every partition's proof must verify (prover.VerifyAssembled). It returns nil
// for a valid proof and an error wrapping prover.ErrInvalidProof, naming the partition, for an
// invalid one.
func VerifySeal(pvk *prover.PreparedVerifyingKey, info *SealVerifyInfo) error {
	inputs, err := SealPublicInputs(info)
	if err != nil {
		return err
	}
	if n := pvk.NumPublicInputs(); n != len(inputs[0]) {
		return fmt.Errorf("proofs: verifying key of %d public inputs for %v (%d)", n, info.SealProof, len(inputs[0]))
	}
	return prover.VerifyAssembled(pvk, info.Proof, inputs)
}
