package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// hostEvaluator is a CPU device that claims to evaluate A·w, B·w, C·w itself: it counts the
// witness-only assignments it gets, evaluates them on the host (a copy) and proves them on the
// CPU; with fail set, its Prepare fails after counting.
type hostEvaluator struct {
	prover.Device
	witnessOnly, full atomic.Int64
	fail              bool
}

func newHostEvaluator() *hostEvaluator { return &hostEvaluator{Device: prover.NewCPUDevice()} }

func (d *hostEvaluator) EvaluatesOnDevice(*synth.Shape) bool { return true }

func (d *hostEvaluator) Prepare(ctx context.Context, params *prover.Parameters, asg *synth.Assignment, rs prover.Randomness) (prover.Task, error) {
	if asg.HasEvaluations() {
		d.full.Add(1)
	} else {
		d.witnessOnly.Add(1)
		cp := *asg
		if err := cp.Evaluate(ctx); err != nil {
			return nil, err
		}
		asg = &cp
	}
	if d.fail {
		return nil, errors.New("device error")
	}
	return d.Device.Prepare(ctx, params, asg, rs)
}

// TestEngineDeviceEvaluation: with WithDeviceEvaluation and a device that evaluates, partitions
// are synthesized witness-only, the estimate leaves the evaluations out, the proofs pass the
// self-check; without the option, or with a device that does not evaluate, they carry their
// evaluations.
func TestEngineDeviceEvaluation(t *testing.T) {
	ctx := testCtx(t)
	job := scalableJob(t, 3)
	full, eval := EstimatePartitionBytes(job.Shape, newHostEvaluator())
	nw, _ := shapeLengths(job.Shape)
	require.Equal(t, full-eval+4*int64(nw), EstimateWitnessPartitionBytes(job.Shape, newHostEvaluator()))
	require.Equal(t, 3*int64(job.Shape.NumRows())*32, eval)

	for _, tc := range []struct {
		name    string
		opt     bool
		devs    func(*hostEvaluator) []prover.Device
		witness bool
	}{
		{"on", true, func(d *hostEvaluator) []prover.Device { return []prover.Device{d} }, true},
		{"off", false, func(d *hostEvaluator) []prover.Device { return []prover.Device{d} }, false},
		{"cpu among devices", true, func(d *hostEvaluator) []prover.Device { return []prover.Device{d, prover.NewCPUDevice()} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := newHostEvaluator()
			devs := tc.devs(dev)
			e := newCheckedEngine(t, WithDevices(devs...), WithDeviceEvaluation(tc.opt))
			h, err := e.Submit(ctx, job)
			require.NoError(t, err)
			st := e.Stats()
			if tc.witness {
				require.Equal(t, EstimateWitnessPartitionBytes(job.Shape, devs...), st.PartitionEstimate)
			} else {
				est, _ := EstimatePartitionBytes(job.Shape, devs...)
				require.Equal(t, est, st.PartitionEstimate)
			}
			res, err := h.Wait(ctx)
			require.NoError(t, err)
			require.Len(t, res.Partitions, 3)
			require.Equal(t, tc.witness, res.Stats.DeviceEvaluation)
			if tc.witness {
				require.Equal(t, int64(3), dev.witnessOnly.Load())
				require.Zero(t, dev.full.Load())
			} else {
				require.Zero(t, dev.witnessOnly.Load())
			}
			require.Zero(t, e.Stats().Reserved)
		})
	}
}

// TestEngineDeviceEvaluationFallback: a witness-only partition whose device fails is synthesized
// again with its evaluations for the CPU fallback, and its proof passes the self-check.
func TestEngineDeviceEvaluationFallback(t *testing.T) {
	ctx := testCtx(t)
	dev := newHostEvaluator()
	dev.fail = true
	e := newCheckedEngine(t, WithDevices(dev), WithFallback(prover.NewCPUDevice()), WithDeviceEvaluation(true))
	job := scalableJob(t, 2)
	h, err := e.Submit(ctx, job)
	require.NoError(t, err)
	res, err := h.Wait(ctx)
	require.NoError(t, err, "the CPU fallback got assignments with evaluations")
	require.Len(t, res.Partitions, 2)
	require.True(t, res.Stats.DeviceEvaluation)
	require.Equal(t, int64(2), dev.witnessOnly.Load())
	require.Zero(t, e.Stats().Reserved)
}

// TestPoolWitnessOnly: a witness-only partition takes and counts only w from the pool.
func TestPoolWitnessOnly(t *testing.T) {
	job := scalableJob(t, 1)
	nw, rows := shapeLengths(job.Shape)
	var p vectorPool
	for _, n := range []int{nw, rows, rows, rows} {
		p.put(make([]fr.Element, n))
	}
	require.Equal(t, int64(nw)*32, p.usable(job.Shape, true))
	require.Equal(t, int64(nw+3*rows)*32, p.usable(job.Shape, false))
	b := p.take(job.Shape, true)
	require.Len(t, b.W, nw)
	require.Nil(t, b.A)
	require.Equal(t, int64(3*rows)*32, p.bytes)
}
