package sdr

import (
	"encoding/base32"
	"encoding/binary"
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
	// From curio lib/proof/testgolden/postpub.json (ChallengedSectors[0].SealedCID).
	const sealedCID = "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl"
	// The last 64 bytes of post.vproof are the sector proof's comm_c and comm_r_last.
	raw, err := os.ReadFile("testdata/post.vproof")
	require.NoError(t, err)
	tail := raw[len(raw)-64:]
	commC, err := fr.LittleEndian.Element((*[32]byte)(tail[:32]))
	require.NoError(t, err)
	commRLast, err := fr.LittleEndian.Element((*[32]byte)(tail[32:]))
	require.NoError(t, err)

	require.True(t, strings.HasPrefix(sealedCID, "b"))
	cid, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(sealedCID[1:]))
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
