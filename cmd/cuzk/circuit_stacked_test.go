package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
)

// TestStackedCircuitFlag: --circuit stacked builds Filecoin's PoRep partition from a synthetic
// C1 output: its constraint-system hash is the blank stacked-porep circuit's of the same sector
// size, its witness satisfies it, and its public inputs are the circuit's.
func TestStackedCircuitFlag(t *testing.T) {
	hashOf := func(args ...string) string {
		var out bytes.Buffer
		require.NoError(t, circuitHash(context.Background(), &out, args))
		for _, line := range strings.Split(out.String(), "\n") {
			if h, ok := strings.CutPrefix(line, "hash "); ok {
				return h
			}
		}
		t.Fatalf("no hash in %q", out.String())
		return ""
	}
	if !testing.Short() { // hashing two 2.7 M-constraint circuits takes seconds
		require.Equal(t,
			hashOf("--circuit", "stacked-porep", "--sector-size", "2KiB"),
			hashOf("--circuit", "stacked", "--sector-size", "2KiB"))
	}

	cf := &circuitFlags{name: "stacked", sectorSize: "2KiB", seed: 3}
	shape, err := cf.compile()
	require.NoError(t, err)
	c, in, err := cf.instance(1) // the 2 KiB proof has one partition: 1 repeats 0
	require.NoError(t, err)
	asg, err := synth.Synthesize(t.Context(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	require.Equal(t, in, asg.PublicInputs())
	require.Len(t, in, 39)

	_, _, err = (&circuitFlags{name: "stacked", sectorSize: "4KiB"}).instance(0)
	require.ErrorContains(t, err, "--sector-size 4KiB")
	require.Contains(t, cf.describe(), "stacked (Filecoin PoRep partition, 2KiB")
}
