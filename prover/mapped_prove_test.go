package prover_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// mappedSetup runs an insecure setup for c, writes the parameters to a file and opens it mapped;
// it returns the shape, the decoded parameters, the file's bytes and the mapped parameters.
func mappedSetup(t *testing.T, c synth.Circuit) (*synth.Shape, *prover.Parameters, []byte, *prover.MappedParameters) {
	t.Helper()
	shape, params := setupFor(t, c)
	path := filepath.Join(t.TempDir(), "p.params")
	require.NoError(t, params.WriteParametersFile(path))
	file, err := os.ReadFile(path)
	require.NoError(t, err)
	m, err := prover.OpenParametersFile(path, prover.Checked)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return shape, params, file, m
}

func fixedRandomness(seed uint64) prover.Randomness {
	var rs prover.Randomness
	rs.R.SetUint64(seed)
	rs.S.SetUint64(seed + 1)
	return rs
}

// foreignSource hides the concrete type of a PointSource, so that the CPU decodes it through the
// interface.
type foreignSource struct{ primitive.PointSource }

// foreignDevice is a primitive device that hands its inner device every SRS source as a
// foreignSource.
type foreignDevice struct{ primitive.Device }

func (d foreignDevice) Resident(ctx context.Context, srs *primitive.SRS) (primitive.Bases, error) {
	if srs.Source != nil {
		srs = &primitive.SRS{ID: srs.ID, Source: foreignSource{srs.Source}}
	}
	return d.Device.Resident(ctx, srs)
}

// TestMappedParametersProve: parameters backed by a mapped file have the decoded parameters'
// lengths, identity and encoding, take no heap until the CPU proves with them, and prove the same
// bytes on the CPU — through the file's cached decode and through a source of another type.
func TestMappedParametersProve(t *testing.T) {
	c := &circuits.Scalable{Constraints: 300, Inputs: 3, Seed: 7}
	shape, params, file, m := mappedSetup(t, c)
	mp, err := m.Parameters()
	require.NoError(t, err)
	again, err := m.Parameters()
	require.NoError(t, err)
	require.Same(t, mp, again, "one *Parameters per mapping")
	require.Same(t, m, mp.Mapped())
	require.Nil(t, params.Mapped())
	require.Nil(t, mp.H)
	for sec := primitive.SectionH; sec <= primitive.SectionBG2; sec++ {
		require.Equal(t, params.Len(sec), mp.Len(sec), "%v", sec)
		require.Equal(t, params.Len(sec), mp.SRS().Len(sec), "%v", sec)
	}
	require.Equal(t, params.Identity(), mp.Identity())
	require.Equal(t, params.Identity(), mp.SRS().ID)
	require.NoError(t, prover.CheckParameters(mp, shape))
	require.Equal(t, params.EncodedSize(), mp.EncodedSize())
	var enc bytes.Buffer
	n, err := mp.WriteTo(&enc)
	require.NoError(t, err)
	require.Equal(t, mp.EncodedSize(), n)
	require.Equal(t, file, enc.Bytes(), "WriteTo of mapped parameters")
	require.Zero(t, mp.HeapBytes(), "mapped points are page cache")
	require.Positive(t, params.HeapBytes())

	ctx := context.Background()
	asg, err := synth.Synthesize(ctx, shape, c)
	require.NoError(t, err)
	rs := fixedRandomness(11)
	want, err := prover.ProvePartition(ctx, params, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	wantBytes, _ := want.MarshalBinary()
	foreign := prover.NewDevice(foreignDevice{prover.NewCPUPrimitives()})
	got, err := prover.ProvePartition(ctx, mp, asg, prover.WithRandomness(rs), prover.WithDevice(foreign))
	require.NoError(t, err)
	gotBytes, _ := got.MarshalBinary()
	require.Equal(t, wantBytes, gotBytes, "a foreign source decoded by the CPU")
	require.Zero(t, mp.HeapBytes(), "a foreign source's points are not kept")
	got, err = prover.ProvePartition(ctx, mp, asg, prover.WithRandomness(rs))
	require.NoError(t, err)
	gotBytes, _ = got.MarshalBinary()
	require.Equal(t, wantBytes, gotBytes, "mapped parameters on the CPU")
	require.Equal(t, params.HeapBytes(), mp.HeapBytes(), "the CPU decoded the points")
}

// TestMappedParametersBadPoint: a corrupt point inside a section of a mapped file fails the proof
// with a *DecodeError naming its section, index and offset; one that Identity reads fails
// Parameters.
func TestMappedParametersBadPoint(t *testing.T) {
	c := &circuits.Scalable{Constraints: 60, Inputs: 1, Seed: 3}
	shape, params, file, _ := mappedSetup(t, c)
	asg, err := synth.Synthesize(context.Background(), shape, c)
	require.NoError(t, err)
	lStart := params.VK.EncodedSize() + 4 + params.Len(primitive.SectionH)*96 + 4
	require.GreaterOrEqual(t, params.Len(primitive.SectionL), 3)
	for _, tc := range []struct {
		index   int
		atProve bool
	}{{1, true}, {0, false}} {
		bad := bytes.Clone(file)
		at := lStart + tc.index*96
		bad[at+95] ^= 1 // y changes: off the curve
		path := filepath.Join(t.TempDir(), "bad.params")
		require.NoError(t, os.WriteFile(path, bad, 0o644))
		m, err := prover.OpenParametersFile(path, prover.Checked)
		require.NoError(t, err)
		mp, err := m.Parameters()
		if tc.atProve {
			require.NoError(t, err)
			_, err = prover.ProvePartition(context.Background(), mp, asg, prover.WithRandomness(fixedRandomness(1)))
		}
		var de *prover.DecodeError
		require.True(t, errors.As(err, &de), "l[%d]: %v", tc.index, err)
		require.Equal(t, "l", de.Section)
		require.Equal(t, tc.index, de.Index)
		require.Equal(t, int64(at), de.Offset)
		require.NoError(t, m.Close())
	}
}
