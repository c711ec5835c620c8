package prover

import (
	"context"

	"github.com/cuzk-go/cuzk/synth"
)

// Device is where the heavy arithmetic of a partition's proof runs: the CPU, or a GPU through
// package gpu. A proof goes through three phases, so that two workers sharing one device can
// overlap one's CPU work with the other's device work:
//
//	task, err := dev.Prepare(ctx, params, asg, rs) // CPU: classify and stage scalars
//	err = dev.Lock(ctx)                             // the device's kernel-only lock
//	err = task.Run(ctx)                             // device work only
//	dev.Unlock()
//	proof, err := task.Finalize(ctx)                // CPU: combine, randomize
//
// Implementations must be safe for concurrent use by several workers.
type Device interface {
	// Name describes the device, e.g. "cpu" or "gpu0 NVIDIA H200".
	Name() string
	// Lock acquires the device's kernel-only lock, honouring ctx. Unlock releases it.
	Lock(ctx context.Context) error
	Unlock()
	// Prepare does the CPU work that precedes the device work for one partition. rs gives the
	// proof's blinding scalars r and s.
	Prepare(ctx context.Context, params *Parameters, asg *synth.Assignment, rs Randomness) (Task, error)
}

// Task is one partition's proof between Prepare and Finalize.
type Task interface {
	// Run does the device work. The caller holds the device's lock. After Run returns, the
	// assignment's A·w, B·w and C·w are no longer needed.
	Run(ctx context.Context) error
	// Finalize does the CPU work after the device work and returns the proof.
	Finalize(ctx context.Context) (*Proof, error)
	// Release frees what the task holds; it is safe after Finalize or instead of it.
	Release()
}
