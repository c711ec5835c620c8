package porep

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
)

// TestChallengesSynthesizeConcurrently: with two challenges synthesized concurrently, the
// assignment satisfies the circuit and is the same on every run (synth's own tests compare
// Parallel with branches in order); run it under -race.
func TestChallengesSynthesizeConcurrently(t *testing.T) {
	if testing.Short() {
		t.Skip("2.4 M constraints; run without -short (and with -race)")
	}
	cfg := Small
	cfg.Challenges = 2
	s, err := NewSector(cfg, [32]byte{4})
	require.NoError(t, err)
	c := s.Circuit(0)
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	a1, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, a1, c))
	a2, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.Equal(t, a1.W, a2.W)
}
