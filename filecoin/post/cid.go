package post

import (
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Sealed-sector CID constants (multiformats multicodec table; go-fil-commcid commcid.go
// ReplicaCommitmentV1ToCID, which uses cid.FilCommitmentSealed and
// multihash.POSEIDON_BLS12_381_A1_FC1).
const (
	// CodecFilCommitmentSealed is the multicodec "fil-commitment-sealed".
	CodecFilCommitmentSealed = 0xf102
	// MultihashPoseidonBLS12381A2FC1 is the multihash "poseidon-bls12_381-a2-fc1" (go-multihash
	// calls it POSEIDON_BLS12_381_A1_FC1).
	MultihashPoseidonBLS12381A2FC1 = 0xb401
)

// ErrSealedCID is wrapped by every error CommRFromCID and CommRFromCIDBytes return.
var ErrSealedCID = errors.New("not a sealed-sector CID")

// base32Lower is multibase 'b': RFC 4648 base32, lower case, no padding.
var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// CommRFromCID returns comm_r from a sealed-sector CID string. The string must be multibase
// base32 ('b', lower case, as go-cid prints CIDv1; 'B', upper case, is accepted too); the bytes
// are then read by CommRFromCIDBytes. comm_r is the multihash digest, in the byte order the
// Rust side stores it (Domain, little-endian Fr).
func CommRFromCID(s string) (Domain, error) {
	if s == "" {
		return Domain{}, fmt.Errorf("sealed CID: empty string: %w", ErrSealedCID)
	}
	var b []byte
	var err error
	switch s[0] {
	case 'b':
		b, err = base32Lower.DecodeString(s[1:])
	case 'B':
		b, err = base32Lower.DecodeString(strings.ToLower(s[1:]))
	default:
		return Domain{}, fmt.Errorf("sealed CID %q: multibase prefix %q, want 'b' (base32): %w", s, s[0], ErrSealedCID)
	}
	if err != nil {
		return Domain{}, fmt.Errorf("sealed CID %q: base32: %v: %w", s, err, ErrSealedCID)
	}
	d, err := CommRFromCIDBytes(b)
	if err != nil {
		return Domain{}, fmt.Errorf("sealed CID %q: %w", s, err)
	}
	return d, nil
}

// CommRFromCIDBytes returns comm_r from the binary form of a sealed-sector CID:
//
//	0x01 (CIDv1) ‖ uvarint 0xf102 (fil-commitment-sealed) ‖ uvarint 0xb401
//	(poseidon-bls12_381-a2-fc1) ‖ uvarint 32 ‖ 32-byte digest
//
// (go-fil-commcid CIDToReplicaCommitmentV1). Any other version, codec, multihash or length,
// and any trailing byte, is an error naming the byte offset.
func CommRFromCIDBytes(b []byte) (Domain, error) {
	off := 0
	next := func(field string) (uint64, error) {
		v, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return 0, fmt.Errorf("sealed CID bytes: bad or truncated uvarint %s at byte offset %d: %w", field, off, ErrSealedCID)
		}
		off += n
		return v, nil
	}
	version, err := next("version")
	if err != nil {
		return Domain{}, err
	}
	if version != 1 {
		return Domain{}, fmt.Errorf("sealed CID bytes: version %d at byte offset 0, want 1: %w", version, ErrSealedCID)
	}
	at := off
	codec, err := next("codec")
	if err != nil {
		return Domain{}, err
	}
	if codec != CodecFilCommitmentSealed {
		return Domain{}, fmt.Errorf("sealed CID bytes: codec 0x%x at byte offset %d, want 0x%x (fil-commitment-sealed): %w",
			codec, at, CodecFilCommitmentSealed, ErrSealedCID)
	}
	at = off
	mh, err := next("multihash code")
	if err != nil {
		return Domain{}, err
	}
	if mh != MultihashPoseidonBLS12381A2FC1 {
		return Domain{}, fmt.Errorf("sealed CID bytes: multihash 0x%x at byte offset %d, want 0x%x (poseidon-bls12_381-a2-fc1): %w",
			mh, at, MultihashPoseidonBLS12381A2FC1, ErrSealedCID)
	}
	at = off
	n, err := next("digest length")
	if err != nil {
		return Domain{}, err
	}
	if n != 32 {
		return Domain{}, fmt.Errorf("sealed CID bytes: digest length %d at byte offset %d, want 32: %w", n, at, ErrSealedCID)
	}
	if len(b)-off != 32 {
		return Domain{}, fmt.Errorf("sealed CID bytes: %d digest bytes from byte offset %d, want exactly 32: %w", len(b)-off, off, ErrSealedCID)
	}
	var d Domain
	copy(d[:], b[off:])
	return d, nil
}

// SealedCIDBytes returns the binary CID of comm_r (the inverse of CommRFromCIDBytes).
func SealedCIDBytes(commR Domain) []byte {
	b := []byte{1}
	b = binary.AppendUvarint(b, CodecFilCommitmentSealed)
	b = binary.AppendUvarint(b, MultihashPoseidonBLS12381A2FC1)
	b = binary.AppendUvarint(b, 32)
	return append(b, commR[:]...)
}

// SealedCID returns the CID string of comm_r, multibase base32 lower case as go-cid prints it.
func SealedCID(commR Domain) string { return "b" + base32Lower.EncodeToString(SealedCIDBytes(commR)) }
