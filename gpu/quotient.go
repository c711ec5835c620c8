package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
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

// Mul sets s[i] = s[i]·b[i] for i < n on the device: in Groth16's quotient, the product of a
// and b's values on the coset.
func (s *Scalars) Mul(ctx context.Context, b *Scalars, n int) error {
	return s.withOperands(ctx, "multiply", n, func() error {
		if err := s.dev.lib.b.frMul(s.dev.index, s.h, b.h, uint64(n)); err != nil {
			return fmt.Errorf("gpu: multiply %d scalars: %w", n, err)
		}
		return nil
	}, b)
}

// Quotient sets s[i] = (s[j] − c[j])·zInv for i < 2^logN, j the reversal of i's logN bits, on the
// device. In Groth16's quotient h = (a·b − c)/Z, with s the inverse coset transform of a·b's
// values on a coset where Z is the constant 1/zInv and c the inverse transform of c's values on
// the domain, both left in bit-reversed order, it gives h's coefficients in natural order.
func (s *Scalars) Quotient(ctx context.Context, c *Scalars, logN int, zInv fr.Element) error {
	if logN < 1 || logN > MaxLogNTT {
		return fmt.Errorf("gpu: quotient: log size %d outside [1, %d]", logN, MaxLogNTT)
	}
	return s.withOperands(ctx, "quotient", 1<<logN, func() error {
		if err := s.dev.lib.b.frQuotient(s.dev.index, s.h, c.handle(), logN, unsafe.Pointer(&zInv)); err != nil {
			return fmt.Errorf("gpu: quotient over 2^%d: %w", logN, err)
		}
		return nil
	}, c)
}

// Groth16H computes Groth16's quotient h = (a·b − c)/Z, Z = X^n − 1 with n = 2^logN, from a = s,
// b and c's values over the domain in natural order, on the coset shift·⟨ω⟩, in one device call:
// the six transforms of prover's quotient (three inverse transforms, b's and c's scaled by
// 1/(shift^n − 1) on the tables that carry n⁻¹; two coset transforms, the second multiplying each
// value by b's as it stores it; an inverse coset transform that subtracts c's coefficients as it
// stores its output), on one stream, waited for once. s then holds h's coefficients in
// BIT-REVERSED order (h_i at s[rev(i)], rev the reversal of logN bits: MSMJob.BitRev pairs them
// with their bases) as PLAIN integers below r, not fr.Elements in Montgomery form (MSMJob.Plain:
// the MSM converts nothing; 1/(shift^n − 1) carries the factor R⁻¹ that makes them so), and b
// and c are overwritten. It returns the device time. The shift must be
// nonzero with shift^n ≠ 1; ω_{2n} = fft.Generator(2n) is the fastest (its powers merge into the
// transforms' twiddles, and the subtraction then rides on the last pass; another shift takes an
// element-wise pass for it). c may be nil, for folded parameters (prover.FoldC: C folded into L,
// H's points on the coset): then s receives â·b̂, a's and b's values on the coset multiplied, in
// NATURAL order as plain integers, in four transforms (no c, no inverse coset transform, no
// 1/(shift^n − 1), which H's points on the coset carry).
//
// The single call is what makes it faster than the steps: a goroutine that returns from a device
// call may wait for the Go scheduler, up to tens of milliseconds when every core is busy (with
// synthesis), and the device idles meanwhile.
func (s *Scalars) Groth16H(ctx context.Context, b, c *Scalars, logN int, shift fr.Element) (time.Duration, error) {
	if logN < 1 || logN > MaxLogNTT {
		return 0, fmt.Errorf("gpu: groth16 quotient: log size %d outside [1, %d]", logN, MaxLogNTT)
	}
	var took time.Duration
	err := s.withOperands(ctx, "groth16 quotient", 1<<logN, func() error {
		var err error
		took, err = s.dev.lib.b.groth16H(s.dev.index, s.h, b.h, c.handle(), logN, unsafe.Pointer(&shift))
		if err != nil {
			return fmt.Errorf("gpu: groth16 quotient over 2^%d: %w", logN, err)
		}
		return nil
	}, b, c)
	return took, err
}

// handle returns s's library handle, 0 for a nil s (an operand left out); read it inside
// withOperands.
func (s *Scalars) handle() uintptr {
	if s == nil {
		return 0
	}
	return s.h
}

// withOperands runs an operation of s and others, distinct buffers of one device with at least n
// elements each, with all of them read-locked and open; nil others (an operand left out) are
// skipped.
func (s *Scalars) withOperands(ctx context.Context, op string, n int, run func() error, others ...*Scalars) error {
	all := []*Scalars{s}
	for _, x := range others {
		if x != nil { // an operand left out (Groth16H's c)
			all = append(all, x)
		}
	}
	for i, x := range all {
		if slices.Contains(all[:i], x) {
			return fmt.Errorf("gpu: %s: the operands must be distinct buffers", op)
		}
		if x.dev != s.dev {
			return fmt.Errorf("gpu: %s: buffers on different devices", op)
		}
		if err := x.checkRange(op, 0, n); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	unlock, err := rlockOpen(all...)
	if err != nil {
		return err
	}
	defer unlock()
	return run()
}

// rlockOpen read-locks each buffer and returns the function that unlocks them, or ErrClosed
// (with none locked) if one is closed.
func rlockOpen(bufs ...*Scalars) (func(), error) {
	unlock := func(k int) {
		for _, x := range bufs[:k] {
			x.mu.RUnlock()
		}
	}
	for i, x := range bufs {
		x.mu.RLock()
		if x.h == 0 {
			unlock(i + 1)
			return nil, ErrClosed
		}
	}
	return func() { unlock(len(bufs)) }, nil
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
	unlock, err := rlockOpen(s, src)
	if err != nil {
		return 0, err
	}
	defer unlock()
	got, err := s.dev.lib.b.frCompact(s.dev.index, s.h, uint64(off), src.h, uint64(srcOff), uint64(n), &mask[0])
	if err != nil {
		return 0, fmt.Errorf("gpu: compact %d scalars: %w", n, err)
	}
	return int(got), nil
}
