package post

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeSectorProofTruncated cuts the real vanilla proof at every length: each must fail
// with a *DecodeError at an offset within the data, wrapping io.ErrUnexpectedEOF or a count
// bound. With -short it cuts at every byte of the header and first path level, then every
// 97th.
func TestDecodeSectorProofTruncated(t *testing.T) {
	raw, _, _ := readWindow(t)
	step := 1
	if testing.Short() {
		step = 97
	}
	for n := 0; n < len(raw); n++ {
		if n > 400 && n%step != 0 && n != len(raw)-1 {
			continue
		}
		_, err := DecodeSectorProof(raw[:n])
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrFormat) || de.Offset > n || de.Offset < 0 {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "bytes left") {
			t.Fatalf("cut at %d: %v, want truncation", n, err)
		}
	}
}

// TestDecodeSectorProofCorrupt overwrites counts, the variant tag and adds trailing bytes.
func TestDecodeSectorProofCorrupt(t *testing.T) {
	raw, _, _ := readWindow(t)
	// Offsets in the 32 GiB layout: sector_id 0, comm_r 8, #sectors 40, #inclusion_proofs 48,
	// proof 0's variant 56, its base path length 60, level 0's hash count 68.
	put64 := func(off int, v uint64) []byte {
		b := append([]byte{}, raw...)
		binary.LittleEndian.PutUint64(b[off:], v)
		return b
	}
	cases := []struct {
		name  string
		b     []byte
		field string
		off   int
	}{
		{"huge #sectors", put64(40, 1<<62), "vanilla_proof.sectors length", 40},
		{"huge #inclusion_proofs", put64(48, 1<<40), "vanilla_proof.sectors[0].inclusion_proofs length", 48},
		{"huge path", put64(60, 1<<33), "vanilla_proof.sectors[0].inclusion_proofs[0].Sub.base_proof.path length", 60},
		{"16 siblings", put64(68, 16), "vanilla_proof.sectors[0].inclusion_proofs[0].Sub.base_proof.path[0].hashes length", 68},
		{"variant 3", func() []byte {
			b := append([]byte{}, raw...)
			binary.LittleEndian.PutUint32(b[56:], 3)
			return b
		}(), "vanilla_proof.sectors[0].inclusion_proofs[0].data variant", 56},
		{"trailing", append(append([]byte{}, raw...), 0), "end", len(raw)},
	}
	for _, c := range cases {
		_, err := DecodeSectorProof(c.b)
		var de *DecodeError
		if !errors.As(err, &de) || de.Field != c.field || de.Offset != c.off {
			t.Errorf("%s: %v, want field %q at offset %d", c.name, err, c.field, c.off)
		}
	}
}

// base64Domains rewrites every array of 32 numbers in a JSON document as a base64 string, the
// form Curio's Go types write for a []byte domain.
func base64Domains(v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) == 32 {
			b := make([]byte, 32)
			ok := true
			for j, e := range x {
				f, isNum := e.(float64)
				if !isNum {
					ok = false
					break
				}
				b[j] = byte(f)
			}
			if ok {
				return base64.StdEncoding.EncodeToString(b)
			}
		}
		for j := range x {
			x[j] = base64Domains(x[j])
		}
	case map[string]any:
		for k := range x {
			x[k] = base64Domains(x[k])
		}
	}
	return v
}

// TestSectorProofJSON round-trips the real vanilla proof through the serde_json form and the
// base64-domain form, and checks field-named errors.
func TestSectorProofJSON(t *testing.T) {
	_, p, _ := readWindow(t)
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(js), `{"sector_id":1,"comm_r":[`) || !strings.Contains(string(js), `"inclusion_proofs":[{"data":{"Sub":{"base_proof":{"path":[{"hashes":[[`) {
		t.Fatalf("unexpected JSON shape: %.200s", js)
	}
	back, err := UnmarshalSectorProofJSON(js)
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("serde JSON round trip: %v", err)
	}
	var doc any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	b64, _ := json.Marshal(base64Domains(doc))
	back, err = UnmarshalSectorProofJSON(b64)
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("base64 JSON round trip: %v", err)
	}

	cases := []struct{ from, to, field string }{
		{`"sector_id":1,`, ``, "sector_id"},
		{`{"data":{"Sub":`, `{"data":{"Middle":`, "vanilla_proof.sectors[0].inclusion_proofs[0].data"},
		{`"comm_c":[`, `"comm_c":[300,`, "vanilla_proof.sectors[0].comm_c"},
		{`"index":`, `"indx":`, "vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof.path[0].index"},
	}
	for _, c := range cases {
		bad := strings.Replace(string(js), c.from, c.to, 1)
		_, err := UnmarshalSectorProofJSON([]byte(bad))
		var de *DecodeError
		if !errors.As(err, &de) || de.Field != c.field {
			t.Errorf("%s → %s: %v, want field %q", c.from, c.to, err, c.field)
		}
	}
	if _, err := UnmarshalSectorProofJSON(js[:100]); !errors.Is(err, ErrFormat) {
		t.Errorf("truncated JSON: %v", err)
	}
}

// TestVerifyInfoJSON checks postpub.json's reading and its field-named errors.
func TestVerifyInfoJSON(t *testing.T) {
	cases := []struct{ doc, field string }{
		{`{"Randomness":"AAAA","Proofs":[],"ChallengedSectors":[],"Prover":1}`, "Randomness"},
		{`{"Randomness":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","Proofs":[{"PoStProof":15}],"ChallengedSectors":[],"Prover":1}`, "Proofs[0].PoStProof"},
		{`{"Randomness":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","Proofs":[],"ChallengedSectors":[{"SealProof":8,"SectorNumber":1,"SealedCID":{"/":"baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"}}],"Prover":1}`, "ChallengedSectors[0].SealedCID"},
		{`{"Randomness":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","Proofs":[],"ChallengedSectors":[]}`, "Prover"},
		{`{"Randomness":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","Prover":"x"}`, "Prover"},
	}
	for _, c := range cases {
		_, err := ParseVerifyInfo([]byte(c.doc))
		var de *DecodeError
		if !errors.As(err, &de) || de.Field != c.field {
			t.Errorf("%s: %v, want field %q", c.doc, err, c.field)
		}
	}
}

// TestWinningVanillaRequest reads Curio's ffiselect parameter array for
// GenerateWinningPoStWithVanilla carrying the real vanilla proof bytes.
func TestWinningVanillaRequest(t *testing.T) {
	raw, p, _ := readWindow(t)
	rnd := base64.StdEncoding.EncodeToString(make([]byte, 32))
	doc := fmt.Sprintf(`[0, 1000, %q, [%q]]`, rnd, base64.StdEncoding.EncodeToString(raw))
	r, err := ParseWinningVanillaRequest([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != StackedDrgWinning2KiBV1 || r.MinerID != 1000 || len(r.Proofs) != 1 || !reflect.DeepEqual(r.Proofs[0], p) {
		t.Fatalf("parsed %+v", r)
	}
	bad := []struct{ doc, want string }{
		{`[8, 1000, "` + rnd + `", []]`, "params[0] proofType"},
		{`[0, 1000, "AAAA", []]`, "params[2] randomness"},
		{`[0, 1000, "` + rnd + `"]`, "want 4"},
		{fmt.Sprintf(`[0, 1000, %q, [%q]]`, rnd, base64.StdEncoding.EncodeToString(raw[:100])), "params[3] proofs[0]"},
	}
	for _, c := range bad {
		if _, err := ParseWinningVanillaRequest([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc[:20], err, c.want)
		}
	}
}
