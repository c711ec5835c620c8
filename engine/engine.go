package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sync/semaphore"

	"github.com/cuzk-go/cuzk/assemble"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
	"github.com/cuzk-go/cuzk/timeline"
)

// Engine proves jobs of many partitions on a set of devices, partition by partition:
//
//	Submit ─► synthesis queue ─► synthesis workers (CPU) ─► device queue ─► device workers
//	          (priority, job, partition)                     (same order)   per device: prepare ·
//	                                                                        lock · run · unlock ·
//	                                                                        finalize ─► assembler
//
// Each device has several workers (two by default) sharing the device's kernel-only lock, so that
// one worker's CPU preparation and finalization hide under another's device work. Both queues
// order partitions by (Job.Priority, job sequence, partition index), so the oldest job of the most
// urgent priority finishes first.
//
// Memory is bounded: what the active jobs share is counted as resident — each distinct shape
// (ShapeBytes) and parameter set (ParametersBytes) once, and with a fallback device the host
// workspace of one fallback proof, fallbacks running one at a time — and a partition's estimated
// bytes (EstimatePartitionBytes over the devices) are reserved before its synthesis starts, the
// evaluations share released as soon as its device work ends and the rest after its
// finalization (with WithDeviceEvaluation, a witness-only partition reserves
// EstimateWitnessPartitionBytes and holds no evaluations). The vectors of a proved partition
// (A·w, B·w, C·w, w; w alone when witness-only) are pooled for the
// partitions waiting for synthesis rather than left to the garbage collector, and counted while
// pooled. A synthesis starts only if resident + reserved + pooled + its reservation, less the
// pooled vectors it takes, fits the budget. At most the queue depth of synthesized partitions
// wait for a device worker.
//
// At Submit, each device that can preload (prover.Preloads: package gpu's) starts uploading the
// job's parameters — and its shape, when the device evaluates it for the job — while the job's
// first partitions synthesize, so that the first device region does not wait for them. The job
// finishes only once these uploads have returned (its parameters may be mapped from a file its
// caller closes afterwards); a preload error is logged, not the job's: the partitions meet it
// again on their own path. Synthesis ramps up from idle (WithSynthesisConcurrency).
//
// A failure (error or panic) in one partition fails its job with that error; the job's other
// partitions are dropped before synthesis or device work and other jobs go on. Cancelling the
// context given to Submit does the same.
//
// With WithTimeline, every partition emits SYNTH_START, SYNTH_END, CHAN_SEND (queued for a
// device), then on its device worker GPU_PICKUP, LOCK_WAIT (preparation done), GPU_START,
// GPU_END, FINALIZE_START, FINALIZE_END, and every job one JOB_DONE (Detail "ok" or
// "error: …"). Offsets are monotonic time since the engine's Clock epoch. GPU_START is emitted
// right after the device's lock is acquired and GPU_END right after Task.Run returns, before the
// lock is released: they bracket the kernel-lock region, device work only. A partition that
// fails or is dropped may leave its last stage open (a CHAN_SEND without GPU_PICKUP when it is
// dropped from the device queue, a LOCK_WAIT without GPU_START when its lock wait is
// abandoned); an end event of a failed stage carries "error: …" in its Detail.
//
// All methods are safe for concurrent use.
type Engine struct {
	cfg   config
	clock timeline.Clock
	hook  timeline.Hook // nil: recording off
	log   *slog.Logger
	wg    sync.WaitGroup

	mu           sync.Mutex
	cond         *sync.Cond // signalled on every change workers wait for
	nextID       uint64
	jobs         map[uint64]*job
	closed       bool          // no new jobs
	stopped      bool          // workers exit
	idle         chan struct{} // closed when the last active job finishes (Close waits on it)
	synthQ       partQueue
	devQ         partQueue
	handoff      partQueue         // synthesized partitions waiting for room in devQ, in dispatch order
	inStage      [stageSettled]int // partitions per stage, settled ones not counted
	synthLimit   int               // syntheses allowed at once now: the cold-start ramp (coldSynthLimit)
	preloading   int               // preloads in flight; the ramp holds while any is
	reserved     int64
	peakReserved int64
	resident     residentSet         // shapes and parameters of the active jobs
	pool         vectorPool          // vectors of proved partitions, for the next syntheses
	fallbackLock *semaphore.Weighted // one fallback proof at a time
	peakQueued   int
	jobsDone     uint64
	jobsFailed   uint64
}

// ErrClosed is returned by Submit after Close, and by Handle.Wait (wrapped) for jobs that Close
// cancelled.
var ErrClosed = errors.New("engine: engine closed")

// ErrMemoryBudget is wrapped by the error Submit returns when one partition's estimated memory
// exceeds the engine's whole budget, so that the job could never run.
var ErrMemoryBudget = errors.New("engine: partition exceeds the engine's memory budget")

// ErrPanicked is wrapped by the error of a job whose circuit construction, preparation, device
// work or finalization panicked. (A panic inside a circuit's Synthesize is reported by synth as
// synth.ErrCircuitPanic.)
var ErrPanicked = errors.New("engine: panic")

// Bounds on the counts a caller gives the engine, checked where they enter (Submit and the
// options), so that a wrong count is an error rather than an allocation that exhausts memory.
const (
	MaxPartitions           = 1 << 16 // partitions of one job
	MaxWorkersPerDevice     = 64
	MaxSynthesisConcurrency = 1 << 12
	MaxQueueDepth           = 1 << 16
	MaxDevices              = 1 << 10
)

// Option configures New.
type Option func(*config) error

type config struct {
	devices          []prover.Device
	workersPerDevice int
	synthConcurrency int
	budget           int64
	limit            MemoryLimit
	queueDepth       int
	hook             timeline.Hook
	log              *slog.Logger
	fallback         prover.Device
	noSelfCheck      bool
	deviceEval       bool
}

// WithDevices sets the devices the engine proves on (default: CPU()). The index of a device in
// devs is its index in the timeline.
func WithDevices(devs ...prover.Device) Option {
	return func(c *config) error {
		if len(devs) == 0 || len(devs) > MaxDevices {
			return fmt.Errorf("engine: WithDevices: %d devices, want 1 to %d", len(devs), MaxDevices)
		}
		for i, d := range devs {
			if d == nil {
				return fmt.Errorf("engine: WithDevices: device %d is nil", i)
			}
		}
		c.devices = append([]prover.Device(nil), devs...)
		return nil
	}
}

