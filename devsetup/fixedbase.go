package devsetup

import (
	"context"
	"fmt"
	"runtime"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/internal/parallel"
)

// fixedBaseWindow is the window width c, in bits, of the fixed-base tables: a scalar of 255 bits
// costs ⌈255/c⌉ mixed additions, and the table holds ⌈255/c⌉·(2^c − 1) affine points.
const fixedBaseWindow = 10

const fixedBaseWindows = (fr.Bits + fixedBaseWindow - 1) / fixedBaseWindow

// windowDigit returns digit w (c bits) of the canonical scalar limbs k.
func windowDigit(k *[4]uint64, w int) uint64 {
	bit := w * fixedBaseWindow
	limb, off := bit/64, uint(bit%64)
	d := k[limb] >> off
	if off+fixedBaseWindow > 64 && limb+1 < 4 {
		d |= k[limb+1] << (64 - off)
	}
	return d & (1<<fixedBaseWindow - 1)
}

// parallelChunks calls f on consecutive chunks of [0, n) from all cores: about four chunks a
// core, of at least 64.
func parallelChunks(n int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	_ = parallel.Chunks(context.Background(), n, max(64, (n+workers*4-1)/(workers*4)), f)
}

// fixedBaseG1 computes k·G for a fixed G by windows: table[w][d−1] = d·2^(c·w)·G.
type fixedBaseG1 struct {
	table [fixedBaseWindows][]bls12381.G1Affine
}

func newFixedBaseG1(g *bls12381.G1Affine) *fixedBaseG1 {
	t := &fixedBaseG1{}
	var base bls12381.G1Jac
	base.FromAffine(g)
	parallelChunks(fixedBaseWindows, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			var b bls12381.G1Jac
			b.Set(&base)
			for i := 0; i < w*fixedBaseWindow; i++ {
				b.DoubleAssign()
			}
			jac := make([]bls12381.G1Jac, 1<<fixedBaseWindow-1)
			jac[0] = b
			for d := 1; d < len(jac); d++ {
				jac[d].Set(&jac[d-1]).AddAssign(&b)
			}
			t.table[w] = bls12381.BatchJacobianToAffineG1(jac)
		}
	})
	return t
}

// mul returns k_i·G for every scalar, on all cores, counting the points done on tr.
func (t *fixedBaseG1) mul(scalars []fr.Element, tr *tracker) []bls12381.G1Affine {
	out := make([]bls12381.G1Affine, len(scalars))
	parallelChunks(len(scalars), func(lo, hi int) {
		jac := make([]bls12381.G1Jac, hi-lo)
		for i := lo; i < hi; i++ {
			if (i-lo)%progressStep == progressStep-1 {
				tr.add(progressStep)
			}
			k := scalars[i].Bits()
			acc := &jac[i-lo]
			acc.X.SetOne()
			acc.Y.SetOne()
			for w := 0; w < fixedBaseWindows; w++ {
				if d := windowDigit(&k, w); d != 0 {
					acc.AddMixed(&t.table[w][d-1])
				}
			}
		}
		copy(out[lo:hi], bls12381.BatchJacobianToAffineG1(jac))
		tr.add((hi - lo) % progressStep)
	})
	return out
}

// fixedBaseG2 is fixedBaseG1 on G2.
type fixedBaseG2 struct {
	table [fixedBaseWindows][]bls12381.G2Affine
}

func newFixedBaseG2(g *bls12381.G2Affine) *fixedBaseG2 {
	t := &fixedBaseG2{}
	var base bls12381.G2Jac
	base.FromAffine(g)
	parallelChunks(fixedBaseWindows, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			var b bls12381.G2Jac
			b.Set(&base)
			for i := 0; i < w*fixedBaseWindow; i++ {
				b.DoubleAssign()
			}
			t.table[w] = make([]bls12381.G2Affine, 1<<fixedBaseWindow-1)
			var acc bls12381.G2Jac
			acc.Set(&b)
			for d := range t.table[w] {
				t.table[w][d].FromJacobian(&acc)
				acc.AddAssign(&b)
			}
		}
	})
	return t
}

