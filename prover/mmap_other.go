//go:build !unix

package prover

import "os"

// mapFile reads the whole file at path; systems without mmap get a plain read.
func mapFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
