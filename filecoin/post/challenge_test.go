package post

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth/gadgets/poseidon"
)

// TestProverID: an ID address's payload is the uvarint of the actor id (go-address
// NewIDAddress); 1000 = 0xe8 0x07.
func TestProverID(t *testing.T) {
	got := ProverID(1000)
	want := Domain{0xe8, 0x07}
	if got != want {
		t.Fatalf("ProverID(1000) = %s", got)
	}
}

// TestSectorChallenges checks the preimage layout prover_id ‖ randomness ‖ LE-u64(n) against a
// hand-assembled hash, the modulus, and the argument checks.
func TestSectorChallenges(t *testing.T) {
	v := readLantern(t)
	var rnd Domain
	copy(rnd[:], mustHex(t, v.RandomnessHex))
	pid := ProverID(v.MinerID)
	got, err := SectorChallenges(rnd, pid, 3, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for n, g := range got {
		pre := append(append(append([]byte{}, pid[:]...), rnd[:]...), byte(n), 0, 0, 0, 0, 0, 0, 0)
		sum := sha256.Sum256(pre)
		if want := binary.LittleEndian.Uint64(sum[:8]) % 1000; g != want {
			t.Errorf("challenge %d = %d, want %d", n, g, want)
		}
	}
	if _, err := SectorChallenges(rnd, pid, 1, 0); err == nil {
		t.Error("empty sector set accepted")
	}
	var bad Domain
	for j := range bad {
		bad[j] = 0xff
	}
	if _, err := SectorChallenges(bad, pid, 1, 5); err == nil {
		t.Error("non-canonical randomness accepted")
	}
	info, _ := Lookup(StackedDrgWinning2KiBV1)
	if _, err := info.PublicInputs(bad, []PublicSector{{ID: 7}}, 0); err == nil {
		t.Error("PublicInputs: non-canonical randomness accepted")
	}
	if _, err := info.PublicInputs(rnd, []PublicSector{{ID: 7, CommR: bad}}, 0); err == nil {
		t.Error("PublicInputs: non-canonical comm_r accepted")
	}
	if _, err := info.PublicInputs(rnd, []PublicSector{{ID: 7}, {ID: 8}}, 0); err == nil {
		t.Error("PublicInputs: two WinningPoSt sectors accepted")
	}
}

// TestChallengeIndex: get_challenge_index (storage-proofs-post fallback/utils.rs).
func TestChallengeIndex(t *testing.T) {
	if got := ChallengeIndex(APIVersion1_0_0, 3, 10, 4); got != 34 {
		t.Errorf("1.0.0: %d, want 34", got)
	}
	if got := ChallengeIndex(APIVersion1_2_0, 3, 10, 4); got != 4 {
		t.Errorf("1.2.0: %d, want 4", got)
	}
}

// TestPoseidonArity8KnownAnswer is curio's TestPoseidonHashMulti (lib/proof/post_vproof_test.go
// at e0294b0f): eight tree nodes, as stored (little-endian), into their arity-8 parent. It pins
// the byte order and domain tag the vanilla verifier relies on.
func TestPoseidonArity8KnownAnswer(t *testing.T) {
	ins := []string{
		"f743111428ecda9b74a18826f1cc62d48ae1510de17e58645997559f86442f31",
		"197a6efa37086e3a37108f8460c52bc810e2781aff0091bfd7b74e3f6f752f02",
		"01c2c12f7930bbb59e3b36dae1c694b33ac6b3f199ec32a8665fadb8338f4f21",
		"bbe672a853f65cdb2563339ca61d6ad648473b4b4ce44bf3a48486424b865a2d",
		"937d57295f488cea8099f5525958f1af39c6241614b917835292e8e2314cf908",
		"3272570cd8ba38c1183629ca72d5e9149d76786ed22c1d591db3d2bccfa7d308",
		"2d3fc90e11aaf601bd1beae80fc3aba15a9e1f886d8140533ce36cda3dd9f936",
		"0a017e264d0728bfcd2edb3c6c60cc5a05a02af31a71cdd7bb2da27616f5f630",
	}
	const want = "0737ca506df7d4544f8512df35aaa07ed8a40691e96ae868c23320220fec6866"
	in := make([]fr.Element, 8)
	for j, h := range ins {
		var d Domain
		copy(d[:], mustHex(t, h))
		e, err := d.Element()
		if err != nil {
			t.Fatal(err)
		}
		in[j] = e
	}
	out, err := poseidon.Must(8).Hash(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := DomainOf(&out); hex.EncodeToString(got[:]) != want {
		t.Fatalf("Poseidon-8 = %s, want %s", got, want)
	}
}
