//go:build linux

package prover

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// dropPages takes the whole pages inside b, part of a read-only file mapping, out of the
// process's resident set (madvise MADV_DONTNEED; the file's pages stay in the page cache). The
// partial pages at either end, shared with the neighbouring sections, are kept.
func dropPages(b []byte) error {
	page := uintptr(os.Getpagesize())
	if len(b) < int(page) {
		return nil
	}
	addr := uintptr(unsafe.Pointer(&b[0]))
	lo := int((page - addr%page) % page)
	hi := lo + (len(b)-lo)/int(page)*int(page)
	if hi <= lo {
		return nil
	}
	if err := syscall.Madvise(b[lo:hi], syscall.MADV_DONTNEED); err != nil {
		return fmt.Errorf("madvise: %w", err)
	}
	return nil
}
