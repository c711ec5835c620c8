package devsetup

import (
	"math/rand/v2"
	"runtime"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// RandomParameters returns parameters of the right shape for shape whose points are valid curve
// points unrelated to any setup. Proofs made with them do NOT verify: they serve benchmarks at
// sizes where InsecureSetup would take too long (a PoRep partition's ≈47 GiB of points).
//
// Each run of consecutive points is P, P+Q, P+2Q, … from a random start P = k·G and a random
// step Q, converted to affine in batches: about one mixed addition per point. WithProgress
// reports the points of each section in order: "IC points", "H points", "L points", "A points",
// "B_G1 points", "B_G2 points".
func RandomParameters(shape *synth.Shape, seed uint64, opts ...Option) *prover.Parameters {
	o := collect(opts)
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	bCount := shape.BDensityInput.Count() + shape.BDensityAux.Count()
	p := &prover.Parameters{}
	vk := &p.VK
	one := randomG1Points(rng, 4, nil)
	vk.AlphaG1, vk.BetaG1, vk.DeltaG1 = one[0], one[1], one[2]
	two := randomG2Points(rng, 3, nil)
	vk.BetaG2, vk.GammaG2, vk.DeltaG2 = two[0], two[1], two[2]
	g1 := func(stage string, n int) []bls12381.G1Affine { return randomG1Points(rng, n, o.start(stage, n)) }
	vk.IC = g1("IC points", shape.NumInputs)
	p.H = g1("H points", shape.DomainSize()-1)
	p.L = g1("L points", shape.NumAux)
	p.A = g1("A points", shape.NumInputs+shape.ADensityAux.Count())
	p.BG1 = g1("B_G1 points", bCount)
	p.BG2 = randomG2Points(rng, bCount, o.start("B_G2 points", bCount))
	return p
}

// RandomFold returns params marked as folded for shape's C (prover.CFold) without folding: L as
// it is, random points for the inputs' share and for H on the coset (m of them). Proofs made
// with them do NOT verify; a device proves a partition with them as with parameters from
// prover.FoldC (no c, four transforms), so that they time the fold at sizes where FoldC takes
// hours on the CPU or more memory than a benchmark has beside the parameters. Parameters mapped
// from a file stay mapped: the random points are held encoded on the heap (96 bytes a point,
// 12 GiB at a 32 GiB PoRep partition) over the file (MappedParameters.WithFold).
func RandomFold(params *prover.Parameters, shape *synth.Shape, seed uint64) (*prover.Parameters, error) {
	rng := rand.New(rand.NewPCG(seed^0x2545f4914f6cdd1d, seed))
	fold := &prover.CFold{Inputs: randomG1Points(rng, shape.NumInputs, nil), Circuit: prover.FoldDigest(shape)}
	m := shape.DomainSize()
	base := params.Mapped()
	if base == nil {
		out := *params
		out.H, out.CFold = randomG1Points(rng, m, nil), fold
		return &out, nil
	}
	const chunk = 1 << 20
	h := make([]byte, m*prover.G1UncompressedSize)
	for lo := 0; lo < m; lo += chunk {
		n := min(chunk, m-lo)
		prover.EncodeG1Points(h[lo*prover.G1UncompressedSize:], randomG1Points(rng, n, nil))
	}
	mp, err := base.WithFold(fold, nil, h)
	if err != nil {
		return nil, err
	}
	return mp.Parameters()
}

// randomRunLength is the number of points of one run P + i·Q.
const randomRunLength = 1 << 14

func randomScalar(rng *rand.Rand) *fr.Element {
	var e fr.Element
	e.SetUint64(rng.Uint64())
	var hi fr.Element
	hi.SetUint64(rng.Uint64() | 1)
	return e.Mul(&e, &hi)
}

func randomG1Points(rng *rand.Rand, n int, tr *tracker) []bls12381.G1Affine {
	out := make([]bls12381.G1Affine, n)
	_, _, g1, _ := bls12381.Generators()
	var step bls12381.G1Affine
	step.ScalarMultiplication(&g1, bigOf(randomScalar(rng)))
	starts := runStarts(rng, n)
	forEachRun(len(starts), func(r int) {
		lo := r * randomRunLength
		hi := min(lo+randomRunLength, n)
		jac := make([]bls12381.G1Jac, hi-lo)
		var acc bls12381.G1Jac
		acc.ScalarMultiplication(&bls12381.G1Jac{X: g1.X, Y: g1.Y, Z: fpOne()}, bigOf(&starts[r]))
		for i := range jac {
			jac[i] = acc
			acc.AddMixed(&step)
		}
		copy(out[lo:hi], bls12381.BatchJacobianToAffineG1(jac))
		tr.add(hi - lo)
	})
	tr.finish()
	return out
}

func randomG2Points(rng *rand.Rand, n int, tr *tracker) []bls12381.G2Affine {
	out := make([]bls12381.G2Affine, n)
	_, _, _, g2 := bls12381.Generators()
	var step bls12381.G2Affine
	step.ScalarMultiplication(&g2, bigOf(randomScalar(rng)))
	starts := runStarts(rng, n)
	forEachRun(len(starts), func(r int) {
		lo := r * randomRunLength
		hi := min(lo+randomRunLength, n)
		var acc bls12381.G2Jac
		var start bls12381.G2Affine
		start.ScalarMultiplication(&g2, bigOf(&starts[r]))
		acc.FromAffine(&start)
		for i := lo; i < hi; i++ {
			out[i].FromJacobian(&acc)
			acc.AddMixed(&step)
		}
		tr.add(hi - lo)
	})
	tr.finish()
	return out
}

// runStarts draws the start scalar of each run of n points.
func runStarts(rng *rand.Rand, n int) []fr.Element {
	starts := make([]fr.Element, (n+randomRunLength-1)/randomRunLength)
	for i := range starts {
		starts[i] = *randomScalar(rng)
	}
	return starts
}

// forEachRun calls f(0…runs−1) from all cores.
func forEachRun(runs int, f func(r int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				f(r)
			}
		}()
	}
	for r := 0; r < runs; r++ {
		next <- r
	}
	close(next)
	wg.Wait()
}
