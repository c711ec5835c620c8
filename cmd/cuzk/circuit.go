package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"strings"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/circuits/porep"
	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/circuits/stacked"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// circuitFlags selects a built-in circuit and its size.
type circuitFlags struct {
	name        string
	constraints int
	inputs      int
	seed        uint64
	porepSize   string
	challenges  int
	sectorSize  string

	sectors map[uint64]*porep.Sector              // built once per seed; a sector serves every partition
	c1s     map[uint64]*c1.SealCommitPhase1Output // stacked: synthetic C1 outputs, one per seed
	mu      sync.Mutex
}

// Bounds on the sizes of the built-in circuits, checked by circuitFlags.validate before any work.
const (
	// maxScalableConstraints is the largest scalable circuit: 2^27 constraints, a domain of
	// 2^28 rows and parameters of about 50 GiB.
	maxScalableConstraints = 1 << 27
	// maxScalableInputs keeps the verifying key readable: prover.ReadVerifyingKeyFile accepts
	// at most prover.MaxICPoints IC points, one per public input plus ONE.
	maxScalableInputs = prover.MaxICPoints - 1
	// maxPoRepChallenges is the challenges of one partition of Filecoin's 32 GiB PoRep
	// (≈130 M constraints); more would only outgrow any machine's memory.
	maxPoRepChallenges = porep.FullPartitionChallenges
)

func (c *circuitFlags) register(fs *flag.FlagSet, constraints int) {
	fs.StringVar(&c.name, "circuit", "scalable", "built-in circuit: scalable, porep (benchmark workload) or stacked (Filecoin's PoRep partition)")
	fs.IntVar(&c.constraints, "constraints", constraints, fmt.Sprintf("scalable: number of constraints (1 to 2^27 = %d)", maxScalableConstraints))
	fs.IntVar(&c.inputs, "inputs", 4, fmt.Sprintf("scalable: number of public inputs, ONE not counted (0 to %d)", maxScalableInputs))
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the deterministic witness")
	fs.StringVar(&c.porepSize, "porep-size", "tiny", "porep: "+porepSizeNames()+" (≈1.2 M constraints … ≈130 M)")
	fs.IntVar(&c.challenges, "challenges", 0, fmt.Sprintf("porep: challenges per partition in the full 32 GiB shape (≈7.2 M constraints each, at most %d); overrides --porep-size", maxPoRepChallenges))
	fs.StringVar(&c.sectorSize, "sector-size", "2KiB", "stacked: sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB); the witness is a synthetic C1 output")
}

// validate checks the circuit flags against their bounds, before any work; errors are
// usageErrors naming the flag.
func (c *circuitFlags) validate() error {
	if c.name != "scalable" && c.name != "porep" && c.name != "stacked" {
		return usagef("--circuit %q: want scalable, porep or stacked", c.name)
	}
	if c.name == "stacked" {
		if _, err := parseSectorSize(c.sectorSize); err != nil {
			return &usageError{err}
		}
	}
	if err := checkRange("constraints", c.constraints, 1, maxScalableConstraints); err != nil {
		return err
	}
	if err := checkRange("inputs", c.inputs, 0, maxScalableInputs); err != nil {
		return err
	}
	if err := checkRange("challenges", c.challenges, 0, maxPoRepChallenges); err != nil {
		return err
	}
	if _, err := c.porepConfig(1); err != nil {
		return &usageError{err}
	}
	return nil
}

