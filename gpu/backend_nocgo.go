//go:build !cgo

package gpu

import (
	"fmt"
	"time"
	"unsafe"
)

// backend is never loaded without cgo; its methods are unreachable.
type backend struct{ path string }

const abiVersion = 1

func openBackend(path string) (*backend, error) {
	return nil, fmt.Errorf("load %s: built without cgo: %w", path, ErrNotLoaded)
}

func (b *backend) deviceCount() (int, error)            { return 0, ErrNotLoaded }
func (b *backend) deviceProps(int) (Properties, error)  { return Properties{}, ErrNotLoaded }
func (b *backend) frAlloc(int, uint64) (uintptr, error) { return 0, ErrNotLoaded }
func (b *backend) frFree(int, uintptr) error            { return ErrNotLoaded }
func (b *backend) nttDevice(int, uintptr, uint64, int, *NTTConfig) error {
	return ErrNotLoaded
}
func (b *backend) nttHost(int, unsafe.Pointer, int, *NTTConfig) error { return ErrNotLoaded }
func (b *backend) nttTable(int, int) error                            { return ErrNotLoaded }
func (b *backend) frUpload(int, uintptr, uint64, unsafe.Pointer, uint64) error {
	return ErrNotLoaded
}
func (b *backend) frZero(int, uintptr, uint64, uint64) error { return ErrNotLoaded }
func (b *backend) frMul(int, uintptr, uintptr, uint64) error { return ErrNotLoaded }
func (b *backend) frQuotient(int, uintptr, uintptr, int, unsafe.Pointer) error {
	return ErrNotLoaded
}
func (b *backend) groth16H(int, uintptr, uintptr, uintptr, int, unsafe.Pointer) (time.Duration, error) {
	return 0, ErrNotLoaded
}
func (b *backend) frCompact(int, uintptr, uint64, uintptr, uint64, uint64, *uint64) (uint64, error) {
	return 0, ErrNotLoaded
}
func (b *backend) frDownload(int, uintptr, uint64, unsafe.Pointer, uint64) error {
	return ErrNotLoaded
}
func (b *backend) basesUpload(int, int, unsafe.Pointer, uint64) (uintptr, error) {
	return 0, ErrNotLoaded
}
func (b *backend) basesFree(int, uintptr) error { return ErrNotLoaded }
func (b *backend) basesAlloc(int, int, uint64) (uintptr, error) {
	return 0, ErrNotLoaded
}
func (b *backend) basesWrite(int, uintptr, uint64, unsafe.Pointer, uint64) error {
	return ErrNotLoaded
}
func (b *backend) basesShift(int, uintptr) error   { return ErrNotLoaded }
func (b *backend) basesUnshift(int, uintptr) error { return ErrNotLoaded }
func (b *backend) basesPair(int, uintptr) error    { return ErrNotLoaded }
func (b *backend) basesUnpair(int, uintptr) error  { return ErrNotLoaded }
func (b *backend) basesWriteEncoded(int, uintptr, uint64, unsafe.Pointer, uint64) (uint64, uint32, error) {
	return 0, 0, ErrNotLoaded
}
func (b *backend) msmHost(int, uintptr, unsafe.Pointer, uint64, unsafe.Pointer) error {
	return ErrNotLoaded
}
func (b *backend) msmBatch(int, []uintptr, []uintptr, []uint64, []uint64, []uint32, []uint32, []uint64, unsafe.Pointer) error {
	return ErrNotLoaded
}
func (b *backend) msmDevice(int, uintptr, uintptr, uint64, uint64, unsafe.Pointer) error {
	return ErrNotLoaded
}
func (b *backend) debugField(int, int, int, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, uint64) error {
	return ErrNotLoaded
}

// Fixed-base scalar multiplication.
func (b *backend) fixedbaseNew(int, int, unsafe.Pointer) (uintptr, error) { return 0, ErrNotLoaded }
func (b *backend) fixedbaseFree(int, uintptr) error                       { return ErrNotLoaded }
func (b *backend) fixedbaseMul(int, uintptr, unsafe.Pointer, uint64, unsafe.Pointer) error {
	return ErrNotLoaded
}

// Resident matrices and compact witnesses.

func (b *backend) matrixUpload(int, *matrixArrays) (uintptr, error) { return 0, ErrNotLoaded }
func (b *backend) matrixFree(int, uintptr) error                    { return ErrNotLoaded }
func (b *backend) matrixMulVec(int, []uintptr, []uintptr, uintptr, uint64) error {
	return ErrNotLoaded
}
func (b *backend) witnessDecode(int, uintptr, uint64, uint64, *uint64, unsafe.Pointer, uint64, *uint32) error {
	return ErrNotLoaded
}
func (b *backend) frCopy(int, uintptr, uint64, uintptr, uint64, uint64) error { return ErrNotLoaded }
func (b *backend) g1DFT(int, unsafe.Pointer, uint64, int, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer,
	*dftFlags) error {
	return ErrNotLoaded
}

// dftFlags is what cuzk_g1_dft reports and reads (backend_cgo.go).
type dftFlags struct {
	stagesDone uint64
	cancel     int32
	_          int32
}

func newDFTFlags() (*dftFlags, func()) { return new(dftFlags), func() {} }
