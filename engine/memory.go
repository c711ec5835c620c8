package engine

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// DefaultMemoryBudget is the engine's memory budget in bytes when the memory limit cannot be
// read at all (DetectMemoryLimit fails): 8 GiB.
const DefaultMemoryBudget int64 = 8 << 30

// EstimatePartitionBytes estimates the host memory, in bytes, that one partition of shape holds
// from the start of its synthesis to the end of its finalization on the device that costs the
// most of devs, with 32-byte field elements (n = NumRows, |w| = NumInputs + NumAux):
//
//	evaluations = 3·n·32 (A·w, B·w, C·w)
//	total       = evaluations + |w|·32 + max over devs of dev.HostBytes(shape)
//
// The evaluations share is released as soon as the partition's device work ends, the rest after
// its finalization. What all partitions share — the shape and the parameters — is not counted
// here: the engine counts it once as resident (Stats.Resident).
func EstimatePartitionBytes(shape *synth.Shape, devs ...prover.Device) (total, evaluations int64) {
	const el = int64(fr.Bytes)
	evaluations = 3 * int64(shape.NumRows()) * el
	var dev int64
	for _, d := range devs {
		dev = max(dev, d.HostBytes(shape))
	}
	return evaluations + (int64(shape.NumInputs)+int64(shape.NumAux))*el + dev, evaluations
}

// EstimateWitnessPartitionBytes is EstimatePartitionBytes for a partition synthesized
// witness-only, whose devices compute A·w, B·w and C·w themselves (WithDeviceEvaluation):
//
//	total = |w|·32 + |w|·4 + max over devs of dev.HostBytes(shape)
//
// where |w|·4 bounds a compact copy of w a device may make to upload it (package gpu encodes w
// when that takes at most an eighth of its size).
func EstimateWitnessPartitionBytes(shape *synth.Shape, devs ...prover.Device) int64 {
	total, evaluations := EstimatePartitionBytes(shape, devs...)
	return total - evaluations + 4*(int64(shape.NumInputs)+int64(shape.NumAux))
}

// defaultMemoryBudget returns DefaultBudget of the detected memory limit and the limit, or
// DefaultMemoryBudget where no limit can be read.
func defaultMemoryBudget() (int64, MemoryLimit) {
	lim, err := DetectMemoryLimit()
	if err != nil {
		return DefaultMemoryBudget, MemoryLimit{Source: err.Error()}
	}
	return DefaultBudget(lim), lim
}
