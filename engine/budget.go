package engine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// MemoryLimit is the host memory the process may use, in bytes, and where that figure comes from.
type MemoryLimit struct {
	// Bytes is the limit: the cgroup's memory limit when there is one below the machine's RAM,
	// else the machine's RAM (MemTotal).
	Bytes int64
	// Source names the file the limit was read from ("/sys/fs/cgroup/memory.max",
	// "/proc/meminfo"), followed by why a cgroup file was passed over, if it was.
	Source string
}

// Default budget margin: the budget leaves max(MinMemoryMargin, MemoryMarginFraction × limit)
// of the limit unbudgeted, for the Go runtime (its heap grows past the live data between two
// collections), goroutine stacks, the page cache the cgroup charges, and estimates' errors.
const (
	MinMemoryMargin      int64 = 1 << 30
	MemoryMarginFraction       = 0.10
)

// MemoryMargin returns the margin the default budget leaves below limit bytes:
// max(MinMemoryMargin, MemoryMarginFraction·limit), at most half the limit.
func MemoryMargin(limit int64) int64 {
	return min(max(MinMemoryMargin, int64(float64(limit)*MemoryMarginFraction)), limit/2)
}

// DefaultBudget returns the budget the engine takes when WithMemoryBudget is not given:
// lim.Bytes − MemoryMargin(lim.Bytes). What is resident (shapes, parameters) is counted against
// it, not subtracted from it here.
func DefaultBudget(lim MemoryLimit) int64 { return lim.Bytes - MemoryMargin(lim.Bytes) }

// DetectMemoryLimit returns the memory limit of this process: the smallest cgroup limit on the
// path of its cgroup (cgroup v2: memory.max under /sys/fs/cgroup; v1: memory.limit_in_bytes
// under /sys/fs/cgroup/memory), or MemTotal of /proc/meminfo when there is none ("max", or a
// limit above the RAM). An unreadable or malformed cgroup file is passed over (Source says so);
// it fails only when /proc/meminfo cannot be read either.
func DetectMemoryLimit() (MemoryLimit, error) { return detectMemoryLimit(os.DirFS("/")) }

// detectMemoryLimit is DetectMemoryLimit on the file system fsys, rooted where "/" would be.
func detectMemoryLimit(fsys fs.FS) (MemoryLimit, error) {
	total, terr := readMemTotal(fsys)
	cg, cgSrc, cerr := readCgroupLimit(fsys)
	var note string
	if cerr != nil {
		note = " (cgroup limit ignored: " + cerr.Error() + ")"
	}
	switch {
	case cerr == nil && cg > 0 && (terr != nil || cg < total):
		return MemoryLimit{Bytes: cg, Source: cgSrc}, nil
	case terr != nil:
		return MemoryLimit{}, fmt.Errorf("engine: memory limit: %w%s", terr, note)
	}
	return MemoryLimit{Bytes: total, Source: "/proc/meminfo" + note}, nil
}

// readMemTotal returns MemTotal of proc/meminfo in bytes.
func readMemTotal(fsys fs.FS) (int64, error) {
	b, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read /proc/meminfo: %w", err)
	}
	kb, ok := parseMemTotal(b)
	if !ok || kb > 1<<43 {
		return 0, errors.New("/proc/meminfo: no valid MemTotal line in kB")
	}
	return kb << 10, nil
}

