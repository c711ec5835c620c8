package enginebackend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/filecoin/update"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/prover"
)

// Backend is a daemon.Backend proving through one engine.Engine. Create it with New and Close it
// after the daemon has shut down. All methods are safe for concurrent use.
type Backend struct {
	cfg  config
	gpus []*gpu.ProverDevice // one per cfg.devices
	eng  *engine.Engine
	util *utilization

	params *paramStore

	mu       sync.Mutex
	inFlight map[string]daemon.ProofKind // job id → kind, while Prove runs
}

var (
	_ daemon.Backend        = (*Backend)(nil)
	_ daemon.RequestChecker = (*Backend)(nil)
)

// Option configures New.
type Option func(*config) error

type config struct {
	devices     []*gpu.Device
	shiftH      gpu.ShiftTableMode
	pairs       bool
	cache       *paramcache.Cache
	foldDir     string
	insecure    bool
	engineOpts  []engine.Option
	log         *slog.Logger
	utilization time.Duration
}

// WithGPUs proves on devs (from gpu.Load and Library.Device), with the CPU as the fallback
// device for a partition whose GPU fails. The backend makes one gpu.ProverDevice of each and
// Close frees what they hold. Without it the engine proves on the CPU.
func WithGPUs(devs ...*gpu.Device) Option {
	return func(c *config) error {
		for i, d := range devs {
			if d == nil {
				return fmt.Errorf("enginebackend: WithGPUs: device %d is nil", i)
			}
		}
		c.devices = append([]*gpu.Device(nil), devs...)
		return nil
	}
}

// WithShiftTableH says when the GPUs keep a shift table of a circuit's H bases
// (gpu.ProverDevice.SetShiftTableH, default gpu.ShiftTableOff): H's MSM about 6 % faster, for as
// much device memory again as H and seconds to build it. The GPUs log their
// gpu.ShiftTableAuto decisions to the backend's logger.
func WithShiftTableH(mode gpu.ShiftTableMode) Option {
	return func(c *config) error { c.shiftH = mode; return nil }
}

// WithPairTables says whether the GPUs keep pair tables of a circuit's B_G2, B_G1, A and L bases
// (gpu.ProverDevice.SetPairTables, default off): a quarter fewer point additions for the ones
// of those MSMs, for half those bases' device memory, where the GPU has room after a circuit's
// first partitions.
func WithPairTables(on bool) Option {
	return func(c *config) error { c.pairs = on; return nil }
}

// WithParamCache reads parameters from c (default: paramcache.Open(), the directory of
// $FIL_PROOFS_PARAMETER_CACHE or paramcache.DefaultDir).
func WithParamCache(c *paramcache.Cache) Option {
	return func(cfg *config) error {
		if c == nil {
			return errors.New("enginebackend: WithParamCache: nil cache")
		}
		cfg.cache = c
		return nil
	}
}

// WithFoldDir proves each circuit with folded parameters (C folded into L, H on the coset) where
// dir holds the fold overlay of its parameters file (proofs.ProofInfo.FoldParameters, `cuzkd
// fold`): the same proof bytes, two transforms fewer a partition and no C·w. A circuit whose
// overlay is missing, damaged, of version 1 (C folded into L alone) or folded from another file
// is proved with its parameters alone, and the reason logged once a load.
func WithFoldDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return errors.New("enginebackend: WithFoldDir: empty directory")
		}
		c.foldDir = dir
		return nil
	}
}

// WithInsecureDevParams makes each circuit's parameters with devsetup.InsecureSetup on first use
// instead of reading files. INSECURE: the proofs verify only against those parameters, and the
// setup's toxic waste could forge them. For tests and demos.
func WithInsecureDevParams() Option {
	return func(c *config) error { c.insecure = true; return nil }
}

// WithEngineOptions passes options to engine.New (memory budget, workers per device, synthesis
// concurrency, …). The backend sets the devices, the fallback, the timeline hook and the logger
// itself.
func WithEngineOptions(opts ...engine.Option) Option {
	return func(c *config) error { c.engineOpts = append(c.engineOpts, opts...); return nil }
}

// WithLogger sets the logger of the backend and its engine (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("enginebackend: WithLogger: nil logger")
		}
		c.log = l
		return nil
	}
}

// WithUtilizationWindow sets the window over which Status computes each GPU's utilization
// (default one minute).
func WithUtilizationWindow(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("enginebackend: WithUtilizationWindow: %v, want a positive duration", d)
		}
		c.utilization = d
		return nil
	}
}

