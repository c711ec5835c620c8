package update

import "github.com/cuzk-go/cuzk/synth"

// Count returns the number of constraints, of public inputs (One included) and of aux variables
// of the circuit of p without building it whole (the 32 GiB circuit holds 81 M variables). It
// counts the blank circuit with 1, 2 and ⌊254/bits⌋+1 challenges (one, one and two
// challenge digests) and extrapolates: every challenge is synthesized the same way, as is
// every digest, and the shape does not depend on the values, so with per-challenge cost
// C₂ − C₁ and per-digest cost C₃ − C₁ − ⌊254/bits⌋·(C₂ − C₁),
//
//	total = C₁ + (ChallengeCount − 1)·(C₂ − C₁) + (DigestsPerPartition − 1)·digest.
func Count(p Params) (constraints, inputs, aux int, err error) {
	perDigest := 254 / (p.ChallengeBits() - p.PartitionBits())
	var c, a [3]int
	for i, n := range []int{1, 2, perDigest + 1} {
		q := p
		q.ChallengeCount = n
		if c[i], inputs, a[i], err = synth.Count(Blank(q)); err != nil {
			return 0, 0, 0, err
		}
	}
	n, d := p.ChallengeCount-1, p.DigestsPerPartition()-1
	extrapolate := func(x [3]int) int {
		per := x[1] - x[0]
		digest := x[2] - x[0] - perDigest*per
		return x[0] + n*per + d*digest
	}
	return extrapolate(c), inputs, extrapolate(a), nil
}
