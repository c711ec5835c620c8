package prover

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"golang.org/x/sync/semaphore"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

var defaultCPU = NewCPUDevice()

// CPU returns the shared CPU device.
func CPU() Device { return defaultCPU }

// NewCPUDevice returns a CPU device with a lock of its own. Its device work (NTTs and MSMs with
// gnark-crypto) runs on all cores; the lock keeps two workers from running it at once, as on a
// GPU. Its workspace is host memory: 32 bytes per element of the domain's three vectors, w and
// the compacted A and B scalars.
func NewCPUDevice() Device { return NewDevice(&cpuPrimitives{lock: semaphore.NewWeighted(1)}) }

// cpuPrimitives implements primitive.Device on the host's cores.
type cpuPrimitives struct {
	lock *semaphore.Weighted
}

func (d *cpuPrimitives) Name() string { return fmt.Sprintf("cpu (%d cores)", runtime.GOMAXPROCS(0)) }

func (d *cpuPrimitives) Lock(ctx context.Context) error { return d.lock.Acquire(ctx, 1) }

func (d *cpuPrimitives) Unlock() { d.lock.Release(1) }

func (d *cpuPrimitives) HostBytes(dims primitive.Dims) int64 {
	return int64(dims.Elements()) * fr.Bytes
}

func (d *cpuPrimitives) Workspace(ctx context.Context, dims primitive.Dims) (primitive.Workspace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ws := &cpuWorkspace{}
	for b, n := range dims.Lens() {
		ws.bufs[b] = make([]fr.Element, n)
	}
	return ws, nil
}

// Resident returns srs itself: the CPU's MSMs read the host's points. An SRS streamed from a
// Source is decoded onto the heap first (see hostPoints).
func (d *cpuPrimitives) Resident(ctx context.Context, srs *primitive.SRS) (primitive.Bases, error) {
	if srs.Source == nil {
		return cpuBases{srs}, nil
	}
	host, err := hostPoints(srs)
	if err != nil {
		return nil, err
	}
	return cpuBases{host}, nil
}

type cpuBases struct{ srs *primitive.SRS }

func (cpuBases) Close() error { return nil }

// cpuWorkspace holds a partition's vectors in host memory, indexed by primitive.Buf.
type cpuWorkspace struct {
	bufs [primitive.BufScalarsB + 1][]fr.Element
}

func (w *cpuWorkspace) buf(b primitive.Buf, off, n int) ([]fr.Element, error) {
	if b < 0 || int(b) >= len(w.bufs) {
		return nil, fmt.Errorf("no buffer %d", b)
	}
	v := w.bufs[b]
	if off < 0 || n < 0 || off > len(v) || n > len(v)-off {
		return nil, fmt.Errorf("[%d, %d) of buffer %d of %d scalars: out of range", off, off+n, b, len(v))
	}
	return v[off : off+n], nil
}

func (w *cpuWorkspace) Upload(ctx context.Context, dst primitive.Buf, src []fr.Element) error {
	v, err := w.buf(dst, 0, len(src))
	if err != nil {
		return err
	}
	copy(v, src)
	clear(w.bufs[dst][len(src):])
	return nil
}

func (w *cpuWorkspace) Compact(ctx context.Context, dst primitive.Buf, off int, src primitive.Buf, srcOff, n int, mask []uint64) (int, error) {
	s, err := w.buf(src, srcOff, n)
	if err != nil {
		return 0, err
	}
	if len(mask) < (n+63)/64 {
		return 0, fmt.Errorf("mask of %d words covers fewer than %d scalars", len(mask), n)
	}
	d, err := w.buf(dst, off, 0)
	if err != nil {
		return 0, err
	}
	d = w.bufs[dst][off:]
	k := 0
	for i := range s {
		if mask[i/64]>>(i%64)&1 == 1 {
			if k == len(d) {
				return 0, fmt.Errorf("compact into buffer %d: more than %d marked scalars", dst, len(d))
			}
			d[k] = s[i]
			k++
		}
	}
	return k, nil
}

// cpuMaxLogN bounds the CPU workspace's transforms and quotient, 2^logN elements: far past any
// memory, it only keeps 1<<logN from overflowing.
const cpuMaxLogN = 40

// NTT maps the transform onto gnark-crypto's: DIF takes natural order to bit-reversed, DIT
// bit-reversed to natural; natural → natural and bit-reversed → bit-reversed add a BitReverse.
// Every transform of a size shares one cached domain (its tables take 128 bytes an element), so
// a coset shift g other than the domain's (7) is applied here rather than by a second domain:
// v_j·g^j before a forward transform, v_j·g^(−j) after an inverse one (which includes n⁻¹).
func (w *cpuWorkspace) NTT(ctx context.Context, b primitive.Buf, logN int, cfg primitive.NTT) error {
	if logN < 1 || logN > cpuMaxLogN {
		return fmt.Errorf("ntt of 2^%d: bad size", logN)
	}
	v, err := w.buf(b, 0, 1<<logN)
	if err != nil {
		return err
	}
	domain := fft.NewDomain(uint64(len(v)), fft.WithCache())
	ownShift := cfg.Coset && !cfg.Shift.IsZero() && !cfg.Shift.Equal(&domain.FrMultiplicativeGen)
	var opts []fft.Option
	if cfg.Coset && !ownShift {
		opts = append(opts, fft.OnCoset())
	}
	if ownShift && !cfg.Inverse {
		scaleByPowers(v, cfg.Shift, cfg.InputBitReversed)
	}
	run := func(dd fft.Decimation) {
		if cfg.Inverse {
			domain.FFTInverse(v, dd, opts...)
		} else {
			domain.FFT(v, dd, opts...)
		}
	}
	switch {
	case !cfg.InputBitReversed && cfg.OutputBitReversed:
		run(fft.DIF)
	case cfg.InputBitReversed && !cfg.OutputBitReversed:
		run(fft.DIT)
	case !cfg.InputBitReversed:
		run(fft.DIF)
		fft.BitReverse(v)
	default:
		run(fft.DIT)
		fft.BitReverse(v)
	}
	if ownShift && cfg.Inverse {
		var gInv fr.Element
		gInv.Inverse(&cfg.Shift)
		scaleByPowers(v, gInv, cfg.OutputBitReversed)
	}
	return nil
}

