package devsetup

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// progressLog records Progress calls and checks their contract as they come: never
// overlapping, done increasing within a stage up to total.
type progressLog struct {
	t      *testing.T
	mu     sync.Mutex
	stages []string
	totals map[string]int64
	last   map[string]int64
}

func newProgressLog(t *testing.T) *progressLog {
	return &progressLog{t: t, totals: map[string]int64{}, last: map[string]int64{}}
}

func (l *progressLog) report(stage string, done, total int64) {
	if !l.mu.TryLock() {
		l.t.Errorf("overlapping Progress calls (stage %s)", stage)
		l.mu.Lock()
	}
	defer l.mu.Unlock()
	if len(l.stages) == 0 || l.stages[len(l.stages)-1] != stage {
		require.NotContains(l.t, l.stages, stage, "stage %s reported again after another", stage)
		l.stages = append(l.stages, stage)
		l.totals[stage] = total
		l.last[stage] = -1
	}
	require.Equal(l.t, l.totals[stage], total, "stage %s: total changed", stage)
	require.GreaterOrEqual(l.t, done, l.last[stage], "stage %s: done decreased", stage)
	require.LessOrEqual(l.t, done, total, "stage %s", stage)
	l.last[stage] = done
}

// complete checks that every stage ended with done = total.
func (l *progressLog) complete() {
	for _, s := range l.stages {
		require.Equal(l.t, l.totals[s], l.last[s], "stage %s ends at its total", s)
	}
}

func TestInsecureSetupProgress(t *testing.T) {
	c := &circuits.Scalable{Constraints: 20000, Inputs: 3, Seed: 5}
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	tw, err := NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	log := newProgressLog(t)
	p, err := InsecureSetup(shape, tw, WithProgress(log.report))
	require.NoError(t, err)
	log.complete()
	m := int64(shape.DomainSize())
	b := int64(shape.BDensityInput.Count() + shape.BDensityAux.Count())
	require.Equal(t, []string{"Lagrange basis", "evaluate A, B, C", "IC and L scalars",
		"IC points", "H points", "L points", "A points", "B_G1 points", "B_G2 points"}, log.stages)
	require.Equal(t, map[string]int64{
		"Lagrange basis":   m,
		"evaluate A, B, C": 3 * int64(shape.NumConstraints),
		"IC and L scalars": int64(shape.NumInputs + shape.NumAux),
		"IC points":        int64(shape.NumInputs),
		"L points":         int64(shape.NumAux),
		"A points":         int64(len(p.A)),
		"B_G1 points":      b,
		"B_G2 points":      b,
		"H points":         m - 1,
	}, log.totals)

	// Reporting changes nothing: the same toxic waste gives the same points, and they prove.
	q, err := InsecureSetup(shape, tw)
	require.NoError(t, err)
	require.Equal(t, p, q)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	proof, err := prover.ProvePartition(context.Background(), p, asg)
	require.NoError(t, err)
	pvk, err := prover.PrepareVerifyingKey(&p.VK)
	require.NoError(t, err)
	require.NoError(t, prover.Verify(pvk, proof, asg.PublicInputs()))
}

func TestRandomParametersProgress(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 3000, Inputs: 3})
	require.NoError(t, err)
	log := newProgressLog(t)
	p := RandomParameters(shape, 7, WithProgress(log.report))
	log.complete()
	require.Equal(t, []string{"IC points", "H points", "L points", "A points", "B_G1 points", "B_G2 points"}, log.stages)
	require.Equal(t, int64(len(p.H)), log.totals["H points"])
	require.Equal(t, int64(len(p.BG2)), log.totals["B_G2 points"])
	require.Equal(t, p, RandomParameters(shape, 7), "reporting changes nothing")
}