// readCgroupLimit returns the tightest cgroup memory limit on this process's cgroup path, 0 when
// there is none, and the file it was read from. proc/self/cgroup gives the path ("0::/a/b" for
// v2, "N:memory:/a/b" or "N:…,memory,…:/a/b" for v1); each directory from it up to the root is
// looked at, so that a parent's limit counts. Without proc/self/cgroup only the root files are.
func readCgroupLimit(fsys fs.FS) (int64, string, error) {
	v2, v1 := "/", "/"
	if b, err := fs.ReadFile(fsys, "proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.SplitN(line, ":", 3)
			if len(f) != 3 {
				continue
			}
			switch {
			case f[0] == "0" && f[1] == "":
				v2 = f[2]
			case hasController(f[1], "memory"):
				v1 = f[2]
			}
		}
	}
	var best int64
	var src string
	found := false
	for _, c := range []struct{ dir, file, cgPath string }{
		{"sys/fs/cgroup", "memory.max", v2},
		{"sys/fs/cgroup/memory", "memory.limit_in_bytes", v1},
	} {
		for _, dir := range ancestors(c.dir, c.cgPath) {
			p := path.Join(dir, c.file)
			b, err := fs.ReadFile(fsys, p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return 0, "", fmt.Errorf("read /%s: %w", p, err)
			}
			found = true
			v, err := parseCgroupLimit(b)
			if err != nil {
				return 0, "", fmt.Errorf("/%s: %w", p, err)
			}
			if v > 0 && (best == 0 || v < best) {
				best, src = v, "/"+p
			}
		}
		if found {
			break // cgroup v2 files found: the v1 hierarchy, if mounted too, is not in use
		}
	}
	return best, src, nil
}

// hasController reports whether the comma-separated controller list has name.
func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// ancestors returns root/cgPath and each of its parents up to root, deepest first. A path
// escaping root ("..") yields root only.
func ancestors(root, cgPath string) []string {
	p := path.Clean("/" + cgPath)
	var out []string
	for {
		out = append(out, path.Join(root, p))
		if p == "/" {
			return out
		}
		p = path.Dir(p)
	}
}

// parseCgroupLimit parses a memory.max or memory.limit_in_bytes file: a byte count, "max" (no
// limit, 0), or v1's "no limit" of about 2^63 (0 too).
func parseCgroupLimit(b []byte) (int64, error) {
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		if len(s) > 32 {
			s = s[:32] + "…"
		}
		return 0, fmt.Errorf("%q is not a byte count or \"max\"", s)
	}
	if v == 0 {
		return 0, errors.New("limit of 0 bytes")
	}
	if v >= 1<<62 {
		return 0, nil
	}
	return int64(v), nil
}

// parseMemTotal returns the MemTotal line of /proc/meminfo in kB ("MemTotal:  24576000 kB").
func parseMemTotal(b []byte) (kb int64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			v, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || v <= 0 {
				return 0, false
			}
			if len(f) >= 3 && string(f[2]) != "kB" {
				return 0, false
			}
			return v, true
		}
	}
	return 0, false
}

// ShapeBytes returns the host memory, in bytes, of a compiled shape's arrays: its three
// matrices, its coefficient table and its densities (one bit a variable each).
func ShapeBytes(shape *synth.Shape) int64 { return int64(shape.Bytes()) }

// Sizes of the points in memory (gnark-crypto affine, Montgomery form): 96 and 192 bytes.
const (
	g1Bytes = int64(unsafe.Sizeof(bls12381.G1Affine{}))
	g2Bytes = int64(unsafe.Sizeof(bls12381.G2Affine{}))
)

// ParametersBytes returns the heap, in bytes, that p's points take: 96·|IC| for the verifying
// key, plus p.HeapBytes() — 96·(|H| + |L| + |A| + |B_G1|) + 192·|B_G2| for decoded parameters,
// 0 for parameters mapped from a file (prover.MappedParameters.Parameters: the points are page
// cache, streamed to the GPU) until a CPU proof, a fallback's for instance, has decoded them.
func ParametersBytes(p *prover.Parameters) int64 {
	return int64(len(p.VK.IC))*g1Bytes + p.HeapBytes()
}

// ParametersBytesFor returns what ParametersBytes will be for parameters of shape, before they
// exist: |IC| = inputs, |H| = m − 1, |L| = aux, |A| = inputs + |a_aux|, |B| = |b_input| + |b_aux|.
func ParametersBytesFor(shape *synth.Shape) int64 {
	b := int64(shape.BDensityInput.Count() + shape.BDensityAux.Count())
	g1 := int64(shape.NumInputs) + int64(max(shape.DomainSize(), 2)-1) + int64(shape.NumAux) +
		int64(shape.NumInputs+shape.ADensityAux.Count()) + b
	return g1*g1Bytes + b*g2Bytes
}
