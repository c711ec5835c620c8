//go:build linux

package prover

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// mappingRSS returns the resident bytes of the mapping that holds addr, from /proc/self/smaps.
func mappingRSS(t *testing.T, addr uintptr) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(line, " ") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int64
		if in && strings.HasPrefix(line, "Rss:") {
			if _, err := fmt.Sscanf(line, "Rss: %d kB", &kb); err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return 0
}

// TestDropRangeLeavesResidentSet: the pages of decoded points are resident in the mapping;
// DropRange takes those of a range out of it, DropPages those of a whole section, and the points
// decode the same afterwards.
func TestDropRangeLeavesResidentSet(t *testing.T) {
	const n = 1 << 16 // 6 MiB of H
	p := repeatH(randParams(40, 2, 4, 3, 3, 2, 2), n)
	path := filepath.Join(t.TempDir(), "p.params")
	if err := os.WriteFile(path, encodeParams(t, p), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := OpenParametersFile(path, Unchecked)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	addr := uintptr(unsafe.Pointer(&m.b[0]))
	pts := make([]bls12381.G1Affine, n)
	if err := m.G1(primitive.SectionH, 0, pts); err != nil {
		t.Fatal(err)
	}
	full := mappingRSS(t, addr)
	if full < n*96*9/10 {
		t.Fatalf("%d bytes resident after decoding %d bytes of points", full, n*96)
	}
	if err := m.DropRange(primitive.SectionH, 0, n/2); err != nil {
		t.Fatal(err)
	}
	half := mappingRSS(t, addr)
	// At least the range's whole pages leave; a file mapped with huge pages (tmpfs) may lose
	// the rest of a 2 MiB page at either end too.
	if drop := full - half; drop < n/2*96-2*4096 || drop > n/2*96+4<<20 {
		t.Fatalf("DropRange of %d bytes of points released %d bytes", n/2*96, drop)
	}
	if err := m.DropPages(primitive.SectionH); err != nil {
		t.Fatal(err)
	}
	if rest := mappingRSS(t, addr); rest > 64<<10 {
		t.Fatalf("%d bytes resident after DropPages", rest)
	}
	again := make([]bls12381.G1Affine, n)
	if err := m.G1(primitive.SectionH, 0, again); err != nil || !equalG1(again, pts) {
		t.Fatalf("points after DropPages: %v", err)
	}
	if err := m.DropRange(primitive.SectionH, n-1, 2); err == nil {
		t.Fatal("DropRange past the section's end accepted")
	}
}
