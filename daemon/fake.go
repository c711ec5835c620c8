package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// FakeBackend is a Backend that proves nothing: its "proofs" are bytes derived from the request
// with SHA-256, the right length (192 bytes per partition) but not Groth16 proofs, and no
// verifier accepts them. It exists to test the daemon and its clients without a GPU or
// parameters; cuzkd uses it only when started with -fake-backend.
//
// It is deterministic: Prove waits for Gate (when set), then for Delay, then answers. Set the
// fields before the daemon starts and do not change them afterwards.
type FakeBackend struct {
	// Kinds lists the kinds it supports; nil means all four.
	Kinds []ProofKind
	// Delay is how long each Prove takes; a cancelled context cuts it short.
	Delay time.Duration
	// Gate, when not nil, holds every Prove until a value is received from it or it is closed.
	Gate chan struct{}
	// FailJob, when not nil, is asked for each job; a non-nil error fails it.
	FailJob func(*Request) error

	mu      sync.Mutex
	order   []string
	loaded  map[string]bool
	current map[string]ProofKind
}

var (
	_ Backend        = (*FakeBackend)(nil)
	_ RequestChecker = (*FakeBackend)(nil)
)

// Supports accepts the kinds in f.Kinds (all when nil).
func (f *FakeBackend) Supports(k ProofKind, rp uint64) error {
	if f.Kinds == nil || slices.Contains(f.Kinds, k) {
		return nil
	}
	return fmt.Errorf("fake backend configured without %s: %w", k, ErrUnsupported)
}

// CheckRequest checks that a PoRep C1 output is valid JSON, as a real backend would find out
// when decoding it.
func (f *FakeBackend) CheckRequest(r *Request) error {
	if r.Kind == PoRepSealCommit && !json.Valid(r.C1Output) {
		return badField("vanilla_proof", "C1 output (Phase1Out) is not valid JSON")
	}
	return nil
}

// Prove returns a fake proof of FakePartitions(req) × 192 bytes.
func (f *FakeBackend) Prove(ctx context.Context, req *Request) (*Result, error) {
	f.mu.Lock()
	f.order = append(f.order, req.JobID)
	if f.current == nil {
		f.current = make(map[string]ProofKind)
	}
	f.current[req.JobID] = req.Kind
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.current, req.JobID)
		f.mu.Unlock()
	}()

	if f.Gate != nil {
		select {
		case <-f.Gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	start := time.Now()
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.FailJob != nil {
		if err := f.FailJob(req); err != nil {
			return nil, err
		}
	}
	return &Result{Proof: FakeProof(req), Partitions: FakePartitions(req), GPUCompute: time.Since(start)}, nil
}

// Order returns the job ids in the order Prove received them.
func (f *FakeBackend) Order() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.order)
}

// Preload marks circuit loaded.
func (f *FakeBackend) Preload(_ context.Context, circuit string) (PreloadResult, error) {
	k, _, err := ParseCircuitID(circuit)
	if err != nil {
		return PreloadResult{}, badField("circuit_id", "%v", err)
	}
	if err := f.Supports(k, 0); err != nil {
		return PreloadResult{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded == nil {
		f.loaded = make(map[string]bool)
	}
	was := f.loaded[circuit]
	f.loaded[circuit] = true
	return PreloadResult{AlreadyLoaded: was}, nil
}

// Evict marks circuit not loaded.
func (f *FakeBackend) Evict(_ context.Context, circuit string) (EvictResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	was := f.loaded[circuit]
	delete(f.loaded, circuit)
	return EvictResult{WasLoaded: was}, nil
}

// Status reports one device named "fake" and the preloaded circuits, hot, of size 0.
func (f *FakeBackend) Status() BackendStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := GPUStatus{Name: "fake", Utilization: 0}
	for id, k := range f.current {
		g.CurrentJobID, g.CurrentKind, g.Utilization = id, k, 1
		break
	}
	s := BackendStatus{GPUs: []GPUStatus{g}}
	for c := range f.loaded {
		s.SRS = append(s.SRS, SRSStatus{Circuit: c, Tier: TierHot})
	}
	sort.Slice(s.SRS, func(i, j int) bool { return s.SRS[i].Circuit < s.SRS[j].Circuit })
	return s
}

// FakePartitions is the partition count of req's real proof: 10 for a 32 or 64 GiB PoRep
// (filecoin-proofs constants.rs POREP_PARTITIONS), one per vanilla proof for SnapDeals, 1
// otherwise.
func FakePartitions(req *Request) int {
	switch {
	case req.Kind == PoRepSealCommit && req.SectorSize >= 32<<30:
		return 10
	case req.Kind == SnapDealsUpdate:
		return len(req.VanillaProofs)
	}
	return 1
}

// FakeProof returns FakePartitions(req) × 192 bytes: SHA-256 in counter mode over a digest of
// the request, so that equal requests get equal bytes.
func FakeProof(req *Request) []byte {
	h := sha256.New()
	var n [8]byte
	for _, v := range []uint64{uint64(req.Kind), req.SectorSize, req.RegisteredProof, req.SectorNumber, req.MinerID, uint64(req.PartitionIndex)} {
		binary.LittleEndian.PutUint64(n[:], v)
		h.Write(n[:])
	}
	for _, b := range append([][]byte{req.C1Output, req.Randomness, req.CommROld, req.CommRNew, req.CommDNew}, req.VanillaProofs...) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	seed := h.Sum(nil)
	out := make([]byte, 0, 192*FakePartitions(req))
	for i := uint64(0); len(out) < cap(out); i++ {
		binary.LittleEndian.PutUint64(n[:], i)
		block := sha256.Sum256(append(seed, n[:]...))
		out = append(out, block[:]...)
	}
	return out[:cap(out)]
}
