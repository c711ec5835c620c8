package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/internal/atomicfile"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
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
	evals      int64 // of which A·w, B·w, C·w (0 with device evaluation)
	mapped     bool  // the parameters' points stay in their file's mapping: only IC on the heap
	deviceEval bool  // the devices evaluate A·w, B·w, C·w: partitions are synthesized witness-only
	inFlight   int   // most partitions the workers and queues can hold at once
}

// planMemory predicts the benchmark's host memory for shape proved on devs with the given
// engine configuration (synth = 0: the engine's default). budget = 0 takes the engine's default.
// mapped says the parameters will be proved from their file's mapping on GPUs, so that only the
// verifying key's IC points are on the heap (until a CPU proof decodes the others).
func planMemory(shape *synth.Shape, devs []prover.Device, fallback prover.Device, workers, synthConc, gomaxprocs int, budget int64, deviceEval, mapped bool) (memoryPlan, error) {
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
	if mapped {
		p.params, p.mapped = 96*int64(shape.NumInputs), true
	}
	if fallback != nil {
		p.fallback = fallback.HostBytes(shape)
	}
	p.partition, p.evals = engine.EstimatePartitionBytes(shape, devs...)
	if deviceEval && engine.DevicesEvaluate(shape, devs...) {
		p.partition, p.evals, p.deviceEval = engine.EstimateWitnessPartitionBytes(shape, devs...), 0, true
	}
	if synthConc == 0 {
		synthConc = max(1, gomaxprocs/2)
	}
	onDevice := len(devs) * workers
	p.inFlight = synthConc + 2*onDevice + onDevice // synthesizing + the device queue + on devices
	return p, nil
}

// evaluationMode says where a benchmark's A·w, B·w, C·w are computed.
func evaluationMode(deviceEval bool, shape *synth.Shape, devs []prover.Device) string {
	switch {
	case deviceEval && engine.DevicesEvaluate(shape, devs...):
		return "evaluated on the devices (--device-eval): the host holds w only"
	case deviceEval:
		return "evaluated on the host (--device-eval ignored: a device does not evaluate)"
	}
	return "evaluated on the host (--device-eval=false)"
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
	if p.mapped {
		row("parameters", p.params, "IC on the heap; the points stay in the file's mapping (page cache) and go to the GPUs in chunks; a CPU fallback would decode them")
	} else {
		row("parameters", p.params, "points on the heap")
	}
	if p.fallback > 0 {
		row("CPU fallback workspace", p.fallback, "one fallback at a time (--cpu-fallback=false drops it)")
	}
	if p.deviceEval {
		row("per partition in flight", p.partition, "w and the device's host buffers (A·w, B·w, C·w on the device, --device-eval)")
	} else {
		row("per partition in flight", p.partition, fmt.Sprintf("A·w, B·w, C·w %s, w and the device's host buffers %s",
			gibs(p.evals), gibs(p.partition-p.evals)))
	}
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

// memSample is the host memory at one moment of a run, in bytes: the process's resident set
// (VmRSS), the Go heap (runtime.MemStats: HeapInuse, HeapIdle − HeapReleased kept but unused,
// Sys − HeapReleased all the runtime holds from the OS) and the engine's accounting.
type memSample struct {
	at                   time.Duration // since the run started
	proved               int           // partitions proved so far
	rss, rssFile         int64         // VmRSS, and its file-backed part RssFile (mapped files, libraries)
	heapInuse, heapKept  int64
	goHeld               int64 // Sys − HeapReleased
	reserved, pooled     int64
	inFlight, numGC      int
	resident, heapTarget int64
}

// memSampler samples the host memory each time a partition is proved (FINALIZE_END), for the
// table printed after a run, and writes a heap profile at each new peak of the resident set
// when profile is set.
type memSampler struct {
	start   time.Time
	profile string
	eng     atomic.Pointer[engine.Engine]

	mu      sync.Mutex
	proved  int
	peak    int64
	samples []memSample
	err     error // the first error writing the profile
}

// hook returns the timeline hook that samples.
func (m *memSampler) hook() timeline.Hook {
	return timeline.HookFunc(func(ev timeline.Event) {
		if ev.Kind == timeline.FinalizeEnd && !strings.Contains(ev.Detail, "error") {
			m.sample(true)
		}
	})
}

// sample records the memory now; proved counts one more partition.
func (m *memSampler) sample(proved bool) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, _ := procStatus("VmRSS:")
	rssFile, _ := procStatus("RssFile:")
	s := memSample{
		at:         time.Since(m.start),
		rss:        rss,
		rssFile:    rssFile,
		heapInuse:  int64(ms.HeapInuse),
		heapKept:   int64(ms.HeapIdle - ms.HeapReleased),
		goHeld:     int64(ms.Sys - ms.HeapReleased),
		numGC:      int(ms.NumGC),
		heapTarget: int64(ms.NextGC),
	}
	if e := m.eng.Load(); e != nil {
		st := e.Stats()
		s.reserved, s.pooled, s.resident = st.Reserved, st.Pooled, st.Resident
		s.inFlight = st.Synthesizing + st.QueuedDevice + st.OnDevice
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if proved {
		m.proved++
	}
	s.proved = m.proved
	m.samples = append(m.samples, s)
	if rss > m.peak {
		m.peak = rss
		if m.profile != "" && m.err == nil {
			m.err = writeHeapProfile(m.profile)
		}
	}
}

// writeHeapProfile writes the heap profile (as of the last collection) to path atomically.
func writeHeapProfile(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		return pprof.Lookup("heap").WriteTo(w, 0)
	}, atomicfile.Overwrite())
}

