package gpu

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Zero sets s[off : off+n] to zero on the device.
func (s *Scalars) Zero(ctx context.Context, off, n int) error {
	if err := s.checkRange("zero", off, n); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == 0 {
		return ErrClosed
	}
	if err := s.dev.lib.b.frZero(s.dev.index, s.h, uint64(off), uint64(n)); err != nil {
		return fmt.Errorf("gpu: zero %d scalars: %w", n, err)
	}
	return nil
}

// HPointwise sets s[i] = (s[i]·b[i] − c[i])·zInv for i < n on the device: the pointwise step of
// Groth16's quotient h = (a·b − c)/Z over a coset on which Z is the constant 1/zInv.
func (s *Scalars) HPointwise(ctx context.Context, b, c *Scalars, n int, zInv fr.Element) error {
	for _, x := range []*Scalars{s, b, c} {
		if err := x.checkRange("h pointwise", 0, n); err != nil {
			return err
		}
		if x.dev != s.dev {
			return errors.New("gpu: h pointwise: buffers on different devices")
		}
	}
	if s == b || s == c || b == c {
		return errors.New("gpu: h pointwise: a, b and c must be distinct buffers")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, x := range []*Scalars{s, b, c} {
		x.mu.RLock()
		defer x.mu.RUnlock()
		if x.h == 0 {
			return ErrClosed
		}
	}
	if err := s.dev.lib.b.frHPointwise(s.dev.index, s.h, b.h, c.h, uint64(n), unsafe.Pointer(&zInv)); err != nil {
		return fmt.Errorf("gpu: h pointwise over %d: %w", n, err)
	}
	return nil
}

// CompactFrom sets s[off+r] = src[srcOff+i] for the r-th i < n whose bit is set in mask (bit i%64
// of mask[i/64], bits ≥ n ignored), in order, on the device, and returns how many it wrote: the
// density compaction of the assignment into a query's scalars, without a round trip through the
// host.
func (s *Scalars) CompactFrom(ctx context.Context, off int, src *Scalars, srcOff, n int, mask []uint64) (int, error) {
	if s == src {
		return 0, errors.New("gpu: compact: source and destination must be distinct buffers")
	}
	if s.dev != src.dev {
		return 0, errors.New("gpu: compact: buffers on different devices")
	}
	if err := src.checkRange("compact", srcOff, n); err != nil {
		return 0, err
	}
	if len(mask) < (n+63)/64 {
		return 0, fmt.Errorf("gpu: compact: mask of %d words covers fewer than %d scalars", len(mask), n)
	}
	if err := s.checkRange("compact", off, 0); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	for _, x := range []*Scalars{s, src} {
		x.mu.RLock()
		defer x.mu.RUnlock()
		if x.h == 0 {
			return 0, ErrClosed
		}
	}
	got, err := s.dev.lib.b.frCompact(s.dev.index, s.h, uint64(off), src.h, uint64(srcOff), uint64(n), &mask[0])
	if err != nil {
		return 0, fmt.Errorf("gpu: compact %d scalars: %w", n, err)
	}
	return int(got), nil
}
