package engine

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/assemble"
	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// TestEngineMappedParameters: a job whose parameters are mapped from a file proves on the CPU the
// same bytes as a job with the decoded parameters and the same r and s; the mapped parameters
// count only their verifying key until the CPU decodes their points, then as much as decoded
// ones.
func TestEngineMappedParameters(t *testing.T) {
	const parts = 2
	shape, params := setupFor(t, &circuits.Scalable{Constraints: 40, Inputs: 2})
	path := filepath.Join(t.TempDir(), "p.params")
	require.NoError(t, params.WriteParametersFile(path))
	m, err := prover.OpenParametersFile(path, prover.Checked)
	require.NoError(t, err)
	defer m.Close()
	mp, err := m.Parameters()
	require.NoError(t, err)
	vkBytes := int64(len(params.VK.IC)) * g1Bytes
	require.Equal(t, vkBytes, ParametersBytes(mp), "mapped points are page cache")

	spec := func(p *prover.Parameters) *Job {
		return &Job{
			Params:     p,
			Shape:      shape,
			Partitions: parts,
			Circuit: func(i int) (synth.Circuit, error) {
				return &circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 5, Partition: i}, nil
			},
			Randomness: func(i int) (prover.Randomness, error) {
				var rs prover.Randomness
				rs.R.SetUint64(uint64(100 + i))
				rs.S.SetUint64(uint64(200 + i))
				return rs, nil
			},
		}
	}
	var res residentSet
	res.add(&job{spec: *spec(mp)})
	require.Equal(t, vkBytes, res.totals().paramBytes)

	e := newCheckedEngine(t, WithDevices(prover.NewCPUDevice()))
	ctx := testCtx(t)
	var proofs [2][]byte
	for i, p := range []*prover.Parameters{params, mp} {
		h, err := e.Submit(ctx, spec(p))
		require.NoError(t, err)
		r, err := h.Wait(ctx)
		require.NoError(t, err)
		split, err := assemble.Split(r.Proof)
		require.NoError(t, err)
		require.Len(t, split, parts)
		proofs[i] = r.Proof
	}
	require.Equal(t, proofs[0], proofs[1], "mapped and decoded parameters prove the same bytes")
	require.Equal(t, ParametersBytes(params), ParametersBytes(mp), "the CPU decoded the points")
	require.Equal(t, ParametersBytes(params), res.totals().paramBytes, "counted as they are now")
}

// failingDevice is a CPU device whose every Prepare fails, so that each partition goes to the
// fallback.
type failingDevice struct{ prover.Device }

func (failingDevice) Prepare(context.Context, *prover.Parameters, *synth.Assignment, prover.Randomness) (prover.Task, error) {
	return nil, errors.New("device error")
}

// TestEngineFallbackDecodesMappedParameters: a fallback proof decodes mapped parameters only
// when the budget has room for their points; then they count as resident.
func TestEngineFallbackDecodesMappedParameters(t *testing.T) {
	shape, params := setupFor(t, &circuits.Scalable{Constraints: 40, Inputs: 2})
	path := filepath.Join(t.TempDir(), "p.params")
	require.NoError(t, params.WriteParametersFile(path))
	open := func() *prover.Parameters {
		m, err := prover.OpenParametersFile(path, prover.Checked)
		require.NoError(t, err)
		t.Cleanup(func() { m.Close() })
		mp, err := m.Parameters()
		require.NoError(t, err)
		return mp
	}
	need := params.PointBytes()
	require.Equal(t, ParametersBytes(params)-int64(len(params.VK.IC))*g1Bytes, need)

	mp := open()
	small := newTestEngine(t, WithDevices(failingDevice{prover.NewCPUDevice()}), WithFallback(prover.NewCPUDevice()), WithMemoryBudget(need-1))
	small.mu.Lock()
	err := small.fallbackDecodeFitsLocked(&job{spec: Job{Params: mp, Shape: shape}})
	small.mu.Unlock()
	require.ErrorContains(t, err, "would decode the mapped parameters")
	require.ErrorContains(t, err, "memory budget")
	small.mu.Lock()
	require.NoError(t, small.fallbackDecodeFitsLocked(&job{spec: Job{Params: params, Shape: shape}}), "decoded parameters cost nothing more")
	small.mu.Unlock()

	e := newCheckedEngine(t, WithDevices(failingDevice{prover.NewCPUDevice()}), WithFallback(prover.NewCPUDevice()))
	ctx := testCtx(t)
	h, err := e.Submit(ctx, &Job{
		Params: mp, Shape: shape, Partitions: 2,
		Circuit: func(i int) (synth.Circuit, error) {
			return &circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 5, Partition: i}, nil
		},
	})
	require.NoError(t, err)
	_, err = h.Wait(ctx)
	require.NoError(t, err, "the fallback decoded the points and proved")
	require.Equal(t, ParametersBytes(params), ParametersBytes(mp), "now on the heap, and counted")
}
