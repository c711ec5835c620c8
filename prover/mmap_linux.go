//go:build linux

package prover

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
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

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): fault the pages of a range in, as
// reading them would, in one call.
const madvPopulateRead = 22

// prefetchPieces is the number of goroutines that populate one range: page faults on one
// mapping proceed in parallel.
const prefetchPieces = 4

// prefetchPages asks the system to map the pages of b, part of a read-only file mapping, into
// the process (MADV_POPULATE_READ, in prefetchPieces parts at once; MADV_WILLNEED, which only
// starts reading them, on kernels without it), so that a later copy of b takes no page fault.
// It is advice: errors are ignored, and the pages may be dropped again under memory pressure.
func prefetchPages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := os.Getpagesize()
	lead := int(uintptr(unsafe.Pointer(&b[0])) % uintptr(page)) // bytes of b's first page before b
	full := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&b[0]), -lead)), len(b)+lead)
	part := (len(full)/prefetchPieces + page - 1) / page * page
	if part < 1<<20 {
		part = len(full)
	}
	var wg sync.WaitGroup
	var unsupported atomic.Bool
	for off := 0; off < len(full); off += part {
		r := full[off:min(off+part, len(full))]
		wg.Go(func() {
			if syscall.Madvise(r, madvPopulateRead) == syscall.EINVAL {
				unsupported.Store(true)
			}
		})
	}
	wg.Wait()
	if unsupported.Load() {
		_ = syscall.Madvise(full, syscall.MADV_WILLNEED)
	}
}