// WithWorkersPerDevice sets the number of workers per device (default 2): while one holds the
// device's kernel lock, the others prepare or finalize on the CPU.
func WithWorkersPerDevice(n int) Option {
	return func(c *config) error {
		if n < 1 || n > MaxWorkersPerDevice {
			return fmt.Errorf("engine: WithWorkersPerDevice: %d workers, want 1 to %d", n, MaxWorkersPerDevice)
		}
		c.workersPerDevice = n
		return nil
	}
}

// WithSynthesisConcurrency sets how many partitions are synthesized at once (default
// max(1, GOMAXPROCS/2); each synthesis is itself parallel).
//
// From idle (no job in flight) the engine ramps up to n: at first at most devices × workers per
// device partitions synthesize at once (never more than n), and one more is allowed each time a
// synthesis completes, until n; it holds while a job's parameters or shape are being uploaded
// to a device (the devices cannot start before, and the upload needs the host too). A synthesis
// is parallel itself, so many started together share the cores and all finish late while the
// devices wait for their first partitions; started a few at a time, the first ones reach the
// devices early. The ramp starts again each time the engine goes idle; small circuits leave it
// after their first syntheses.
func WithSynthesisConcurrency(n int) Option {
	return func(c *config) error {
		if n < 1 || n > MaxSynthesisConcurrency {
			return fmt.Errorf("engine: WithSynthesisConcurrency: %d, want 1 to %d", n, MaxSynthesisConcurrency)
		}
		c.synthConcurrency = n
		return nil
	}
}

// WithMemoryBudget sets the memory budget in bytes: the host memory the engine may count, the
// active jobs' shapes and parameters (resident) and the partitions in flight together. The
// default is DefaultBudget(DetectMemoryLimit()): the cgroup's memory limit, or the machine's RAM,
// less a margin; DefaultMemoryBudget where neither can be read.
func WithMemoryBudget(bytes int64) Option {
	return func(c *config) error {
		if bytes < 1 {
			return fmt.Errorf("engine: WithMemoryBudget: %d bytes, want ≥ 1", bytes)
		}
		c.budget = bytes
		return nil
	}
}

// WithQueueDepth sets how many synthesized partitions may wait for a device worker (default
// 2 × the number of device workers). A synthesis worker whose partition would exceed it waits.
func WithQueueDepth(n int) Option {
	return func(c *config) error {
		if n < 1 || n > MaxQueueDepth {
			return fmt.Errorf("engine: WithQueueDepth: %d, want 1 to %d", n, MaxQueueDepth)
		}
		c.queueDepth = n
		return nil
	}
}

// WithTimeline sets the hook that receives the engine's timeline events (default nil: off). It
// is called concurrently from every worker, never with the engine's lock held.
func WithTimeline(h timeline.Hook) Option {
	return func(c *config) error { c.hook = h; return nil }
}

// WithoutSelfCheck turns off the self-check. By default the engine verifies every partition's
// proof against its public inputs before accepting it (one pairing check, a few milliseconds),
// on the fallback device as on the others, so that no wrong proof leaves the engine whatever went
// wrong on a device: a proof that fails is proved again on the fallback device (WithFallback) or
// fails its job with an error wrapping ErrSelfCheck that names the partition. Turn it off only
// for benchmarks with parameters whose proofs never verify (devsetup.RandomParameters).
func WithoutSelfCheck() Option {
	return func(c *config) error { c.noSelfCheck = true; return nil }
}

// ErrSelfCheck is wrapped by the error of a job whose proof failed the engine's own verification.
var ErrSelfCheck = errors.New("engine: self-check: proof does not verify")

// WithDeviceEvaluation turns device evaluation on or off (default on). When on, a job whose
// every device computes A·w, B·w and C·w itself (prover.EvaluatesOnDevice, e.g. package gpu's)
// is synthesized witness-only (synth.SynthesizeWitness): the host holds w but never the
// evaluations, its estimate (EstimateWitnessPartitionBytes) and pool leave them out, and the
// devices stage w and evaluate from the shape. A partition proved again on the fallback device
// is synthesized with its evaluations.
func WithDeviceEvaluation(on bool) Option {
	return func(c *config) error {
		c.deviceEval = on
		return nil
	}
}

// WithFallback makes a partition whose device fails — Prepare, Lock, Run or Finalize returns an
// error or panics, or the proof fails the self-check; not a cancellation — be proved again on
// dev, typically prover.CPU(), by the same worker, instead of failing its job. The partition is
// synthesized again for it, so nothing the failed device did to its buffers reaches the retry.
// The failure is logged; the retry is not a device region of the timeline (its FINALIZE events
// carry "fallback" in their detail). Without it, the job fails.
func WithFallback(dev prover.Device) Option {
	return func(c *config) error {
		if dev == nil {
			return errors.New("engine: nil fallback device")
		}
		c.fallback = dev
		return nil
	}
}

// WithLogger sets the logger (default: discard). Jobs are logged at Debug, failures at Warn,
// panics with their stack at Error.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("engine: WithLogger: nil logger")
		}
		c.log = l
		return nil
	}
}

// New starts an engine's workers: the synthesis workers and WorkersPerDevice device workers
// per device. Close stops them.
func New(opts ...Option) (*Engine, error) {
	cfg := config{workersPerDevice: 2, deviceEval: true}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if len(cfg.devices) == 0 {
		cfg.devices = []prover.Device{prover.CPU()}
	}
	if cfg.synthConcurrency == 0 {
		cfg.synthConcurrency = max(1, runtime.GOMAXPROCS(0)/2)
	}
	budget, limit := defaultMemoryBudget()
	cfg.limit = limit
	if cfg.budget == 0 {
		cfg.budget = budget
	}
	if cfg.queueDepth == 0 {
		cfg.queueDepth = 2 * len(cfg.devices) * cfg.workersPerDevice
	}
	if cfg.log == nil {
		cfg.log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		cfg:          cfg,
		clock:        timeline.NewClock(),
		hook:         cfg.hook,
		log:          cfg.log,
		jobs:         make(map[uint64]*job),
		fallbackLock: semaphore.NewWeighted(1),
	}
	e.synthLimit = e.coldSynthLimit()
	e.cond = sync.NewCond(&e.mu)
	for range cfg.synthConcurrency {
		e.wg.Add(1)
		go e.synthWorker()
	}
	for d := range cfg.devices {
		for w := range cfg.workersPerDevice {
			e.wg.Add(1)
			go e.deviceWorker(d, w)
		}
	}
	return e, nil
}

// Clock returns the clock whose epoch the timeline offsets count from.
func (e *Engine) Clock() timeline.Clock { return e.clock }

