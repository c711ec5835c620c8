package prover

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/crypto/blake2b"
)

// vectorsDir is the folder of vendored external vectors (see its README.md). A missing
// folder fails the test: the vectors are part of the repository.
func vectorsDir(t testing.TB) string {
	t.Helper()
	const dir = "testdata/vectors"
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("vendored vectors missing: %v", err)
	}
	return dir
}

// vectorCase is one entry of a cases.json file (see testdata/vectors/README.md).
type vectorCase struct {
	Name     string   `json:"name"`
	Expect   bool     `json:"expect"`
	VKFile   string   `json:"vk_file"`
	ProofHex string   `json:"proof_hex"`
	Inputs   []string `json:"inputs_be_hex"`
	// bellman-zwaves only.
	VKWavesHex     string `json:"vk_waves_hex"`
	VKBellmanHex   string `json:"vk_bellman_uncompressed_hex_PLACEHOLDER_beta1_delta1"`
	ProofUncompHex string `json:"proof_uncompressed_hex"`
}

func loadCases(t *testing.T, dir, family string) []vectorCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, family, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []vectorCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatalf("parse %s/cases.json: %v", family, err)
	}
	if len(cs) == 0 {
		t.Fatalf("%s/cases.json has no cases", family)
	}
	return cs
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex: %v", err)
	}
	return b
}

// parseInputs decodes canonical big-endian Fr elements.
func parseInputs(t testing.TB, hs []string) []fr.Element {
	t.Helper()
	out := make([]fr.Element, len(hs))
	for i, h := range hs {
		if err := out[i].SetBytesCanonical(mustHex(t, h)); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
	}
	return out
}

// checkCase decodes the proof and verifies it, returning nil only if it decodes and
// verifies; a proof that does not decode counts as failing.
func checkCase(pvk *PreparedVerifyingKey, proofBytes []byte, inputs []fr.Element) error {
	var p Proof
	if err := p.SetBytes(proofBytes); err != nil {
		return err
	}
	return Verify(pvk, &p, inputs)
}

func TestVectorsFamilies(t *testing.T) {
	dir := vectorsDir(t)
	for _, family := range []string{"filecoin-winningpost-2kib", "zcash-sapling-output", "zcash-sprout-groth16"} {
		t.Run(family, func(t *testing.T) {
			cases := loadCases(t, dir, family)
			pvks := map[string]*PreparedVerifyingKey{}
			var pos, neg int
			var batchProofs []*Proof
			var batchInputs [][]fr.Element
			for _, c := range cases {
				pvk, ok := pvks[c.VKFile]
				if !ok {
					vkPath := filepath.Join(dir, c.VKFile)
					vk, err := ReadVerifyingKeyFile(vkPath, Checked)
					if err != nil {
						t.Fatalf("%s: %v", c.VKFile, err)
					}
					// The encoder reproduces the file byte for byte.
					raw, _ := os.ReadFile(vkPath)
					enc, err := vk.MarshalBinary()
					if err != nil || string(enc) != string(raw) {
						t.Fatalf("%s: re-encoding differs from the file (err %v)", c.VKFile, err)
					}
					if pvk, err = PrepareVerifyingKey(vk); err != nil {
						t.Fatal(err)
					}
					pvks[c.VKFile] = pvk
				}
				proofBytes := mustHex(t, c.ProofHex)
				inputs := parseInputs(t, c.Inputs)
				err := checkCase(pvk, proofBytes, inputs)
				if c.Expect {
					pos++
					if err != nil {
						t.Errorf("%s: want valid, got %v", c.Name, err)
						continue
					}
					var p Proof
					_ = p.SetBytes(proofBytes)
					if b := p.Bytes(); string(b[:]) != string(proofBytes) {
						t.Errorf("%s: proof re-encoding differs", c.Name)
					}
					batchProofs = append(batchProofs, &p)
					batchInputs = append(batchInputs, inputs)

					// A flipped bit anywhere in the proof must fail (decode or verify).
					for _, bit := range []int{7 * 8, 50 * 8, 100*8 + 3, 150 * 8, 191*8 + 7} {
						mut := append([]byte(nil), proofBytes...)
						mut[bit/8] ^= 1 << (bit % 8)
						if checkCase(pvk, mut, inputs) == nil {
							t.Errorf("%s: proof with bit %d flipped verified", c.Name, bit)
						}
					}
					// A changed input must fail.
					if len(inputs) > 0 {
						mut := append([]fr.Element(nil), inputs...)
						var one fr.Element
						one.SetOne()
						mut[len(mut)-1].Add(&mut[len(mut)-1], &one)
						if err := checkCase(pvk, proofBytes, mut); !errors.Is(err, ErrInvalidProof) {
							t.Errorf("%s: changed input: want ErrInvalidProof, got %v", c.Name, err)
						}
					}
				} else {
					neg++
					// Every negative case in these families is a one-field mutation that
					// still decodes: it must fail the pairing check itself.
					if !errors.Is(err, ErrInvalidProof) {
						t.Errorf("%s: want ErrInvalidProof, got %v", c.Name, err)
					} else {
						t.Logf("%s: rejected as expected: %v", c.Name, err)
					}
				}
			}
			t.Logf("%d valid and %d invalid cases checked", pos, neg)
			// All valid proofs of the family pass as one batch.
			if len(batchProofs) > 0 {
				pvk := pvks[cases[0].VKFile]
				if err := VerifyBatch(pvk, batchProofs, batchInputs); err != nil {
					t.Errorf("batch of %d valid proofs: %v", len(batchProofs), err)
				}
			}
		})
	}
}