// scaleByPowers sets the element of natural index j to itself times g^j, on all cores; v is in
// natural order, or with bitReversed in bit-reversed order (len(v) a power of two). In natural
// order each goroutine runs a product from g^start; in bit-reversed order g^j is
// lo[j mod 2^h]·hi[j >> h] from two tables of about √len(v) powers.
func scaleByPowers(v []fr.Element, g fr.Element, bitReversed bool) {
	n := len(v)
	logN := bits.TrailingZeros(uint(n))
	h := logN / 2
	var lo, hi []fr.Element
	if bitReversed {
		lo, hi = make([]fr.Element, 1<<h), make([]fr.Element, 1<<(logN-h))
		fft.BuildExpTable(g, lo)
		var step fr.Element
		step.Exp(g, big.NewInt(1<<h))
		fft.BuildExpTable(step, hi)
	}
	parts := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	var wg sync.WaitGroup
	for p := range parts {
		start, end := p*n/parts, (p+1)*n/parts
		wg.Go(func() {
			if bitReversed {
				for i := start; i < end; i++ {
					j := bits.Reverse64(uint64(i)) >> (64 - logN)
					var x fr.Element
					x.Mul(&lo[j&(1<<h-1)], &hi[j>>h])
					v[i].Mul(&v[i], &x)
				}
				return
			}
			var x fr.Element
			x.Exp(g, big.NewInt(int64(start)))
			for i := start; i < end; i++ {
				v[i].Mul(&v[i], &x)
				x.Mul(&x, &g)
			}
		})
	}
	wg.Wait()
}

func (w *cpuWorkspace) Mul(ctx context.Context, a, b primitive.Buf, n int) error {
	if a == b {
		return errors.New("mul: a and b must be distinct buffers")
	}
	va, err := w.buf(a, 0, n)
	if err != nil {
		return err
	}
	vb, err := w.buf(b, 0, n)
	if err != nil {
		return err
	}
	for i := range va {
		va[i].Mul(&va[i], &vb[i])
	}
	return nil
}

func (w *cpuWorkspace) Quotient(ctx context.Context, a, c primitive.Buf, logN int, zInv fr.Element) error {
	if logN < 1 || logN > cpuMaxLogN {
		return fmt.Errorf("quotient over 2^%d: bad size", logN)
	}
	if a == c {
		return errors.New("quotient: a and c must be distinct buffers")
	}
	va, err := w.buf(a, 0, 1<<logN)
	if err != nil {
		return err
	}
	vc, err := w.buf(c, 0, 1<<logN)
	if err != nil {
		return err
	}
	for i := range va {
		va[i].Sub(&va[i], &vc[i]).Mul(&va[i], &zInv)
	}
	fft.BitReverse(va)
	return nil
}

func (w *cpuWorkspace) MSMG1(ctx context.Context, bases primitive.Bases, sec primitive.Section, s primitive.Buf, off, n int) (bls12381.G1Jac, error) {
	var out bls12381.G1Jac
	cb, ok := bases.(cpuBases)
	if !ok {
		return out, fmt.Errorf("%s msm: bases of another device", sec)
	}
	var pts []bls12381.G1Affine
	switch sec {
	case primitive.SectionH:
		pts = cb.srs.H
	case primitive.SectionL:
		pts = cb.srs.L
	case primitive.SectionA:
		pts = cb.srs.A
	case primitive.SectionBG1:
		pts = cb.srs.BG1
	default:
		return out, fmt.Errorf("%s msm: not a G1 section", sec)
	}
	sc, err := w.buf(s, off, n)
	if err != nil {
		return out, err
	}
	if n < 1 || n > len(pts) {
		return out, fmt.Errorf("%s msm: %d scalars for %d points", sec, n, len(pts))
	}
	_, err = out.MultiExp(pts[:n], sc, ecc.MultiExpConfig{})
	return out, err
}

func (w *cpuWorkspace) MSMG2(ctx context.Context, bases primitive.Bases, s primitive.Buf, off, n int) (bls12381.G2Jac, error) {
	var out bls12381.G2Jac
	cb, ok := bases.(cpuBases)
	if !ok {
		return out, errors.New("b_g2 msm: bases of another device")
	}
	sc, err := w.buf(s, off, n)
	if err != nil {
		return out, err
	}
	if n < 1 || n > len(cb.srs.BG2) {
		return out, fmt.Errorf("b_g2 msm: %d scalars for %d points", n, len(cb.srs.BG2))
	}
	_, err = out.MultiExp(cb.srs.BG2[:n], sc, ecc.MultiExpConfig{})
	return out, err
}

func (w *cpuWorkspace) Release() { w.bufs = [len(w.bufs)][]fr.Element{} }