// Job is a proof of Partitions partitions of one circuit shape.
type Job struct {
	// Priority orders jobs: a lower value is dispatched first; jobs of equal priority run in
	// submission order.
	Priority int
	// Params are the proving parameters; Shape the compiled circuit every partition has.
	Params *prover.Parameters
	Shape  *synth.Shape
	// Partitions is the number of partitions, ≥ 1.
	Partitions int
	// Circuit builds partition i's circuit. It is called lazily, right before the partition's
	// synthesis, from a synthesis worker (concurrently for different partitions), and once more
	// for a partition whose device failed, when a fallback device proves it again.
	Circuit func(partition int) (synth.Circuit, error)
	// Randomness gives partition i's blinding scalars r and s. Nil draws them from crypto/rand;
	// fixed values are for tests only (see Randomness).
	Randomness func(partition int) (prover.Randomness, error)
}

// JobStats are a job's timings. Synthesis, Prepare, LockWait, Device and Finalize are sums over
// the job's partitions (with several workers they overlap, so they may exceed Total).
type JobStats struct {
	// QueueWait is the time from Submit to the start of the job's first synthesis.
	QueueWait time.Duration
	// Synthesis: circuit construction and synthesis, SYNTH_START..SYNTH_END.
	Synthesis time.Duration
	// Prepare: the device worker's CPU preparation, GPU_PICKUP..LOCK_WAIT.
	Prepare time.Duration
	// LockWait: waiting for the device's kernel lock, LOCK_WAIT..GPU_START.
	LockWait time.Duration
	// Device: device work with the lock held, GPU_START..GPU_END.
	Device time.Duration
	// Finalize: CPU finalization and serialization, FINALIZE_START..FINALIZE_END.
	Finalize time.Duration
	// Total is the time from Submit to the job's completion.
	Total time.Duration
	// DeviceEvaluation reports that the job's partitions were synthesized witness-only and
	// their A·w, B·w, C·w computed on the devices (WithDeviceEvaluation).
	DeviceEvaluation bool
}

// Result is a proved job.
type Result struct {
	// Job is the job's sequence number (Handle.ID).
	Job uint64
	// Proof is the assembled proof: the partitions' 192-byte proofs in partition order
	// (assemble.Assemble).
	Proof []byte
	// Partitions holds the partitions' proofs by index.
	Partitions []*prover.Proof
	// Inputs holds each partition's public inputs, without the leading ONE: what Proof
	// verifies against (prover.VerifyAssembled).
	Inputs [][]fr.Element
	Stats  JobStats
}

// Handle follows a submitted job.
type Handle struct{ j *job }

// ID returns the job's sequence number, the Job field of its timeline events. Sequence numbers
// start at 1 and increase with each Submit.
func (h *Handle) ID() uint64 { return h.j.id }

// Done returns a channel closed when the job has finished, proved or failed, and none of its
// partitions holds memory or a worker any longer.
func (h *Handle) Done() <-chan struct{} { return h.j.done }

