package main

import (
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover"
)

// writeInputs writes public inputs as JSON (prover.MarshalPublicInputs): an array per partition
// of decimal strings, without the leading ONE.
func writeInputs(path string, inputs [][]fr.Element) error {
	b, err := prover.MarshalPublicInputs(inputs)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readInputs reads the JSON written by writeInputs, strictly (prover.UnmarshalPublicInputs).
func readInputs(path string) ([][]fr.Element, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	in, err := prover.UnmarshalPublicInputs(b)
	if err != nil {
		return nil, fmt.Errorf("read inputs %s: %w", path, err)
	}
	return in, nil
}
