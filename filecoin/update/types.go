package update

import (
	"fmt"

	cupdate "github.com/cuzk-go/cuzk/filecoin/circuits/update"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// ProofType is a registered update proof, numbered as go-state-types abi.RegisteredUpdateProof
// and rust-filecoin-proofs-api RegisteredUpdateProof (StackedDrg2KiBV1 = 0 … StackedDrg64GiBV1
// = 4).
type ProofType uint64

// The registered update proofs.
const (
	StackedDrg2KiBV1 ProofType = iota
	StackedDrg8MiBV1
	StackedDrg512MiBV1
	StackedDrg32GiBV1
	StackedDrg64GiBV1
	numProofTypes
)

var proofSizes = [...]struct {
	name string
	size uint64
}{
	{"2KiB", sector.Size2KiB}, {"8MiB", sector.Size8MiB}, {"512MiB", sector.Size512MiB},
	{"32GiB", sector.Size32GiB}, {"64GiB", sector.Size64GiB},
}

// Valid reports whether t is a registered update proof.
func (t ProofType) Valid() bool { return t < numProofTypes }

// String returns the Rust name, e.g. "StackedDrg32GiBV1".
func (t ProofType) String() string {
	if !t.Valid() {
		return fmt.Sprintf("RegisteredUpdateProof(%d)", uint64(t))
	}
	return "StackedDrg" + proofSizes[t].name + "V1"
}

// SectorSize returns the sector size in bytes (0 for an invalid type).
func (t ProofType) SectorSize() uint64 {
	if !t.Valid() {
		return 0
	}
	return proofSizes[t].size
}

// TreeShape returns tree R's shape, that of the sealed sector (8-0-0 up to 512 MiB, 8-8-0 at
// 32 GiB, 8-8-2 at 64 GiB).
func (t ProofType) TreeShape() sector.TreeShape {
	p, _ := t.Params()
	return sector.TreeShape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}
}

// Params returns the circuit's public parameters of t: partitions × challenges (1×10 at 2 KiB,
// 16×86 at 32 GiB), apex leaves, the allowed h values.
func (t ProofType) Params() (cupdate.Params, error) {
	if !t.Valid() {
		return cupdate.Params{}, fmt.Errorf("update: unknown registered update proof %d", uint64(t))
	}
	return cupdate.ParamsFor(t.SectorSize())
}

// HDefault returns the number of high challenge bits rho is derived from in production:
// storage-proofs-update constants.rs h_default = hs[3] (1 up to 32 KiB, 10 above).
func HDefault(p cupdate.Params) int { return p.HS[3] }