// print writes the samples as a table, at most maxRows of them (evenly spaced, the peak of the
// resident set always shown).
func (m *memSampler) print(w io.Writer, maxRows int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.samples) == 0 {
		return
	}
	peak := 0
	for i, s := range m.samples {
		if s.rss > m.samples[peak].rss {
			peak = i
		}
	}
	step := (len(m.samples) + maxRows - 1) / maxRows
	mib := func(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
	fmt.Fprintf(w, "host memory at each partition proved (MiB):\n")
	fmt.Fprintf(w, "  %8s %6s %8s %7s %8s %8s %8s %8s %9s %8s %8s %9s %3s %5s\n",
		"t (s)", "proved", "RSS", "file", "heap use", "kept", "Go held", "other", "resident", "reserved", "pooled", "GC target", "in", "GCs")
	for i, s := range m.samples {
		if i%step != 0 && i != peak && i != len(m.samples)-1 {
			continue
		}
		mark := ""
		if i == peak {
			mark = "  ← peak RSS"
		}
		fmt.Fprintf(w, "  %8.1f %6d %8s %7s %8s %8s %8s %8s %9s %8s %8s %9s %3d %5d%s\n",
			s.at.Seconds(), s.proved, mib(s.rss), mib(s.rssFile), mib(s.heapInuse), mib(s.heapKept), mib(s.goHeld),
			mib(s.rss-s.goHeld), mib(s.resident), mib(s.reserved), mib(s.pooled), mib(s.heapTarget),
			s.inFlight, s.numGC, mark)
	}
	fmt.Fprintf(w, "  file: RssFile (mapped files, libraries); heap use: HeapInuse; kept: HeapIdle − HeapReleased (free, not returned to the OS);\n"+
		"  Go held: Sys − HeapReleased; other: RSS − Go held (cgo and driver memory, mapped files); in: partitions in flight\n")
	if m.profile != "" {
		if m.err != nil {
			fmt.Fprintf(w, "heap profile: %v\n", m.err)
		} else {
			fmt.Fprintf(w, "heap profile at the peak RSS (%s): %s (go tool pprof -sample_index=inuse_space)\n", gibs(m.peak), m.profile)
		}
	}
}
