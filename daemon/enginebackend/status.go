package enginebackend

import (
	"context"
	"sync"
	"time"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/timeline"
)

// Preload loads circuit's parameters (a daemon.CircuitID) into host memory and uploads them to
// every GPU; AlreadyLoaded when they were ready to prove already.
func (b *Backend) Preload(ctx context.Context, circuit string) (daemon.PreloadResult, error) {
	if err := b.supportsCircuit(circuit); err != nil {
		return daemon.PreloadResult{}, err
	}
	return b.params.preload(ctx, circuit)
}

// Evict frees circuit's parameters on the GPUs and in host memory; a proof in flight keeps
// using its reference, and the next proof loads them again.
func (b *Backend) Evict(ctx context.Context, circuit string) (daemon.EvictResult, error) {
	return b.params.evict(ctx, circuit)
}

// supportsCircuit is Supports for a circuit id.
func (b *Backend) supportsCircuit(circuit string) error {
	k, rp, err := representative(circuit)
	if err != nil {
		return err
	}
	return b.Supports(k, rp)
}

// Status reports the GPUs (name, memory, utilization over the window, the job when exactly
// one is in flight), the parameters (circuit, tier, bytes, proofs using them) and the engine's
// counted host memory as PinnedMemoryBytes of its budget. It takes a few locks and reads each
// GPU's properties; it never waits for proving.
func (b *Backend) Status() daemon.BackendStatus {
	st := daemon.BackendStatus{SRS: b.params.status()}
	es := b.eng.Stats()
	st.PinnedMemoryBytes = uint64(max(es.Resident+es.Reserved, 0))
	st.PinnedMemoryLimitBytes = uint64(max(es.Budget, 0))

	var onlyJob string
	var onlyKind daemon.ProofKind
	b.mu.Lock()
	if len(b.inFlight) == 1 {
		for id, k := range b.inFlight {
			onlyJob, onlyKind = id, k
		}
	}
	b.mu.Unlock()
	util, busy := b.util.snapshot()
	for i, g := range b.gpus {
		d := b.cfg.devices[i]
		gs := daemon.GPUStatus{Ordinal: uint32(d.Index()), Name: g.Name(), Utilization: util[i]}
		if p, err := d.Properties(); err == nil {
			gs.VRAMTotalBytes, gs.VRAMFreeBytes = p.TotalMem, p.FreeMem
		}
		if busy[i] {
			gs.CurrentJobID, gs.CurrentKind = onlyJob, onlyKind
		}
		st.GPUs = append(st.GPUs, gs)
	}
	return st
}

// utilization is the engine's timeline hook: it records when each device holds its kernel
// lock (GPU_START to GPU_END) and whether a partition is on it (GPU_PICKUP to FINALIZE_END),
// and reports the fraction of the last window each device computed.
type utilization struct {
	window time.Duration

	mu    sync.Mutex
	clock timeline.Clock
	ready bool
	devs  []deviceBusy
}

// deviceBusy is one device's recent kernel-lock intervals, as offsets from the engine's epoch.
type deviceBusy struct {
	intervals [][2]time.Duration // closed intervals, oldest first, pruned to the window
	since     time.Duration      // start of the open interval, when open
	open      bool
	onDevice  int // partitions between GPU_PICKUP and FINALIZE_END
}

func newUtilization(devices int, window time.Duration) *utilization {
	return &utilization{window: window, devs: make([]deviceBusy, devices)}
}

func (u *utilization) setClock(c timeline.Clock) {
	u.mu.Lock()
	u.clock, u.ready = c, true
	u.mu.Unlock()
}

// Event implements timeline.Hook; it is called concurrently by the engine's workers.
func (u *utilization) Event(e timeline.Event) {
	if e.Device < 0 || e.Device >= len(u.devs) {
		return // CPU-side events, and the fallback device's
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	d := &u.devs[e.Device]
	switch e.Kind {
	case timeline.GPUPickup:
		d.onDevice++
	case timeline.FinalizeEnd:
		d.onDevice = max(d.onDevice-1, 0)
	case timeline.GPUStart:
		d.since, d.open = e.Offset, true
	case timeline.GPUEnd:
		if d.open {
			d.intervals = append(d.intervals, [2]time.Duration{d.since, e.Offset})
			d.open = false
		}
		d.prune(e.Offset - u.window)
	}
}

// prune drops the intervals that ended before from.
func (d *deviceBusy) prune(from time.Duration) {
	i := 0
	for i < len(d.intervals) && d.intervals[i][1] < from {
		i++
	}
	d.intervals = d.intervals[i:]
}

// snapshot returns each device's busy fraction of the last window (of the time since the
// engine started, when shorter) and whether a partition is on it.
func (u *utilization) snapshot() ([]float64, []bool) {
	u.mu.Lock()
	ready, clock := u.ready, u.clock
	u.mu.Unlock()
	if !ready {
		return make([]float64, len(u.devs)), make([]bool, len(u.devs))
	}
	return u.snapshotAt(clock.Now())
}

// snapshotAt is snapshot at offset now from the engine's epoch.
func (u *utilization) snapshotAt(now time.Duration) ([]float64, []bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	util := make([]float64, len(u.devs))
	busy := make([]bool, len(u.devs))
	from := max(now-u.window, 0)
	span := now - from
	for i := range u.devs {
		d := &u.devs[i]
		busy[i] = d.onDevice > 0
		if span <= 0 {
			continue
		}
		var sum time.Duration
		for _, iv := range d.intervals {
			sum += max(min(iv[1], now)-max(iv[0], from), 0)
		}
		if d.open {
			sum += max(now-max(d.since, from), 0)
		}
		util[i] = min(float64(sum)/float64(span), 1)
	}
	return util, busy
}

// VerifyingKey returns the verifying key of circuit's parameters (a daemon.CircuitID), loading
// them as a proof would. With WithInsecureDevParams it is the only key the backend's proofs
// verify against; otherwise the .vk file of the parameter cache is the same key.
func (b *Backend) VerifyingKey(ctx context.Context, circuit string) (*prover.VerifyingKey, error) {
	if err := b.supportsCircuit(circuit); err != nil {
		return nil, err
	}
	k, rp, _ := representative(circuit) // checked by supportsCircuit
	pi, err := proofInfo(k, rp)
	if err != nil {
		return nil, err
	}
	e, _, err := b.params.acquire(ctx, circuit, pi, k, rp)
	if err != nil {
		return nil, err
	}
	defer b.params.release(e)
	return &e.params.VK, nil
}
