package enginebackend

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/filecoin/update"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// paramStore holds each circuit's parameters, loaded once: concurrent requests for a circuit
// being loaded wait for that load. Parameters from the cache stay in their file's mapping
// (proofs.ProofInfo.OpenParameters), with the fold overlay of foldDir mapped over it when there
// is one (proofs.ProofInfo.OpenFold), which the store closes once the circuit is
// dropped (evict, close) and no proof holds a reference any longer.
type paramStore struct {
	cache    *paramcache.Cache
	foldDir  string // where fold overlays are looked for; "" for none
	insecure bool
	gpus     []*gpu.ProverDevice
	log      *slog.Logger

	mu       sync.Mutex
	entries  map[string]*paramEntry // by circuit id
	rejected map[string]fileStamp   // fold overlays set aside (rejectFold), by path
}

// fileStamp is a file's size and modification time: a file set aside is passed over while it
// keeps them, and tried again once it is written anew.
type fileStamp struct {
	size int64
	mod  time.Time
}

// stampOf returns path's fileStamp; ok is false when it cannot be read.
func stampOf(path string) (st fileStamp, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	return fileStamp{fi.Size(), fi.ModTime()}, true
}

// paramEntry is one circuit's parameters. params and err are set before ready is closed.
type paramEntry struct {
	circuit string
	ready   chan struct{}
	params  *prover.Parameters
	err     error

	// Guarded by paramStore.mu.
	refs     int                      // proofs using the parameters
	resident bool                     // uploaded to every GPU by Preload
	loaded   bool                     // the load has ended (ready is closed or about to be)
	dropped  bool                     // no longer in entries: closed once refs is 0
	file     *prover.MappedParameters // the mapping params are proved from; nil if INSECURE or closed
	fold     *prover.MappedParameters // the fold overlay over file that params come from; nil if none
	path     string                   // the file's path; "" if INSECURE
	foldPath string                   // the overlay's path; "" if none
}

func newParamStore(c *paramcache.Cache, insecure bool, gpus []*gpu.ProverDevice, log *slog.Logger) *paramStore {
	return &paramStore{cache: c, insecure: insecure, gpus: gpus, log: log, entries: make(map[string]*paramEntry),
		rejected: make(map[string]fileStamp)}
}

// representative returns the registered proof whose parameters serve circuit id (kind and sector
// size): the interactive …V1_1 seal type for PoRep (V1 and V1_1 share the circuit and files),
// the …V1_1 type for WindowPoSt (likewise), the WinningPoSt type and the update type.
func representative(id string) (daemon.ProofKind, uint64, error) {
	k, size, err := daemon.ParseCircuitID(id)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %w", err, daemon.ErrUnsupported)
	}
	var base uint64
	switch k {
	case daemon.PoRepSealCommit:
		base = uint64(sector.StackedDrg2KiBV1_1)
	case daemon.WindowPoStPartition:
		base = uint64(post.StackedDrgWindow2KiBV1_1)
	case daemon.WinningPoSt:
		base = uint64(post.StackedDrgWinning2KiBV1)
	case daemon.SnapDealsUpdate:
		base = uint64(update.StackedDrg2KiBV1)
	default:
		return 0, 0, fmt.Errorf("circuit %s: %s: %w", id, k, daemon.ErrUnsupported)
	}
	for i := range uint64(5) {
		if s, err := daemon.ProofSectorSize(k, base+i); err == nil && s == size {
			return k, base + i, nil
		}
	}
	return 0, 0, fmt.Errorf("circuit %s: no registered proof of that size: %w", id, daemon.ErrUnsupported)
}

// CircuitProofInfo returns the registered proof type whose parameters file and circuit serve
// circuit id ("porep-32g", "wpost-32g", …; daemon.CircuitID): the files and circuit of
// FoldParameters and OpenFold for that circuit.
func CircuitProofInfo(id string) (proofs.ProofInfo, error) {
	k, rp, err := representative(id)
	if err != nil {
		return proofs.ProofInfo{}, err
	}
	return proofInfo(k, rp)
}