// decodeUncompressedProof decodes the 384-byte uncompressed A‖B‖C test form.
func decodeUncompressedProof(b []byte) (*Proof, error) {
	if len(b) != 2*G1UncompressedSize+G2UncompressedSize {
		return nil, errors.New("bad length")
	}
	var p Proof
	if err := decodeG1Uncompressed(&p.A, b, Checked); err != nil {
		return nil, err
	}
	if err := decodeG2Uncompressed(&p.B, b[G1UncompressedSize:], Checked); err != nil {
		return nil, err
	}
	if err := decodeG1Uncompressed(&p.C, b[G1UncompressedSize+G2UncompressedSize:], Checked); err != nil {
		return nil, err
	}
	return &p, nil
}

func TestVectorsBellmanZwaves(t *testing.T) {
	dir := vectorsDir(t)
	for _, c := range loadCases(t, dir, "bellman-zwaves") {
		t.Run(c.Name, func(t *testing.T) {
			vk, err := UnmarshalVerifyingKey(mustHex(t, c.VKBellmanHex), Checked)
			if err != nil {
				t.Fatalf("decode vk: %v", err)
			}
			// Cross-check the compressed decoders against the waves vk, which holds
			// alpha_g1 ‖ beta_g2 ‖ gamma_g2 ‖ delta_g2 ‖ IC, compressed.
			w := mustHex(t, c.VKWavesHex)
			if want := G1CompressedSize + 3*G2CompressedSize + G1CompressedSize*len(vk.IC); len(w) != want {
				t.Fatalf("waves vk is %d bytes, want %d", len(w), want)
			}
			var g1 bls12381.G1Affine
			var g2 bls12381.G2Affine
			off := 0
			nextG1 := func(want *bls12381.G1Affine, what string) {
				if err := decodeG1Compressed(&g1, w[off:], Checked, false); err != nil || !g1.Equal(want) {
					t.Errorf("waves %s: err %v or mismatch", what, err)
				}
				off += G1CompressedSize
			}
			nextG2 := func(want *bls12381.G2Affine, what string) {
				if err := decodeG2Compressed(&g2, w[off:], Checked, false); err != nil || !g2.Equal(want) {
					t.Errorf("waves %s: err %v or mismatch", what, err)
				}
				off += G2CompressedSize
			}
			nextG1(&vk.AlphaG1, "alpha_g1")
			nextG2(&vk.BetaG2, "beta_g2")
			nextG2(&vk.GammaG2, "gamma_g2")
			nextG2(&vk.DeltaG2, "delta_g2")
			for i := range vk.IC {
				nextG1(&vk.IC[i], "ic")
			}

			pvk, err := PrepareVerifyingKey(vk)
			if err != nil {
				t.Fatal(err)
			}
			proofBytes := mustHex(t, c.ProofHex)
			inputs := parseInputs(t, c.Inputs)
			err = checkCase(pvk, proofBytes, inputs)
			if c.Expect != (err == nil) {
				t.Fatalf("expect %v, got %v", c.Expect, err)
			}
			if err != nil {
				t.Logf("rejected as expected: %v", err)
			}
			// The uncompressed form of the proof, where it decodes, is the same proof.
			up, uerr := decodeUncompressedProof(mustHex(t, c.ProofUncompHex))
			var p Proof
			if perr := p.SetBytes(proofBytes); perr == nil {
				if uerr != nil || !up.A.Equal(&p.A) || !up.B.Equal(&p.B) || !up.C.Equal(&p.C) {
					t.Errorf("uncompressed proof differs from compressed (err %v)", uerr)
				}
			} else if uerr == nil {
				t.Errorf("compressed proof rejected (%v) but uncompressed decodes", perr)
			}
		})
	}
}

