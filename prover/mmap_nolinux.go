//go:build !linux

package prover

// dropPages does nothing where madvise is not used: the pages stay resident until Close.
func dropPages([]byte) error { return nil }

// prefetchPages does nothing where madvise is not used: the copy faults the pages in.
func prefetchPages([]byte) {}