// acquire returns circuit id's parameters, loading them if needed, with a reference the caller
// releases; loaded reports whether this call waited for a load.
func (s *paramStore) acquire(ctx context.Context, id string, pi proofs.ProofInfo, k daemon.ProofKind, rp uint64) (*paramEntry, bool, error) {
	s.mu.Lock()
	e, ok := s.entries[id]
	if !ok {
		e = &paramEntry{circuit: id, ready: make(chan struct{})}
		s.entries[id] = e
		go s.load(e, pi, k, rp)
	}
	e.refs++
	s.mu.Unlock()
	loaded := false
	select {
	case <-e.ready:
	default:
		loaded = true
		select {
		case <-e.ready:
		case <-ctx.Done():
			s.release(e)
			return nil, false, ctx.Err()
		}
	}
	if e.err != nil {
		s.release(e)
		s.mu.Lock()
		if s.entries[id] == e { // a failed load is retried by the next request
			delete(s.entries, id)
		}
		s.mu.Unlock()
		return nil, false, e.err
	}
	return e, loaded, nil
}

// release drops a reference taken by acquire.
func (s *paramStore) release(e *paramEntry) {
	s.mu.Lock()
	e.refs--
	s.closeUnusedLocked(e)
	s.mu.Unlock()
}

// dropLocked removes e from the entries and closes its mapping unless its load is under way or
// a proof holds a reference; the load's end or the last release closes it then.
func (s *paramStore) dropLocked(e *paramEntry) {
	if s.entries[e.circuit] == e {
		delete(s.entries, e.circuit)
	}
	e.dropped = true
	s.closeUnusedLocked(e)
}

// closeUnusedLocked closes e's mapping when e is dropped, its load has ended and no proof holds
// a reference: the engine then no longer reads the points (the proofs package returns only once
// its job has finished), so the pages can be unmapped.
func (s *paramStore) closeUnusedLocked(e *paramEntry) {
	if !e.dropped || !e.loaded || e.refs > 0 || e.file == nil {
		return
	}
	f, fold := e.file, e.fold
	e.file, e.fold = nil, nil
	var err error
	if fold != nil {
		err = fold.Close()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		s.log.Warn("parameters not unmapped", "circuit", e.circuit, "err", err)
		return
	}
	s.log.Info("parameters unmapped", "circuit", e.circuit)
}

// badPoint handles err, the error of a proof or upload with e's parameters: when a point of
// the file failed to decode (a *prover.DecodeError: the file's digest matched, yet a point is
// off the curve), it drops e, so that the next request maps the file afresh (replaced, it is
// checked again), and names the file in the error. Other errors are returned as they are.
func (s *paramStore) badPoint(e *paramEntry, err error) error {
	de, bad := errors.AsType[*prover.DecodeError](err)
	if !bad || e.path == "" {
		return err
	}
	what, path := "parameters file", e.path
	if e.foldPath != "" && (de.Section == "l" || de.Section == "h") { // L' and K are the overlay's
		what, path = "fold overlay", e.foldPath
	}
	s.mu.Lock()
	s.dropLocked(e)
	s.mu.Unlock()
	s.log.Warn(what+" has a bad point; unloaded", "circuit", e.circuit, "file", path, "err", err)
	return fmt.Errorf("%s %s: %w", what, path, err)
}

// rejectFold handles err, the error of a proof with e's folded parameters that failed the
// engine's self-check: the overlay's header matched, yet its L' or K does not prove. It sets the
// overlay aside until its file changes (cuzkd fold --force writes it anew), drops e so that the
// next request loads the parameters without it, frees the folded points on the GPUs (once no
// partition uses them; ctx's cancellation is not heeded) so that the parameters alone find their
// room, and returns err naming the overlay.
func (s *paramStore) rejectFold(ctx context.Context, e *paramEntry, err error) error {
	s.mu.Lock()
	if st, ok := stampOf(e.foldPath); ok {
		s.rejected[e.foldPath] = st
	}
	s.dropLocked(e)
	s.mu.Unlock()
	s.log.Error("fold overlay set aside: a proof with it failed the self-check; proving without it",
		"circuit", e.circuit, "file", e.foldPath, "err", err, "make_it_again_with", "cuzkd fold --force "+e.circuit)
	for _, g := range s.gpus {
		if eerr := g.Evict(context.WithoutCancel(ctx), e.params.Identity()); eerr != nil {
			s.log.Warn("folded parameters not freed on the GPU", "circuit", e.circuit, "gpu", g.Name(), "err", eerr)
		}
	}
	return fmt.Errorf("fold overlay %s: %w", e.foldPath, err)
}

