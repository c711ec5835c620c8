package proofs

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// Circuit names the Groth16 circuit a registered proof type is proved with.
type Circuit uint8

// The circuits: PoRep is storage-proofs-porep StackedCircuit; WinningPoSt and WindowPoSt are
// storage-proofs-post FallbackPoStCircuit with their setup parameters; EmptySectorUpdate is
// storage-proofs-update EmptySectorUpdateCircuit (SnapDeals).
const (
	PoRep Circuit = iota + 1
	WinningPoSt
	WindowPoSt
	EmptySectorUpdate
)

// String returns "porep", "winning-post", "window-post" or "empty-sector-update".
func (c Circuit) String() string {
	switch c {
	case PoRep:
		return "porep"
	case WinningPoSt:
		return "winning-post"
	case WindowPoSt:
		return "window-post"
	case EmptySectorUpdate:
		return "empty-sector-update"
	}
	return fmt.Sprintf("Circuit(%d)", uint8(c))
}

// ErrUnsupported is wrapped by the errors of registered proof types this package does not
// prove or verify (NonInteractive PoRep).
var ErrUnsupported = errors.New("proofs: unsupported proof type")

// ProofInfo is what proving or verifying a registered proof type needs to know, read from the
// tables of filecoin/sector (seal) and filecoin/post (PoSt).
type ProofInfo struct {
	Circuit    Circuit
	Name       string // the registered proof's Rust/chain name, e.g. "StackedDrgWindow32GiBV1_1"
	SectorSize uint64 // padded sector size in bytes

	// SectorsPerPartition is how many sectors one partition proves: 1 for PoRep, 1 for
	// WinningPoSt (its circuit sees the sector 66 times), WINDOW_POST_SECTOR_COUNT for
	// WindowPoSt (2349 at 32 GiB).
	SectorsPerPartition int

	// ParamsFile and VKFile are the v28 Groth16 parameter and verifying-key file names, as
	// paramcache and Filecoin's parameters.json name them.
	ParamsFile, VKFile string

	partitions int                          // PoRep's and EmptySectorUpdate's fixed partition count
	shape      func() (*synth.Shape, error) // the circuit's compiled shape (Shape)
}

// Partitions returns the number of partitions (of 192-byte Groth16 proofs) that proving
// sectors sectors takes: PoRep's fixed count per sector (10 at 32 GiB, 1 for the small sizes),
// EmptySectorUpdate's (16 at 32 GiB, 1 at 2 KiB), 1 for WinningPoSt, and
// ⌈sectors / SectorsPerPartition⌉ (at least 1) for WindowPoSt (filecoin-proofs post_util.rs
// get_partitions_for_window_post).
func (pi ProofInfo) Partitions(sectors int) int {
	switch pi.Circuit {
	case PoRep, EmptySectorUpdate:
		return pi.partitions
	case WindowPoSt:
		if sectors <= pi.SectorsPerPartition {
			return 1
		}
		return (sectors + pi.SectorsPerPartition - 1) / pi.SectorsPerPartition
	}
	return 1
}

// SealProofInfo returns the ProofInfo of a registered seal proof (interactive and
// SyntheticPoRep types share the interactive PoRep circuit and its files). NonInteractive
// PoRep types are an error wrapping ErrUnsupported.
func SealProofInfo(p sector.RegisteredSealProof) (ProofInfo, error) {
	if !p.Valid() {
		return ProofInfo{}, fmt.Errorf("proofs: unknown registered seal proof %d", uint64(p))
	}
	for _, f := range p.Features() {
		if f == sector.NonInteractivePoRep {
			return ProofInfo{}, fmt.Errorf("proofs: %s: %w", p, ErrUnsupported)
		}
	}
	cfg := p.Config()
	return ProofInfo{
		Circuit: PoRep, Name: p.String(), SectorSize: cfg.SectorSize, SectorsPerPartition: 1,
		ParamsFile: cfg.ParamsFileName(), VKFile: cfg.VKFileName(), partitions: cfg.Partitions,
		shape: func() (*synth.Shape, error) { return SealShape(p) },
	}, nil
}

// PoStProofInfo returns the ProofInfo of a registered PoSt proof.
func PoStProofInfo(p post.ProofType) (ProofInfo, error) {
	info, err := post.Lookup(p)
	if err != nil {
		return ProofInfo{}, fmt.Errorf("proofs: %w", err)
	}
	c, sectors := WinningPoSt, info.ConfigSectors
	if info.Kind == post.Window {
		c = WindowPoSt
	}
	return ProofInfo{
		Circuit: c, Name: info.Name, SectorSize: info.SectorSize, SectorsPerPartition: sectors,
		ParamsFile: info.ParamsFile(), VKFile: info.VKFile(),
		shape: func() (*synth.Shape, error) { return PoStCircuitShape(p) },
	}, nil
}

// LoadVerifyingKey reads the type's verifying key from the parameter cache, after the cache has
// checked the file against its manifest digest.
func (pi ProofInfo) LoadVerifyingKey(ctx context.Context, c *paramcache.Cache) (*prover.VerifyingKey, error) {
	path, err := c.Path(ctx, pi.VKFile)
	if err != nil {
		return nil, fmt.Errorf("%s verifying key: %w", pi.Name, err)
	}
	vk, err := prover.ReadVerifyingKeyFile(path, prover.Checked)
	if err != nil {
		return nil, fmt.Errorf("%s verifying key: %w", pi.Name, err)
	}
	return vk, nil
}

// OpenParameters maps the type's Groth16 parameters file from the parameter cache, after the
// cache has checked the file against its manifest digest, and decodes its verifying key and the
// points of its identity (prover.OpenParametersFile, then MappedParameters.Parameters, whose
// result m.Parameters() returns again without error). The points stay in the file's mapping:
// a GPU uploads them from it chunk by chunk, a CPU proof decodes them all onto the heap once
// (about 44 GiB for a 32 GiB PoRep; docs/memory.md, "Parameters off the heap").
//
// mode applies as each point is decoded: Unchecked suits a file whose digest the cache checked;
// Checked runs the subgroup check on every point of every upload (once per GPU) and of the CPU's
// decode: at a 32 GiB PoRep, about 460 million points each time, far slower than the upload.
// Close m once no proof uses its parameters any longer (the generation functions of this package
// return only when their job has stopped using them).
func (pi ProofInfo) OpenParameters(ctx context.Context, c *paramcache.Cache, mode prover.DecodeMode) (*prover.MappedParameters, error) {
	path, err := c.Path(ctx, pi.ParamsFile)
	if err != nil {
		return nil, fmt.Errorf("%s parameters: %w", pi.Name, err)
	}
	m, err := prover.OpenParametersFile(path, mode)
	if err != nil {
		return nil, fmt.Errorf("%s parameters: %w", pi.Name, err)
	}
	if _, err := m.Parameters(); err != nil {
		err = fmt.Errorf("%s parameters: %s: %w", pi.Name, path, err)
		if cerr := m.Close(); cerr != nil {
			err = fmt.Errorf("%w (and close: %v)", err, cerr)
		}
		return nil, err
	}
	return m, nil
}

// waitJob waits for the job of h to finish and returns its result. A job whose Submit context
// ends fails with that context's error, once its partitions have left the devices (a device call
// in progress, such as a GPU uploading parameters, is not interrupted): so a generation returns
// only when the engine no longer reads its parameters, and the caller may then close their
// mapping.
func waitJob(h *engine.Handle) (*engine.Result, error) {
	return h.Wait(context.Background())
}
