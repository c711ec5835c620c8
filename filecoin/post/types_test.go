package post

import (
	"encoding/json"
	"os"
	"testing"
)

// paramEntry is one parameters.json entry (lotus build/proof-params/parameters.json).
type paramEntry struct {
	CID        string `json:"cid"`
	Digest     string `json:"digest"`
	SectorSize uint64 `json:"sector_size"`
}

func readParams(t *testing.T, name string) map[string]paramEntry {
	t.Helper()
	b, err := os.ReadFile("testdata/filecoin-params/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]paramEntry
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestParameterFileNames derives every type's .params/.vk names from its circuit parameters and
// finds each, with the right sector size, in both vendored parameters.json files; every PoSt
// file listed there is named by some type.
func TestParameterFileNames(t *testing.T) {
	for _, file := range []string{"lotus-parameters.json", "filecoin-ffi-parameters.json"} {
		params := readParams(t, file)
		named := map[string]bool{}
		for pt := ProofType(0); pt <= StackedDrgWindow64GiBV1_1; pt++ {
			info, err := Lookup(pt)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{info.ParamsFile(), info.VKFile()} {
				e, ok := params[name]
				if !ok {
					t.Errorf("%s: %s (%s) not in %s", file, name, info.Name, file)
					continue
				}
				if e.SectorSize != info.SectorSize {
					t.Errorf("%s: %s sector size %d, want %d", file, name, e.SectorSize, info.SectorSize)
				}
				named[name] = true
			}
		}
		n := 0
		for name := range params {
			if len(name) > 33 && name[:33] == "v28-proof-of-spacetime-fallback-m" {
				n++
				if !named[name] {
					t.Errorf("%s: %s names no PoSt type", file, name)
				}
			}
		}
		if n != 20 {
			t.Errorf("%s: %d PoSt files, want 20 (10 circuits × params/vk)", file, n)
		}
	}
}

// TestRegistry checks the registry against the numbers of go-state-types abi/sector.go and
// filecoin-proofs constants.rs, and the circuit sizes of FILECOIN.md §4 (Winning 132 inputs;
// Window 32 GiB 25,839 inputs, rust-fil-proofs PR #1325 circuitinfo: 25,840 with ONE).
func TestRegistry(t *testing.T) {
	cases := []struct {
		pt                   ProofType
		name                 string
		kind                 Kind
		size                 uint64
		api                  APIVersion
		shape                TreeShape
		cSectors, cChallenge int
		inputs               int
	}{
		{0, "StackedDrgWinning2KiBV1", Winning, 2048, APIVersion1_0_0, TreeShape{Base: 8, Sub: 0, Top: 0}, 66, 1, 132},
		{3, "StackedDrgWinning32GiBV1", Winning, 32 << 30, APIVersion1_0_0, TreeShape{Base: 8, Sub: 8, Top: 0}, 66, 1, 132},
		{4, "StackedDrgWinning64GiBV1", Winning, 64 << 30, APIVersion1_0_0, TreeShape{Base: 8, Sub: 8, Top: 2}, 66, 1, 132},
		{5, "StackedDrgWindow2KiBV1", Window, 2048, APIVersion1_0_0, TreeShape{Base: 8, Sub: 0, Top: 0}, 2, 10, 22},
		{7, "StackedDrgWindow512MiBV1", Window, 512 << 20, APIVersion1_0_0, TreeShape{Base: 8, Sub: 0, Top: 0}, 2, 10, 22},
		{8, "StackedDrgWindow32GiBV1", Window, 32 << 30, APIVersion1_0_0, TreeShape{Base: 8, Sub: 8, Top: 0}, 2349, 10, 25839},
		{9, "StackedDrgWindow64GiBV1", Window, 64 << 30, APIVersion1_0_0, TreeShape{Base: 8, Sub: 8, Top: 2}, 2300, 10, 25300},
		{10, "StackedDrgWindow2KiBV1_1", Window, 2048, APIVersion1_2_0, TreeShape{Base: 8, Sub: 0, Top: 0}, 2, 10, 22},
		{13, "StackedDrgWindow32GiBV1_1", Window, 32 << 30, APIVersion1_2_0, TreeShape{Base: 8, Sub: 8, Top: 0}, 2349, 10, 25839},
		{14, "StackedDrgWindow64GiBV1_1", Window, 64 << 30, APIVersion1_2_0, TreeShape{Base: 8, Sub: 8, Top: 2}, 2300, 10, 25300},
	}
	for _, c := range cases {
		info, err := Lookup(c.pt)
		if err != nil {
			t.Fatal(err)
		}
		if info.Name != c.name || info.Kind != c.kind || info.SectorSize != c.size || info.API != c.api ||
			info.Shape != c.shape || info.CircuitSectors != c.cSectors || info.CircuitChallenges != c.cChallenge ||
			info.NumPublicInputs() != c.inputs || c.pt.String() != c.name {
			t.Errorf("type %d: got %+v (inputs %d)", c.pt, info, info.NumPublicInputs())
		}
	}
	for _, bad := range []ProofType{-1, 15, 1 << 40} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%d) succeeded", bad)
		}
	}
}
