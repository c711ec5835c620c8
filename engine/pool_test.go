package engine

import (
	"context"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// arrayDevice is a simDevice that records the backing arrays of the vectors it is given.
type arrayDevice struct {
	*simDevice
	mu     sync.Mutex
	arrays map[*fr.Element]bool
	ws     [][2]uintptr // the address ranges of the w vectors
	preps  int
}

func (d *arrayDevice) Prepare(ctx context.Context, params *prover.Parameters, asg *synth.Assignment, rs prover.Randomness) (prover.Task, error) {
	d.mu.Lock()
	for _, v := range [][]fr.Element{asg.W, asg.A, asg.B, asg.C} {
		d.arrays[&v[:1][0]] = true
	}
	d.ws = append(d.ws, [2]uintptr{uintptr(unsafe.Pointer(&asg.W[0])), uintptr(unsafe.Pointer(&asg.W[0])) + uintptr(cap(asg.W))*fr.Bytes})
	d.preps++
	d.mu.Unlock()
	return d.simDevice.Prepare(ctx, params, asg, rs)
}

// TestEnginePoolBoundsAllocations: partitions of one shape reuse the vectors of those proved
// before them, so that the number of distinct A·w, B·w, C·w and w arrays over a job is bounded
// by the partitions in flight, not by the partitions proved; the pool is empty afterwards; the
// result's public inputs hold none of them.
func TestEnginePoolBoundsAllocations(t *testing.T) {
	const parts = 16
	dev := &arrayDevice{simDevice: newSimDevice(0, time.Millisecond, 0), arrays: map[*fr.Element]bool{}}
	// One synthesis, one device worker, a queue of one: at most 3 partitions in flight, so at
	// most 3 sets of 4 vectors, and one more set while a settled partition's w waits in the pool.
	e := newTestEngine(t, WithDevices(dev), WithSynthesisConcurrency(1), WithWorkersPerDevice(1), WithQueueDepth(1))
	ctx := testCtx(t)
	h, err := e.Submit(ctx, simJob(t, 1, parts, 0))
	require.NoError(t, err)
	res, err := h.Wait(ctx)
	require.NoError(t, err)
	for i, in := range res.Inputs {
		require.Equal(t, fr.NewElement(tag(1, i)), in[0], "partition %d's public input after its w was reused", i)
		// A slice of w would keep all of w reachable as long as the result (32 GiB PoRep:
		// 3.9 GiB a partition).
		at := uintptr(unsafe.Pointer(&in[0]))
		for _, w := range dev.ws {
			require.False(t, at >= w[0] && at < w[1], "partition %d's public inputs lie in a w", i)
		}
	}
	require.Equal(t, parts, dev.preps)
	t.Logf("%d distinct arrays for %d partitions × 4 vectors", len(dev.arrays), parts)
	require.LessOrEqual(t, len(dev.arrays), 4*4, "vectors are reused across partitions")
	st := e.Stats()
	require.Zero(t, st.Pooled, "the pool is dropped when no job needs it")
	require.Zero(t, st.Reserved)
}

// TestEnginePoolProofsIdentical: proofs made by the engine, whose partitions reuse pooled
// vectors, equal those made partition by partition with fresh vectors (synth.Synthesize and
// prover.ProvePartition on the CPU) with the same r and s.
func TestEnginePoolProofsIdentical(t *testing.T) {
	const parts = 5
	c := func(i int) *circuits.Scalable {
		return &circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 7, Partition: i}
	}
	shape, params := setupFor(t, c(0))
	rs := func(i int) (prover.Randomness, error) {
		return prover.Randomness{R: fr.NewElement(uint64(11 + i)), S: fr.NewElement(uint64(101 + i))}, nil
	}
	e := newCheckedEngine(t, WithDevices(prover.NewCPUDevice()), WithSynthesisConcurrency(1), WithWorkersPerDevice(1), WithQueueDepth(1))
	ctx := testCtx(t)
	h, err := e.Submit(ctx, &Job{Params: params, Shape: shape, Partitions: parts, Randomness: rs,
		Circuit: func(i int) (synth.Circuit, error) { return c(i), nil }})
	require.NoError(t, err)
	res, err := h.Wait(ctx)
	require.NoError(t, err)
	for i := range parts {
		asg, err := synth.Synthesize(ctx, shape, c(i))
		require.NoError(t, err)
		r, err := rs(i)
		require.NoError(t, err)
		want, err := prover.ProvePartition(ctx, params, asg, prover.WithDevice(prover.NewCPUDevice()), prover.WithRandomness(r))
		require.NoError(t, err)
		require.Equal(t, want.Bytes(), res.Partitions[i].Bytes(), "partition %d", i)
		require.Equal(t, c(i).PublicInputs(), res.Inputs[i], "partition %d", i)
	}
}
