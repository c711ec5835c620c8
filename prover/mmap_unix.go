//go:build unix

package prover

import (
	"fmt"
	"math"
	"os"
	"syscall"
)

// mapFile maps the file at path read-only and returns its bytes and a function that unmaps
// them. An empty file yields an empty slice.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size > math.MaxInt {
		return nil, nil, fmt.Errorf("map %s: %d bytes exceed the address space", path, size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return b, func() error {
		if err := syscall.Munmap(b); err != nil {
			return fmt.Errorf("munmap %s: %w", path, err)
		}
		return nil
	}, nil
}