// Wait waits for the job and returns its result, or the job's error: the first partition error
// ("job 3: partition 2: synthesize: …"), the error of the context given to Submit if it was
// cancelled, or ErrClosed if Close cancelled it. If ctx ends first, Wait returns ctx.Err() and
// the job goes on.
func (h *Handle) Wait(ctx context.Context) (*Result, error) {
	select {
	case <-h.j.done:
		return h.j.result, h.j.finalErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// job is the engine's state of one submitted job.
type job struct {
	id         uint64
	spec       Job
	est        int64 // EstimatePartitionBytes total over the devices
	estEval    int64 // its evaluations share (0 when witnessOnly)
	estFull    int64 // the estimate with evaluations, for a fallback proof
	witness    bool  // witness-only synthesis: the devices evaluate A·w, B·w, C·w
	fallback   int64 // the fallback device's HostBytes for the shape (0 without one)
	submitted  time.Time
	done       chan struct{}
	result     *Result // set before done is closed
	finalErr   error   // set before done is closed
	cancel     context.CancelCauseFunc
	stopCancel func() bool   // unregisters the cancellation callback
	cbDone     chan struct{} // closed when the cancellation callback has run

	// ctx governs the job: Submit's context, also cancelled with the job's error when a
	// partition fails. It is kept for the job's lifetime because device calls (Lock, Run) take
	// it in whichever worker handles a partition.
	ctx context.Context

	// pvk is the prepared verifying key of the self-check, made once per job.
	pvkOnce sync.Once
	pvk     *prover.PreparedVerifyingKey
	pvkErr  error

	// Guarded by Engine.mu.
	pending    int // partitions not settled (proved, dropped or abandoned) and preloads not returned
	finished   bool
	started    bool
	firstSynth time.Time
	err        error
	proofs     []*prover.Proof
	inputs     [][]fr.Element
	parts      []assemble.Part
	stats      JobStats
}

// part is one partition of a job on its way through the engine. It moves through the stages in
// order, each counted in Engine.inStage, and leaves by settleLocked, the one place that returns
// its memory and counts it off its job.
type part struct {
	job      *job
	index    int
	stage    stage
	asg      *synth.Assignment
	bufs     synth.Buffers // pooled vectors taken for its next synthesis
	reserved int64         // bytes currently reserved for this partition
	synth    time.Duration
}

// stage is where a partition is in the engine.
type stage int

const (
	stageQueued       stage = iota // in the synthesis queue
	stageSynthesizing              // held by a synthesis worker
	stageDeviceQueue               // synthesized, in the device queue
	stageOnDevice                  // held by a device worker
	stageSettled                   // proved, failed or dropped
)

// outcome is how a partition settles: a proof, an error that fails its job, or neither when it
// is dropped because its job failed.
type outcome struct {
	proof  *prover.Proof
	enc    []byte
	inputs []fr.Element
	times  partTimes
	err    error
}

// Submit queues job and returns a handle to wait for it. ctx governs the job: cancelling it
// drops the job's remaining partitions and releases their memory. Submit checks the job
// (parameters against the shape, partition count) and fails with ErrMemoryBudget when what is
// resident with this job plus one partition's estimate exceeds the whole budget, so that the job
// could never run, with ErrClosed after Close.
func (e *Engine) Submit(ctx context.Context, jb *Job) (*Handle, error) {
	if err := validateJob(jb); err != nil {
		return nil, err
	}
	est, estEval := EstimatePartitionBytes(jb.Shape, e.cfg.devices...)
	estFull, witness := est, e.deviceEvaluates(jb.Shape)
	if witness {
		est, estEval = EstimateWitnessPartitionBytes(jb.Shape, e.cfg.devices...), 0
	}
	var fb int64
	if e.cfg.fallback != nil {
		fb = e.cfg.fallback.HostBytes(jb.Shape)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("submit job: %w", err)
	}
	jctx, cancel := context.WithCancelCause(ctx)
	j := &job{
		spec:      *jb,
		est:       est,
		estEval:   estEval,
		estFull:   estFull,
		witness:   witness,
		fallback:  fb,
		submitted: time.Now(),
		done:      make(chan struct{}),
		cancel:    cancel,
		cbDone:    make(chan struct{}),
		ctx:       jctx,
		pending:   jb.Partitions,
		proofs:    make([]*prover.Proof, jb.Partitions),
		inputs:    make([][]fr.Element, jb.Partitions),
		parts:     make([]assemble.Part, 0, jb.Partitions),
	}
	j.stats.DeviceEvaluation = witness

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		cancel(ErrClosed)
		return nil, fmt.Errorf("submit job: %w", ErrClosed)
	}
	if res := e.resident.with(j); res.total()+est > e.cfg.budget {
		e.mu.Unlock()
		cancel(ErrMemoryBudget)
		return nil, fmt.Errorf("submit job: %w: one partition needs about %s (%d constraints, %d variables) on top of %s resident (shapes %s, parameters %s, fallback %s); the budget is %s",
			ErrMemoryBudget, gib(est), jb.Shape.NumConstraints, jb.Shape.NumInputs+jb.Shape.NumAux,
			gib(res.total()), gib(res.shapeBytes), gib(res.paramBytes), gib(res.fallback), gib(e.cfg.budget))
	}
	e.resident.add(j)
	e.nextID++
	j.id = e.nextID
	e.jobs[j.id] = j
	for i := range jb.Partitions {
		e.synthQ.push(&part{job: j, index: i})
	}
	e.inStage[stageQueued] += jb.Partitions
	// Registered under the lock: if ctx is already cancelled, the callback runs once the
	// partitions are queued, and it can remove them.
	j.stopCancel = context.AfterFunc(jctx, func() {
		defer close(j.cbDone)
		e.mu.Lock()
		finish := e.failLocked(j, context.Cause(jctx))
		e.mu.Unlock()
		if finish {
			e.finishJob(j, true)
		}
	})
	e.startPreloadsLocked(j)
	e.cond.Broadcast()
	e.mu.Unlock()
	e.log.Debug("job submitted", "job", j.id, "partitions", jb.Partitions, "priority", jb.Priority, "estimated_bytes", est)
	return &Handle{j: j}, nil
}

// startPreloadsLocked starts, for each device that can preload (prover.Preloads), a goroutine
// that makes j's parameters resident there while j's first partitions synthesize, and j's shape
// too when the device evaluates it for j (j.witness). Each preload counts as pending work of j,
// like a partition in flight, so that j does not finish — and its caller does not unmap the
// parameters — while an upload still reads them; the engine's WaitGroup tracks it for Close.
func (e *Engine) startPreloadsLocked(j *job) {
	var shape *synth.Shape
	if j.witness {
		shape = j.spec.Shape
	}
	for d, dev := range e.cfg.devices {
		if !prover.Preloads(dev) {
			continue
		}
		j.pending++
		e.preloading++
		e.wg.Add(1)
		go e.preload(j, d, shape)
	}
}

// preload makes j's parameters (and shape, unless nil) resident on device d with j's context
// and then counts itself off j. Its error is not j's: it is logged, and the partitions meet it
// again on their own path, which reports it precisely (and may fall back).
func (e *Engine) preload(j *job, d int, shape *synth.Shape) {
	defer e.wg.Done()
	dev := e.cfg.devices[d]
	t0 := time.Now()
	err := e.safely(j, -1, "preload", func() error {
		_, err := prover.Preload(j.ctx, dev, j.spec.Params, shape)
		return err
	})
	switch {
	case err == nil:
		e.log.Debug("preloaded", "job", j.id, "device", d, "shape", shape != nil, "took", time.Since(t0))
	case j.ctx.Err() != nil:
		e.log.Debug("preload stopped", "job", j.id, "device", d, "err", err)
	default:
		e.log.Warn("preload failed; the partitions upload on their own", "job", j.id, "device", d, "err", err)
	}
	e.mu.Lock()
	j.pending--
	e.preloading--
	var finish bool
	if j.ctx.Err() != nil {
		// Ended meanwhile: the job fails with the cause, whichever of this and the
		// cancellation callback settles it, as it would with a partition in flight.
		finish = e.failLocked(j, context.Cause(j.ctx))
	} else {
		finish = e.settledLocked(j)
	}
	e.mu.Unlock()
	if finish {
		e.finishJob(j, false)
	}
}

// deviceEvaluates reports whether partitions of shape are synthesized witness-only: device
// evaluation is on and every device evaluates shape itself.
func (e *Engine) deviceEvaluates(shape *synth.Shape) bool {
	return e.cfg.deviceEval && DevicesEvaluate(shape, e.cfg.devices...)
}

// DevicesEvaluate reports whether every one of devs (at least one) computes A·w, B·w, C·w
// itself for partitions of shape (prover.EvaluatesOnDevice): with WithDeviceEvaluation, the
// engine then synthesizes the shape's partitions witness-only.
func DevicesEvaluate(shape *synth.Shape, devs ...prover.Device) bool {
	if len(devs) == 0 {
		return false
	}
	for _, d := range devs {
		if !prover.EvaluatesOnDevice(d, shape) {
			return false
		}
	}
	return true
}

func validateJob(jb *Job) error {
	switch {
	case jb == nil:
		return errors.New("submit job: nil job")
	case jb.Params == nil:
		return errors.New("submit job: nil parameters")
	case jb.Shape == nil:
		return errors.New("submit job: nil shape")
	case jb.Circuit == nil:
		return errors.New("submit job: nil Circuit function")
	case jb.Partitions < 1 || jb.Partitions > MaxPartitions:
		return fmt.Errorf("submit job: %d partitions, want 1 to %d", jb.Partitions, MaxPartitions)
	}
	if err := prover.CheckParameters(jb.Params, jb.Shape); err != nil {
		return fmt.Errorf("submit job: %w", err)
	}
	return nil
}

// Stats is a snapshot of the engine's state. Counts are partitions unless named otherwise.
type Stats struct {
	// Budget is the memory budget in bytes; Limit the memory limit it was derived from (or
	// would have been, when WithMemoryBudget set it).
	Budget int64
	Limit  MemoryLimit
	// Resident is what the active jobs share, counted once: ResidentShapes (ShapeBytes of each
	// distinct shape), ResidentParameters (ParametersBytes of each distinct parameter set) and
	// FallbackReserve (the fallback device's workspace for one partition of the largest shape).
	Resident, ResidentShapes, ResidentParameters, FallbackReserve int64
	// Reserved is the bytes reserved now by partitions in flight, PeakReserved the most ever
	// reserved at once. A synthesis starts only while Resident + Reserved + its estimate fits
	// Budget; the sum exceeds Budget only when a job brings a new shape or parameter set while
	// partitions are in flight (no synthesis starts until it fits again), or by the evaluations
	// of partitions synthesized again for the fallback device.
	Reserved, PeakReserved int64
	// Pooled is the bytes of vectors (A·w, B·w, C·w, w) kept from proved partitions for the next
	// syntheses of the same sizes; counted in the budget beside Resident and Reserved, and
	// dropped when no active job's shape uses them.
	Pooled int64
	// PartitionEstimate is the largest per-partition estimate (EstimatePartitionBytes over the
	// devices) among the active jobs, 0 when there is none.
	PartitionEstimate int64
	// ActiveJobs is the number of submitted jobs not yet finished.
	ActiveJobs int
	// QueuedSynthesis wait for a synthesis worker, Synthesizing are being synthesized,
	// QueuedDevice are synthesized and wait for a device worker (at most QueueDepth;
	// PeakQueuedDevice is the most ever), OnDevice are held by device workers.
	QueuedSynthesis, Synthesizing, QueuedDevice, PeakQueuedDevice, OnDevice int
	// QueueDepth is the bound on QueuedDevice.
	QueueDepth int
	// JobsDone and JobsFailed count finished jobs.
	JobsDone, JobsFailed uint64
}

// Stats returns a snapshot of the engine's state.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	var est int64
	for _, j := range e.jobs {
		est = max(est, j.est)
	}
	res := e.resident.totals()
	return Stats{
		Budget:             e.cfg.budget,
		Limit:              e.cfg.limit,
		Resident:           res.total(),
		ResidentShapes:     res.shapeBytes,
		ResidentParameters: res.paramBytes,
		FallbackReserve:    res.fallback,
		Reserved:           e.reserved,
		PeakReserved:       e.peakReserved,
		Pooled:             e.pool.bytes,
		PartitionEstimate:  est,
		ActiveJobs:         len(e.jobs),
		QueuedSynthesis:    e.inStage[stageQueued],
		Synthesizing:       e.inStage[stageSynthesizing],
		QueuedDevice:       e.inStage[stageDeviceQueue],
		PeakQueuedDevice:   e.peakQueued,
		OnDevice:           e.inStage[stageOnDevice],
		QueueDepth:         e.cfg.queueDepth,
		JobsDone:           e.jobsDone,
		JobsFailed:         e.jobsFailed,
	}
}

