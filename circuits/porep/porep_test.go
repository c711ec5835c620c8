package porep

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/synth"
)

func tinySector(t testing.TB) *Sector {
	cfg := Small
	cfg.Challenges = 1
	cfg.Partitions = 2
	s, err := NewSector(cfg, [32]byte{1, 2, 3})
	require.NoError(t, err)
	return s
}

func TestTinySatisfiedAndInputs(t *testing.T) {
	s := tinySector(t)
	c := s.Circuit(0)
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg, c))
	want := c.PublicInputs()
	got := asg.PublicInputs()
	require.Len(t, got, 3+18)
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.True(t, want[i].Equal(&got[i]), "public input %d", i)
	}
	// Another partition: other challenges, same shape, still satisfied.
	c1 := s.Circuit(1)
	asg1, err := synth.Synthesize(context.Background(), shape, c1)
	require.NoError(t, err)
	require.NoError(t, synth.Check(shape, asg1, c1))
	st := Measure(shape, asg)
	require.Greater(t, st.AuxZero+st.AuxOne, 0.9, "the witness is mostly bits")
	for _, p := range []float64{st.PairsA, st.PairsB, st.PairsL} {
		require.True(t, p >= 0.5 && p < 0.9, "a pair table's additions over the ones: %v", p)
	}
	t.Logf("tiny: %+v", st)
}

func TestTamperedSectorRejected(t *testing.T) {
	s := tinySector(t)
	c := s.Circuit(0)
	shape, err := synth.Compile(c)
	require.NoError(t, err)
	ch := c.challenges[0]
	drg, _ := s.Parents(ch)
	// A parent label that disagrees with comm_c: the column's inclusion fails.
	s.Labels[0][drg[0]].SetUint64(42)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	err = synth.Check(shape, asg, c)
	require.ErrorIs(t, err, synth.ErrUnsatisfied)
	var ue *synth.UnsatisfiedError
	require.True(t, errors.As(err, &ue))
	require.Equal(t, "challenge[0]/parent[0]/inclusion/enforce root is correct/equal", ue.Path)
	// A data leaf that disagrees with comm_d.
	s = tinySector(t)
	c = s.Circuit(0)
	s.Data[c.challenges[0]].SetUint64(7)
	asg, err = synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	err = synth.Check(shape, asg, c)
	require.True(t, errors.As(err, &ue))
	require.True(t, strings.HasPrefix(ue.Path, "challenge[0]/comm_d_inclusion/enforce root is correct"), ue.Path)
}

func TestConfigErrors(t *testing.T) {
	_, err := NewSector(Config{}, [32]byte{})
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewSector(Config{Challenges: 1, DataDepth: 4}, [32]byte{})
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewSector(Config{Challenges: 1, DataDepth: 3, Nodes: 9}, [32]byte{})
	require.ErrorIs(t, err, ErrConfig)
}
