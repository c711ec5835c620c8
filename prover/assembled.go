package prover

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"unicode/utf8"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// VerifyAssembled verifies an assembled proof — N partition proofs of ProofSize bytes each, in
// partition order, as engine.Result.Proof and assemble.Assemble lay them out — against pvk and
// the partitions' public inputs (inputs[i] for partition i, without the leading ONE). All N
// are checked in one batch; when the batch fails, the error names the first partition whose
// proof does not verify and wraps ErrInvalidProof.
func VerifyAssembled(pvk *PreparedVerifyingKey, proof []byte, inputs [][]fr.Element) error {
	if len(proof) == 0 || len(proof)%ProofSize != 0 {
		return fmt.Errorf("verify assembled proof: %d bytes is not a positive multiple of %d", len(proof), ProofSize)
	}
	n := len(proof) / ProofSize
	if n != len(inputs) {
		return fmt.Errorf("verify assembled proof: %d partition proofs for %d partitions' inputs", n, len(inputs))
	}
	proofs := make([]*Proof, n)
	for i := range proofs {
		proofs[i] = new(Proof)
		if err := proofs[i].SetBytes(proof[i*ProofSize : (i+1)*ProofSize]); err != nil {
			return fmt.Errorf("verify assembled proof: partition %d (bytes %d to %d): %w", i, i*ProofSize, (i+1)*ProofSize, err)
		}
	}
	err := VerifyBatch(pvk, proofs, inputs)
	if err == nil {
		return nil
	}
	for i, p := range proofs {
		if perr := Verify(pvk, p, inputs[i]); perr != nil {
			return fmt.Errorf("verify assembled proof: partition %d: %w", i, perr)
		}
	}
	return fmt.Errorf("verify assembled proof: %w", err)
}

// MarshalPublicInputs encodes the partitions' public inputs as JSON: an array per partition of
// canonical decimal strings, without the leading ONE, e.g. [["12","34"],["56","78"]].
func MarshalPublicInputs(inputs [][]fr.Element) ([]byte, error) {
	out := make([][]string, len(inputs))
	for p, in := range inputs {
		out[p] = make([]string, len(in))
		for i := range in {
			// Not in[i].String(): gnark-crypto prints elements near r as negatives ("-1").
			out[p][i] = in[i].BigInt(new(big.Int)).String()
		}
	}
	return json.Marshal(out)
}

// maxInputDigits is the most digits a canonical element of Fr can have (r has 77).
const maxInputDigits = 77

// UnmarshalPublicInputs decodes the JSON of MarshalPublicInputs strictly: an array (not null)
// of arrays of strings, each a canonical decimal — digits only, no sign, no leading zero except
// "0" itself — below the field modulus r. Errors name the partition and input and quote at most
// the first 20 characters of a bad value.
func UnmarshalPublicInputs(b []byte) ([][]fr.Element, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil || parts == nil {
		return nil, fmt.Errorf("public inputs: want a JSON array per partition of decimal strings: %v", errOrNull(err))
	}
	out := make([][]fr.Element, len(parts))
	mod := fr.Modulus()
	for p, raw := range parts {
		var in []string
		if err := json.Unmarshal(raw, &in); err != nil || in == nil {
			return nil, fmt.Errorf("public inputs: partition %d: want an array of decimal strings: %v", p, errOrNull(err))
		}
		out[p] = make([]fr.Element, len(in))
		for i, s := range in {
			v, err := parseCanonical(s, mod)
			if err != nil {
				return nil, fmt.Errorf("public inputs: partition %d input %d: %q: %w", p, i, truncate(s, 20), err)
			}
			out[p][i].SetBigInt(v)
		}
	}
	return out, nil
}

func errOrNull(err error) error {
	if err == nil {
		return errors.New("got null")
	}
	return err
}

// parseCanonical parses s as a canonical decimal integer in [0, mod).
func parseCanonical(s string, mod *big.Int) (*big.Int, error) {
	switch {
	case s == "":
		return nil, errors.New("empty, want a decimal integer")
	case len(s) > maxInputDigits:
		return nil, fmt.Errorf("%d characters, an element of Fr has at most %d digits", len(s), maxInputDigits)
	case len(s) > 1 && s[0] == '0':
		return nil, errors.New("leading zero, want a canonical decimal")
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return nil, errors.New("not a decimal integer (digits only, no sign)")
		}
	}
	v, _ := new(big.Int).SetString(s, 10)
	if v.Cmp(mod) >= 0 {
		return nil, errors.New("not below the field modulus r")
	}
	return v, nil
}

// truncate returns s cut to at most n runes, with "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