// close drops every circuit: their mappings are closed now, or when the proofs holding them end.
func (s *paramStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		s.dropLocked(e)
	}
}

// load maps (or, INSECURE, sets up) the parameters and closes e.ready. It runs on its own
// goroutine, not bound to any request's context, so that a cancelled request does not waste a
// load others wait for. The file is decoded Unchecked: the cache has checked its digest against
// the manifest (Checked would run the subgroup check on every point of every GPU upload).
func (s *paramStore) load(e *paramEntry, pi proofs.ProofInfo, k daemon.ProofKind, rp uint64) {
	var file, fold *prover.MappedParameters
	defer func() {
		s.mu.Lock()
		e.loaded, e.file, e.fold = true, file, fold
		s.closeUnusedLocked(e) // evicted while loading, and no one waits
		s.mu.Unlock()
		close(e.ready)
	}()
	start := time.Now()
	if s.insecure {
		e.params, e.err = insecureParams(k, rp)
	} else if file, e.err = pi.OpenParameters(context.Background(), s.cache, prover.Unchecked); e.err == nil {
		e.params, _ = file.Parameters() // made by OpenParameters: no error
		e.path = filepath.Join(s.cache.Dir(), pi.ParamsFile)
		if fold = s.openFold(e.circuit, pi, file); fold != nil {
			e.params, _ = fold.Parameters() // checked by OpenFold: no error
			e.foldPath = filepath.Join(s.foldDir, pi.FoldFile())
		}
	}
	if errors.Is(e.err, paramcache.ErrMissing) || errors.Is(e.err, paramcache.ErrDigest) {
		e.err = fmt.Errorf("%w: %w", daemon.ErrNotReady, e.err)
	}
	if e.err != nil {
		e.err = fmt.Errorf("load parameters of %s: %w", e.circuit, e.err)
		s.log.Warn("parameters not loaded", "circuit", e.circuit, "err", e.err)
		return
	}
	s.log.Info("parameters loaded", "circuit", e.circuit, "heap_bytes", engine.ParametersBytes(e.params),
		"mapped", file != nil, "c_folded", fold != nil, "took", time.Since(start), "insecure", s.insecure)
}

// openFold maps the fold overlay of s.foldDir over file, pi's parameters, or returns nil (the
// parameters are then proved alone): when s has no fold directory, and, logged with the reason
// and what to do, when the overlay is missing, damaged or does not fit.
func (s *paramStore) openFold(circuit string, pi proofs.ProofInfo, file *prover.MappedParameters) *prover.MappedParameters {
	if s.foldDir == "" {
		return nil
	}
	path := filepath.Join(s.foldDir, pi.FoldFile())
	s.mu.Lock()
	was, rejected := s.rejected[path]
	s.mu.Unlock()
	if st, ok := stampOf(path); rejected && ok && st.size == was.size && st.mod.Equal(was.mod) {
		s.log.Warn("fold overlay set aside after a failed self-check: proving without C folded into L", "circuit", circuit,
			"file", path, "make_it_again_with", "cuzkd fold --force "+circuit)
		return nil
	}
	fold, err := pi.OpenFold(file, s.foldDir, prover.Unchecked)
	switch {
	case err == nil:
		return fold
	case errors.Is(err, proofs.ErrNoFold):
		s.log.Warn("no fold overlay: proving without C folded into L", "circuit", circuit,
			"file", path, "make_it_with", "cuzkd fold "+circuit)
	default:
		s.log.Warn("fold overlay not used: proving without C folded into L", "circuit", circuit, "err", err,
			"make_it_again_with", "cuzkd fold "+circuit)
	}
	return nil
}

