package prover

import (
	"errors"
	"fmt"
	"io"
)

// ErrFormat is wrapped by every error that reports malformed bytes: a truncated or corrupt
// parameters file, verifying key or proof. The concrete error is a *DecodeError giving the
// section, element index and byte offset.
var ErrFormat = errors.New("malformed encoding")

// ErrInvalidProof is wrapped by the error that Verify and VerifyBatch return when the
// Groth16 pairing equation does not hold.
var ErrInvalidProof = errors.New("invalid proof")

// ErrInputCount is wrapped by the error that Verify and VerifyBatch return when the number
// of public inputs (without the leading ONE) plus one differs from the number of IC points of
// the verifying key. It is distinct from ErrInvalidProof: it is a caller or key mismatch, not
// a proof that fails the pairing check.
var ErrInputCount = errors.New("public input count does not match verifying key")

// DecodeError reports where an encoding is malformed. It wraps ErrFormat and, through Err, the
// specific cause (io.ErrUnexpectedEOF for truncation, or a point or count error).
type DecodeError struct {
	// Section names the field being decoded: "vk.alpha_g1", "vk.beta_g1", "vk.beta_g2",
	// "vk.gamma_g2", "vk.delta_g1", "vk.delta_g2", "ic", "h", "l", "a", "b_g1", "b_g2",
	// "proof.a", "proof.b", "proof.c", "proof" for a wrong proof length, or "trailing" for
	// unexpected bytes after a verifying key.
	Section string
	// Index is the element index within the section, or -1 for the section's count or a
	// single-point field.
	Index int
	// Offset is the byte offset, from the start of the encoding, at which the failing element
	// (or count) starts.
	Offset int64
	// Err is the cause.
	Err error
}

// Error formats the section, element index and offset, then the cause.
func (e *DecodeError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("decode %s at byte offset %d: %v", e.Section, e.Offset, e.Err)
	}
	return fmt.Sprintf("decode %s[%d] at byte offset %d: %v", e.Section, e.Index, e.Offset, e.Err)
}

// Unwrap returns ErrFormat and the cause, so errors.Is works for both.
func (e *DecodeError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Point-level causes. They are not exported: callers branch on ErrFormat and read the message.
var (
	errShort          = fmt.Errorf("data truncated: %w", io.ErrUnexpectedEOF)
	errCompressedFlag = errors.New("compression flag mismatch")
	errSortFlag       = errors.New("sort flag set on an uncompressed or infinity point")
	errInfinityBits   = errors.New("infinity flag set but other bits non-zero")
	errNonCanonical   = errors.New("coordinate not canonical (>= field modulus)")
	errNotOnCurve     = errors.New("point not on curve")
	errNotInSubgroup  = errors.New("point not in the prime-order subgroup")
	errNoSqrt         = errors.New("compressed x has no point on the curve")
	errInfinity       = errors.New("point at infinity not allowed here")
	errTooLarge       = errors.New("larger than the format allows")
)

func decodeErr(section string, index int, off int64, err error) *DecodeError {
	return &DecodeError{Section: section, Index: index, Offset: off, Err: err}
}