// Close stops the engine. It refuses new jobs, waits for the submitted ones to finish, and stops
// the workers. If ctx ends first, it cancels the remaining jobs (their Wait returns an error
// wrapping ErrClosed), waits for their partitions to be abandoned (a device call in progress
// cannot be interrupted and is waited for), stops the workers and returns ctx's error. No
// goroutine of the engine is left when Close returns.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	err := e.waitIdle(ctx)
	if err != nil {
		var finish []*job
		e.mu.Lock()
		for _, j := range e.jobs {
			if e.failLocked(j, ErrClosed) {
				finish = append(finish, j)
			}
		}
		e.mu.Unlock()
		for _, j := range finish {
			e.finishJob(j, false)
		}
		_ = e.waitIdle(context.Background())
		err = fmt.Errorf("close engine: %w", err)
	}
	e.mu.Lock()
	e.stopped = true
	e.cond.Broadcast()
	e.mu.Unlock()
	e.wg.Wait()
	return err
}

// waitIdle waits until no job is active, or ctx ends.
func (e *Engine) waitIdle(ctx context.Context) error {
	e.mu.Lock()
	if len(e.jobs) == 0 {
		e.mu.Unlock()
		return nil
	}
	if e.idle == nil {
		e.idle = make(chan struct{})
	}
	idle := e.idle
	e.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// emit sends an event stamped at t to the hook, if any.
func (e *Engine) emit(t time.Time, k timeline.Kind, j *job, partition, device, worker int, detail string) {
	if e.hook == nil {
		return
	}
	e.hook.Event(timeline.Event{
		Offset:    t.Sub(e.clock.Epoch()),
		Kind:      k,
		Job:       j.id,
		Partition: partition,
		Device:    device,
		Worker:    worker,
		Detail:    detail,
	})
}

func errDetail(err error) string {
	if err == nil {
		return ""
	}
	return "error: " + err.Error()
}

// safely runs f, turning a panic into an error wrapping ErrPanicked, and prefixes stage to f's
// error.
func (e *Engine) safely(j *job, index int, stage string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic in partition", "job", j.id, "partition", index, "stage", stage,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("%s: %w: %v", stage, ErrPanicked, r)
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w", stage, err)
	}
	return nil
}

// partitionErr returns the error a partition's failure gives its job: the job's own cause when
// its context has ended (the failure is a consequence), the partition's error otherwise.
func partitionErr(p *part, err error) error {
	if p.job.ctx.Err() != nil {
		return context.Cause(p.job.ctx)
	}
	return fmt.Errorf("partition %d: %w", p.index, err)
}

// reserveLocked reserves n bytes for p. The caller checked that they fit the budget.
func (e *Engine) reserveLocked(p *part, n int64) {
	p.reserved += n
	e.reserved += n
	e.peakReserved = max(e.peakReserved, e.reserved)
}

// releaseLocked releases n of p's reserved bytes (all of them if n > p.reserved).
func (e *Engine) releaseLocked(p *part, n int64) {
	n = min(n, p.reserved)
	p.reserved -= n
	e.reserved -= n
	if n > 0 {
		e.cond.Broadcast()
	}
}

// failLocked records err as j's error (unless it has one or is finished), cancels j's context
// and drops j's queued partitions, releasing their memory. It reports whether the job is now
// settled and the caller must call finishJob.
func (e *Engine) failLocked(j *job, err error) bool {
	if j.finished {
		return false
	}
	if j.err == nil {
		j.err = err
		j.cancel(err)
	}
	for _, p := range e.synthQ.removeJob(j) {
		e.leaveLocked(p)
	}
	for _, p := range e.devQ.removeJob(j) {
		e.leaveLocked(p)
	}
	e.cond.Broadcast()
	return e.settledLocked(j)
}

// moveLocked moves p to stage to.
func (e *Engine) moveLocked(p *part, to stage) {
	e.inStage[p.stage]--
	p.stage = to
	e.inStage[to]++
}

// leaveLocked takes p out of the engine's accounting: its stage count, its memory, its
// assignment and its job's pending count. Only settleLocked and failLocked (for dropped
// partitions) call it.
func (e *Engine) leaveLocked(p *part) {
	e.inStage[p.stage]--
	p.stage = stageSettled
	e.releaseLocked(p, p.reserved)
	p.asg = nil
	p.job.pending--
}