// insecureParams runs devsetup.InsecureSetup for the circuit of registered proof rp of kind k.
func insecureParams(k daemon.ProofKind, rp uint64) (*prover.Parameters, error) {
	var shape *synth.Shape
	var err error
	switch k {
	case daemon.PoRepSealCommit:
		shape, err = proofs.SealShape(sector.RegisteredSealProof(rp))
	case daemon.SnapDealsUpdate:
		shape, err = proofs.UpdateCircuitShape(update.ProofType(rp))
	default:
		shape, err = proofs.PoStCircuitShape(post.ProofType(rp))
	}
	if err != nil {
		return nil, err
	}
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	if err != nil {
		return nil, err
	}
	return devsetup.InsecureSetup(shape, tw)
}

// preload loads circuit id and makes it resident on every GPU.
func (s *paramStore) preload(ctx context.Context, id string) (daemon.PreloadResult, error) {
	start := time.Now()
	k, rp, err := representative(id)
	if err != nil {
		return daemon.PreloadResult{}, err
	}
	pi, err := proofInfo(k, rp)
	if err != nil {
		return daemon.PreloadResult{}, err
	}
	s.mu.Lock()
	e, had := s.entries[id]
	already := had && e.resident
	s.mu.Unlock()
	if had {
		select {
		case <-e.ready:
			already = already || (len(s.gpus) == 0 && e.err == nil)
		default:
		}
	}
	e, _, err = s.acquire(ctx, id, pi, k, rp)
	if err != nil {
		return daemon.PreloadResult{}, err
	}
	defer s.release(e)
	if already {
		return daemon.PreloadResult{AlreadyLoaded: true}, nil
	}
	srs := e.params.SRS()
	for _, g := range s.gpus {
		if _, err := g.Resident(ctx, srs); err != nil {
			return daemon.PreloadResult{}, fmt.Errorf("preload %s on %s: %w", id, g.Name(), s.badPoint(e, err))
		}
	}
	s.mu.Lock()
	e.resident = true
	s.mu.Unlock()
	return daemon.PreloadResult{LoadTime: time.Since(start)}, nil
}

// evict frees circuit id's parameters on the GPUs and drops them from host memory (proofs in
// flight keep their reference until they end).
func (s *paramStore) evict(ctx context.Context, id string) (daemon.EvictResult, error) {
	if _, _, err := representative(id); err != nil {
		return daemon.EvictResult{}, err
	}
	s.mu.Lock()
	e, ok := s.entries[id]
	if ok {
		s.dropLocked(e)
	}
	s.mu.Unlock()
	if !ok {
		return daemon.EvictResult{}, nil
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return daemon.EvictResult{}, ctx.Err()
	}
	if e.err != nil {
		return daemon.EvictResult{}, nil
	}
	for _, g := range s.gpus {
		if err := g.Evict(ctx, e.params.Identity()); err != nil {
			return daemon.EvictResult{WasLoaded: true}, fmt.Errorf("evict %s on %s: %w", id, g.Name(), err)
		}
	}
	return daemon.EvictResult{WasLoaded: true, FreedBytes: uint64(engine.ParametersBytes(e.params))}, nil
}

// status lists the circuits in circuit-id order.
func (s *paramStore) status() []daemon.SRSStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]daemon.SRSStatus, 0, len(s.entries))
	for id, e := range s.entries {
		st := daemon.SRSStatus{Circuit: id, Tier: daemon.TierCold, RefCount: uint32(max(e.refs, 0))}
		select {
		case <-e.ready:
			if e.err != nil {
				continue
			}
			st.SizeBytes = uint64(engine.ParametersBytes(e.params))
			st.Tier = daemon.TierWarm
			if e.resident || len(s.gpus) == 0 {
				st.Tier = daemon.TierHot
			}
		default:
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Circuit < out[j].Circuit })
	return out
}
