package post

import (
	"bytes"
	"os"
	"testing"
)

// FuzzDecodeSectorProof: any input decodes or fails with an error, never panics; what decodes
// re-encodes to the same bytes, and the JSON form round-trips.
func FuzzDecodeSectorProof(f *testing.F) {
	raw, err := os.ReadFile(windowDir + "post.vproof")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(raw[:200])
	f.Add(SealedCIDBytes(Domain{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeSectorProof(b)
		if err != nil {
			return
		}
		enc, err := p.MarshalBinary()
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("re-encoding differs: %v", err)
		}
		js, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnmarshalSectorProofJSON(js)
		if err != nil {
			t.Fatal(err)
		}
		enc2, _ := q.MarshalBinary()
		if !bytes.Equal(enc2, b) {
			t.Fatal("JSON round trip differs")
		}
	})
}
