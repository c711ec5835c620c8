package post

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover"
)

// lanternVector is testdata/filecoin-winningpost-2kib/lantern_winningpost_2kib_vector.json.
type lanternVector struct {
	SealProofType     int64  `json:"seal_proof_type"`
	PoStProofType     int64  `json:"post_proof_type"`
	MinerID           uint64 `json:"miner_id"`
	SectorNumber      uint64 `json:"sector_number"`
	RandomnessHex     string `json:"randomness_hex"`
	SealedCID         string `json:"sealed_cid"`
	SealedCIDBytesHex string `json:"sealed_cid_bytes_hex"`
	ProofHex          string `json:"proof_bytes_hex"`
	ChallengedIndices []int  `json:"challenged_indices"`
}

const winningDir = "testdata/filecoin-winningpost-2kib/"

func readLantern(t *testing.T) lanternVector {
	t.Helper()
	b, err := os.ReadFile(winningDir + "lantern_winningpost_2kib_vector.json")
	if err != nil {
		t.Fatal(err)
	}
	var v lanternVector
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// winningInputs derives the 132 public inputs from the vector's randomness, sector number and
// sealed CID alone.
func winningInputs(t *testing.T, v lanternVector, randomness Domain, sectorID uint64) []fr.Element {
	t.Helper()
	info, err := Lookup(ProofType(v.PoStProofType))
	if err != nil {
		t.Fatal(err)
	}
	commR, err := CommRFromCID(v.SealedCID)
	if err != nil {
		t.Fatal(err)
	}
	in, err := info.PublicInputs(randomness, []PublicSector{{ID: sectorID, CommR: commR}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestWinningPoSt2KiBRealProof derives the public inputs of lantern's real v28 WinningPoSt
// 2 KiB proof (filecoin-ffi produced it) from randomness, sector 7 and the sealed CID, checks
// them against the vector's list, and verifies the proof under the real v28 verifying key. A
// changed randomness or sector number must make verification fail.
func TestWinningPoSt2KiBRealProof(t *testing.T) {
	v := readLantern(t)
	if v.PoStProofType != int64(StackedDrgWinning2KiBV1) || v.MinerID != 1000 || v.SectorNumber != 7 {
		t.Fatalf("unexpected vector header %+v", v)
	}
	info, _ := Lookup(StackedDrgWinning2KiBV1)
	vk, err := prover.ReadVerifyingKeyFile(winningDir+info.VKFile(), prover.Checked)
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		t.Fatal(err)
	}
	var proof prover.Proof
	if err := proof.SetBytes(mustHex(t, v.ProofHex)); err != nil {
		t.Fatal(err)
	}
	var rnd Domain
	copy(rnd[:], mustHex(t, v.RandomnessHex))

	// The one-sector set: the challenged index is 0 whatever the randomness.
	sc, err := SectorChallenges(rnd, ProverID(v.MinerID), WinningSectorCount, 1)
	if err != nil || len(sc) != 1 || sc[0] != uint64(v.ChallengedIndices[0]) {
		t.Fatalf("sector challenges %v, %v; want %v", sc, err, v.ChallengedIndices)
	}

	inputs := winningInputs(t, v, rnd, v.SectorNumber)
	if len(inputs) != 132 {
		t.Fatalf("%d inputs, want 132", len(inputs))
	}

	// The vector's own list (cases.json, computed independently from compound.rs).
	b, err := os.ReadFile(winningDir + "cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string   `json:"name"`
		Inputs []string `json:"inputs_be_hex"`
		Expect bool     `json:"expect"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if cases[0].Name != "lantern-winningpost-2kib" || len(cases[0].Inputs) != len(inputs) {
		t.Fatalf("cases.json: first case %q with %d inputs", cases[0].Name, len(cases[0].Inputs))
	}
	for j, h := range cases[0].Inputs {
		var want fr.Element
		if err := want.SetBytesCanonical(mustHex(t, h)); err != nil {
			t.Fatal(err)
		}
		if !want.Equal(&inputs[j]) {
			t.Errorf("input %d: derived %s, cases.json %s", j, inputs[j].String(), want.String())
		}
	}

	if err := prover.Verify(pvk, &proof, inputs); err != nil {
		t.Fatalf("real WinningPoSt proof with derived inputs: %v", err)
	}

	// Wrong randomness, wrong sector number, or the API 1.2.0 challenge rule: the proof fails.
	rnd2 := rnd
	rnd2[0] ^= 1
	if err := prover.Verify(pvk, &proof, winningInputs(t, v, rnd2, v.SectorNumber)); !errors.Is(err, prover.ErrInvalidProof) {
		t.Errorf("changed randomness: %v, want ErrInvalidProof", err)
	}
	if err := prover.Verify(pvk, &proof, winningInputs(t, v, rnd, v.SectorNumber+1)); !errors.Is(err, prover.ErrInvalidProof) {
		t.Errorf("changed sector number: %v, want ErrInvalidProof", err)
	}
	info12 := info
	info12.API = APIVersion1_2_0
	commR, _ := CommRFromCID(v.SealedCID)
	in12, err := info12.PublicInputs(rnd, []PublicSector{{ID: v.SectorNumber, CommR: commR}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := prover.Verify(pvk, &proof, in12); !errors.Is(err, prover.ErrInvalidProof) {
		t.Errorf("API 1.2.0 challenge rule: %v, want ErrInvalidProof", err)
	}
	// cases.json's own API 1.2.0 negative case lists the same inputs.
	for _, c := range cases {
		if c.Name != "DERIVED-NEGATIVE-apiV1_2_0-challenge-rule" {
			continue
		}
		for j, h := range c.Inputs {
			var want fr.Element
			if err := want.SetBytesCanonical(mustHex(t, h)); err != nil {
				t.Fatal(err)
			}
			if !want.Equal(&in12[j]) {
				t.Fatalf("API 1.2.0 input %d: derived %s, cases.json %s", j, in12[j].String(), want.String())
			}
		}
		in12 = nil
	}
	if in12 != nil {
		t.Error("cases.json lacks the API 1.2.0 negative case")
	}
}
