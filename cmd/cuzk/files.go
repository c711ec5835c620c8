package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// writeInputs writes public inputs as JSON: an array per partition of decimal strings, without
// the leading ONE.
func writeInputs(path string, inputs [][]fr.Element) error {
	out := make([][]string, len(inputs))
	for p, in := range inputs {
		out[p] = make([]string, len(in))
		for i := range in {
			out[p][i] = in[i].String()
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readInputs reads the JSON written by writeInputs. Every value must be a canonical decimal
// element of Fr.
func readInputs(path string) ([][]fr.Element, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw [][]string
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("read inputs %s: want an array per partition of decimal strings: %w", path, err)
	}
	mod := fr.Modulus()
	out := make([][]fr.Element, len(raw))
	for p, in := range raw {
		out[p] = make([]fr.Element, len(in))
		for i, s := range in {
			v, ok := new(big.Int).SetString(s, 10)
			if !ok || v.Sign() < 0 || v.Cmp(mod) >= 0 {
				return nil, fmt.Errorf("read inputs %s: partition %d input %d: %q is not a decimal integer in [0, r)", path, p, i, s)
			}
			out[p][i].SetBigInt(v)
		}
	}
	return out, nil
}