// stackedC1 returns the synthetic C1 output of the --sector-size seal proof (v1.1) for seed,
// building it the first time.
func (c *circuitFlags) stackedC1(seed uint64) (*c1.SealCommitPhase1Output, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.c1s[seed]; ok {
		return o, nil
	}
	size, err := parseSectorSize(c.sectorSize)
	if err != nil {
		return nil, err
	}
	cfg, err := sector.ConfigFor(size)
	if err != nil {
		return nil, fmt.Errorf("stacked: --sector-size %s: %w", c.sectorSize, err)
	}
	p := sector.StackedDrg2KiBV1_1
	for p.SectorSize() != cfg.SectorSize {
		p++
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	o, err := c1.Synthetic(context.Background(), p, key)
	if err != nil {
		return nil, err
	}
	if c.c1s == nil {
		c.c1s = make(map[uint64]*c1.SealCommitPhase1Output)
	}
	c.c1s[seed] = o
	return o, nil
}

func porepSizeNames() string {
	var names []string
	for _, s := range porep.Sizes() {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// porepConfig returns the PoRep configuration the flags select, for the given partition count.
func (c *circuitFlags) porepConfig(partitions int) (porep.Config, error) {
	if c.challenges > 0 {
		cfg := porep.Full
		cfg.Challenges = c.challenges
		cfg.Partitions = partitions
		return cfg, nil
	}
	for _, s := range porep.Sizes() {
		if s.Name == c.porepSize {
			cfg := s.Cfg
			cfg.Partitions = partitions
			return cfg, nil
		}
	}
	return porep.Config{}, fmt.Errorf("unknown --porep-size %q (known: %s)", c.porepSize, porepSizeNames())
}

// porepMaxPartitions is the partition count of the in-memory sector: partitions of one sector
// differ only in their challenges, so one sector serves them all.
const porepMaxPartitions = 1 << 16

// sector returns the in-memory sector for seed, building it the first time.
func (c *circuitFlags) sector(seed uint64) (*porep.Sector, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sectors[seed]; ok {
		return s, nil
	}
	cfg, err := c.porepConfig(porepMaxPartitions)
	if err != nil {
		return nil, err
	}
	var sd [32]byte
	binary.LittleEndian.PutUint64(sd[:], seed)
	s, err := porep.NewSector(cfg, sd)
	if err != nil {
		return nil, err
	}
	if c.sectors == nil {
		c.sectors = make(map[uint64]*porep.Sector)
	}
	c.sectors[seed] = s
	return s, nil
}

// instance returns the circuit of one partition, with its witness, and its public inputs.
func (c *circuitFlags) instance(partition int) (synth.Circuit, []fr.Element, error) {
	switch c.name {
	case "scalable":
		sc := &circuits.Scalable{Constraints: c.constraints, Inputs: c.inputs, Seed: c.seed, Partition: partition}
		if err := sc.Validate(); err != nil {
			return nil, nil, err
		}
		return sc, sc.PublicInputs(), nil
	case "porep":
		if partition < 0 || partition >= porepMaxPartitions {
			return nil, nil, fmt.Errorf("porep: partition %d out of range [0, %d)", partition, porepMaxPartitions)
		}
		s, err := c.sector(c.seed)
		if err != nil {
			return nil, nil, err
		}
		pc := s.Circuit(partition)
		return pc, pc.PublicInputs(), nil
	case "stacked":
		if partition < 0 {
			return nil, nil, fmt.Errorf("stacked: partition %d", partition)
		}
		o, err := c.stackedC1(c.seed)
		if err != nil {
			return nil, nil, err
		}
		// A benchmark may ask for more partitions than the proof has: they repeat.
		k := partition % len(o.VanillaProofs)
		sc, err := stacked.FromC1(o, k)
		if err != nil {
			return nil, nil, err
		}
		in, err := stacked.PublicInputs(o.RegisteredProof, nil, o.ReplicaID, o.CommD, o.CommR, o.Seed, k)
		if err != nil {
			return nil, nil, err
		}
		return sc, in, nil
	default:
		return nil, nil, fmt.Errorf("unknown circuit %q (built-in: scalable, porep, stacked)", c.name)
	}
}

// withSeed returns a copy of the flags with another witness seed.
func (c *circuitFlags) withSeed(seed uint64) *circuitFlags {
	return &circuitFlags{name: c.name, constraints: c.constraints, inputs: c.inputs, seed: seed,
		porepSize: c.porepSize, challenges: c.challenges, sectorSize: c.sectorSize}
}

// describe names the circuit and its size for messages.
func (c *circuitFlags) describe() string {
	if c.name == "stacked" {
		return fmt.Sprintf("stacked (Filecoin PoRep partition, %s, synthetic C1)", c.sectorSize)
	}
	if c.name == "porep" {
		if c.challenges > 0 {
			return fmt.Sprintf("porep (%d full challenges)", c.challenges)
		}
		return fmt.Sprintf("porep (%s)", c.porepSize)
	}
	return fmt.Sprintf("%s (%d constraints, %d inputs)", c.name, c.constraints, c.inputs)
}

// compile returns the circuit's shape, from partition 0's instance.
func (c *circuitFlags) compile() (*synth.Shape, error) {
	circ, _, err := c.instance(0)
	if err != nil {
		return nil, err
	}
	return synth.Compile(circ)
}