// settleLocked settles p with out: a proof is recorded, an error fails p's job, and a dropped
// partition just leaves. It reports whether p's job is now settled and the caller must call
// finishJob.
func (e *Engine) settleLocked(p *part, out outcome) bool {
	j := p.job
	if out.proof != nil && p.asg != nil {
		// Proved: no device reads its vectors any longer.
		e.poolLocked(p.asg.Buffers())
	}
	e.leaveLocked(p)
	switch {
	case out.err != nil:
		return e.failLocked(j, partitionErr(p, out.err))
	case out.proof != nil:
		j.proofs[p.index] = out.proof
		j.inputs[p.index] = out.inputs
		j.parts = append(j.parts, assemble.Part{Index: p.index, Proof: out.enc})
		j.stats.Synthesis += p.synth
		j.stats.Prepare += out.times.prepare
		j.stats.LockWait += out.times.lockWait
		j.stats.Device += out.times.device
		j.stats.Finalize += out.times.finalize
	}
	return e.settledLocked(j)
}

// settle settles p with out (settleLocked) and finishes its job when it was the last partition.
func (e *Engine) settle(p *part, out outcome) {
	e.mu.Lock()
	finish := e.settleLocked(p, out)
	e.mu.Unlock()
	if finish {
		e.finishJob(p.job, false)
	}
}

// settledLocked reports whether j has no partition left in flight and has not been finished yet;
// it marks j finished when so.
func (e *Engine) settledLocked(j *job) bool {
	if j.pending == 0 && !j.finished {
		j.finished = true
		return true
	}
	return false
}

// finishJob completes a settled job: it assembles the proof or records the error, emits
// JOB_DONE, and wakes Wait. inCallback is true when called from the job's cancellation callback.
func (e *Engine) finishJob(j *job, inCallback bool) {
	if !inCallback && !j.stopCancel() {
		<-j.cbDone // the callback started; it finds the job finished and does nothing
	}
	e.mu.Lock()
	err := j.err
	parts := j.parts
	stats := j.stats
	e.mu.Unlock()

	var res *Result
	if err == nil {
		proof, aerr := assemble.Assemble(j.spec.Partitions, parts)
		if aerr != nil {
			err = fmt.Errorf("assemble proof: %w", aerr)
		} else {
			res = &Result{Job: j.id, Proof: proof, Partitions: j.proofs, Inputs: j.inputs, Stats: stats}
		}
	}
	j.cancel(nil)
	now := time.Now()
	if res != nil {
		res.Stats.Total = now.Sub(j.submitted)
		j.result = res
		e.emit(now, timeline.JobDone, j, -1, -1, -1, "ok")
		e.log.Debug("job done", "job", j.id, "partitions", j.spec.Partitions, "total", res.Stats.Total)
	} else {
		j.finalErr = fmt.Errorf("job %d: %w", j.id, err)
		e.emit(now, timeline.JobDone, j, -1, -1, -1, errDetail(err))
		e.log.Warn("job failed", "job", j.id, "err", err)
	}

	e.mu.Lock()
	delete(e.jobs, j.id)
	e.resident.remove(j)
	e.dropUnusedPoolLocked()
	e.cond.Broadcast() // what the job held resident is free
	if res != nil {
		e.jobsDone++
	} else {
		e.jobsFailed++
	}
	if len(e.jobs) == 0 {
		e.synthLimit = e.coldSynthLimit() // the next job starts from idle
		if e.idle != nil {
			close(e.idle)
			e.idle = nil
		}
	}
	e.mu.Unlock()
	close(j.done)
}

// poolLocked keeps b's vectors for the partitions waiting for synthesis: a vector is kept when
// fewer vectors of its length are pooled than those partitions take, and left to the garbage
// collector otherwise.
func (e *Engine) poolLocked(b synth.Buffers) {
	for _, v := range [][]fr.Element{b.W, b.A, b.B, b.C} {
		if cap(v) > 0 && len(e.pool.free[cap(v)]) < e.queuedNeedLocked(cap(v)) {
			e.pool.put(v)
		}
	}
}

// queuedNeedLocked returns how many vectors of n elements the partitions in the synthesis
// queue take (w: 1, A·w, B·w, C·w: 3).
func (e *Engine) queuedNeedLocked(n int) int {
	need := 0
	for _, p := range e.synthQ {
		nw, rows := shapeLengths(p.job.spec.Shape)
		if nw == n {
			need++
		}
		if rows == n && !p.job.witness {
			need += 3
		}
	}
	return need
}

// dropUnusedPoolLocked drops the pooled vectors that no active job's shape uses.
func (e *Engine) dropUnusedPoolLocked() {
	lengths := map[int]bool{}
	for _, j := range e.jobs {
		nw, rows := shapeLengths(j.spec.Shape)
		lengths[nw] = true
		if !j.witness {
			lengths[rows] = true
		}
	}
	e.pool.keepOnly(lengths)
}

// synthWorker synthesizes partitions until the engine stops.
func (e *Engine) synthWorker() {
	defer e.wg.Done()
	for {
		p := e.nextSynth()
		if p == nil {
			return
		}
		e.synthesize(p)
	}
}

// nextSynth waits for the first partition of the synthesis queue to be startable (fewer than the
// ramp's limit are synthesizing, its memory fits the budget and the device queue has room),
// reserves its memory and returns it; nil when the engine stops.
func (e *Engine) nextSynth() *part {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if e.stopped {
			return nil
		}
		if p := e.synthQ.peek(); p != nil && e.inStage[stageSynthesizing] < e.synthLimit &&
			e.devQ.Len() < e.cfg.queueDepth && e.fitsLocked(p) {
			e.synthQ.pop()
			p.bufs = e.pool.take(p.job.spec.Shape, p.job.witness)
			e.reserveLocked(p, p.job.est)
			e.moveLocked(p, stageSynthesizing)
			if !p.job.started {
				p.job.started = true
				p.job.firstSynth = time.Now()
				p.job.stats.QueueWait = p.job.firstSynth.Sub(p.job.submitted)
			}
			return p
		}
		e.cond.Wait()
	}
}

// coldSynthLimit is the synthesis limit from idle: one synthesis per device worker, at most the
// configured concurrency. synthesisDone raises it by one per completed synthesis up to the
// configured concurrency; finishJob resets it when the last job finishes.
func (e *Engine) coldSynthLimit() int {
	return min(e.cfg.synthConcurrency, len(e.cfg.devices)*e.cfg.workersPerDevice)
}

