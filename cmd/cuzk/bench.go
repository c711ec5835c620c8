package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/internal/progress"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

func runBench(ctx context.Context, args []string) error {
	fs := newFlagSet("bench", "[flags]", "Run the proving engine on jobs of a built-in circuit over INSECURE development parameters;\nreport throughput and utilization and write the timeline to --out.")
	var cf circuitFlags
	cf.register(fs, 1<<16-64)
	jobs := fs.Int("jobs", 3, "number of jobs (multi-partition proofs)")
	partitions := fs.Int("partitions", 10, "partitions per job")
	workersFlag := fs.String("workers", "2", "device workers per device; a comma-separated list (2,1) runs one benchmark per value after a single setup")
	synthConc := fs.Int("synth", 0, "partitions synthesized at once (0: the engine's default)")
	deviceFlag := fs.String("device", "auto", "where to prove: auto (GPU when available, else CPU), cpu, or gpu")
	gpusFlag := fs.String("gpus", "0", "use at most this many GPUs (0: all); a list like --workers")
	cpuFallback := fs.Bool("cpu-fallback", true, "prove a partition on the CPU when its GPU fails, instead of failing its job")
	outDir := fs.String("out", "out", "directory for bench.timeline, bench.trace.json and bench.svg (one subdirectory per run when there are several)")
	width := fs.Int("width", timeline.DefaultWaterfallWidth, "waterfall width in columns")
	randomParams := fs.Bool("random-params", false, "random points instead of an INSECURE setup: no setup time, but the proofs do not verify (and are not checked)")
	deviceEval := fs.Bool("device-eval", true, "compute A·w, B·w, C·w on the GPUs from the shape's matrices kept there, so the host holds only w per partition (GPU devices only; --device-eval=false computes them on the host)")
	memProfile := fs.String("memprofile", "", "write a heap profile (pprof) to this file at each new peak of the resident set")
	paramsFile := fs.String("params-file", "", "keep the INSECURE parameters in this file: reused when it exists and fits the circuit (an error when it does not), else written there by a streamed setup that holds one chunk of points at a time, then loaded")
	foldC := fs.String("fold-c", "off", "fold the parameters before proving (C's share of H's MSM into L, H on the quotient's coset), so that a partition needs two transforms less and no C·w: on (prover.FoldC, its two transforms over H's points on the first GPU, else on the CPU: seconds at 2^16 constraints, hours at a 32 GiB PoRep partition; parameters from --params-file are decoded onto the heap first), random (random points stand for the inputs' share and for K, H on the coset, with any parameters, L kept as it is; over --params-file K is held on the heap, 12 GiB at a 32 GiB PoRep partition: timing only, the proofs do not verify and are not checked) or off")
	foldedFile := fs.String("folded-params-file", "", "with --fold-c on, keep the fold in this file: reused when it exists and fits the circuit (an error when it does not), else folded and written there; over --params-file a fold overlay (L' and K, beside the parameters file), else a folded parameters file")
	var tables tableFlags
	tables.register(fs)
	budgetGiB := fs.Float64("memory-budget", 0, "the engine's host memory budget in GiB (0: the cgroup limit or the RAM, less a margin)")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *budgetGiB < 0 {
		return &usageError{fmt.Errorf("bench: --memory-budget must be ≥ 0")}
	}
	if *paramsFile != "" && *randomParams {
		return usagef("bench: --params-file and --random-params exclude each other")
	}
	switch *foldC {
	case "off", "on", "random":
	default:
		return usagef("bench: --fold-c %q: want off, on or random", *foldC)
	}
	if *foldedFile != "" && *foldC != "on" {
		return usagef("bench: --folded-params-file needs --fold-c on")
	}
	budget := int64(*budgetGiB * (1 << 30))
	if err := errors.Join(checkRange("jobs", *jobs, 1, maxBenchJobs), checkRange("partitions", *partitions, 1, engine.MaxPartitions),
		checkRange("synth", *synthConc, 0, engine.MaxSynthesisConcurrency), checkRange("width", *width, 1, timeline.MaxWaterfallWidth), cf.validate(), checkDeviceName(*deviceFlag), tables.check(*deviceFlag)); err != nil {
		return &usageError{err}
	}
	workers, err := parseCounts("workers", *workersFlag, 1, engine.MaxWorkersPerDevice)
	if err != nil {
		return err
	}
	gpus, err := parseCounts("gpus", *gpusFlag, 0, engine.MaxDevices)
	if err != nil {
		return err
	}
	all, gpuDevs, err := selectDevices(*deviceFlag, &tables)
	if err != nil {
		return err
	}
	defer closeAll(gpuDevs)

	// The circuit's shape, then the memory plan: refused before the setup, which at real size
	// takes hours, when it cannot fit.
	start := time.Now()
	shape, err := compileWithProgress(&cf)
	if err != nil {
		return err
	}
	fmt.Printf("circuit %s: %d rows, domain 2^%d; compiled in %s\n",
		cf.describe(), shape.NumRows(), log2(shape.DomainSize()), time.Since(start).Round(time.Millisecond))
	var fallback prover.Device
	if *cpuFallback && all[0] != prover.CPU() {
		fallback = prover.CPU()
	}
	plan, err := planMemory(shape, all, fallback, slices.Max(workers), *synthConc, runtime.GOMAXPROCS(0), budget, *deviceEval, *paramsFile != "" && len(gpuDevs) > 0)
	if err != nil {
		return err
	}
	plan.print(os.Stdout)
	if err := plan.check(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The Go heap grows past the live data between collections (to 2× by default): a soft
		// limit at the budget makes the collector work harder instead of the process being killed.
		debug.SetMemoryLimit(plan.budget)
	}

	// Parameters: INSECURE development parameters (in memory, or through --params-file), or
	// random points.
	start = time.Now()
	stages := progress.NewStages(os.Stderr, progress.WithUnit("points"))
	setupOpts := []devsetup.Option{devsetup.WithProgress(stages.Report)}
	if len(gpuDevs) > 0 {
		setupOpts = append(setupOpts, devsetup.WithFixedBase(gpuDevs[0].Device())) // the points on the first GPU
	}
	var params *prover.Parameters
	kind := "INSECURE dev setup"
	switch {
	case *paramsFile != "":
		made, err := ensureParamsFile(*paramsFile, shape, setupOpts...)
		stages.Done()
		if err != nil {
			return err
		}
		if made {
			fmt.Printf("INSECURE dev setup written to %s in %s\n", *paramsFile, time.Since(start).Round(time.Millisecond))
			debug.FreeOSMemory() // the setup's scalars, before the points are loaded
		} else {
			fmt.Printf("reusing the parameters in %s\n", *paramsFile)
		}
		start = time.Now()
		var closer io.Closer
		if params, closer, err = loadBenchParams(*paramsFile); err != nil {
			return fmt.Errorf("bench: --params-file: %w", err)
		}
		defer closer.Close()
		kind = "parameters loaded"
	case *randomParams:
		params = devsetup.RandomParameters(shape, cf.seed, devsetup.WithProgress(stages.Report))
		stages.Done()
		kind = "random parameters (proofs will not verify)"
	default:
		tw, err := devsetup.NewToxicWaste(rand.Reader)
		if err != nil {
			return err
		}
		if params, err = devsetup.InsecureSetup(shape, tw, setupOpts...); err != nil {
			return err
		}
		stages.Done()
		// The setup's scalars are garbage now; give their pages back before the run.
		debug.FreeOSMemory()
	}
	fmt.Printf("%s in %s: %s of points\n", kind, time.Since(start).Round(time.Millisecond), gibs(engine.ParametersBytes(params)))
	switch *foldC {
	case "random":
		if params, err = devsetup.RandomFold(params, shape, cf.seed); err != nil {
			return fmt.Errorf("bench: --fold-c random: %w", err)
		}
		// The points made for K are garbage once encoded (12 GiB at a PoRep partition, which the
		// collector would otherwise keep while the live heap is large); give them back now.
		debug.FreeOSMemory()
		fmt.Println("random points stand for the folded parameters: the proofs will not verify (and are not checked)")
	case "on":
		start = time.Now()
		foldStages := progress.NewStages(os.Stderr)
		opts := []prover.FoldOption{prover.FoldWithProgress(foldStages.Report)}
		if len(gpuDevs) > 0 { // the transforms over H's points on the first GPU
			opts = append(opts, prover.FoldWithDFT(gpuDevs[0].Device().G1DFT))
		}
		folded, closer, made, err := foldBenchParams(ctx, params, shape, *foldedFile, opts...)
		foldStages.Done()
		if err != nil {
			return err
		}
		if closer != nil {
			defer closer.Close()
		}
		params = folded
		switch {
		case !made:
			fmt.Printf("reusing the folded parameters in %s\n", *foldedFile)
		case *foldedFile != "":
			fmt.Printf("parameters folded in %s, written to %s\n", time.Since(start).Round(time.Millisecond), *foldedFile)
		default:
			fmt.Printf("parameters folded in %s\n", time.Since(start).Round(time.Millisecond))
		}
	}

	several := len(workers)*len(gpus) > 1
	for _, g := range gpus {
		devs := all
		if g > 0 && len(devs) > g {
			devs = devs[:g]
		}
		for _, w := range workers {
			run := benchRun{cf: &cf, shape: shape, params: params, devs: devs, workers: w, jobs: *jobs,
				partitions: *partitions, synth: *synthConc, cpuFallback: *cpuFallback, out: *outDir, width: *width,
				budget: budget, noVerify: *randomParams || *foldC == "random", plan: plan, memProfile: *memProfile, deviceEval: *deviceEval}
			if several {
				run.out = filepath.Join(*outDir, fmt.Sprintf("gpus%d-w%d", len(devs), w))
			}
			before := breakdowns(gpuDevs)
			if err := run.do(ctx); err != nil {
				return err
			}
			printDevice(gpuDevs, before)
			// The next run starts as this one did: parameters not yet on the devices.
			for _, d := range gpuDevs {
				if err := d.Evict(ctx, params.Identity()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// breakdowns returns each GPU's device time so far, by stage.
func breakdowns(gpus []*gpu.ProverDevice) []gpu.Breakdown {
	out := make([]gpu.Breakdown, len(gpus))
	for i, g := range gpus {
		out[i] = g.Breakdown()
	}
	return out
}

// printDevice prints, per GPU, what a run spent on it: the uploads of parameters and shapes
// (the engine preloads them while the first partitions synthesize), then each partition's mean
// device time by stage — under the kernel lock the quotient's six NTTs (with the product on the
// coset and h's coefficients on their passes; "pointwise" counts those steps only where the
// quotient runs as steps) and the five MSMs; outside it the staging and the evaluation of A·w, B·w, C·w. The breakdown
// now less before; then the tables the device keeps on its own.
func printDevice(gpus []*gpu.ProverDevice, before []gpu.Breakdown) {
	for i, g := range gpus {
		b, a := g.Breakdown(), before[i]
		fmt.Printf("%s: parameters uploaded in %s, shape matrices in %s\n", g.Name(),
			(b.SRSUpload - a.SRSUpload).Round(time.Millisecond), (b.ShapeUpload - a.ShapeUpload).Round(time.Millisecond))
		n := b.Partitions - a.Partitions
		if n == 0 {
			continue
		}
		ms := func(now, was time.Duration) string {
			return fmt.Sprintf("%.1f", float64(now-was)/float64(time.Millisecond)/float64(n))
		}
		fmt.Printf("%s: per partition (mean of %d), ms: under the lock %s = NTTs %s + pointwise %s + MSM H %s, A %s, B_G1 %s, L %s, B_G2 %s; outside it staging %s, evaluation %s\n",
			g.Name(), n, ms(b.Locked(), a.Locked()), ms(b.NTT, a.NTT), ms(b.Pointwise, a.Pointwise), ms(b.MSMH, a.MSMH),
			ms(b.MSMA, a.MSMA), ms(b.MSMB1, a.MSMB1), ms(b.MSML, a.MSML), ms(b.MSMB2, a.MSMB2), ms(b.Upload, a.Upload),
			ms(b.Evaluate, a.Evaluate))
		if t := b.ShiftTables - a.ShiftTables; t > 0 {
			fmt.Printf("%s: H shift tables built under the lock: %d in %s (not counted above)\n", g.Name(), t,
				(b.ShiftTableBuild - a.ShiftTableBuild).Round(time.Millisecond))
		}
		if t := g.NTTTableBytes(); t > 0 {
			fmt.Printf("%s: NTT table kept on the device: %.2f GiB\n", g.Name(), float64(t)/(1<<30))
		}
	}
}

// parseCounts reads a comma-separated list of integers in [min, max].
func parseCounts(name, list string, min, max int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < min || v > max {
			return nil, usagef("bench: --%s: %q is not a list of integers from %d to %d", name, list, min, max)
		}
		out = append(out, v)
	}
	return out, nil
}

// benchRun is one engine configuration of `cuzk bench`, run over the shared parameters.
type benchRun struct {
	cf                *circuitFlags
	shape             *synth.Shape
	params            *prover.Parameters
	devs              []prover.Device
	workers, jobs     int
	partitions, synth int
	cpuFallback       bool
	out               string
	width             int
	budget            int64 // 0: the engine's default
	noVerify          bool  // random parameters: the proofs cannot verify
	plan              memoryPlan
	memProfile        string // heap profile at the peak RSS ("" none)
	deviceEval        bool   // --device-eval
}

func (b *benchRun) do(ctx context.Context) error {
	if err := os.MkdirAll(b.out, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(b.out, "bench.timeline")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	var rec timeline.Recorder
	lines := timeline.NewLineWriter(logFile)
	total := b.jobs * b.partitions
	// The public inputs, to verify the proofs with: building each job's instance (a PoRep
	// sector) can take a while, so it is done, with its progress, before the timed run.
	inputs := make([][][]fr.Element, b.jobs)
	jfs := make([]*circuitFlags, b.jobs)
	inBar := progress.New(os.Stderr, "public inputs", int64(total), progress.WithUnit("partitions"))
	for j := range inputs {
		jfs[j] = b.cf.withSeed(b.cf.seed + uint64(j)*1_000_003)
		inputs[j] = make([][]fr.Element, b.partitions)
		for p := range inputs[j] {
			_, in, err := jfs[j].instance(p)
			if err != nil {
				return err
			}
			inputs[j][p] = in
			inBar.Add(1)
		}
	}
	inBar.Done()
	bar := progress.New(os.Stderr, "partitions proved", int64(total), progress.WithUnit("partitions"))
	mem := &memSampler{profile: b.memProfile}
	opts := []engine.Option{
		engine.WithDevices(b.devs...),
		engine.WithWorkersPerDevice(b.workers),
		engine.WithTimeline(timeline.Multi(&rec, lines, partitionCounter(bar), mem.hook())),
		// Every proof is verified after the timed run (below), so the engine's own check
		// would only add to the measured work.
		engine.WithoutSelfCheck(),
	}
	if b.cpuFallback && b.devs[0] != prover.CPU() {
		opts = append(opts, engine.WithFallback(prover.CPU()))
	}
	if b.synth > 0 {
		opts = append(opts, engine.WithSynthesisConcurrency(b.synth))
	}
	if b.budget > 0 {
		opts = append(opts, engine.WithMemoryBudget(b.budget))
	}
	opts = append(opts, engine.WithDeviceEvaluation(b.deviceEval))

	eng, err := engine.New(opts...)
	if err != nil {
		return err
	}
	names := make([]string, len(b.devs))
	for i, d := range b.devs {
		names[i] = d.Name()
	}
	fmt.Printf("\n== engine: %s, %d workers per device, %d jobs × %d partitions\n",
		strings.Join(names, ", "), b.workers, b.jobs, b.partitions)
	fmt.Printf("A·w, B·w, C·w: %s\n", evaluationMode(b.deviceEval, b.shape, b.devs))
	rssStart, _ := procStatus("VmRSS:")
	resetPeakRSS()

	benchStart := time.Now()
	mem.start = benchStart
	mem.eng.Store(eng)
	mem.sample(false)
	handles := make([]*engine.Handle, b.jobs)
	for j := range handles {
		jf := jfs[j]
		handles[j], err = eng.Submit(ctx, &engine.Job{
			Params:     b.params,
			Shape:      b.shape,
			Partitions: b.partitions,
			Circuit: func(p int) (synth.Circuit, error) {
				c, _, err := jf.instance(p)
				return c, err
			},
		})
		if err != nil {
			return err
		}
	}
	results := make([]*engine.Result, b.jobs)
	for j, h := range handles {
		if results[j], err = h.Wait(ctx); err != nil {
			bar.Done()
			eng.Close(context.Background())
			return err
		}
	}
	elapsed := time.Since(benchStart)
	bar.Done()
	st := eng.Stats()
	fmt.Printf("engine: budget %s, peak reserved %s beside the resident shape and parameters\n", gibs(st.Budget), gibs(st.PeakReserved))
	if err := eng.Close(ctx); err != nil {
		return err
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("write %s: %w", logPath, err)
	}

	// Every proof must verify: a fast wrong prover is no prover.
	verified := "all verified"
	if b.noVerify {
		verified = "NOT verified (random parameters)"
	} else {
		pvk, err := prover.PrepareVerifyingKey(&b.params.VK)
		if err != nil {
			return err
		}
		for j, r := range results {
			if err := prover.VerifyBatch(pvk, r.Partitions, inputs[j]); err != nil {
				return fmt.Errorf("job %d: proofs do not verify: %w", j, err)
			}
		}
	}

	fmt.Printf("\n%d proofs (%d partitions) in %s, %s\n", b.jobs, total, elapsed.Round(time.Millisecond), verified)
	fmt.Printf("throughput: %.3f s/proof, %.2f proofs/min, %.3f s/partition\n",
		elapsed.Seconds()/float64(b.jobs), float64(b.jobs)/elapsed.Minutes(), elapsed.Seconds()/float64(total))
	if rss, ok := peakRSS(); ok {
		fmt.Printf("peak host RSS: %.2f GiB\n", float64(rss)/(1<<30))
		printMeasuredMemory(rss, rssStart, st.PeakReserved, b.plan.partition)
	}
	mem.print(os.Stdout, 40)
	fmt.Println()
	return reportTimeline(rec.Events(), b.width, false,
		filepath.Join(b.out, "bench.trace.json"), filepath.Join(b.out, "bench.svg"))
}

// selectDevices returns the devices named by the --device flag: every GPU for "gpu", every GPU
// or else the CPU for "auto", the CPU for "cpu"; tables says which tables the GPUs keep (H's
// shift table, gpu.ProverDevice.SetShiftTableH; the pair tables, SetPairTables), and their
// decisions on them are logged to standard output.
//
// The GPUs are returned twice: as prover devices, and as the closable devices holding their
// memory, which the caller closes.
func selectDevices(which string, tables *tableFlags) ([]prover.Device, []*gpu.ProverDevice, error) {
	switch which {
	case "cpu":
		return []prover.Device{prover.CPU()}, nil, nil
	case "auto", "gpu":
		gpus, err := gpu.ProverDevices()
		if err == nil {
			for _, g := range gpus {
				tables.apply(g)
				g.SetLogger(slog.New(slog.NewTextHandler(os.Stdout, nil)))
			}
			return prover.NewDevices(gpus...), gpus, nil
		}
		if which == "gpu" || !(errors.Is(err, gpu.ErrNotLoaded) || errors.Is(err, gpu.ErrNoDevice)) {
			return nil, nil, err
		}
		fmt.Printf("no GPU (%v): proving on the CPU\n", err)
		return []prover.Device{prover.CPU()}, nil, nil
	default:
		return nil, nil, fmt.Errorf("unknown device %q (want auto, cpu or gpu)", which)
	}
}

// closeAll frees the GPUs' memory.
func closeAll(gpus []*gpu.ProverDevice) {
	for _, g := range gpus {
		if err := g.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "close %s: %v\n", g.Name(), err)
		}
	}
}

// resetPeakRSS starts a new peak for peakRSS (Linux: 5 written to /proc/self/clear_refs), so that
// each run of a sweep reports its own; elsewhere it does nothing.
func resetPeakRSS() {
	if runtime.GOOS == "linux" {
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	}
}

// peakRSS returns the process's peak resident set size in bytes (Linux: VmHWM).
func peakRSS() (int64, bool) { return procStatus("VmHWM:") }

// procStatus returns a "… kB" field of /proc/self/status in bytes (Linux only).
func procStatus(field string) (int64, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10, true
				}
			}
		}
	}
	return 0, false
}

