package prover

import (
	"context"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// naiveNTT returns A_k = Σ_j a_j·(g^j)·ω^(jk) (forward) or n⁻¹·g^(−k)·Σ_j a_j·ω^(−jk) (inverse)
// in natural order: g is the coset shift, 1 for none.
func naiveNTT(a []fr.Element, inverse bool, g fr.Element) []fr.Element {
	n := len(a)
	w, err := fft.Generator(uint64(n))
	if err != nil {
		panic(err)
	}
	if inverse {
		w.Inverse(&w)
	}
	in := append([]fr.Element(nil), a...)
	if !inverse {
		var gj fr.Element
		gj.SetOne()
		for j := range in {
			in[j].Mul(&in[j], &gj)
			gj.Mul(&gj, &g)
		}
	}
	out := make([]fr.Element, n)
	for k := range out {
		var wk, wjk, t fr.Element
		wk.Exp(w, bigUint(uint64(k)))
		wjk.SetOne()
		for j := range in {
			t.Mul(&in[j], &wjk)
			out[k].Add(&out[k], &t)
			wjk.Mul(&wjk, &wk)
		}
	}
	if inverse {
		var nInv, gInv, gk fr.Element
		nInv.SetUint64(uint64(n)).Inverse(&nInv)
		gInv.Inverse(&g)
		gk.SetOne()
		for k := range out {
			out[k].Mul(&out[k], &nInv).Mul(&out[k], &gk)
			gk.Mul(&gk, &gInv)
		}
	}
	return out
}

func bitReversed(a []fr.Element) []fr.Element {
	b := append([]fr.Element(nil), a...)
	fft.BitReverse(b)
	return b
}

// TestScaleByPowers checks the parallel v_j·g^j against a sequential product, in natural and in
// bit-reversed order, for odd and even log sizes, split into one range or several.
func TestScaleByPowers(t *testing.T) {
	g := randScalars(8, 1)[0]
	for _, logN := range []int{1, 2, 5, 14, 15} {
		for _, rev := range []bool{false, true} {
			v := randScalars(uint64(logN), 1<<logN)
			want := append([]fr.Element(nil), v...)
			x := fr.NewElement(1)
			for j := range want {
				want[j].Mul(&want[j], &x)
				x.Mul(&x, &g)
			}
			if rev {
				fft.BitReverse(v)
				fft.BitReverse(want)
			}
			scaleByPowers(v, g, rev)
			require.Equal(t, want, v, "2^%d bit-reversed=%v", logN, rev)
		}
	}
}

// TestCPUNTTMatchesDefinition checks the CPU primitive's transform in all sixteen configurations
// against the definition in primitive.NTT, the cosets with the default shift (7) and with ω_{2n}.
func TestCPUNTTMatchesDefinition(t *testing.T) {
	ctx := context.Background()
	dev := &cpuPrimitives{}
	for _, logN := range []int{1, 3, 5} {
		n := 1 << logN
		a := make([]fr.Element, n)
		for i := range a {
			a[i].MustSetRandom()
		}
		psi, err := fft.Generator(uint64(2 * n))
		require.NoError(t, err)
		for cfgBits := range 24 {
			cfg := primitive.NTT{Inverse: cfgBits&1 != 0, Coset: cfgBits&2 != 0,
				InputBitReversed: cfgBits&4 != 0, OutputBitReversed: cfgBits&8 != 0}
			g := fr.NewElement(1)
			switch {
			case cfgBits >= 16 && !cfg.Coset:
				continue
			case cfgBits >= 16:
				cfg.Shift, g = psi, psi
			case cfg.Coset:
				g.SetUint64(7) // fft.OnCoset()'s default
			}
			want := naiveNTT(a, cfg.Inverse, g)
			if cfg.OutputBitReversed {
				want = bitReversed(want)
			}
			in := a
			if cfg.InputBitReversed {
				in = bitReversed(a)
			}
			ws, err := dev.Workspace(ctx, primitive.Dims{Domain: n})
			require.NoError(t, err)
			require.NoError(t, ws.Upload(ctx, primitive.BufB, in))
			require.NoError(t, ws.NTT(ctx, primitive.BufB, logN, cfg))
			require.Equal(t, want, ws.(*cpuWorkspace).bufs[primitive.BufB], "2^%d %+v", logN, cfg)
			ws.Release()
		}
	}
}

func TestCPUCompactQuotientAndMSM(t *testing.T) {
	ctx := context.Background()
	dev := &cpuPrimitives{}
	ws, err := dev.Workspace(ctx, primitive.Dims{Domain: 4, W: 70, B: 3})
	require.NoError(t, err)
	w := make([]fr.Element, 70)
	for i := range w {
		w[i].SetUint64(uint64(i + 1))
	}
	require.NoError(t, ws.Upload(ctx, primitive.BufW, w))
	mask := []uint64{1 << 2, 1<<3 | 1<<5}
	k, err := ws.Compact(ctx, primitive.BufScalarsB, 0, primitive.BufW, 0, 70, mask)
	require.NoError(t, err)
	require.Equal(t, 3, k)
	require.Equal(t, []fr.Element{w[2], w[67], w[69]}, ws.(*cpuWorkspace).bufs[primitive.BufScalarsB])

	a := []fr.Element{fr.NewElement(2), fr.NewElement(3)}
	b := []fr.Element{fr.NewElement(5), fr.NewElement(7)}
	c := []fr.Element{fr.NewElement(1), fr.NewElement(1)}
	for i, v := range [][]fr.Element{a, b, c} {
		require.NoError(t, ws.Upload(ctx, primitive.Buf(i), v))
	}
	require.NoError(t, ws.Mul(ctx, primitive.BufA, primitive.BufB, 4))
	require.Equal(t, []fr.Element{fr.NewElement(10), fr.NewElement(21), {}, {}}, ws.(*cpuWorkspace).bufs[primitive.BufA])
	z := fr.NewElement(3)
	require.NoError(t, ws.Quotient(ctx, primitive.BufA, primitive.BufC, 2, z))
	// (10 − 1)·3 and (21 − 1)·3 at positions 0 and 1, then positions 1 and 2 swapped.
	require.Equal(t, []fr.Element{fr.NewElement(27), {}, fr.NewElement(60), {}}, ws.(*cpuWorkspace).bufs[primitive.BufA])
	require.ErrorContains(t, ws.Quotient(ctx, primitive.BufA, primitive.BufA, 2, z), "distinct")
	require.ErrorContains(t, ws.Quotient(ctx, primitive.BufA, primitive.BufC, -1, z), "bad size")
	require.ErrorContains(t, ws.Quotient(ctx, primitive.BufA, primitive.BufC, 3, z), "out of range")

	_, _, g1, g2 := bls12381.Generators()
	srs := &primitive.SRS{BG1: []bls12381.G1Affine{g1, g1, g1}, BG2: []bls12381.G2Affine{g2, g2, g2}}
	bases, err := dev.Resident(ctx, srs)
	require.NoError(t, err)
	got1, err := ws.MSMG1(ctx, bases, primitive.SectionBG1, primitive.BufScalarsB, 0, 3)
	require.NoError(t, err)
	sum := fr.NewElement(3 + 68 + 70)
	var want1 bls12381.G1Jac
	want1.FromAffine(&g1)
	want1.ScalarMultiplication(&want1, bigOf(&sum))
	require.True(t, got1.Equal(&want1))
	got2, err := ws.MSMG2(ctx, bases, primitive.BufScalarsB, 0, 3)
	require.NoError(t, err)
	var want2 bls12381.G2Jac
	want2.FromAffine(&g2)
	want2.ScalarMultiplication(&want2, bigOf(&sum))
	require.True(t, got2.Equal(&want2))
	_, err = ws.MSMG1(ctx, bases, primitive.SectionH, primitive.BufScalarsB, 0, 3)
	require.ErrorContains(t, err, "3 scalars for 0 points")
	_, err = ws.Compact(ctx, primitive.BufScalarsB, 1, primitive.BufW, 0, 70, mask)
	require.ErrorContains(t, err, "more than 2 marked")
}

// TestQuotientMatchesDefinition checks the six-transform quotient against h computed from its
// definition by O(m²) transforms: each of a, b, c taken to the coset, (a·b − c)/(g^m − 1) there,
// and the inverse coset transform — on random a, b, c (no satisfied system behind them), on
// zeros, and with c = a·b on the domain, where h's last coefficient must vanish.
func TestQuotientMatchesDefinition(t *testing.T) {
	ctx := context.Background()
	dev := &cpuPrimitives{}
	for _, logM := range []int{1, 2, 3, 5, 8} {
		m := 1 << logM
		for _, kind := range []string{"random", "zero", "satisfied"} {
			a, b, c := randScalars(uint64(3*logM), m), randScalars(uint64(3*logM+1), m), randScalars(uint64(3*logM+2), m)
			switch kind {
			case "zero":
				clear(a)
				clear(b)
				clear(c)
			case "satisfied":
				for i := range c {
					c[i].Mul(&a[i], &b[i])
				}
			}
			g, err := fft.Generator(uint64(2 * m)) // quotientShift's coset
			require.NoError(t, err)
			one := fr.NewElement(1)
			onCoset := func(v []fr.Element) []fr.Element { return naiveNTT(naiveNTT(v, true, one), false, g) }
			ca, cb, cc := onCoset(a), onCoset(b), onCoset(c)
			var zInv fr.Element
			zInv.Exp(g, bigUint(uint64(m)))
			zInv.Sub(&zInv, new(fr.Element).SetOne())
			zInv.Inverse(&zInv)
			p := make([]fr.Element, m)
			for i := range p {
				p[i].Mul(&ca[i], &cb[i]).Sub(&p[i], &cc[i]).Mul(&p[i], &zInv)
			}
			want := naiveNTT(p, true, g)
			if kind == "satisfied" {
				require.True(t, want[m-1].IsZero(), "2^%d: deg h < m−1 when c = a·b", logM)
			}

			ws, err := dev.Workspace(ctx, primitive.Dims{Domain: m, W: 1, B: 1})
			require.NoError(t, err)
			for i, v := range [][]fr.Element{a, b, c} {
				require.NoError(t, ws.Upload(ctx, primitive.Buf(i), v))
			}
			task := &groth16Task{ws: ws, params: &Parameters{}, dims: primitive.Dims{Domain: m}}
			bitRev, own, err := task.quotient(ctx)
			require.NoError(t, err)
			require.Zero(t, bitRev, "the steps leave natural order")
			require.False(t, own)
			require.Equal(t, want, ws.(*cpuWorkspace).bufs[primitive.BufA], "2^%d %s", logM, kind)
			ws.Release()

			// Folded parameters: no c, and the values â·b̂ on the coset that H's points on the
			// coset pair with.
			dims := primitive.Dims{Domain: m, W: 1, B: 1, NoC: true}
			ws, err = dev.Workspace(ctx, dims)
			require.NoError(t, err)
			for i, v := range [][]fr.Element{a, b} {
				require.NoError(t, ws.Upload(ctx, primitive.Buf(i), v))
			}
			task = &groth16Task{ws: ws, params: &Parameters{CFold: &CFold{}}, dims: dims}
			bitRev, own, err = task.quotient(ctx)
			require.NoError(t, err)
			require.Zero(t, bitRev)
			require.False(t, own)
			e := make([]fr.Element, m)
			for i := range e {
				e[i].Mul(&ca[i], &cb[i])
			}
			require.Equal(t, e, ws.(*cpuWorkspace).bufs[primitive.BufA], "2^%d %s, folded", logM, kind)
			ws.Release()
		}
	}
}

func TestParametersIdentity(t *testing.T) {
	p := randParams(1, 3, 7, 5, 4, 3, 3)
	q := randParams(1, 3, 7, 5, 4, 3, 3)
	require.Equal(t, p.Identity(), q.Identity(), "same points, same identity")
	r := randParams(2, 3, 7, 5, 4, 3, 3)
	require.NotEqual(t, p.Identity(), r.Identity())
	q.H = q.H[:6]
	require.NotEqual(t, p.Identity(), q.Identity(), "section lengths count")
	p.ID = "porep-32g"
	require.Equal(t, "porep-32g", p.Identity())
	require.Equal(t, "porep-32g", p.SRS().ID)
}

// quotientRunner is a CPU workspace that also takes the quotient in one call, recording it and
// answering that it left h bit-reversed when reversed is set; it fails the test if a step of the
// quotient is called on it.
type quotientRunner struct {
	*cpuWorkspace
	t        *testing.T
	calls    []int
	shift    fr.Element
	folded   bool
	reversed bool
}

func (q *quotientRunner) RunQuotient(ctx context.Context, logN int, shift fr.Element, folded bool) (bool, error) {
	q.calls = append(q.calls, logN)
	q.shift = shift
	q.folded = folded
	return q.reversed, nil
}

// quotientMSMRunner is a quotientRunner that runs MSM batches too (none is run here).
type quotientMSMRunner struct{ *quotientRunner }

func (quotientMSMRunner) RunMSMs(context.Context, primitive.Bases, []primitive.MSMJob) error {
	return nil
}

func (q *quotientRunner) NTT(context.Context, primitive.Buf, int, primitive.NTT) error {
	q.t.Error("NTT called beside RunQuotient")
	return nil
}

func (q *quotientRunner) Mul(context.Context, primitive.Buf, primitive.Buf, int) error {
	q.t.Error("Mul called beside RunQuotient")
	return nil
}

func (q *quotientRunner) Quotient(context.Context, primitive.Buf, primitive.Buf, int, fr.Element) error {
	q.t.Error("Quotient called beside RunQuotient")
	return nil
}

// TestQuotientTakesTheRunner checks that a workspace implementing primitive.QuotientRunner gets
// the whole quotient as one call, with the domain's size, the coset shift ω_{2m} and whether the
// parameters are folded, and that H's scalars are then read in the runner's form.
func TestQuotientTakesTheRunner(t *testing.T) {
	ctx := context.Background()
	ws, err := (&cpuPrimitives{}).Workspace(ctx, primitive.Dims{Domain: 8, W: 1, B: 1})
	require.NoError(t, err)
	defer ws.Release()
	q := &quotientRunner{cpuWorkspace: ws.(*cpuWorkspace), t: t}
	// The runner's form is refused where no MSM batch would read it.
	task := &groth16Task{ws: q, params: &Parameters{}, dims: primitive.Dims{Domain: 8}}
	_, _, err = task.quotient(ctx)
	require.ErrorContains(t, err, "runs no MSM batch")
	require.Empty(t, q.calls)
	task.ws = quotientMSMRunner{q}
	bitRev, own, err := task.quotient(ctx)
	require.NoError(t, err)
	require.Zero(t, bitRev)
	require.True(t, own)
	require.Equal(t, []int{3}, q.calls)
	require.False(t, q.folded)
	q.reversed = true
	bitRev, _, err = task.quotient(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, bitRev)
	task.params = &Parameters{CFold: &CFold{}}
	_, _, err = task.quotient(ctx)
	require.NoError(t, err)
	require.True(t, q.folded)
	want, err := fft.Generator(16)
	require.NoError(t, err)
	require.Equal(t, want, q.shift)
	var z fr.Element
	z.Exp(want, bigUint(8))
	require.Equal(t, "-1", z.String(), "ω_16^8")
}

// TestCPUWorkspaceWithoutC: a workspace of Dims.NoC has no BufC and holds one vector less.
func TestCPUWorkspaceWithoutC(t *testing.T) {
	ctx := context.Background()
	const logN = 5
	d := &cpuPrimitives{}
	without, err := d.Workspace(ctx, primitive.Dims{Domain: 1 << logN, W: 1, NoC: true})
	require.NoError(t, err)
	require.Equal(t, d.HostBytes(primitive.Dims{Domain: 1 << logN, W: 1})-d.HostBytes(primitive.Dims{Domain: 1 << logN, W: 1, NoC: true}),
		int64(1<<logN)*fr.Bytes)
	require.Error(t, without.Upload(ctx, primitive.BufC, []fr.Element{fr.NewElement(1)}), "no BufC")
}