func TestVectorsSaplingParams(t *testing.T) {
	dir := vectorsDir(t)
	path := filepath.Join(dir, "zcash-sapling-output", "sapling-output.params")
	mode := Checked
	if testing.Short() {
		// Checked decoding of the 3.5 MB file costs a few seconds of subgroup checks on
		// 2 cores; -short checks the structure and the curve equation only.
		mode = Unchecked
	}
	p, err := ReadParametersFile(path, mode)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const transcript = 52836
	if got := p.EncodedSize(); got != int64(len(raw)-transcript) {
		t.Fatalf("parameters occupy %d bytes, want %d (file minus %d-byte transcript)", got, len(raw)-transcript, transcript)
	}
	vkRaw, err := os.ReadFile(filepath.Join(dir, "zcash-sapling-output", "sapling-output.vk"))
	if err != nil {
		t.Fatal(err)
	}
	vkEnc, _ := p.VK.MarshalBinary()
	if string(vkEnc) != string(vkRaw) {
		t.Fatal("vk inside sapling-output.params differs from sapling-output.vk")
	}
	var sb strings.Builder
	if _, err := p.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	if sb.String() != string(raw[:len(raw)-transcript]) {
		t.Fatal("re-encoded parameters differ from the file")
	}
	t.Logf("sapling-output.params (%s): |IC|=%d |H|=%d |L|=%d |A|=%d |B_G1|=%d |B_G2|=%d",
		mode, len(p.VK.IC), len(p.H), len(p.L), len(p.A), len(p.BG1), len(p.BG2))
}

// TestVectorsWinningPoStDigest checks the WinningPoSt vk file against lotus
// parameters.json, whose digest is the first 16 bytes of BLAKE2b-512 of the file, in hex
// (lotus paramfetch).
func TestVectorsWinningPoStDigest(t *testing.T) {
	dir := vectorsDir(t)
	const name = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk"
	raw, err := os.ReadFile(filepath.Join(dir, "filecoin-winningpost-2kib", name))
	if err != nil {
		t.Fatal(err)
	}
	pj, err := os.ReadFile(filepath.Join(dir, "filecoin-params", "lotus-parameters.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]struct {
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(pj, &entries); err != nil {
		t.Fatal(err)
	}
	e, ok := entries[name]
	if !ok {
		t.Fatalf("%s not in parameters.json", name)
	}
	sum := blake2b.Sum512(raw)
	if got := hex.EncodeToString(sum[:16]); got != e.Digest {
		t.Fatalf("digest %s, parameters.json says %s", got, e.Digest)
	}
}