// partitionCounter is a timeline hook that counts each partition proved (its FINALIZE_END
// without error) on bar.
func partitionCounter(bar *progress.Reporter) timeline.Hook {
	var proved atomic.Int64
	return timeline.HookFunc(func(ev timeline.Event) {
		if ev.Kind == timeline.FinalizeEnd && !strings.Contains(ev.Detail, "error") {
			bar.Set(proved.Add(1))
		}
	})
}

// printMeasuredMemory compares the run's measured host memory with the engine's accounting:
// the RSS the run added at its peak, shared among the partitions of est bytes that the engine's
// peak reservation held (peakReserved / est of them).
func printMeasuredMemory(peak, atStart, peakReserved, est int64) {
	if atStart <= 0 || est <= 0 || peakReserved <= 0 {
		return
	}
	k := float64(peakReserved) / float64(est)
	fmt.Printf("measured: RSS %s before the run, %s at its peak (+%s) with up to %.1f partitions reserved: %s per in-flight partition (estimated %s)\n",
		gibs(atStart), gibs(peak), gibs(peak-atStart), k, gibs(int64(float64(peak-atStart)/k)), gibs(est))
}

// compileWithProgress builds and compiles the circuit, showing the elapsed time: synth.Compile
// reports no progress of its own.
func compileWithProgress(cf *circuitFlags) (*synth.Shape, error) {
	r := progress.New(os.Stderr, "compile "+cf.describe(), 0)
	stop := r.Heartbeat(time.Second)
	shape, err := cf.compile()
	stop()
	r.Done()
	return shape, err
}