// synthesisDone raises the synthesis limit by one after a synthesis completed, up to the
// configured concurrency, unless a preload is in flight: the devices cannot start before their
// parameters are resident, and the upload needs the host's cores and memory bandwidth too.
func (e *Engine) synthesisDone() {
	e.mu.Lock()
	if e.synthLimit < e.cfg.synthConcurrency && e.preloading == 0 {
		e.synthLimit++
		e.cond.Broadcast()
	}
	e.mu.Unlock()
}

// fitsLocked reports whether p's synthesis fits the budget now: resident + reserved + pooled
// + p's estimate, less the pooled vectors p would take. When it fits only without the pooled
// vectors p cannot use, those are dropped.
func (e *Engine) fitsLocked(p *part) bool {
	shape := p.job.spec.Shape
	base := e.resident.totals().total() + e.reserved + p.job.est
	usable := e.pool.usable(shape, p.job.witness)
	if base+e.pool.bytes-usable <= e.cfg.budget {
		return true
	}
	if base <= e.cfg.budget && e.pool.bytes > usable {
		nw, rows := shapeLengths(shape)
		e.pool.keepOnly(map[int]bool{nw: true, rows: !p.job.witness})
		return true
	}
	return false
}

// synthesize builds and synthesizes p's circuit and queues p for a device.
func (e *Engine) synthesize(p *part) {
	j := p.job
	t0 := time.Now()
	e.emit(t0, timeline.SynthStart, j, p.index, -1, -1, "")
	asg, err := e.synthesizeAssignment(p, p.job.witness)
	t1 := time.Now()
	e.emit(t1, timeline.SynthEnd, j, p.index, -1, -1, errDetail(err))
	e.synthesisDone()
	if err != nil {
		e.settle(p, outcome{err: err})
		return
	}
	p.asg = asg
	p.synth = t1.Sub(t0)

	// Wait for room in the device queue (backpressure), unless the job has failed meanwhile.
	// Partitions synthesized together enter it in dispatch order (handoff), so that a later
	// job's partition never takes the place of an earlier job's that finished a moment after.
	e.mu.Lock()
	e.handoff.push(p)
	for (e.devQ.Len() >= e.cfg.queueDepth || e.handoff.peek() != p) && j.err == nil {
		e.cond.Wait()
	}
	e.handoff.remove(p)
	if j.err != nil {
		e.cond.Broadcast()                     // the next in handoff may go
		finish := e.settleLocked(p, outcome{}) // dropped: the job has its error
		e.mu.Unlock()
		if finish {
			e.finishJob(j, false)
		}
		return
	}
	// Stamped before the partition becomes visible to device workers, so that CHAN_SEND
	// precedes its GPU_PICKUP; emitted after the lock is released.
	tSend := time.Now()
	e.moveLocked(p, stageDeviceQueue)
	e.devQ.push(p)
	e.peakQueued = max(e.peakQueued, e.devQ.Len())
	e.cond.Broadcast()
	e.mu.Unlock()
	e.emit(tSend, timeline.ChanSend, j, p.index, -1, -1, "")
}

// synthesizeAssignment builds and synthesizes p's circuit; witness-only (no A·w, B·w, C·w) when
// witness is set.
func (e *Engine) synthesizeAssignment(p *part, witness bool) (*synth.Assignment, error) {
	j := p.job
	if err := j.ctx.Err(); err != nil {
		return nil, err
	}
	var c synth.Circuit
	err := e.safely(j, p.index, "build circuit", func() error {
		var err error
		c, err = j.spec.Circuit(p.index)
		if err == nil && c == nil {
			err = errors.New("nil circuit")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var asg *synth.Assignment
	err = e.safely(j, p.index, "synthesize", func() error {
		var err error
		bufs := p.bufs
		p.bufs = synth.Buffers{}
		if witness {
			asg, err = synth.SynthesizeWitness(j.ctx, j.spec.Shape, c, bufs.W)
		} else {
			asg, err = synth.SynthesizeInto(j.ctx, j.spec.Shape, c, bufs)
		}
		return err
	})
	return asg, err
}

// deviceWorker proves partitions on device d until the engine stops.
func (e *Engine) deviceWorker(d, w int) {
	defer e.wg.Done()
	for {
		p := e.nextDevice()
		if p == nil {
			return
		}
		e.prove(d, w, p)
	}
}

// nextDevice waits for a synthesized partition and returns it; nil when the engine stops.
func (e *Engine) nextDevice() *part {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if e.stopped {
			return nil
		}
		if p := e.devQ.pop(); p != nil {
			e.moveLocked(p, stageOnDevice)
			e.cond.Broadcast() // room in the device queue
			return p
		}
		e.cond.Wait()
	}
}

// partTimes are one partition's stage durations on a device worker.
type partTimes struct {
	prepare, lockWait, device, finalize time.Duration
}

// prove runs p on device d as worker w and settles it: on the device (onDevice), then, if that
// failed and a fallback is configured, on the fallback device.
func (e *Engine) prove(d, w int, p *part) {
	out := e.onDevice(d, w, p)
	if out.err != nil && e.cfg.fallback != nil && p.job.ctx.Err() == nil {
		out = e.fallBack(d, w, p, out)
	}
	e.settle(p, out)
}

// onDevice proves p on device d: prepare on the CPU, take the device's kernel lock, run the
// device work, release the lock, finalize on the CPU, and check the proof. The task is released
// before it returns.
func (e *Engine) onDevice(d, w int, p *part) (out outcome) {
	j := p.job
	dev := e.cfg.devices[d]
	ctx := j.ctx

	tPick := time.Now()
	e.emit(tPick, timeline.GPUPickup, j, p.index, d, w, "")
	var task prover.Task
	defer func() { e.releaseTask(p, task) }()
	err := ctx.Err()
	if err == nil {
		err = e.safely(j, p.index, "prepare", func() error {
			rs, err := e.randomness(j, p.index)
			if err != nil {
				return err
			}
			task, err = dev.Prepare(ctx, j.spec.Params, p.asg, rs)
			if err == nil && task == nil {
				err = errors.New("device returned no task")
			}
			return err
		})
	}
	tLW := time.Now()
	out.times.prepare = tLW.Sub(tPick)
	e.emit(tLW, timeline.LockWait, j, p.index, d, w, errDetail(err))
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = e.safely(j, p.index, "lock device", func() error { return dev.Lock(ctx) })
	}
	if err != nil {
		out.err = err
		return out
	}

	// The kernel-lock region: GPU_START right after the lock is acquired, GPU_END right after
	// Run returns and before Unlock. Nothing else runs inside it.
	tStart := time.Now()
	out.times.lockWait = tStart.Sub(tLW)
	e.emit(tStart, timeline.GPUStart, j, p.index, d, w, "")
	err = e.safely(j, p.index, "run", func() error { return task.Run(ctx) })
	tEnd := time.Now()
	e.emit(tEnd, timeline.GPUEnd, j, p.index, d, w, errDetail(err))
	dev.Unlock()
	out.times.device = tEnd.Sub(tStart)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		out.err = err
		return out
	}
	e.releaseEvaluations(p)

	tFin := time.Now()
	e.emit(tFin, timeline.FinalizeStart, j, p.index, d, w, "")
	err = e.safely(j, p.index, "finalize", func() error {
		proof, err := task.Finalize(ctx)
		if err == nil && proof == nil {
			err = errors.New("device returned no proof")
		}
		if err == nil {
			out, err = e.accept(j, p, proof, out.times)
		}
		return err
	})
	tDone := time.Now()
	e.emit(tDone, timeline.FinalizeEnd, j, p.index, d, w, errDetail(err))
	out.times.finalize = tDone.Sub(tFin)
	if err != nil {
		return outcome{times: out.times, err: err}
	}
	return out
}

