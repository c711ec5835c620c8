package gpu

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// cancellingSource cancels an upload's context when the upload reads its first chunk.
type cancellingSource struct {
	primitive.PointSource
	once   sync.Once
	cancel context.CancelFunc
}

func (s *cancellingSource) G1(sec primitive.Section, off int, dst []bls12381.G1Affine) error {
	s.once.Do(s.cancel)
	return s.PointSource.G1(sec, off, dst)
}

func (s *cancellingSource) Encoded(sec primitive.Section, off, n int) ([]byte, error) {
	s.once.Do(s.cancel)
	return s.PointSource.Encoded(sec, off, n)
}

// TestProverDevicePreload: Preload makes the shape and the parameters resident, so that the
// partitions that follow — one of them proved while a second Preload of the same job runs —
// upload neither again and prove as the CPU does; a Preload whose context ends before or during
// the upload (mapped parameters, streamed in small chunks, decoded on the device or on the host)
// returns the context's error and leaves nothing resident.
func TestProverDevicePreload(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	c, shape, params := setupScalable(t, 12, 3)

	pd := NewProverDevice(d)
	defer pd.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := pd.Preload(cancelled, params.SRS(), shape); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled preload: %v", err)
	}
	if pd.ShapeBytes() != 0 || len(pd.srs) != 0 {
		t.Fatalf("cancelled preload left %d bytes of shapes and %d parameter sets resident", pd.ShapeBytes(), len(pd.srs))
	}

	if err := pd.Preload(ctx, params.SRS(), shape); err != nil {
		t.Fatal(err)
	}
	before := pd.Breakdown()
	if pd.ShapeBytes() != int64(shape.Bytes()) || before.SRSUpload <= 0 || before.ShapeUpload <= 0 {
		t.Fatalf("after Preload: %d bytes of shapes (want %d), SRS upload %v, shape upload %v",
			pd.ShapeBytes(), shape.Bytes(), before.SRSUpload, before.ShapeUpload)
	}
	again := make(chan error, 1)
	go func() { again <- pd.Preload(ctx, params.SRS(), shape) }()
	for part := range 2 {
		c.Partition = part
		proveBothWays(t, pd, shape, params, c)
	}
	if err := <-again; err != nil {
		t.Fatal(err)
	}
	after := pd.Breakdown()
	if after.SRSUpload != before.SRSUpload || after.ShapeUpload != before.ShapeUpload {
		t.Fatalf("uploaded again after Preload: SRS %v → %v, shape %v → %v",
			before.SRSUpload, after.SRSUpload, before.ShapeUpload, after.ShapeUpload)
	}

	path := filepath.Join(t.TempDir(), "p.params")
	if err := params.WriteParametersFile(path); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []prover.DecodeMode{prover.Unchecked, prover.Checked} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			mp := openMapped(t, path, mode)
			pd := NewProverDevice(d)
			defer pd.Close()
			pd.streamChunk = 96 * 64
			uctx, cancel := context.WithCancel(ctx)
			defer cancel()
			srs := mp.SRS()
			srs.Source = &cancellingSource{PointSource: srs.Source, cancel: cancel}
			if err := pd.Preload(uctx, srs, nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("preload cancelled during the upload: %v", err)
			}
			if len(pd.srs) != 0 {
				t.Fatal("a cancelled upload stayed resident")
			}
			c.Partition = 0
			asg, err := synth.Synthesize(ctx, shape, c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := prover.ProvePartition(ctx, mp, asg, prover.WithDevice(prover.NewDevice(pd))); err != nil {
				t.Fatalf("proving after a cancelled preload: %v", err)
			}
		})
	}
}
