package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// memoryPlan is what a benchmark will hold on the host, predicted before the parameters are
// made: the engine's own accounting (engine.ShapeBytes, engine.ParametersBytesFor,
// engine.EstimatePartitionBytes) against its budget.
type memoryPlan struct {
	limit      engine.MemoryLimit
	budget     int64 // what the engine may count: resident + partitions in flight
	budgetFrom string
	shape      int64
	params     int64
	fallback   int64 // the CPU fallback's workspace, one partition at a time (0 without)
	partition  int64 // per in-flight partition, the devices' share included
	evals      int64 // of which A·w, B·w, C·w
	inFlight   int   // most partitions the workers and queues can hold at once
}

// planMemory predicts the benchmark's host memory for shape proved on devs with the given
// engine configuration (synth = 0: the engine's default). budget = 0 takes the engine's default.
func planMemory(shape *synth.Shape, devs []prover.Device, fallback prover.Device, workers, synthConc, gomaxprocs int, budget int64) (memoryPlan, error) {
	lim, err := engine.DetectMemoryLimit()
	if err != nil && budget == 0 {
		return memoryPlan{}, err
	}
	p := memoryPlan{limit: lim, budget: budget, budgetFrom: "--memory-budget"}
	if budget == 0 {
		p.budget = engine.DefaultBudget(lim)
		p.budgetFrom = fmt.Sprintf("limit − margin %s", gibs(engine.MemoryMargin(lim.Bytes)))
	}
	p.shape = engine.ShapeBytes(shape)
	p.params = engine.ParametersBytesFor(shape)
	if fallback != nil {
		p.fallback = fallback.HostBytes(shape)
	}
	p.partition, p.evals = engine.EstimatePartitionBytes(shape, devs...)
	if synthConc == 0 {
		synthConc = max(1, gomaxprocs/2)
	}
	onDevice := len(devs) * workers
	p.inFlight = synthConc + 2*onDevice + onDevice // synthesizing + the device queue + on devices
	return p, nil
}

// resident is what the jobs share, counted once.
func (p memoryPlan) resident() int64 { return p.shape + p.params + p.fallback }

// fits returns how many partitions the budget lets be in flight at once, at most inFlight.
func (p memoryPlan) fits() int {
	room := p.budget - p.resident()
	if room < p.partition || p.partition <= 0 {
		return 0
	}
	return int(min(int64(p.inFlight), room/p.partition))
}

// print writes the plan as a table.
func (p memoryPlan) print(w io.Writer) {
	fmt.Fprintf(w, "memory plan (host):\n")
	row := func(name string, b int64, note string) {
		fmt.Fprintf(w, "  %-34s %11s  %s\n", name, gibs(b), note)
	}
	row("shape (A, B, C, densities)", p.shape, "")
	row("parameters", p.params, "points on the heap")
	if p.fallback > 0 {
		row("CPU fallback workspace", p.fallback, "one fallback at a time (--cpu-fallback=false drops it)")
	}
	row("per partition in flight", p.partition, fmt.Sprintf("A·w, B·w, C·w %s, w and the device's host buffers %s",
		gibs(p.evals), gibs(p.partition-p.evals)))
	k := p.fits()
	row(fmt.Sprintf("× %d partitions in flight", k), int64(k)*p.partition,
		fmt.Sprintf("workers and queues hold up to %d; the budget allows %d", p.inFlight, k))
	row("total", p.resident()+int64(k)*p.partition, "")
	row("budget", p.budget, p.budgetFrom)
	if p.limit.Bytes > 0 {
		row("memory limit", p.limit.Bytes, p.limit.Source)
	}
}

// check returns an error when not even one partition fits beside what is resident, saying what
// to change.
func (p memoryPlan) check() error {
	if p.fits() >= 1 {
		return nil
	}
	var hints []string
	if p.fallback > 0 {
		hints = append(hints, fmt.Sprintf("--cpu-fallback=false (−%s)", gibs(p.fallback)))
	}
	hints = append(hints, "--random-params (no setup; proofs do not verify)",
		"a smaller circuit (--porep-size, --constraints)", "a machine or cgroup with more memory")
	return fmt.Errorf("memory plan does not fit: resident %s (shape %s, parameters %s, fallback %s) + one partition %s = %s > budget %s; try %s",
		gibs(p.resident()), gibs(p.shape), gibs(p.params), gibs(p.fallback), gibs(p.partition),
		gibs(p.resident()+p.partition), gibs(p.budget), strings.Join(hints, ", "))
}

// gibs formats bytes in GiB, or MiB below 1 GiB.
func gibs(b int64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
}
