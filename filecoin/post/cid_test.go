package post

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestCommRFromCIDKnown reads the sealed CIDs of the real vectors: lantern's, given as string
// and bytes (the bytes are go-cid's c.Bytes() of the string), and curio's, whose comm_r must
// equal the comm_r inside its vanilla proof.
func TestCommRFromCIDKnown(t *testing.T) {
	v := readLantern(t)
	fromString, err := CommRFromCID(v.SealedCID)
	if err != nil {
		t.Fatal(err)
	}
	cb := mustHex(t, v.SealedCIDBytesHex)
	fromBytes, err := CommRFromCIDBytes(cb)
	if err != nil {
		t.Fatal(err)
	}
	if fromString != fromBytes || !bytes.Equal(fromBytes[:], cb[len(cb)-32:]) {
		t.Fatalf("string gives %s, bytes give %s", fromString, fromBytes)
	}
	if got := SealedCID(fromString); got != v.SealedCID {
		t.Errorf("SealedCID = %s, want %s", got, v.SealedCID)
	}
	if got := SealedCIDBytes(fromString); !bytes.Equal(got, cb) {
		t.Errorf("SealedCIDBytes = %x, want %x", got, cb)
	}
	upper, err := CommRFromCID("B" + strings.ToUpper(v.SealedCID[1:]))
	if err != nil || upper != fromString {
		t.Errorf("upper-case base32: %s, %v", upper, err)
	}

	_, p, vi := readWindow(t)
	c, err := CommRFromCID(vi.Sectors[0].SealedCID)
	if err != nil || c != p.CommR {
		t.Errorf("curio sealed CID: %s, %v; vanilla comm_r %s", c, err, p.CommR)
	}
}

// TestCommRFromCIDErrors feeds CIDs of the wrong base, version, codec, multihash and length.
func TestCommRFromCIDErrors(t *testing.T) {
	good := SealedCIDBytes(Domain{1, 2, 3})
	// An unsealed-sector CID (fil-commitment-unsealed 0xf101, sha2-256-trunc254-padded 0x1012).
	unsealed := append([]byte{1, 0x81, 0xe2, 0x03, 0x92, 0x20, 0x20}, make([]byte, 32)...)
	wrongHash := append([]byte{1, 0x82, 0xe2, 0x03, 0x92, 0x20, 0x20}, make([]byte, 32)...)
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated uvarint version"},
		{"version 0", append([]byte{0}, good[1:]...), "version 0"},
		{"unsealed codec", unsealed, "codec 0xf101 at byte offset 1"},
		{"sha256 multihash", wrongHash, "multihash 0x1012 at byte offset 4"},
		{"length 31", append(append([]byte{}, good[:7]...), append([]byte{31}, good[8:39]...)...), "digest length 31"},
		{"short digest", good[:len(good)-1], "31 digest bytes"},
		{"trailing byte", append(append([]byte{}, good...), 0), "33 digest bytes"},
		{"unterminated varint", []byte{1, 0x82, 0xe2}, "codec at byte offset 1"},
	}
	for _, c := range cases {
		_, err := CommRFromCIDBytes(c.b)
		if !errors.Is(err, ErrSealedCID) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrSealedCID containing %q", c.name, err, c.want)
		}
	}
	for _, s := range []string{"", "QmcS5JZs8X3TdtkEBpHAdUYjdNDqcL7fWQFtQz69mpnu2X", "zbagboea", "b!!!!", "b" + base32Lower.EncodeToString(unsealed)} {
		if _, err := CommRFromCID(s); !errors.Is(err, ErrSealedCID) {
			t.Errorf("CommRFromCID(%q): %v, want ErrSealedCID", s, err)
		}
	}
}
