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
