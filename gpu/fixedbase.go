package gpu

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// fixedBaseChunk is the most points per library call of a fixed-base multiplication: ctx is
// checked between calls. 2^25 points are ≈ 0.45 s of G1 work on an H200 (docs/gpu-kernels.md)
// and 8 of the library's device passes, which it pipelines. A variable so that tests can make
// the loop run with small inputs.
var fixedBaseChunk = 1 << 25

// fixedBase is the shared part of FixedBaseG1 and FixedBaseG2: a library handle holding the
// base's table of multiples on the device.
type fixedBase struct {
	dev   *Device
	group int
	mu    sync.RWMutex
	h     uintptr
}

func (d *Device) newFixedBase(group int, base unsafe.Pointer) (*fixedBase, error) {
	h, err := d.lib.b.fixedbaseNew(d.index, group, base)
	if err != nil {
		return nil, fmt.Errorf("gpu: G%d fixed-base table: %w", group, err)
	}
	return &fixedBase{dev: d, group: group, h: h}, nil
}

// mul computes n points of size bytes each into out, in chunks of fixedBaseChunk, checking ctx
// before each chunk.
func (f *fixedBase) mul(ctx context.Context, scalars []fr.Element, out unsafe.Pointer, size uintptr) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.h == 0 {
		return ErrClosed
	}
	for lo := 0; lo < len(scalars); lo += fixedBaseChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+fixedBaseChunk, len(scalars))
		dst := unsafe.Add(out, uintptr(lo)*size)
		if err := f.dev.lib.b.fixedbaseMul(f.dev.index, f.h, unsafe.Pointer(&scalars[lo]), uint64(hi-lo), dst); err != nil {
			return fmt.Errorf("gpu: G%d fixed-base multiplication, call on scalars[%d:%d]: %w", f.group, lo, hi, err)
		}
	}
	return nil
}

func (f *fixedBase) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h == 0 {
		return nil
	}
	err := f.dev.lib.b.fixedbaseFree(f.dev.index, f.h)
	f.h = 0
	if err != nil {
		return fmt.Errorf("gpu: free G%d fixed-base table: %w", f.group, err)
	}
	return nil
}

// FixedBaseG1 computes k·P for one G1 point P and many scalars k: P's table of multiples (48 MiB)
// stays on the device until Close. Mul may be called from several goroutines at once.
type FixedBaseG1 struct{ f *fixedBase }

// NewFixedBaseG1 builds the table of base on the device. base must be on the curve; infinity
// gives infinity for every scalar.
func (d *Device) NewFixedBaseG1(base bls12381.G1Affine) (*FixedBaseG1, error) {
	if !base.IsOnCurve() {
		return nil, fmt.Errorf("gpu: G1 fixed-base table: base is not on the curve")
	}
	f, err := d.newFixedBase(1, unsafe.Pointer(&base))
	if err != nil {
		return nil, err
	}
	return &FixedBaseG1{f}, nil
}

// Mul sets out[i] = scalars[i]·P in affine form (infinity as gnark's zero G1Affine), byte for
// byte what gnark-crypto's G1Affine.ScalarMultiplication gives. len(out) must equal
// len(scalars); every scalar must be a valid fr.Element (Montgomery limbs < r), else the call
// fails naming the first invalid index, and out is then partly written.
func (g *FixedBaseG1) Mul(ctx context.Context, scalars []fr.Element, out []bls12381.G1Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("gpu: G1 fixed-base multiplication: %d outputs for %d scalars", len(out), len(scalars))
	}
	if len(scalars) == 0 {
		return ctx.Err()
	}
	return g.f.mul(ctx, scalars, unsafe.Pointer(&out[0]), unsafe.Sizeof(out[0]))
}

// Close frees the device table; later calls return ErrClosed.
func (g *FixedBaseG1) Close() error { return g.f.close() }

// FixedBaseG2 is FixedBaseG1 on G2 (table 96 MiB).
type FixedBaseG2 struct{ f *fixedBase }

// NewFixedBaseG2 builds the table of base on the device. base must be on the curve; infinity
// gives infinity for every scalar.
func (d *Device) NewFixedBaseG2(base bls12381.G2Affine) (*FixedBaseG2, error) {
	if !base.IsOnCurve() {
		return nil, fmt.Errorf("gpu: G2 fixed-base table: base is not on the curve")
	}
	f, err := d.newFixedBase(2, unsafe.Pointer(&base))
	if err != nil {
		return nil, err
	}
	return &FixedBaseG2{f}, nil
}

// Mul sets out[i] = scalars[i]·Q in affine form, as FixedBaseG1.Mul does on G1.
func (g *FixedBaseG2) Mul(ctx context.Context, scalars []fr.Element, out []bls12381.G2Affine) error {
	if len(out) != len(scalars) {
		return fmt.Errorf("gpu: G2 fixed-base multiplication: %d outputs for %d scalars", len(out), len(scalars))
	}
	if len(scalars) == 0 {
		return ctx.Err()
	}
	return g.f.mul(ctx, scalars, unsafe.Pointer(&out[0]), unsafe.Sizeof(out[0]))
}

// Close frees the device table; later calls return ErrClosed.
func (g *FixedBaseG2) Close() error { return g.f.close() }

// MulG1 returns scalars[i]·G for gnark-crypto's generator G of G1 (bls12381.Generators), each
// point affine: the batch fixed-base multiplication of a Groth16 setup. The table is built for
// the call and freed after it. Like the other wrappers it does not take the device lock.
func (d *Device) MulG1(ctx context.Context, scalars []fr.Element) ([]bls12381.G1Affine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, _, g1, _ := bls12381.Generators()
	fb, err := d.NewFixedBaseG1(g1)
	if err != nil {
		return nil, err
	}
	out := make([]bls12381.G1Affine, len(scalars))
	err = fb.Mul(ctx, scalars, out)
	if cerr := fb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MulG2 returns scalars[i]·H for gnark-crypto's generator H of G2, as MulG1 does on G1.
func (d *Device) MulG2(ctx context.Context, scalars []fr.Element) ([]bls12381.G2Affine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, _, _, g2 := bls12381.Generators()
	fb, err := d.NewFixedBaseG2(g2)
	if err != nil {
		return nil, err
	}
	out := make([]bls12381.G2Affine, len(scalars))
	err = fb.Mul(ctx, scalars, out)
	if cerr := fb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Device returns the device p proves on, for work outside the prover such as MulG1 and MulG2.
func (p *ProverDevice) Device() *Device { return p.dev }
