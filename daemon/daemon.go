package daemon

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// JobState is where a job is in its life: Queued → Running → Completed, Failed or Cancelled.
type JobState int

// The job states.
const (
	Queued JobState = iota
	Running
	Completed
	Failed
	Cancelled
)

// String returns the state in lower case.
func (s JobState) String() string {
	return [...]string{"queued", "running", "completed", "failed", "cancelled"}[s]
}

// Terminal reports whether the job has ended.
func (s JobState) Terminal() bool { return s >= Completed }

// Ticket acknowledges a submitted job.
type Ticket struct {
	JobID string
	// QueuePosition is the number of queued jobs served before this one (0: next).
	QueuePosition int
	// Joined is true when the request_id named a job already queued or running with the same
	// request, which the caller now shares instead of starting a new one.
	Joined bool
}

// Outcome is how a job ended.
type Outcome struct {
	JobID string
	State JobState // Completed, Failed or Cancelled
	Proof []byte   // when Completed
	Error string   // why it failed or was cancelled

	QueueWait  time.Duration // submission to start
	SRSLoad    time.Duration // as the backend reports them
	Synthesis  time.Duration
	GPUCompute time.Duration
	Total      time.Duration // submission to end
}

// job is one submitted request. Its fields are guarded by Daemon.mu, except that outcome is
// written once before done is closed and only read after.
type job struct {
	req       *Request
	seq       uint64
	index     int // in the queue, -1 when not queued
	state     JobState
	submitted time.Time
	started   time.Time
	finished  time.Time
	cancel    context.CancelFunc // while Running
	done      chan struct{}
	outcome   Outcome
}

// Daemon queues proof requests, runs them on a Backend in priority order and keeps their
// outcomes for a while so that clients can await them. It is what cuzkd serves over gRPC (see
// NewService) and can be used in-process as well. Its methods are safe for concurrent use.
type Daemon struct {
	backend Backend
	cfg     config
	log     *slog.Logger
	metrics *metrics
	started time.Time

	mu        sync.Mutex
	wake      *sync.Cond // signalled when a job is queued or the daemon closes
	queue     jobQueue
	jobs      map[string]*job // queued, running and retained jobs by id
	finished  []*job          // terminal jobs in the order they ended, for retention
	running   map[*job]bool   // jobs a worker is proving, including ones already cancelled
	seq       uint64
	closing   bool
	completed uint64
	failed    uint64
	cancelled uint64

	workers sync.WaitGroup
}

// New starts a daemon proving on b with MaxConcurrent workers.
func New(b Backend, opts ...Option) (*Daemon, error) {
	if b == nil {
		return nil, errors.New("daemon: nil backend")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
	}
	d := &Daemon{
		backend: b,
		cfg:     cfg,
		log:     cfg.logger,
		started: time.Now(),
		jobs:    make(map[string]*job),
		running: make(map[*job]bool),
	}
	d.wake = sync.NewCond(&d.mu)
	d.metrics = newMetrics(d)
	for range cfg.maxConcurrent {
		d.workers.Add(1)
		go d.work()
	}
	return d, nil
}

// Submit checks req and queues it, returning its job id and queue position. An empty
// req.JobID gets a fresh random id. A JobID naming a job that is queued or running joins that
// job when the request is the same and fails with ErrJobExists otherwise; one naming a job
// that has ended starts a new job under that id. Errors wrap ErrInvalidRequest,
// ErrUnsupported, ErrQueueFull, ErrJobExists or ErrShuttingDown. Critical-priority requests are
// accepted even when the queue is full, so WinningPoSt is never refused for want of room.
func (d *Daemon) Submit(req *Request) (Ticket, error) {
	t, err := d.submit(req)
	if err != nil {
		d.metrics.rejected.WithLabelValues(rejectReason(err)).Inc()
		d.log.Warn("request refused", "job", req.JobID, "kind", req.Kind.String(), "err", err)
	}
	return t, err
}

