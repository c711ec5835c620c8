package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// bases is the shared part of G1Bases and G2Bases: a resident point array.
type bases struct {
	dev   *Device
	group int
	n     int
	mu    sync.RWMutex
	h     uintptr

	shifted bool // G1: a shift table is resident beside the points (G1Bases.AddShiftTable)
	paired  bool // a pair table is resident beside the points (addPairTable)
}

// setTable builds (want) or frees a table kept beside the points (name: "shift table", "pair
// table"), whose presence *has records, with the backend's call; a table already so is left.
func (b *bases) setTable(has *bool, want bool, name string, call func(dev int, h uintptr) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.h == 0 {
		return ErrClosed
	}
	if *has == want {
		return nil
	}
	if err := call(b.dev.index, b.h); err != nil {
		if want {
			return fmt.Errorf("gpu: %s for %d G%d bases: %w", name, b.n, b.group, err)
		}
		return fmt.Errorf("gpu: free the %s of %d G%d bases: %w", name, b.n, b.group, err)
	}
	*has = want
	return nil
}

// addPairTable keeps a pair table beside the points, S[k] = P[2k] + P[2k+1] (G1Bases.AddPairTable).
func (b *bases) addPairTable() error {
	if b.n < 2 {
		return fmt.Errorf("gpu: pair table for %d G%d base: it needs two or more", b.n, b.group)
	}
	return b.setTable(&b.paired, true, "pair table", b.dev.lib.b.basesPair)
}

// dropPairTable frees the pair table, if any, once no MSM over the bases runs.
func (b *bases) dropPairTable() error {
	return b.setTable(&b.paired, false, "pair table", b.dev.lib.b.basesUnpair)
}

func (b *bases) hasPairTable() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.paired
}

func (d *Device) uploadBases(group int, pts unsafe.Pointer, n int) (*bases, error) {
	if n < 1 {
		return nil, fmt.Errorf("gpu: upload G%d bases: no points", group)
	}
	h, err := d.lib.b.basesUpload(d.index, group, pts, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("gpu: upload %d G%d bases: %w", n, group, err)
	}
	return &bases{dev: d, group: group, n: n, h: h}, nil
}

// allocBases allocates n points of group on the device, contents undefined until written.
func (d *Device) allocBases(group, n int) (*bases, error) {
	if n < 1 {
		return nil, fmt.Errorf("gpu: allocate G%d bases: no points", group)
	}
	h, err := d.lib.b.basesAlloc(d.index, group, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("gpu: allocate %d G%d bases: %w", n, group, err)
	}
	return &bases{dev: d, group: group, n: n, h: h}, nil
}

