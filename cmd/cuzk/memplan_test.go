package main

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

func TestMemoryPlan(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 5000, Inputs: 2})
	require.NoError(t, err)
	cpu := []prover.Device{prover.CPU()}
	est, _ := engine.EstimatePartitionBytes(shape, cpu...)
	resident := engine.ShapeBytes(shape) + engine.ParametersBytesFor(shape)

	// 4 cores: 2 synthesis workers, 2 device workers and a queue of 4.
	p, err := planMemory(shape, cpu, nil, 2, 0, 4, resident+3*est+est/2, false, false)
	require.NoError(t, err)
	require.Equal(t, 2+4+2, p.inFlight)
	require.Equal(t, 3, p.fits(), "the budget, not the workers, bounds it")
	require.NoError(t, p.check())
	var out bytes.Buffer
	p.print(&out)
	require.Contains(t, out.String(), "× 3 partitions in flight")
	require.Contains(t, out.String(), "workers and queues hold up to 8; the budget allows 3")

	p, err = planMemory(shape, cpu, nil, 2, 1, 4, 1<<40, false, false)
	require.NoError(t, err)
	require.Equal(t, 1+4+2, p.fits(), "the workers bound it")

	p, err = planMemory(shape, cpu, prover.CPU(), 2, 0, 4, resident+est, false, false)
	require.NoError(t, err)
	require.Equal(t, prover.CPU().HostBytes(shape), p.fallback)
	require.Zero(t, p.fits(), "the fallback's workspace is resident")
	err = p.check()
	require.ErrorContains(t, err, "memory plan does not fit")
	require.ErrorContains(t, err, "--cpu-fallback=false")
	require.ErrorContains(t, err, "--random-params")

	// Mapped parameters: only the IC points count on the heap.
	p, err = planMemory(shape, cpu, nil, 2, 0, 4, resident+3*est+est/2, false, true)
	require.NoError(t, err)
	require.Equal(t, 96*int64(shape.NumInputs), p.params)
	require.Less(t, p.params, engine.ParametersBytesFor(shape))
	out.Reset()
	p.print(&out)
	require.Contains(t, out.String(), "the points stay in the file's mapping")

	p, err = planMemory(shape, cpu, nil, 2, 0, 4, 0, false, false)
	require.NoError(t, err)
	require.Positive(t, p.limit.Bytes)
	require.Equal(t, engine.DefaultBudget(p.limit), p.budget)
}

// TestBenchRefusesBeforeSetup: a budget that cannot hold one partition stops the benchmark with
// the plan's error, before any parameters are made.
func TestBenchRefusesBeforeSetup(t *testing.T) {
	err := run(context.Background(), []string{"bench", "--device", "cpu", "--constraints", "20000",
		"--memory-budget", "0.001", "--out", t.TempDir()})
	require.ErrorContains(t, err, "memory plan does not fit")
	require.ErrorContains(t, err, "budget 1.0 MiB")
}

func TestBenchSmall(t *testing.T) {
	out := t.TempDir()
	for _, extra := range [][]string{nil, {"--random-params"}, {"--device-eval"}} {
		args := append([]string{"bench", "--device", "cpu", "--constraints", "300", "--inputs", "2",
			"--jobs", "2", "--partitions", "2", "--out", out}, extra...)
		require.NoError(t, run(context.Background(), args))
		require.FileExists(t, filepath.Join(out, "bench.timeline"))
	}
}

// TestMemSampler: the table has a row per sample, marks the peak of the resident set, and the
// heap profile is written at it.
func TestMemSampler(t *testing.T) {
	m := &memSampler{start: time.Now(), profile: filepath.Join(t.TempDir(), "heap.pprof")}
	m.sample(false)
	for range 3 {
		m.sample(true)
	}
	var out bytes.Buffer
	m.print(&out, 40)
	s := out.String()
	require.Contains(t, s, "host memory at each partition proved (MiB)")
	require.Contains(t, s, "← peak RSS")
	require.Equal(t, 3, m.proved)
	require.Len(t, m.samples, 4)
	for _, smp := range m.samples {
		require.Positive(t, smp.heapInuse)
		require.Positive(t, smp.goHeld)
	}
	if runtime.GOOS == "linux" {
		require.Positive(t, m.samples[0].rss)
		require.FileExists(t, m.profile)
		require.Contains(t, s, "heap profile at the peak RSS")
	}
	// Many samples: at most maxRows rows (+ the peak and the last).
	for range 100 {
		m.sample(true)
	}
	out.Reset()
	m.print(&out, 10)
	require.LessOrEqual(t, strings.Count(out.String(), "\n"), 10+2+5, "rows, the peak, the last, 5 lines of headings and notes")
}

// evaluating is a device that claims to compute A·w, B·w, C·w itself.
type evaluating struct{ prover.Device }

func (evaluating) EvaluatesOnDevice(*synth.Shape) bool { return true }

// TestMemoryPlanDeviceEval: with --device-eval and devices that evaluate, a partition in flight
// is w and the device's host buffers only; on the CPU the flag changes nothing and says so.
func TestMemoryPlanDeviceEval(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 5000, Inputs: 2})
	require.NoError(t, err)
	devs := []prover.Device{evaluating{prover.CPU()}}
	full, evals := engine.EstimatePartitionBytes(shape, devs...)
	p, err := planMemory(shape, devs, nil, 2, 0, 4, 1<<40, true, false)
	require.NoError(t, err)
	require.True(t, p.deviceEval)
	require.Equal(t, full-evals+4*int64(shape.NumInputs+shape.NumAux), p.partition)
	require.Zero(t, p.evals)
	var out bytes.Buffer
	p.print(&out)
	require.Contains(t, out.String(), "A·w, B·w, C·w on the device, --device-eval")
	require.Contains(t, evaluationMode(true, shape, devs), "evaluated on the devices")

	cpu := []prover.Device{prover.CPU()}
	p, err = planMemory(shape, cpu, nil, 2, 0, 4, 1<<40, true, false)
	require.NoError(t, err)
	require.False(t, p.deviceEval)
	require.Equal(t, full, p.partition)
	require.Contains(t, evaluationMode(true, shape, cpu), "ignored")
	require.Contains(t, evaluationMode(false, shape, devs), "evaluated on the host")
}
