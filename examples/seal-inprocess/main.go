// Command seal-inprocess proves a 2 KiB sector's PoRep commit (C2) with the cuzk library
// in-process, as filecoin-ffi's SealCommitPhase2 would, and verifies it from the chain's values:
//
//	sdr.Seal (2 KiB sector sealed in Go) → c1.Commit1 → C1 output JSON
//	→ proofs.SealCommitPhase2 on an engine (the GPUs when libcuzk.so finds one, else the CPU)
//	→ proofs.VerifySeal (miner, sector number, ticket, seed, comm_r, comm_d)
//
// With Filecoin's real 2 KiB parameters in $FIL_PROOFS_PARAMETER_CACHE (or --param-cache):
//
//	go run ./examples/seal-inprocess
//
// Without them, with INSECURE development parameters made on the spot (minutes on a few cores;
// their proofs verify only against them):
//
//	go run ./examples/seal-inprocess --insecure-dev-params
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"time"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/prover"
)

// The sector proved: miner f01000's sector 7, interactive PoRep v1.1 over 2 KiB.
const (
	sealProof = sector.StackedDrg2KiBV1_1
	minerID   = 1000
	sectorNum = 7
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "seal-inprocess: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("seal-inprocess", flag.ContinueOnError)
	paramDir := fl.String("param-cache", "", "directory of the v28 parameter files (default $"+paramcache.DirEnv+" or "+paramcache.DefaultDir+")")
	insecure := fl.Bool("insecure-dev-params", false, "INSECURE: make development parameters instead of reading the real ones (tests and demos)")
	if err := fl.Parse(args); err != nil {
		return err
	}

	// 1. Seal a sector of pseudo-random data and run commit phase 1: the C1 output JSON is what
	// Curio hands to a SNARK prover.
	start := time.Now()
	c1JSON, sealed, err := sealAndCommit1(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sealed 2 KiB sector %d of miner %d, C1 output %d bytes (%v)\n", sectorNum, minerID, len(c1JSON), time.Since(start).Round(time.Millisecond))

	// 2. The Groth16 parameters and verifying key of the 2 KiB PoRep circuit.
	start = time.Now()
	params, vk, closeParams, err := parameters(ctx, *paramDir, *insecure, out)
	if err != nil {
		return err
	}
	defer closeParams()
	fmt.Fprintf(out, "parameters ready (%v)\n", time.Since(start).Round(time.Millisecond))

	// 3. C2 through an engine over the GPUs, or the CPU.
	eng, closeEngine, err := newEngine(out)
	if err != nil {
		return err
	}
	defer closeEngine()
	start = time.Now()
	proof, err := proofs.SealCommitPhase2(ctx, c1JSON, sectorNum, minerID, proofs.WithSealEngine(eng), proofs.WithSealParameters(params))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "proved: %d bytes (%v)\n", len(proof), time.Since(start).Round(time.Millisecond))

	// 4. Verify as the chain does, from public values only.
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		return err
	}
	err = proofs.VerifySeal(pvk, &proofs.SealVerifyInfo{
		SealProof: sealProof, Miner: minerID, SectorNumber: sectorNum,
		Randomness: sealed.Ticket, InteractiveRandomness: sealed.Seed,
		CommR: sdr.Bytes(&sealed.CommR), CommD: sdr.Bytes(&sealed.CommD), Proof: proof,
	})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	fmt.Fprintln(out, "verified: the proof checks against comm_r, comm_d, ticket and seed")
	return nil
}

// sealAndCommit1 seals a 2 KiB sector of pseudo-random fr32 data and returns its C1 output as
// JSON and as parsed.
func sealAndCommit1(ctx context.Context) ([]byte, *c1.SealCommitPhase1Output, error) {
	rng := mrand.New(mrand.NewPCG(minerID, sectorNum))
	data := make([]byte, sector.Size2KiB)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f // fr32 padding: each 32-byte word is below the field modulus
	}
	ticket := [32]byte{0: 5, 31: 0x11} // chain randomness at the pre-commit
	seed := [32]byte{0: 9, 1: 2}       // chain randomness at the commit
	s, err := sdr.Seal(ctx, sealProof, sector.ProverID(minerID), sectorNum, ticket, data)
	if err != nil {
		return nil, nil, fmt.Errorf("seal: %w", err)
	}
	o, err := c1.Commit1(ctx, s, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("commit phase 1: %w", err)
	}
	js, err := c1.Marshal(o)
	if err != nil {
		return nil, nil, err
	}
	return js, o, nil
}

// parameters returns the 2 KiB PoRep parameters and verifying key: the real ones mapped from
// the parameter cache (digest-checked; the returned func unmaps them), or INSECURE ones made here.
func parameters(ctx context.Context, dir string, insecure bool, out io.Writer) (*prover.Parameters, *prover.VerifyingKey, func(), error) {
	if insecure {
		fmt.Fprintln(out, "INSECURE development parameters: a setup whose toxic waste could forge proofs; for demos only")
		shape, err := proofs.SealShape(sealProof)
		if err != nil {
			return nil, nil, nil, err
		}
		tw, err := devsetup.NewToxicWaste(rand.Reader)
		if err != nil {
			return nil, nil, nil, err
		}
		params, err := devsetup.InsecureSetup(shape, tw)
		if err != nil {
			return nil, nil, nil, err
		}
		return params, &params.VK, func() {}, nil
	}
	var opts []paramcache.Option
	if dir != "" {
		opts = append(opts, paramcache.WithDir(dir))
	}
	cache, err := paramcache.Open(opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	pi, err := proofs.SealProofInfo(sealProof)
	if err != nil {
		return nil, nil, nil, err
	}
	// The points stay in the file's mapping: a GPU uploads them from it, the CPU decodes them
	// onto the heap on its first proof.
	m, err := pi.OpenParameters(ctx, cache, prover.Unchecked) // the cache checked its digest
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w (or run with --insecure-dev-params)", err)
	}
	params, _ := m.Parameters() // made by OpenParameters: no error
	vk, err := pi.LoadVerifyingKey(ctx, cache)
	if err != nil {
		_ = m.Close()
		return nil, nil, nil, err
	}
	return params, vk, func() { _ = m.Close() }, nil
}

// newEngine starts an engine over the GPUs, with the CPU as the fallback, or on the CPU alone.
func newEngine(out io.Writer) (*engine.Engine, func(), error) {
	gpus, err := gpu.ProverDevices()
	var opts []engine.Option
	switch {
	case errors.Is(err, gpu.ErrNotLoaded) || errors.Is(err, gpu.ErrNoDevice):
		fmt.Fprintln(out, "no GPU: proving on the CPU")
	case err != nil:
		return nil, nil, err
	default:
		fmt.Fprintf(out, "proving on %d GPUs\n", len(gpus))
		opts = append(opts, engine.WithDevices(prover.NewDevices(gpus...)...), engine.WithFallback(prover.CPU()))
	}
	eng, err := engine.New(opts...)
	if err != nil {
		return nil, nil, err
	}
	return eng, func() {
		_ = eng.Close(context.Background())
		for _, g := range gpus {
			g.Close()
		}
	}, nil
}