// New starts the engine over the configured devices.
func New(opts ...Option) (*Backend, error) {
	cfg := config{log: slog.New(slog.DiscardHandler), utilization: time.Minute}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.cache == nil && !cfg.insecure {
		c, err := paramcache.Open()
		if err != nil {
			return nil, fmt.Errorf("enginebackend: open parameter cache: %w", err)
		}
		cfg.cache = c
	}
	gpus := make([]*gpu.ProverDevice, len(cfg.devices))
	for i, d := range cfg.devices {
		gpus[i] = gpu.NewProverDevice(d)
		gpus[i].SetShiftTableH(cfg.shiftH)
		gpus[i].SetPairTables(cfg.pairs)
		gpus[i].SetLogger(cfg.log)
	}
	util := newUtilization(len(gpus), cfg.utilization)
	eopts := append([]engine.Option(nil), cfg.engineOpts...)
	if len(gpus) > 0 {
		eopts = append(eopts, engine.WithDevices(prover.NewDevices(gpus...)...), engine.WithFallback(prover.CPU()))
	}
	eopts = append(eopts, engine.WithTimeline(util), engine.WithLogger(cfg.log))
	eng, err := engine.New(eopts...)
	if err != nil {
		return nil, fmt.Errorf("enginebackend: %w", err)
	}
	util.setClock(eng.Clock())
	b := &Backend{cfg: cfg, gpus: gpus, eng: eng, util: util, inFlight: make(map[string]daemon.ProofKind)}
	b.params = newParamStore(cfg.cache, cfg.insecure, gpus, cfg.log)
	b.params.foldDir = cfg.foldDir
	if cfg.insecure && cfg.foldDir != "" {
		cfg.log.Warn("fold overlays are not used with INSECURE development parameters", "fold_dir", cfg.foldDir)
	}
	if cfg.insecure {
		cfg.log.Warn("INSECURE development parameters: every circuit's parameters are made with devsetup.InsecureSetup; proofs verify only against them and can be forged. Never use for real sectors.")
	}
	return b, nil
}

// Close stops the engine, waiting for the jobs in flight, closes the GPUs and unmaps the
// parameter files. Call it after the daemon has shut down (its jobs have ended).
func (b *Backend) Close() error {
	err := b.eng.Close(context.Background())
	for _, g := range b.gpus {
		err = errors.Join(err, g.Close())
	}
	b.params.close()
	return err
}

// Engine returns the backend's engine (for its Stats).
func (b *Backend) Engine() *engine.Engine { return b.eng }

// Supports reports whether rp of kind k is proved: PoRep seal types but NonInteractive ones
// (proofs.SealProofInfo), every WinningPoSt and WindowPoSt type (proofs.PoStProofInfo), every
// SnapDeals update type (proofs.UpdateProofInfo). With WithInsecureDevParams only 2 KiB sectors are supported: a development setup
// of a larger circuit would take hours.
func (b *Backend) Supports(k daemon.ProofKind, rp uint64) error {
	pi, err := proofInfo(k, rp)
	if err == nil && b.cfg.insecure && pi.SectorSize != 2<<10 {
		return fmt.Errorf("%s registered proof %d: INSECURE development parameters are made for 2 KiB sectors only: %w", k, rp, daemon.ErrUnsupported)
	}
	return err
}

// proofInfo returns the filecoin/proofs description of registered proof rp of kind k, or an
// error wrapping daemon.ErrUnsupported.
func proofInfo(k daemon.ProofKind, rp uint64) (proofs.ProofInfo, error) {
	var pi proofs.ProofInfo
	var err error
	switch k {
	case daemon.PoRepSealCommit:
		pi, err = proofs.SealProofInfo(sector.RegisteredSealProof(rp))
	case daemon.WinningPoSt, daemon.WindowPoStPartition:
		pi, err = proofs.PoStProofInfo(post.ProofType(rp))
		if err == nil && (pi.Circuit == proofs.WinningPoSt) != (k == daemon.WinningPoSt) {
			err = fmt.Errorf("registered proof %d is a %s type", rp, pi.Circuit)
		}
	case daemon.SnapDealsUpdate:
		pi, err = proofs.UpdateProofInfo(update.ProofType(rp))
	default:
		return proofs.ProofInfo{}, fmt.Errorf("%s: %w", k, daemon.ErrUnsupported)
	}
	if err != nil {
		return proofs.ProofInfo{}, fmt.Errorf("%s registered proof %d: %v: %w", k, rp, err, daemon.ErrUnsupported)
	}
	return pi, nil
}

// CheckRequest checks the payload before the job is queued: each PoSt vanilla proof decodes,
// a SnapDeals request has one decodable partition proof per partition of its type, and a WindowPoSt …V1 partition other than 0 is refused (its challenges depend on the
// partition's first sector index over all partitions, which the request does not carry). A PoRep
// C1 output is parsed, and its vanilla proofs checked, when the job runs.
func (b *Backend) CheckRequest(r *daemon.Request) error {
	switch r.Kind {
	case daemon.WinningPoSt, daemon.WindowPoStPartition:
		for i, v := range r.VanillaProofs {
			if _, err := post.DecodeSectorProof(v); err != nil {
				return &daemon.RequestError{Field: fmt.Sprintf("vanilla_proofs[%d]", i), Reason: err.Error()}
			}
		}
		if r.Kind == daemon.WindowPoStPartition && r.PartitionIndex > 0 {
			info, err := post.Lookup(post.ProofType(r.RegisteredProof))
			if err == nil && info.API != post.APIVersion1_2_0 {
				return &daemon.RequestError{Field: "partition_index", Reason: fmt.Sprintf(
					"%d: %s (API %s) challenges depend on the sector's index over all partitions; only partition 0 is proved, use a …V1_1 type", r.PartitionIndex, info.Name, info.API)}
			}
		}
	case daemon.SnapDealsUpdate:
		p, err := update.ProofType(r.RegisteredProof).Params()
		if err != nil {
			return nil // Supports refuses the type
		}
		if len(r.VanillaProofs) != p.PartitionCount {
			return &daemon.RequestError{Field: "vanilla_proofs", Reason: fmt.Sprintf(
				"%d partition proofs, %s has %d partitions", len(r.VanillaProofs), update.ProofType(r.RegisteredProof), p.PartitionCount)}
		}
		for i, v := range r.VanillaProofs {
			if _, err := update.DecodePartitionProof(v); err != nil {
				return &daemon.RequestError{Field: fmt.Sprintf("vanilla_proofs[%d]", i), Reason: err.Error()}
			}
		}
	}
	return nil
}

