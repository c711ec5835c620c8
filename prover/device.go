package prover

import (
	"context"

	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// Device is where the heavy arithmetic of a partition's proof runs. A proof goes through three
// phases, so that two workers sharing one device can overlap one's CPU work with the other's
// device work:
//
//	task, err := dev.Prepare(ctx, params, asg, rs) // stage the partition on the device
//	err = dev.Lock(ctx)                             // the device's kernel-only lock
//	err = task.Run(ctx)                             // device work only
//	dev.Unlock()
//	proof, err := task.Finalize(ctx)                // CPU: combine, randomize
//
// NewDevice makes one from a primitive.Device (CPU() is the CPU's; package gpu has CUDA ones).
// Implementations must be safe for concurrent use by several workers.
type Device interface {
	// Name describes the device, e.g. "cpu (16 cores)" or "gpu0 NVIDIA H200".
	Name() string
	// Lock acquires the device's kernel-only lock, honouring ctx. Unlock releases it.
	Lock(ctx context.Context) error
	Unlock()
	// HostBytes is the host memory, in bytes, that one partition of shape holds on this device
	// from Prepare to Release (the assignment itself not counted).
	HostBytes(shape *synth.Shape) int64
	// Prepare stages one partition for the device work; rs gives the proof's blinding scalars r
	// and s. Neither Prepare nor the task's methods modify asg.
	Prepare(ctx context.Context, params *Parameters, asg *synth.Assignment, rs Randomness) (Task, error)
}

// EvaluatesOnDevice reports whether dev computes a partition's A·w, B·w and C·w itself for
// partitions of shape, so that its Prepare accepts an assignment without evaluations
// (synth.SynthesizeWitness; Assignment.HasEvaluations false). Its HostBytes never counts the
// evaluations either way. A Device reports the capability with a method
// EvaluatesOnDevice(*synth.Shape) bool; NewDevice's do when their primitive device is a
// primitive.Evaluator. The CPU's does not.
func EvaluatesOnDevice(dev Device, shape *synth.Shape) bool {
	e, ok := dev.(interface{ EvaluatesOnDevice(*synth.Shape) bool })
	return ok && e.EvaluatesOnDevice(shape)
}

// Preloads reports whether dev can make a job's parameters and shape resident ahead of its
// partitions (Preload). A Device reports the capability with two methods,
// Preloads() bool and Preload(ctx, *Parameters, *synth.Shape) error; NewDevice's do when their
// primitive device is a primitive.Preloader (package gpu's). The CPU's does not: its parameters
// stay where they are until a partition needs them.
func Preloads(dev Device) bool {
	_, ok := preloader(dev)
	return ok
}

// Preload makes params' points, and the matrices of shape when dev evaluates shape itself
// (nothing of the shape when shape is nil), resident on dev ahead of its partitions, so that
// the first partition's Prepare and Run do not upload them (primitive.Preloader). It may run
// concurrently with partitions on dev; one that needs what Preload is uploading waits for it.
// When ctx ends it stops and returns ctx's error. ok is false, and nothing is done, when dev
// cannot preload (Preloads). A preload error leaves nothing half resident: a partition uploads
// again on its own path and reports the error there.
func Preload(ctx context.Context, dev Device, params *Parameters, shape *synth.Shape) (ok bool, err error) {
	p, ok := preloader(dev)
	if !ok {
		return false, nil
	}
	return true, p.Preload(ctx, params, shape)
}

// preloader returns dev's preload methods when it reports the capability.
func preloader(dev Device) (interface {
	Preload(context.Context, *Parameters, *synth.Shape) error
}, bool) {
	p, ok := dev.(interface {
		Preloads() bool
		Preload(context.Context, *Parameters, *synth.Shape) error
	})
	if !ok || !p.Preloads() {
		return nil, false
	}
	return p, true
}

// Task is one partition's proof between Prepare and Finalize.
type Task interface {
	// Run does the device work. The caller holds the device's lock. After Run returns, the
	// task no longer reads the assignment's A·w, B·w and C·w.
	Run(ctx context.Context) error
	// Finalize does the CPU work after the device work and returns the proof.
	Finalize(ctx context.Context) (*Proof, error)
	// Release frees what the task holds; it is safe after Finalize or instead of it.
	Release()
}

// NewDevice returns the Device that proves with Groth16's recipe over p's primitives.
func NewDevice(p primitive.Device) Device { return &groth16Device{p: p} }

// NewDevices returns NewDevice(p) for each of ps, e.g. the GPUs of gpu.ProverDevices.
func NewDevices[P primitive.Device](ps ...P) []Device {
	devs := make([]Device, len(ps))
	for i, p := range ps {
		devs[i] = NewDevice(p)
	}
	return devs
}