// write copies the n points at pts (gnark-crypto affine points of b's group, host memory) to
// b[off : off+n], through the pinned staging, and returns once they have landed.
func (b *bases) write(off int, pts unsafe.Pointer, n int) error {
	if off < 0 || n < 0 || off > b.n-n {
		return fmt.Errorf("gpu: write G%d bases [%d, %d) of %d", b.group, off, off+n, b.n)
	}
	if n == 0 {
		return nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.h == 0 {
		return ErrClosed
	}
	if err := b.dev.lib.b.basesWrite(b.dev.index, b.h, uint64(off), pts, uint64(n)); err != nil {
		return fmt.Errorf("gpu: write G%d bases [%d, %d): %w", b.group, off, off+n, err)
	}
	return nil
}

// writeEncoded copies the n points whose zcash uncompressed encodings are enc (96 bytes per G1
// point, 192 per G2 point, host memory) to b[off : off+n] and decodes them there, checking them as
// an unchecked host decode does (csrc/src/decode.cuh). It returns reason 0 when every point
// decoded, else the device's reason code (cuzk_bases_write_encoded) and bad, the index among the n
// points of the lowest one that failed; b[off : off+n] are then undefined.
func (b *bases) writeEncoded(off int, enc []byte, n int) (bad int, reason uint32, err error) {
	size := 96 * b.group
	if off < 0 || n < 0 || off > b.n-n || len(enc) != n*size {
		return 0, 0, fmt.Errorf("gpu: write %d encoded bytes to G%d bases [%d, %d) of %d", len(enc), b.group, off, off+n, b.n)
	}
	if n == 0 {
		return 0, 0, nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.h == 0 {
		return 0, 0, ErrClosed
	}
	i, reason, err := b.dev.lib.b.basesWriteEncoded(b.dev.index, b.h, uint64(off), unsafe.Pointer(&enc[0]), uint64(n))
	if err != nil {
		return 0, 0, fmt.Errorf("gpu: write encoded G%d bases [%d, %d): %w", b.group, off, off+n, err)
	}
	return int(i), reason, nil
}

func (b *bases) msmHost(ctx context.Context, scalars []fr.Element, out unsafe.Pointer) error {
	if len(scalars) < 1 || len(scalars) > b.n {
		return fmt.Errorf("gpu: G%d msm: %d scalars for %d bases (want 1..%d)", b.group, len(scalars), b.n, b.n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.h == 0 {
		return ErrClosed
	}
	if err := b.dev.lib.b.msmHost(b.dev.index, b.h, unsafe.Pointer(&scalars[0]), uint64(len(scalars)), out); err != nil {
		return fmt.Errorf("gpu: G%d msm of %d: %w", b.group, len(scalars), err)
	}
	return nil
}

func (b *bases) msmDevice(ctx context.Context, s *Scalars, off, n int, out unsafe.Pointer) error {
	if n < 1 || n > b.n {
		return fmt.Errorf("gpu: G%d msm: %d scalars for %d bases (want 1..%d)", b.group, n, b.n, b.n)
	}
	if err := s.checkRange("msm", off, n); err != nil {
		return err
	}
	if s.dev != b.dev {
		return fmt.Errorf("gpu: G%d msm: scalars on device %d, bases on device %d", b.group, s.dev.index, b.dev.index)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	s.mu.RLock()
	defer s.mu.RUnlock()
	if b.h == 0 || s.h == 0 {
		return ErrClosed
	}
	if err := b.dev.lib.b.msmDevice(b.dev.index, b.h, s.h, uint64(off), uint64(n), out); err != nil {
		return fmt.Errorf("gpu: G%d msm of %d: %w", b.group, n, err)
	}
	return nil
}

func (b *bases) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.h == 0 {
		return nil
	}
	err := b.dev.lib.b.basesFree(b.dev.index, b.h)
	b.h = 0
	if err != nil {
		return fmt.Errorf("gpu: free G%d bases: %w", b.group, err)
	}
	return nil
}

// G1Bases is an array of G1 affine points resident in device memory, the
// fixed bases of MSMs. Close frees it.
type G1Bases struct{ b *bases }

// UploadG1Bases copies pts to the device (infinity = (0, 0) allowed).
func (d *Device) UploadG1Bases(pts []bls12381.G1Affine) (*G1Bases, error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("gpu: upload G1 bases: no points")
	}
	b, err := d.uploadBases(1, unsafe.Pointer(&pts[0]), len(pts))
	if err != nil {
		return nil, err
	}
	return &G1Bases{b}, nil
}

// Len returns the number of points.
func (g *G1Bases) Len() int { return g.b.n }

// MSM returns Σ scalars[i]·P[i] over i < len(scalars) (≤ Len()); scalars
// are copied from host memory.
func (g *G1Bases) MSM(ctx context.Context, scalars []fr.Element) (bls12381.G1Jac, error) {
	var out bls12381.G1Jac
	err := g.b.msmHost(ctx, scalars, unsafe.Pointer(&out))
	return out, err
}

// MSMDevice returns Σ s[off+i]·P[i] over i < n with scalars in device memory.
func (g *G1Bases) MSMDevice(ctx context.Context, s *Scalars, off, n int) (bls12381.G1Jac, error) {
	var out bls12381.G1Jac
	err := g.b.msmDevice(ctx, s, off, n, unsafe.Pointer(&out))
	return out, err
}

// Close frees the device memory; later calls return ErrClosed.
func (g *G1Bases) Close() error { return g.b.close() }

// shared returns g's shared part, or nil for a nil g (an empty section).
func (g *G1Bases) shared() *bases {
	if g == nil {
		return nil
	}
	return g.b
}

// MaxShiftedBases is the most points G1Bases.AddShiftTable accepts.
const MaxShiftedBases = 1 << 30

// AddShiftTable keeps a second table beside the points, Q[i] = 2^128·P[i], which every later
// MSM over g uses: it cuts each scalar s = s_lo + 2^128·s_hi in two and sums s_lo·P[i] and
// s_hi·Q[i] in ⌈129/c⌉ windows instead of ⌈256/c⌉, about 12 point additions a random scalar
// instead of 13 at 2^27 (docs/gpu-kernels.md). The table takes as much device memory as the
// points (96 bytes a point) and 128 doublings a point to build, seconds for 2^27 points. Call it
// once every point is written; at most MaxShiftedBases points. On failure g stays as it was; a
// second call does nothing.
func (g *G1Bases) AddShiftTable() error {
	b := g.b
	if b.n > MaxShiftedBases {
		return fmt.Errorf("gpu: shift table for %d G1 bases: at most %d", b.n, MaxShiftedBases)
	}
	return b.setTable(&b.shifted, true, "shift table", b.dev.lib.b.basesShift)
}

// DropShiftTable frees g's shift table, if any, once no MSM over g runs: later MSMs sum whole
// scalars again, and the points may be written again.
func (g *G1Bases) DropShiftTable() error {
	return g.b.setTable(&g.b.shifted, false, "shift table", g.b.dev.lib.b.basesUnshift)
}

// Shifted reports whether g has a shift table (AddShiftTable).
func (g *G1Bases) Shifted() bool {
	g.b.mu.RLock()
	defer g.b.mu.RUnlock()
	return g.b.shifted
}

// AddPairTable keeps a pair table beside the points, S[k] = P[2k] + P[2k+1] for k < Len()/2,
// which every later MSM over g uses (but for scalars in bit-reversed order, MSMJob.BitRev): where
// scalars 2k and 2k+1 are both 1 it adds S[k] once instead of the two points. For scalars that
// are bits, 1 with probability ρ, that is 1 − (1 − ρ)² additions a pair instead of 2ρ: a quarter
// fewer at ρ ≈ 1/2, the share counted in the PoRep-shaped circuit's A, B and L scalars
// (docs/gpu-kernels.md). The table takes half as much device memory as the points (48 bytes a
// G1 point) and one addition a pair to build. Call it once every point is written; the points
// are not written again while it is kept. On failure g stays as it was; a second call does
// nothing.
func (g *G1Bases) AddPairTable() error { return g.b.addPairTable() }

// DropPairTable frees g's pair table, if any, once no MSM over g runs.
func (g *G1Bases) DropPairTable() error { return g.b.dropPairTable() }

// Paired reports whether g has a pair table (AddPairTable).
func (g *G1Bases) Paired() bool { return g.b.hasPairTable() }

// G2Bases is an array of G2 affine points resident in device memory.
type G2Bases struct{ b *bases }

// UploadG2Bases copies pts to the device (infinity = (0, 0) allowed).
func (d *Device) UploadG2Bases(pts []bls12381.G2Affine) (*G2Bases, error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("gpu: upload G2 bases: no points")
	}
	b, err := d.uploadBases(2, unsafe.Pointer(&pts[0]), len(pts))
	if err != nil {
		return nil, err
	}
	return &G2Bases{b}, nil
}

// Len returns the number of points.
func (g *G2Bases) Len() int { return g.b.n }

// MSM returns Σ scalars[i]·Q[i] over i < len(scalars) (≤ Len()).
func (g *G2Bases) MSM(ctx context.Context, scalars []fr.Element) (bls12381.G2Jac, error) {
	var out bls12381.G2Jac
	err := g.b.msmHost(ctx, scalars, unsafe.Pointer(&out))
	return out, err
}

// MSMDevice returns Σ s[off+i]·Q[i] over i < n with scalars in device memory.
func (g *G2Bases) MSMDevice(ctx context.Context, s *Scalars, off, n int) (bls12381.G2Jac, error) {
	var out bls12381.G2Jac
	err := g.b.msmDevice(ctx, s, off, n, unsafe.Pointer(&out))
	return out, err
}

// Close frees the device memory; later calls return ErrClosed.
func (g *G2Bases) Close() error { return g.b.close() }

// shared returns g's shared part, or nil for a nil g (an empty section).
func (g *G2Bases) shared() *bases {
	if g == nil {
		return nil
	}
	return g.b
}

// AddPairTable keeps a pair table beside the points, S[k] = P[2k] + P[2k+1], as
// G1Bases.AddPairTable does (96 bytes a G2 point).
func (g *G2Bases) AddPairTable() error { return g.b.addPairTable() }

// DropPairTable frees g's pair table, if any, once no MSM over g runs.
func (g *G2Bases) DropPairTable() error { return g.b.dropPairTable() }

// Paired reports whether g has a pair table (AddPairTable).
func (g *G2Bases) Paired() bool { return g.b.hasPairTable() }

// MSMJob is one MSM of Device.MSMs: Σ Scalars[Off+i]·P_i over i < N, with P the G1 or the G2
// bases (exactly one of the two set), or with BitRev = b ≥ 1 Σ Scalars[Off+i]·P_rev(i), rev the
// reversal of b bits, for N = 2^b or 2^b − 1 (rev then maps [0, N) onto itself). With Plain
// the scalars are plain integers below r rather than fr.Elements (Montgomery form). The
// coefficients of h as Scalars.Groth16H leaves them are read with BitRev = logN and Plain, and
// the values â·b̂ it leaves for folded parameters with Plain alone.
type MSMJob struct {
	G1      *G1Bases
	G2      *G2Bases
	Scalars *Scalars
	Off, N  int
	BitRev  int
	Plain   bool
}

// MSMResult is one job's result (in G1 or G2, as its bases) and the device time it took.
type MSMResult struct {
	G1   bls12381.G1Jac
	G2   bls12381.G2Jac
	Time time.Duration
}

// jacWords are the 64-bit words of a Jacobian point: X, Y, Z of 6 (G1) or 12 (G2) words.
var jacWords = [3]int{1: 18, 2: 36}

// MSMs runs jobs one after the other in one device call and returns their results in job order.
// Nothing returns to the host between two jobs, so a goroutine resumed late by the Go scheduler
// leaves no gap on the device. Every job is checked before the first runs, and the error names
// the job.
func (d *Device) MSMs(ctx context.Context, jobs []MSMJob) ([]MSMResult, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	k := len(jobs)
	hb, hs := make([]uintptr, k), make([]uintptr, k)
	off, n, ns := make([]uint64, k), make([]uint64, k), make([]uint64, k)
	rev, plain := make([]uint32, k), make([]uint32, k)
	jb := make([]*bases, k)
	var bs []*bases
	var ss []*Scalars
	words := 0
	for i, j := range jobs {
		b, err := j.bases()
		jb[i] = b
		if err == nil && j.Scalars == nil {
			err = errors.New("no scalars")
		}
		if err == nil && (j.N < 1 || j.N > b.n) {
			err = fmt.Errorf("%d scalars for %d bases (want 1..%d)", j.N, b.n, b.n)
		}
		if err == nil {
			err = j.Scalars.checkRange("msm", j.Off, j.N)
		}
		if err == nil && j.BitRev != 0 && (j.BitRev < 1 || j.BitRev > 30 || (j.N != 1<<j.BitRev && j.N != 1<<j.BitRev-1)) {
			err = fmt.Errorf("%d scalars in the order of %d bits reversed (want 2^b or 2^b − 1 scalars, 1 ≤ b ≤ 30)", j.N, j.BitRev)
		}
		if err == nil && (b.dev != d || j.Scalars.dev != d) {
			err = fmt.Errorf("bases or scalars on another device than %d", d.index)
		}
		if err != nil {
			return nil, fmt.Errorf("gpu: msm batch: job %d: %w", i, err)
		}
		if !slices.Contains(bs, b) {
			bs = append(bs, b)
		}
		if !slices.Contains(ss, j.Scalars) {
			ss = append(ss, j.Scalars)
		}
		off[i], n[i], rev[i] = uint64(j.Off), uint64(j.N), uint32(j.BitRev)
		if j.Plain {
			plain[i] = 1
		}
		words += jacWords[b.group]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, b := range bs {
		b.mu.RLock()
		defer b.mu.RUnlock()
	}
	unlock, err := rlockOpen(ss...)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for i, j := range jobs {
		if jb[i].h == 0 {
			return nil, ErrClosed
		}
		hb[i], hs[i] = jb[i].h, j.Scalars.h
	}
	out := make([]uint64, words)
	if err := d.lib.b.msmBatch(d.index, hb, hs, off, n, rev, plain, ns, unsafe.Pointer(&out[0])); err != nil {
		return nil, fmt.Errorf("gpu: msm batch of %d: %w", k, err)
	}
	res := make([]MSMResult, k)
	w := 0
	for i, b := range jb {
		if b.group == 1 {
			res[i].G1 = *(*bls12381.G1Jac)(unsafe.Pointer(&out[w]))
		} else {
			res[i].G2 = *(*bls12381.G2Jac)(unsafe.Pointer(&out[w]))
		}
		w += jacWords[b.group]
		res[i].Time = time.Duration(ns[i])
	}
	return res, nil
}

// bases returns the job's bases, G1 or G2.
func (j MSMJob) bases() (*bases, error) {
	switch {
	case (j.G1 == nil) == (j.G2 == nil):
		return nil, errors.New("want exactly one of G1 and G2 bases")
	case j.G1 != nil:
		return j.G1.b, nil
	default:
		return j.G2.b, nil
	}
}
