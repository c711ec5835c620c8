package prover_test

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// recordingPreloader is a primitive.Preloader over the CPU's primitives that records the SRS
// identity and shape of each Preload call and returns err.
type recordingPreloader struct {
	primitive.Device
	ids    []string
	shapes []*synth.Shape
	err    error
}

func (d *recordingPreloader) Preload(ctx context.Context, srs *primitive.SRS, shape *synth.Shape) error {
	d.ids = append(d.ids, srs.ID)
	d.shapes = append(d.shapes, shape)
	return d.err
}

// evaluatingPreloader is a recordingPreloader that also evaluates shapes on the device.
type evaluatingPreloader struct{ *recordingPreloader }

func (evaluatingPreloader) EvaluatesShape(*synth.Shape) bool { return true }

// TestPreload: prover.Preload does nothing and reports false for a device that cannot preload
// (the CPU's); on a device whose primitives preload it passes the parameters' SRS identity, and
// the shape only when the device evaluates it; it refuses parameters that do not match the shape
// without calling the device, and wraps the device's error.
func TestPreload(t *testing.T) {
	ctx := context.Background()
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 40, Inputs: 2, Seed: 1})
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	params, err := devsetup.InsecureSetup(shape, tw)
	require.NoError(t, err)

	require.False(t, prover.Preloads(prover.CPU()))
	ok, err := prover.Preload(ctx, prover.CPU(), params, shape)
	require.False(t, ok)
	require.NoError(t, err)

	rec := &recordingPreloader{Device: prover.NewCPUPrimitives()}
	dev := prover.NewDevice(rec)
	require.True(t, prover.Preloads(dev))
	ok, err = prover.Preload(ctx, dev, params, shape)
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, []string{params.Identity()}, rec.ids)
	require.Equal(t, []*synth.Shape{nil}, rec.shapes, "the device does not evaluate: no shape")

	ev := evaluatingPreloader{&recordingPreloader{Device: prover.NewCPUPrimitives()}}
	dev = prover.NewDevice(ev)
	for _, s := range []*synth.Shape{shape, nil} {
		ok, err = prover.Preload(ctx, dev, params, s)
		require.True(t, ok)
		require.NoError(t, err)
	}
	require.Equal(t, []*synth.Shape{shape, nil}, ev.shapes)

	other, err := synth.Compile(&circuits.Scalable{Constraints: 90, Inputs: 2, Seed: 1})
	require.NoError(t, err)
	_, err = prover.Preload(ctx, dev, params, other)
	require.Error(t, err)
	require.Len(t, ev.shapes, 2, "mismatched parameters reach no device")

	lost := errors.New("device lost")
	ev.err = lost
	ok, err = prover.Preload(ctx, dev, params, shape)
	require.True(t, ok)
	require.ErrorIs(t, err, lost)
	require.ErrorContains(t, err, "preload on")
}
