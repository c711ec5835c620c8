package porep

import (
	"fmt"

	"github.com/cuzk-go/cuzk/synth"
)

// Shapes of the per-challenge work. Full is Filecoin's 32 GiB PoRep (11 layers, 2^30-node trees,
// ≈7.2 M constraints a challenge); Small keeps every part of it but with 2 layers (Filecoin's
// other column arity) and 2^3-node trees (≈1.2 M constraints a challenge), for sizes below one
// full challenge.
var (
	Full  = Config{Layers: 11, DataDepth: 30, Nodes: 64}
	Small = Config{Layers: 2, DataDepth: 3, Nodes: 8}
)

// FullPartitionChallenges is the number of challenges in one partition of Filecoin's 32 GiB
// PoRep (176 challenges over 10 partitions, rounded up): ≈130 M constraints, 327 public inputs.
const FullPartitionChallenges = 18

// Size is one named configuration.
type Size struct {
	Name string
	Cfg  Config
}

// Sizes lists the configurations the CLI and the benchmarks know, smallest first.
func Sizes() []Size {
	with := func(c Config, n int) Config { c.Challenges = n; return c }
	return []Size{
		{"tiny", with(Small, 1)},
		{"2^21", with(Small, 2)},
		{"2^24", with(Full, 2)},
		{"2^26", with(Full, 9)},
		{"partition", with(Full, FullPartitionChallenges)},
	}
}

// perChallenge returns the constraints of one challenge and those outside the challenges for
// shape (its Challenges ignored), by counting circuits of one and two challenges.
func perChallenge(shape Config) (per, base int, err error) {
	var seed [32]byte
	count := func(n int) (int, error) {
		c := shape
		c.Challenges = n
		s, err := NewSector(c, seed)
		if err != nil {
			return 0, err
		}
		k, _, _, err := synth.Count(s.Circuit(0))
		return k, err
	}
	c1, err := count(1)
	if err != nil {
		return 0, 0, err
	}
	c2, err := count(2)
	if err != nil {
		return 0, 0, err
	}
	return c2 - c1, 2*c1 - c2, nil
}

// SizeForConstraints returns the configuration whose constraint count is nearest to n: the Full
// shape with the right number of challenges when n reaches at least half a full challenge, the
// Small shape otherwise (at least one challenge).
func SizeForConstraints(n int) (Config, error) {
	per, base, err := perChallenge(Full)
	if err != nil {
		return Config{}, fmt.Errorf("size for %d constraints: %w", n, err)
	}
	cfg := Full
	if n < per/2 {
		if per, base, err = perChallenge(Small); err != nil {
			return Config{}, fmt.Errorf("size for %d constraints: %w", n, err)
		}
		cfg = Small
	}
	cfg.Challenges = max(1, (n-base+per/2)/per)
	return cfg, nil
}