func (d *Daemon) submit(req *Request) (Ticket, error) {
	if err := checkRequest(req); err != nil {
		return Ticket{}, err
	}
	if err := d.backend.Supports(req.Kind, req.RegisteredProof); err != nil {
		if !errors.Is(err, ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return Ticket{}, err
	}
	if c, ok := d.backend.(RequestChecker); ok {
		if err := c.CheckRequest(req); err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				err = fmt.Errorf("%w: %w", ErrInvalidRequest, err)
			}
			return Ticket{}, err
		}
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		return Ticket{}, ErrShuttingDown
	}
	id := req.JobID
	if id == "" {
		id = newJobID()
	} else if old := d.lookup(id); old != nil && !old.state.Terminal() {
		if !sameRequest(old.req, req) {
			return Ticket{}, fmt.Errorf("job %q (%s, %s): %w", id, old.req.Kind, old.state, ErrJobExists)
		}
		pos := 0
		if old.state == Queued {
			pos = d.queue.ahead(old)
		}
		return Ticket{JobID: id, QueuePosition: pos, Joined: true}, nil
	}
	if req.Priority < PriorityCritical && d.queue.Len() >= d.cfg.maxQueueDepth {
		return Ticket{}, fmt.Errorf("%d jobs queued (max_queue_depth): %w", d.queue.Len(), ErrQueueFull)
	}
	r := *req
	r.JobID = id
	d.seq++
	j := &job{req: &r, seq: d.seq, state: Queued, submitted: time.Now(), done: make(chan struct{})}
	heap.Push(&d.queue, j)
	d.jobs[id] = j
	d.metrics.queued.WithLabelValues(r.Kind.MetricLabel()).Inc()
	d.wake.Signal()
	pos := d.queue.ahead(j)
	d.log.Info("job queued", "job", id, "kind", r.Kind.String(), "priority", r.Priority.String(),
		"sector_size", r.SectorSize, "miner", r.MinerID, "sector", r.SectorNumber, "position", pos)
	return Ticket{JobID: id, QueuePosition: pos}, nil
}

