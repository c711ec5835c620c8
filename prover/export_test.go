package prover

import (
	"golang.org/x/sync/semaphore"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// NewCPUPrimitives returns the CPU's primitive device, for tests that wrap it.
func NewCPUPrimitives() primitive.Device { return &cpuPrimitives{lock: semaphore.NewWeighted(1)} }
