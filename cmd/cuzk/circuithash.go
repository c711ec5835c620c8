package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cuzk-go/cuzk/filecoin/circuits/post"
	"github.com/cuzk-go/cuzk/filecoin/circuits/stacked"
	"github.com/cuzk-go/cuzk/filecoin/circuits/update"
	"github.com/cuzk-go/cuzk/synth"
)

// runCircuitHash prints a circuit's counts and its constraint-system hash, the value
// bellpepper-core's TestConstraintSystem::hash() gives for the same circuit in Rust.
func runCircuitHash(ctx context.Context, args []string) error {
	return circuitHash(ctx, os.Stdout, args)
}

func circuitHash(_ context.Context, w io.Writer, args []string) error {
	fs := newFlagSet("circuit-hash", "[flags]",
		"Print a circuit's constraint, input and aux counts and its constraint-system hash, the\n"+
			"value bellpepper-core's TestConstraintSystem::hash() gives for the same circuit.")
	var cf circuitFlags
	cf.register(fs, 1<<12)
	fs.Lookup("circuit").Usage = "circuit: winning-post, window-post (Filecoin FallbackPoSt), stacked-porep (Filecoin PoRep partition), stacked (the same with a synthetic C1 witness), update (Filecoin SnapDeals EmptySectorUpdate partition), scalable or porep"
	sizeFlag := &cf.sectorSize
	fs.Lookup("sector-size").Usage = "winning-post, window-post, stacked-porep, stacked, update: sector size (2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB, 1GiB, 32GiB, 64GiB; update: 1KiB … 16MiB, 512MiB, 32GiB, 64GiB)"
	countOnly := fs.Bool("count-only", false, "print the counts only, without compiling the circuit")
	treeFlag := fs.String("tree", "", "winning-post, window-post, stacked-porep: tree R (and C) shape base-sub-top (8-4-0), overriding the sector size's")
	sectors := fs.Int("post-sectors", 0, fmt.Sprintf("winning-post, window-post: sectors per partition, overriding the proof's (at most %d)", maxPoStSectors))
	challenges := fs.Int("post-challenges", 0, fmt.Sprintf("winning-post, window-post: challenges per sector; stacked-porep: challenges per partition; overriding the proof's (at most %d)", maxPoStChallenges))
	layers := fs.Int("layers", 2, "stacked-porep with --tree: number of layers (2 or 11)")
	maxHash := fs.Int("max-hash-constraints", 1<<24, fmt.Sprintf("compile and hash only circuits with at most this many constraints (compiling holds the matrices in memory; at most %d)", maxScalableConstraints))
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkRange("post-sectors", *sectors, 0, maxPoStSectors); err != nil {
		return err
	}
	if err := checkRange("post-challenges", *challenges, 0, maxPoStChallenges); err != nil {
		return err
	}
	if *layers != 2 && *layers != 11 {
		return usagef("--layers %d: want 2 or 11", *layers)
	}
	if err := checkRange("max-hash-constraints", *maxHash, 0, maxScalableConstraints); err != nil {
		return err
	}
	var (
		circ                     synth.Circuit
		constraints, inputs, aux int
		desc                     string
	)
	switch cf.name {
	case "winning-post", "window-post":
		size, err := parseSectorSize(*sizeFlag)
		if err != nil {
			return err
		}
		p, err := postParams(cf.name, size, *treeFlag)
		if err != nil {
			return err
		}
		if *sectors > 0 {
			p.SectorCount = *sectors
		}
		if *challenges > 0 {
			p.ChallengeCount = *challenges
		}
		if err := p.Validate(); err != nil {
			return err
		}
		if constraints, inputs, aux, err = post.Count(p); err != nil {
			return err
		}
		circ = post.Blank(p)
		desc = fmt.Sprintf("%s %s (%d sectors × %d challenges, tree %d-%d-%d)", cf.name, *sizeFlag,
			p.SectorCount, p.ChallengeCount, p.Tree.Base, p.Tree.Sub, p.Tree.Top)
	case "stacked-porep":
		size, err := parseSectorSize(*sizeFlag)
		if err != nil {
			return err
		}
		p, err := stackedParams(size, *treeFlag, *layers)
		if err != nil {
			return err
		}
		if *challenges > 0 {
			p.Challenges = *challenges
		}
		if constraints, inputs, aux, err = stacked.Count(p); err != nil {
			return err
		}
		circ = stacked.Blank(p)
		desc = fmt.Sprintf("%s %s (%d layers, %d challenges)", cf.name, *sizeFlag, p.Layers, p.Challenges)
	case "update":
		size, err := parseSectorSize(*sizeFlag)
		if err != nil {
			return err
		}
		p, err := update.ParamsFor(size)
		if err != nil {
			return err
		}
		if constraints, inputs, aux, err = update.Count(p); err != nil {
			return err
		}
		circ = update.Blank(p)
		desc = fmt.Sprintf("%s %s (%d partitions × %d challenges, tree %d-%d-%d)", cf.name, *sizeFlag,
			p.PartitionCount, p.ChallengeCount, p.Tree.Base, p.Tree.Sub, p.Tree.Top)
	default:
		if err := cf.validate(); err != nil {
			return err
		}
		c, _, err := cf.instance(0)
		if err != nil {
			return err
		}
		if constraints, inputs, aux, err = synth.Count(c); err != nil {
			return err
		}
		circ, desc = c, cf.describe()
	}
	fmt.Fprintf(w, "circuit %s\n", desc)
	fmt.Fprintf(w, "constraints %d\ninputs %d (ONE included)\naux %d\n", constraints, inputs, aux)
	switch {
	case *countOnly:
		return nil
	case constraints > *maxHash:
		fmt.Fprintf(w, "hash skipped: %d constraints > --max-hash-constraints %d\n", constraints, *maxHash)
		return nil
	}
	h, err := synth.HashCircuit(circ)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "hash %x\n", h)
	return nil
}