// Await waits until job id ends and returns its outcome, or returns ctx.Err() when ctx ends
// first (the job goes on). It returns ErrJobNotFound for an unknown id or a result no longer
// retained.
func (d *Daemon) Await(ctx context.Context, id string) (Outcome, error) {
	d.mu.Lock()
	j := d.lookup(id)
	d.mu.Unlock()
	if j == nil {
		return Outcome{}, fmt.Errorf("job %q: %w", id, ErrJobNotFound)
	}
	select {
	case <-j.done:
		return j.outcome, nil
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// Cancel cancels job id: a queued job leaves the queue, a running job's backend call is
// cancelled; either way its awaiters see Cancelled at once. It reports whether the job was
// running. Cancelling a job that has already ended changes nothing and is not an error; an
// unknown id is ErrJobNotFound.
func (d *Daemon) Cancel(id string) (wasRunning bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	j := d.lookup(id)
	if j == nil {
		return false, fmt.Errorf("job %q: %w", id, ErrJobNotFound)
	}
	switch j.state {
	case Queued:
		heap.Remove(&d.queue, j.index)
		d.metrics.queued.WithLabelValues(j.req.Kind.MetricLabel()).Dec()
		d.end(j, Outcome{State: Cancelled, Error: "cancelled by CancelProof while queued"})
		return false, nil
	case Running:
		j.cancel()
		d.end(j, Outcome{State: Cancelled, Error: "cancelled by CancelProof while running"})
		return true, nil
	}
	return false, nil
}

// QueueStatus counts one kind's jobs.
type QueueStatus struct {
	Kind       ProofKind
	Pending    int // queued
	InProgress int // being proved by the backend
}

// RunningJob is a job the backend is proving.
type RunningJob struct {
	JobID   string
	Kind    ProofKind
	Started time.Time
}

// Status is a snapshot of the daemon.
type Status struct {
	Queues    []QueueStatus // one per kind, in Kinds order
	Running   []RunningJob  // oldest first
	Completed uint64        // jobs ended Completed since start
	Failed    uint64
	Cancelled uint64
	Uptime    time.Duration
	Backend   BackendStatus
}

// Status returns a snapshot of the queues, running jobs, counters and the backend.
func (d *Daemon) Status() Status {
	d.mu.Lock()
	s := Status{Completed: d.completed, Failed: d.failed, Cancelled: d.cancelled, Uptime: time.Since(d.started)}
	for _, k := range Kinds {
		s.Queues = append(s.Queues, QueueStatus{Kind: k})
	}
	idx := func(k ProofKind) *QueueStatus { return &s.Queues[slices.Index(Kinds[:], k)] }
	for _, j := range d.queue {
		idx(j.req.Kind).Pending++
	}
	for j := range d.running {
		idx(j.req.Kind).InProgress++
		s.Running = append(s.Running, RunningJob{JobID: j.req.JobID, Kind: j.req.Kind, Started: j.started})
	}
	d.mu.Unlock()
	slices.SortFunc(s.Running, func(a, b RunningJob) int { return a.Started.Compare(b.Started) })
	s.Backend = d.backend.Status()
	return s
}

// Backend returns the backend the daemon proves on.
func (d *Daemon) Backend() Backend { return d.backend }

// Shutdown stops the daemon: Submit fails with ErrShuttingDown from now on, queued jobs end
// Cancelled at once, and running jobs may finish until ctx ends; then they are cancelled too.
// Every job ever acknowledged by Submit thus ends Completed, Failed or Cancelled, and its
// awaiters are told. Shutdown returns nil when all workers finished in time and an error
// wrapping ctx.Err() naming the jobs cancelled otherwise (their backend calls have been
// cancelled but may still be returning).
func (d *Daemon) Shutdown(ctx context.Context) error {
	d.mu.Lock()
	if !d.closing {
		d.closing = true
		n := d.queue.Len()
		for d.queue.Len() > 0 {
			j := heap.Pop(&d.queue).(*job)
			d.metrics.queued.WithLabelValues(j.req.Kind.MetricLabel()).Dec()
			d.end(j, Outcome{State: Cancelled, Error: "daemon shutting down before the job started"})
		}
		d.wake.Broadcast()
		d.log.Info("daemon shutting down", "queued_cancelled", n, "running", len(d.running))
	}
	d.mu.Unlock()

	done := make(chan struct{})
	go func() { d.workers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	d.mu.Lock()
	var ids []string
	for j := range d.running {
		if j.state == Running {
			j.cancel()
			d.end(j, Outcome{State: Cancelled, Error: "daemon shutting down: the job did not finish before the shutdown deadline"})
			ids = append(ids, j.req.JobID)
		}
	}
	d.mu.Unlock()
	slices.Sort(ids)
	return fmt.Errorf("shutdown deadline passed, running jobs cancelled %q: %w", ids, ctx.Err())
}

// work is one worker: it proves the best queued job, records the outcome, and repeats until the
// daemon closes.
func (d *Daemon) work() {
	defer d.workers.Done()
	for {
		d.mu.Lock()
		for d.queue.Len() == 0 && !d.closing {
			d.wake.Wait()
		}
		if d.closing {
			d.mu.Unlock()
			return
		}
		j := heap.Pop(&d.queue).(*job)
		ctx, cancel := context.WithCancel(context.Background())
		j.state, j.started, j.cancel = Running, time.Now(), cancel
		d.running[j] = true
		kind := j.req.Kind.MetricLabel()
		d.metrics.queued.WithLabelValues(kind).Dec()
		d.metrics.inflight.WithLabelValues(kind).Inc()
		d.log.Info("job started", "job", j.req.JobID, "kind", j.req.Kind.String(), "queue_wait", j.started.Sub(j.submitted))
		d.mu.Unlock()

		res, err := d.prove(ctx, j.req)
		cancel()

		d.mu.Lock()
		delete(d.running, j)
		d.metrics.inflight.WithLabelValues(kind).Dec()
		if j.state == Running {
			d.end(j, outcomeOf(res, err))
		}
		d.mu.Unlock()
	}
}

// prove calls the backend, turning a panic into an error so that one bad job cannot take the
// daemon down.
func (d *Daemon) prove(ctx context.Context, req *Request) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("backend panicked", "job", req.JobID, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("backend panicked: %v", p)
		}
	}()
	return d.backend.Prove(ctx, req)
}

func outcomeOf(res *Result, err error) Outcome {
	switch {
	case err != nil:
		return Outcome{State: Failed, Error: err.Error()}
	case res == nil || len(res.Proof) == 0:
		return Outcome{State: Failed, Error: "backend returned no proof"}
	}
	return Outcome{State: Completed, Proof: res.Proof, SRSLoad: res.SRSLoad, Synthesis: res.Synthesis, GPUCompute: res.GPUCompute}
}

// end records how job j ended, wakes its awaiters and retains it. d.mu must be held.
func (d *Daemon) end(j *job, o Outcome) {
	now := time.Now()
	j.state, j.finished = o.State, now
	o.JobID = j.req.JobID
	o.Total = now.Sub(j.submitted)
	if !j.started.IsZero() {
		o.QueueWait = j.started.Sub(j.submitted)
	} else {
		o.QueueWait = o.Total
	}
	j.outcome = o

	// Counters and histograms first, then the awaiters: a caller whose Prove has returned
	// reads metrics that count its job.
	kind := j.req.Kind
	m := d.metrics
	switch o.State {
	case Completed:
		d.completed++
		m.completed.WithLabelValues(kind.MetricLabel()).Inc()
		m.partitions.WithLabelValues(kind.MetricLabel()).Add(float64(partitions(o.Proof)))
		m.duration.WithLabelValues(kind.MetricLabel()).Observe(o.Total.Seconds())
		d.log.Info("job completed", "job", o.JobID, "kind", kind.String(), "proof_bytes", len(o.Proof),
			"queue_wait", o.QueueWait, "total", o.Total)
	case Failed:
		d.failed++
		m.failed.WithLabelValues(kind.MetricLabel()).Inc()
		d.log.Error("job failed", "job", o.JobID, "kind", kind.String(), "err", o.Error, "total", o.Total)
	case Cancelled:
		d.cancelled++
		m.cancelled.WithLabelValues(kind.MetricLabel()).Inc()
		d.log.Warn("job cancelled", "job", o.JobID, "kind", kind.String(), "reason", o.Error)
	}
	if !j.started.IsZero() {
		m.queueWait.WithLabelValues(kind.MetricLabel()).Observe(o.QueueWait.Seconds())
	}
	close(j.done)

	// The backend may still hold the request; drop our reference to the payload, which can be
	// tens of MiB, keeping the fields sameRequest and the logs use.
	r := *j.req
	r.C1Output, r.VanillaProofs = nil, nil
	j.req = &r

	d.finished = append(d.finished, j)
	d.prune(now)
}

// partitions returns the number of 192-byte Groth16 proofs in proof.
func partitions(proof []byte) int { return len(proof) / 192 }

// prune forgets ended jobs beyond the retention count or age. d.mu must be held.
func (d *Daemon) prune(now time.Time) {
	n := 0
	for n < len(d.finished) {
		j := d.finished[n]
		if len(d.finished)-n <= d.cfg.maxRetained && now.Sub(j.finished) < d.cfg.retention {
			break
		}
		if d.jobs[j.req.JobID] == j {
			delete(d.jobs, j.req.JobID)
		}
		n++
	}
	if n > 0 {
		d.finished = slices.Delete(d.finished, 0, n)
	}
}

// lookup returns job id, or nil if there is none or its result has expired. d.mu must be held.
func (d *Daemon) lookup(id string) *job {
	d.prune(time.Now())
	return d.jobs[id]
}

// sameRequest reports whether two requests ask for the same proof, so that a resubmission under
// the same request_id may join the job in progress.
func sameRequest(a, b *Request) bool {
	return a.Kind == b.Kind && a.SectorSize == b.SectorSize && a.RegisteredProof == b.RegisteredProof &&
		a.SectorNumber == b.SectorNumber && a.MinerID == b.MinerID && a.PartitionIndex == b.PartitionIndex &&
		bytes.Equal(a.Randomness, b.Randomness) && bytes.Equal(a.C1Output, b.C1Output) &&
		slices.EqualFunc(a.VanillaProofs, b.VanillaProofs, bytes.Equal) &&
		bytes.Equal(a.CommROld, b.CommROld) && bytes.Equal(a.CommRNew, b.CommRNew) && bytes.Equal(a.CommDNew, b.CommDNew)
}

// newJobID returns a random id for a request without request_id.
func newJobID() string {
	var b [16]byte
	rand.Read(b[:])
	return "job-" + hex.EncodeToString(b[:])
}

func rejectReason(err error) string {
	switch {
	case errors.Is(err, ErrInvalidRequest):
		return "invalid_argument"
	case errors.Is(err, ErrUnsupported):
		return "unimplemented"
	case errors.Is(err, ErrQueueFull):
		return "queue_full"
	case errors.Is(err, ErrJobExists):
		return "already_exists"
	case errors.Is(err, ErrShuttingDown):
		return "shutting_down"
	}
	return "other"
}