func (t *fixedBaseG2) mul(scalars []fr.Element, tr *tracker) []bls12381.G2Affine {
	out := make([]bls12381.G2Affine, len(scalars))
	parallelChunks(len(scalars), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if (i-lo)%progressStep == progressStep-1 {
				tr.add(progressStep)
			}
			k := scalars[i].Bits()
			var acc bls12381.G2Jac
			acc.X.SetOne()
			acc.Y.SetOne()
			for w := 0; w < fixedBaseWindows; w++ {
				if d := windowDigit(&k, w); d != 0 {
					acc.AddMixed(&t.table[w][d-1])
				}
			}
			out[i].FromJacobian(&acc)
		}
		tr.add((hi - lo) % progressStep)
	})
	return out
}

// FixedBase computes many multiples of the generators G1 and G2 of gnark-crypto
// (bls12381.Generators): MulG1 returns scalars[i]·G1 and MulG2 scalars[i]·G2, in affine form,
// one point per scalar, exactly as G1Affine/G2Affine.ScalarMultiplication would. gpu.Device
// implements it, running the multiplications on a CUDA device.
type FixedBase interface {
	MulG1(ctx context.Context, scalars []fr.Element) ([]bls12381.G1Affine, error)
	MulG2(ctx context.Context, scalars []fr.Element) ([]bls12381.G2Affine, error)
}

// WithFixedBase makes InsecureSetup compute the points of IC, L, A, B_G1, B_G2 and H with fb
// instead of the CPU tables (nil: the CPU tables). The parameters are the same either way.
func WithFixedBase(fb FixedBase) Option { return func(o *options) { o.fixedBase = fb } }

// pointMaker computes the points of one setup's sections: with o.fixedBase when set, else with
// CPU tables built on first use and kept for the setup's other sections.
type pointMaker struct {
	o      *options
	g1     bls12381.G1Affine
	g2     bls12381.G2Affine
	table1 *fixedBaseG1
	table2 *fixedBaseG2
	chunk  int // the most points made at once
}

// g1Section computes the n points scalars(lo, hi)[i]·G1 of the stage named stage, m.chunk
// at a time, and hands each chunk's points to put in order, reporting the stage's progress.
// scalars(lo, hi) returns the hi − lo scalars of points lo … hi−1.
func (m *pointMaker) g1Section(stage string, n int, scalars func(lo, hi int) []fr.Element, put func([]bls12381.G1Affine) error) error {
	onHost := func(sc []fr.Element, tr *tracker) []bls12381.G1Affine {
		if m.table1 == nil {
			m.table1 = newFixedBaseG1(&m.g1)
		}
		return m.table1.mul(sc, tr)
	}
	onDevice := func(sc []fr.Element) ([]bls12381.G1Affine, error) {
		return m.o.fixedBase.MulG1(context.Background(), sc)
	}
	return makeSection(m, stage, n, scalars, onHost, onDevice, put)
}

// g2Section is g1Section on G2.
func (m *pointMaker) g2Section(stage string, n int, scalars func(lo, hi int) []fr.Element, put func([]bls12381.G2Affine) error) error {
	onHost := func(sc []fr.Element, tr *tracker) []bls12381.G2Affine {
		if m.table2 == nil {
			m.table2 = newFixedBaseG2(&m.g2)
		}
		return m.table2.mul(sc, tr)
	}
	onDevice := func(sc []fr.Element) ([]bls12381.G2Affine, error) {
		return m.o.fixedBase.MulG2(context.Background(), sc)
	}
	return makeSection(m, stage, n, scalars, onHost, onDevice, put)
}

// makeSection is g1Section and g2Section over points of type P: onHost multiplies on the CPU
// (reporting its own progress), onDevice on m's FixedBase when there is one.
func makeSection[P any](m *pointMaker, stage string, n int, scalars func(lo, hi int) []fr.Element,
	onHost func([]fr.Element, *tracker) []P, onDevice func([]fr.Element) ([]P, error), put func([]P) error) error {
	tr := m.o.start(stage, n)
	for lo := 0; lo < n; lo += m.chunk {
		hi := min(lo+m.chunk, n)
		sc := scalars(lo, hi)
		var pts []P
		if m.o.fixedBase == nil {
			pts = onHost(sc, tr)
		} else {
			var err error
			pts, err = onDevice(sc)
			if err == nil && len(pts) != len(sc) {
				err = fmt.Errorf("%d points for %d scalars", len(pts), len(sc))
			}
			if err != nil {
				return fmt.Errorf("insecure setup: %s %d…%d: %w", stage, lo, hi, err)
			}
			tr.add(hi - lo)
		}
		if err := put(pts); err != nil {
			return err
		}
	}
	tr.finish()
	return nil
}