// Bounds on the circuit-hash overrides: far above Filecoin's (WindowPoSt 2349 sectors of 10
// challenges, PoRep 18 challenges per partition), low enough that the counts cannot overflow.
const (
	maxPoStSectors    = 1 << 16
	maxPoStChallenges = 1 << 10
)

// postParams returns the parameters of the winning-post or window-post circuit for size, with
// tree ("8-4-0") replacing the size's tree shape when given (sizes of rust-fil-proofs' test
// trees are not production sizes).
func postParams(name string, size uint64, tree string) (post.Params, error) {
	challenges, sectors := post.WindowChallengeCount, 1
	mk := post.WindowParams
	if name == "winning-post" {
		mk, challenges, sectors = post.WinningParams, 1, post.WinningChallengeCount
	}
	if tree == "" {
		return mk(size)
	}
	var t post.TreeShape
	if _, err := fmt.Sscanf(tree, "%d-%d-%d", &t.Base, &t.Sub, &t.Top); err != nil {
		return post.Params{}, fmt.Errorf("bad --tree %q (want base-sub-top, e.g. 8-4-0)", tree)
	}
	p := post.Params{SectorSize: size, Tree: t, ChallengeCount: challenges, SectorCount: sectors}
	if pp, err := mk(size); err == nil {
		p.SectorCount = pp.SectorCount
	}
	return p, p.Validate()
}

// stackedParams returns the PoRep partition shape for size, or with tree ("8-4-0") a test
// shape over size/32 nodes: tree D of depth log2(nodes), trees R and C of that shape, one
// challenge.
func stackedParams(size uint64, tree string, layers int) (stacked.Params, error) {
	if tree == "" {
		return stacked.PoRepParams(size)
	}
	var t post.TreeShape
	if _, err := fmt.Sscanf(tree, "%d-%d-%d", &t.Base, &t.Sub, &t.Top); err != nil {
		return stacked.Params{}, fmt.Errorf("bad --tree %q (want base-sub-top, e.g. 8-4-0)", tree)
	}
	nodes := size / post.NodeSize
	arities, err := t.Arities(nodes)
	if err != nil {
		return stacked.Params{}, err
	}
	depth := 0
	for 1<<depth < nodes {
		depth++
	}
	return stacked.Params{Layers: layers, CommDDepth: depth, TreeRC: arities, Challenges: 1}, nil
}

// parseSectorSize reads "2KiB", "32GiB", … or a number of bytes.
func parseSectorSize(s string) (uint64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseUint(n, 10, 64)
			if err != nil || v == 0 || v > 1<<20 {
				return 0, fmt.Errorf("bad --sector-size %q", s)
			}
			return v << u.shift, nil
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad --sector-size %q (use 2KiB, 32GiB, … or bytes)", s)
	}
	return v, nil
}
