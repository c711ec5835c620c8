package enginebackend

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/timeline"
)

// TestUtilization: kernel-lock intervals GPU_START..GPU_END, counted over the window ending now:
// device 0 busy 3 s of the last 10 s (one interval partly before the window), device 1 busy for
// the still-open last 2 s, events of the CPU fallback (device -1) ignored.
func TestUtilization(t *testing.T) {
	u := newUtilization(2, 10*time.Second)
	s := time.Second
	ev := func(k timeline.Kind, dev int, at time.Duration) {
		u.Event(timeline.Event{Kind: k, Device: dev, Offset: at})
	}
	ev(timeline.GPUStart, 0, 8*s)
	ev(timeline.GPUEnd, 0, 12*s) // 2 s inside [10 s, 20 s]
	ev(timeline.GPUPickup, 0, 14*s)
	ev(timeline.GPUStart, 0, 15*s)
	ev(timeline.GPUEnd, 0, 16*s)
	ev(timeline.GPUPickup, 1, 17*s)
	ev(timeline.GPUStart, 1, 18*s)
	ev(timeline.GPUStart, -1, 10*s)
	util, busy := u.snapshotAt(20 * s)
	require.InDelta(t, 0.3, util[0], 1e-9)
	require.InDelta(t, 0.2, util[1], 1e-9)
	require.Equal(t, []bool{true, true}, busy)

	ev(timeline.FinalizeEnd, 0, 20*s)
	ev(timeline.GPUEnd, 1, 21*s)
	util, busy = u.snapshotAt(40 * s)
	require.Equal(t, []float64{0, 0}, util, "all intervals left the window")
	require.Equal(t, []bool{false, true}, busy)
}