// enginePriority maps the daemon's priority to engine.Job.Priority (lower first): critical 0,
// high 1, normal 2, low 3.
func enginePriority(p daemon.Priority) int { return int(daemon.PriorityCritical - p) }

// Prove proves req; see the package documentation for what each kind does.
func (b *Backend) Prove(ctx context.Context, req *daemon.Request) (*daemon.Result, error) {
	pi, err := proofInfo(req.Kind, req.RegisteredProof)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.inFlight[req.JobID] = req.Kind
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.inFlight, req.JobID)
		b.mu.Unlock()
	}()

	// Parse the C1 before loading parameters: bad input fails at once.
	var o *c1.SealCommitPhase1Output
	if req.Kind == daemon.PoRepSealCommit {
		if o, err = c1.Unmarshal(req.C1Output); err != nil {
			return nil, &daemon.RequestError{Field: "vanilla_proof", Reason: fmt.Sprintf("C1 output: %v", err)}
		}
		if uint64(o.RegisteredProof) != req.RegisteredProof {
			return nil, &daemon.RequestError{Field: "registered_proof", Reason: fmt.Sprintf(
				"%d, the C1 output is of %s (%d)", req.RegisteredProof, o.RegisteredProof, uint64(o.RegisteredProof))}
		}
	}

	res, folded, err := b.prove(ctx, req, pi, o)
	if err != nil && folded && errors.Is(err, engine.ErrSelfCheck) {
		// The fold overlay gave a proof that does not verify (its L' or K is not the fold of
		// this file for this circuit, though its header says so): the store has set it aside,
		// and the job is proved again with the parameters alone.
		res, _, err = b.prove(ctx, req, pi, o)
	}
	if err != nil {
		return nil, err
	}
	res.Partitions = len(res.Proof) / prover.ProofSize
	return res, nil
}

// prove proves req with its circuit's parameters (loading them if needed) and reports whether
// they were folded. A bad point fails the proof and unloads the circuit (paramStore.badPoint); a
// proof with folded parameters that fails the engine's self-check sets their overlay aside
// (paramStore.rejectFold) and unloads the circuit.
func (b *Backend) prove(ctx context.Context, req *daemon.Request, pi proofs.ProofInfo, o *c1.SealCommitPhase1Output) (*daemon.Result, bool, error) {
	start := time.Now()
	p, loaded, err := b.params.acquire(ctx, req.Circuit(), pi, req.Kind, req.RegisteredProof)
	if err != nil {
		return nil, false, err
	}
	defer b.params.release(p)
	folded := p.fold != nil
	res := &daemon.Result{}
	if loaded {
		res.SRSLoad = time.Since(start)
	}
	switch req.Kind {
	case daemon.PoRepSealCommit:
		res.Proof, err = proofs.SealCommitPhase2Output(ctx, o, req.SectorNumber, req.MinerID,
			proofs.WithSealEngine(b.eng), proofs.WithSealParameters(p.params), proofs.WithSealPriority(enginePriority(req.Priority)))
	case daemon.WinningPoSt, daemon.WindowPoStPartition:
		var rnd post.Domain
		copy(rnd[:], req.Randomness)
		gen := proofs.GenerateWindowPoStWithVanilla
		if req.Kind == daemon.WinningPoSt {
			gen = proofs.GenerateWinningPoStWithVanilla
		}
		var out []proofs.PoStProof
		out, err = gen(ctx, b.eng, p.params, post.ProofType(req.RegisteredProof), req.MinerID, rnd, req.VanillaProofs)
		if err == nil {
			res.Proof = out[0].ProofBytes
		}
	case daemon.SnapDealsUpdate:
		var rOld, rNew, dNew [32]byte
		copy(rOld[:], req.CommROld)
		copy(rNew[:], req.CommRNew)
		copy(dNew[:], req.CommDNew)
		res.Proof, err = proofs.GenerateEmptySectorUpdateProofWithVanilla(ctx, b.eng, p.params,
			update.ProofType(req.RegisteredProof), rOld, rNew, dNew, req.VanillaProofs)
	}
	if err != nil && folded && errors.Is(err, engine.ErrSelfCheck) {
		return nil, true, b.params.rejectFold(ctx, p, err)
	}
	if err != nil {
		return nil, folded, b.params.badPoint(p, err)
	}
	return res, folded, nil
}
