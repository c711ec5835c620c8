// Package bincode reads the bincode 1.x default encoding that serde uses in rust-fil-proofs and
// rust-filecoin-proofs-api for vanilla proofs: integers little-endian and fixed width (usize as
// u64), sequences as a u64 count then the elements, enums as a u32 variant index then the fields,
// structs as their fields in order. Every read names the field it reads, so the caller's errors
// say what and where (byte offset).
package bincode

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Reader reads B from Off. Fail builds every error the reader returns from the field, the byte
// offset where it starts and the cause, so that each package reports its own error type.
type Reader struct {
	B    []byte
	Off  int
	Fail func(field string, at int, err error) error
}

// Need checks that n more bytes are left for field.
func (r *Reader) Need(field string, n int) error {
	if len(r.B)-r.Off < n {
		return r.Fail(field, r.Off, fmt.Errorf("need %d bytes, %d left: %w", n, len(r.B)-r.Off, io.ErrUnexpectedEOF))
	}
	return nil
}

// U64 reads a little-endian u64.
func (r *Reader) U64(field string) (uint64, error) {
	if err := r.Need(field, 8); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.B[r.Off:])
	r.Off += 8
	return v, nil
}

// U32 reads a little-endian u32 (an enum's variant index).
func (r *Reader) U32(field string) (uint32, error) {
	if err := r.Need(field, 4); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.B[r.Off:])
	r.Off += 4
	return v, nil
}

// Bytes32 reads 32 bytes (a domain element) and returns them as a view into B.
func (r *Reader) Bytes32(field string) (*[32]byte, error) {
	if err := r.Need(field, 32); err != nil {
		return nil, err
	}
	v := (*[32]byte)(r.B[r.Off:])
	r.Off += 32
	return v, nil
}

// Count reads a sequence length and bounds it by the bytes left: each element takes at least
// minSize bytes, so no count can make the caller allocate more than the input justifies.
func (r *Reader) Count(field string, minSize int) (int, error) {
	at := r.Off
	n, err := r.U64(field + " length")
	if err != nil {
		return 0, err
	}
	if left := uint64(len(r.B) - r.Off); n > left/uint64(minSize) {
		return 0, r.Fail(field+" length", at, fmt.Errorf("%d elements of at least %d bytes, only %d bytes left", n, minSize, left))
	}
	return int(n), nil
}

// End checks that the whole input was read.
func (r *Reader) End() error {
	if r.Off != len(r.B) {
		return r.Fail("end", r.Off, fmt.Errorf("%d trailing bytes", len(r.B)-r.Off))
	}
	return nil
}
