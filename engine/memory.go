package engine

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// DefaultMemoryBudget is the engine's memory budget in bytes when the machine's RAM cannot be
// read from /proc/meminfo: 8 GiB.
const DefaultMemoryBudget int64 = 8 << 30

// memoryBudgetFraction is the share of MemTotal the engine budgets by default.
const memoryBudgetFraction = 0.8

// EstimatePartitionBytes estimates the host memory, in bytes, that one partition of shape holds
// from the start of its synthesis to the end of its finalization on the device that costs the
// most of devs, with 32-byte field elements (n = NumRows, |w| = NumInputs + NumAux):
//
//	evaluations = 3·n·32 (A·w, B·w, C·w)
//	total       = evaluations + |w|·32 + max over devs of dev.HostBytes(shape)
//
// The evaluations share is released as soon as the partition's device work ends, the rest after
// its finalization. Parameters, which all partitions share, are not counted.
func EstimatePartitionBytes(shape *synth.Shape, devs ...prover.Device) (total, evaluations int64) {
	const el = int64(fr.Bytes)
	evaluations = 3 * int64(shape.NumRows()) * el
	var dev int64
	for _, d := range devs {
		dev = max(dev, d.HostBytes(shape))
	}
	return evaluations + (int64(shape.NumInputs)+int64(shape.NumAux))*el + dev, evaluations
}

// defaultMemoryBudget returns 80% of the machine's RAM (MemTotal in /proc/meminfo), or
// DefaultMemoryBudget where that cannot be read.
func defaultMemoryBudget() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return DefaultMemoryBudget
	}
	if kb, ok := parseMemTotal(b); ok {
		return int64(float64(kb) * 1024 * memoryBudgetFraction)
	}
	return DefaultMemoryBudget
}

// parseMemTotal returns the MemTotal line of /proc/meminfo in kB ("MemTotal:  24576000 kB").
func parseMemTotal(b []byte) (kb int64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			v, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || v <= 0 {
				return 0, false
			}
			if len(f) >= 3 && string(f[2]) != "kB" {
				return 0, false
			}
			return v, true
		}
	}
	return 0, false
}