// releaseEvaluations returns p's A·w, B·w, C·w, which no task reads after Run, to the pool, and
// their share of p's reservation.
func (e *Engine) releaseEvaluations(p *part) {
	b := p.asg.Buffers()
	p.asg.ReleaseEvaluations()
	e.mu.Lock()
	e.poolLocked(synth.Buffers{A: b.A, B: b.B, C: b.C})
	e.releaseLocked(p, p.job.estEval)
	e.mu.Unlock()
}

// accept checks proof (unless WithoutSelfCheck) and returns the outcome that records it.
func (e *Engine) accept(j *job, p *part, proof *prover.Proof, pt partTimes) (outcome, error) {
	// A copy: w goes back to the pool when the partition settles.
	inputs := slices.Clone(p.asg.PublicInputs())
	if !e.cfg.noSelfCheck {
		j.pvkOnce.Do(func() { j.pvk, j.pvkErr = prover.PrepareVerifyingKey(&j.spec.Params.VK) })
		if j.pvkErr != nil {
			return outcome{}, fmt.Errorf("%w: prepare verifying key: %v", ErrSelfCheck, j.pvkErr)
		}
		if err := prover.Verify(j.pvk, proof, inputs); err != nil {
			return outcome{}, fmt.Errorf("%w: %v", ErrSelfCheck, err)
		}
	}
	b := proof.Bytes()
	return outcome{proof: proof, enc: b[:], inputs: inputs, times: pt}, nil
}

// fallBack proves partition p on the fallback device after its device failed with failed.err.
// It synthesizes p again rather than trusting the host buffers the failed device held, so that
// nothing the device did can reach the fallback's proof; the new evaluations are reserved again
// (without waiting for the budget: a fallback must not wait on partitions behind it). Fallbacks
// run one at a time, so that the fallback device's workspace, counted once as resident, is
// enough.
func (e *Engine) fallBack(d, w int, p *part, failed outcome) outcome {
	j := p.job
	cause := failed.err
	e.log.Warn("device failed; proving the partition on the fallback device",
		"job", j.id, "partition", p.index, "device", d, "fallback", e.cfg.fallback.Name(), "err", cause)
	pt := failed.times
	t0 := time.Now()
	e.emit(t0, timeline.FinalizeStart, j, p.index, d, w, "fallback: "+errDetail(cause))
	if err := e.fallbackLock.Acquire(j.ctx, 1); err != nil {
		e.emit(time.Now(), timeline.FinalizeEnd, j, p.index, d, w, "fallback "+errDetail(err))
		return outcome{err: fmt.Errorf("%w (after device error: %v)", err, cause)}
	}
	defer e.fallbackLock.Release(1)
	e.mu.Lock()
	if err := e.fallbackDecodeFitsLocked(j); err != nil {
		e.mu.Unlock()
		e.emit(time.Now(), timeline.FinalizeEnd, j, p.index, d, w, "fallback "+errDetail(err))
		return outcome{err: fmt.Errorf("%w (after device error: %v)", err, cause)}
	}
	p.asg = nil // not pooled: nothing of the failed attempt is reused
	p.bufs = e.pool.take(j.spec.Shape, false)
	e.reserveLocked(p, max(0, j.estFull-p.reserved))
	e.mu.Unlock()
	var out outcome
	err := e.safely(j, p.index, "fallback", func() error {
		asg, err := e.synthesizeAssignment(p, false) // the fallback needs the evaluations
		if err != nil {
			return err
		}
		p.asg = asg
		rs, err := e.randomness(j, p.index)
		if err != nil {
			return err
		}
		proof, err := prover.ProvePartition(j.ctx, j.spec.Params, asg, prover.WithDevice(e.cfg.fallback), prover.WithRandomness(rs), prover.WithoutSelfCheck())
		if err != nil {
			return err
		}
		out, err = e.accept(j, p, proof, pt)
		return err
	})
	t1 := time.Now()
	e.emit(t1, timeline.FinalizeEnd, j, p.index, d, w, "fallback "+errDetail(err))
	if err != nil {
		return outcome{err: fmt.Errorf("%w (after device error: %v)", err, cause)}
	}
	out.times.finalize += t1.Sub(t0)
	return out
}

// fallbackDecodeFitsLocked refuses a fallback proof that would decode parameters mapped from
// their file onto the heap (a CPU proof needs the points in memory: 44 GiB for a 32 GiB PoRep)
// when the budget has no room for them beside what is resident and reserved now. Once decoded,
// the points are counted as resident (ParametersBytes).
func (e *Engine) fallbackDecodeFitsLocked(j *job) error {
	params := j.spec.Params
	if params.Mapped() == nil || params.HeapBytes() > 0 {
		return nil
	}
	need := params.PointBytes()
	free := e.cfg.budget - e.resident.totals().total() - e.reserved
	if need > free {
		return fmt.Errorf("fallback: proving on %s would decode the mapped parameters (%s) onto the heap, and the memory budget has %s free of %s",
			e.cfg.fallback.Name(), gib(need), gib(max(free, 0)), gib(e.cfg.budget))
	}
	return nil
}

// randomness returns partition i's r and s.
func (e *Engine) randomness(j *job, i int) (prover.Randomness, error) {
	if j.spec.Randomness != nil {
		return j.spec.Randomness(i)
	}
	return prover.NewRandomness()
}

// releaseTask calls task.Release, if task is not nil, logging a panic instead of propagating it.
func (e *Engine) releaseTask(p *part, task prover.Task) {
	if task == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("panic releasing task", "job", p.job.id, "partition", p.index, "panic", fmt.Sprint(r))
		}
	}()
	task.Release()
}
