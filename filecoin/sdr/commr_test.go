package sdr

import (
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// TestCommRRealSector checks CommR on a real 32 GiB sector: Poseidon₂(comm_c, comm_r_last) from
// its WindowPoSt vanilla proof equals the comm_r in its sealed CID (CIDv1, codec
// fil-commitment-sealed 0xf102, multihash poseidon-bls12_381-a2-fc1 0xb401, 32-byte digest).
func TestCommRRealSector(t *testing.T) {
	raw, err := os.ReadFile("testdata/windowpost_32gib_commitments.json")
	require.NoError(t, err)
	var v struct {
		CommC     string `json:"comm_c"`
		CommRLast string `json:"comm_r_last"`
		SealedCID string `json:"sealed_cid"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	elem := func(h string) fr.Element {
		b, err := hex.DecodeString(h)
		require.NoError(t, err)
		e, err := fr.LittleEndian.Element((*[32]byte)(b))
		require.NoError(t, err)
		return e
	}
	commC, commRLast := elem(v.CommC), elem(v.CommRLast)

	require.True(t, strings.HasPrefix(v.SealedCID, "b"))
	cid, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(v.SealedCID[1:]))
	require.NoError(t, err)
	var fields []uint64
	rest := cid
	for range 4 { // version, codec, multihash code, digest length
		x, n := binary.Uvarint(rest)
		require.Positive(t, n)
		fields = append(fields, x)
		rest = rest[n:]
	}
	require.Equal(t, []uint64{1, 0xf102, 0xb401, 32}, fields)
	require.Len(t, rest, 32)

	got := CommR(&commC, &commRLast)
	b := Bytes(&got)
	require.Equal(t, rest, b[:])
}
