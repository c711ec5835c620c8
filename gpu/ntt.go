package gpu

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// MaxLogNTT is the largest supported transform, n = 2^28.
const MaxLogNTT = 28

// NTTConfig selects the transform; the zero value is the forward transform
// from natural to natural order with no coset.
//
// The forward transform is A_k = Σ_j a_j·ω^(jk) with ω = fft.Generator(n)
// (gnark-crypto); Inverse uses ω⁻¹ and multiplies by n⁻¹. Coset multiplies
// a_j by Shift^j before a forward transform and the output of an inverse
// transform by Shift^(−j), as fft.OnCoset() does. With InputBitReversed
// false and OutputBitReversed true it equals gnark's Domain.FFT(a, fft.DIF)
// (FFTInverse likewise); with true and false, fft.DIT.
type NTTConfig struct {
	Inverse           bool
	Coset             bool
	InputBitReversed  bool
	OutputBitReversed bool
	// Shift is the coset shift; zero means gnark's default
	// fft.GeneratorFullMultiplicativeGroup() = 7. ω_{2n} = fft.Generator(2n)
	// (n ≤ 2^27) costs one product an element less than any other shift: its
	// powers merge into the transform's twiddles (about 5 % at 2^27).
	Shift fr.Element
}

func logLen(n int) (int, error) {
	if n < 2 || n&(n-1) != 0 || n > 1<<MaxLogNTT {
		return 0, fmt.Errorf("gpu: ntt length %d is not a power of two in [2, 2^%d]", n, MaxLogNTT)
	}
	return bits.TrailingZeros(uint(n)), nil
}

// NTT transforms a in place on the device (copied there and back).
// len(a) must be a power of two in [2, 2^28].
func (d *Device) NTT(ctx context.Context, a []fr.Element, cfg NTTConfig) error {
	logN, err := logLen(len(a))
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.lib.b.nttHost(d.index, unsafe.Pointer(&a[0]), logN, &cfg); err != nil {
		return fmt.Errorf("gpu: ntt of 2^%d: %w", logN, err)
	}
	return nil
}

// Scalars is an array of Fr elements (Montgomery form) in device memory.
// Close frees it; methods are safe for concurrent use with each other but
// the device work of concurrent calls is not ordered.
type Scalars struct {
	dev *Device
	n   int
	mu  sync.RWMutex
	h   uintptr
}

// AllocScalars allocates n elements on the device (contents undefined).
func (d *Device) AllocScalars(n int) (*Scalars, error) {
	if n < 1 {
		return nil, fmt.Errorf("gpu: alloc %d scalars: length must be positive", n)
	}
	h, err := d.lib.b.frAlloc(d.index, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("gpu: alloc %d scalars: %w", n, err)
	}
	return &Scalars{dev: d, n: n, h: h}, nil
}

// Len returns the number of elements.
func (s *Scalars) Len() int { return s.n }

// Device returns the device holding s.
func (s *Scalars) Device() *Device { return s.dev }

func (s *Scalars) checkRange(op string, off, n int) error {
	if off < 0 || n < 0 || off > s.n || n > s.n-off {
		return fmt.Errorf("gpu: %s [%d, %d) of %d scalars: out of range", op, off, off+n, s.n)
	}
	return nil
}

// Upload copies src to s[off : off+len(src)].
func (s *Scalars) Upload(ctx context.Context, off int, src []fr.Element) error {
	if err := s.checkRange("upload", off, len(src)); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == 0 {
		return ErrClosed
	}
	if err := s.dev.lib.b.frUpload(s.dev.index, s.h, uint64(off), unsafe.Pointer(&src[0]), uint64(len(src))); err != nil {
		return fmt.Errorf("gpu: upload %d scalars: %w", len(src), err)
	}
	return nil
}

// Download copies s[off : off+len(dst)] to dst.
func (s *Scalars) Download(ctx context.Context, off int, dst []fr.Element) error {
	if err := s.checkRange("download", off, len(dst)); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == 0 {
		return ErrClosed
	}
	if err := s.dev.lib.b.frDownload(s.dev.index, s.h, uint64(off), unsafe.Pointer(&dst[0]), uint64(len(dst))); err != nil {
		return fmt.Errorf("gpu: download %d scalars: %w", len(dst), err)
	}
	return nil
}

// NTT transforms s[off : off+2^logN] in place.
func (s *Scalars) NTT(ctx context.Context, off, logN int, cfg NTTConfig) error {
	if logN < 1 || logN > MaxLogNTT {
		return fmt.Errorf("gpu: ntt of 2^%d: log size must be in [1, %d]", logN, MaxLogNTT)
	}
	if err := s.checkRange("ntt", off, 1<<logN); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == 0 {
		return ErrClosed
	}
	if err := s.dev.lib.b.nttDevice(s.dev.index, s.h, uint64(off), logN, &cfg); err != nil {
		return fmt.Errorf("gpu: ntt of 2^%d: %w", logN, err)
	}
	return nil
}

// Close frees the device memory; later calls return ErrClosed.
func (s *Scalars) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == 0 {
		return nil
	}
	err := s.dev.lib.b.frFree(s.dev.index, s.h)
	s.h = 0
	if err != nil {
		return fmt.Errorf("gpu: free scalars: %w", err)
	}
	return nil
}
