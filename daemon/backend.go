package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Backend computes proofs for the daemon. The daemon owns queueing, priorities, cancellation and
// the wire protocol; a Backend only proves, one call per job, and may run several calls at once
// (up to Options.MaxConcurrent). All methods may be called concurrently.
type Backend interface {
	// Supports returns nil if Prove can prove kind k for registered proof number rp, and an error
	// wrapping ErrUnsupported otherwise. The daemon asks before queueing a job, so an
	// unsupported request is refused at once (codes.Unimplemented) rather than failing later.
	Supports(k ProofKind, rp uint64) error

	// Prove computes the proof req asks for. It must return soon after ctx is cancelled (the
	// job was cancelled or the daemon is shutting down); its result is then discarded. An
	// error fails the job and its text is reported to the client; wrap ErrInvalidRequest for
	// input found bad only while proving (the job fails the same way, the log says "invalid").
	Prove(ctx context.Context, req *Request) (*Result, error)

	// Preload makes the parameters of circuit (a CircuitID, e.g. "porep-32g") ready to prove
	// with, and reports whether they already were. An error wrapping ErrUnsupported means
	// this backend has no such circuit.
	Preload(ctx context.Context, circuit string) (PreloadResult, error)

	// Evict releases what Preload or earlier proofs loaded for circuit.
	Evict(ctx context.Context, circuit string) (EvictResult, error)

	// Status reports devices, loaded parameters and memory. It is called for every GetStatus
	// and every metrics scrape, so it must be cheap and must not block on proving.
	Status() BackendStatus
}

// RequestChecker is an optional Backend interface: when a Backend has it, SubmitProof calls
// CheckRequest before queueing a job, and an error (wrap ErrInvalidRequest) refuses the request
// with codes.InvalidArgument. Use it for cheap checks of the payload (its JSON decodes, its
// partition count fits the proof type) so that bad input is answered synchronously.
type RequestChecker interface {
	CheckRequest(req *Request) error
}

// Request is one proof job as the backend receives it. The daemon has already checked that Kind
// is known, RegisteredProof is a proof type of Kind whose sector size is SectorSize, and that the
// payload fields the kind needs are present and well formed (lengths, the PoRep envelope).
type Request struct {
	JobID           string
	Kind            ProofKind
	Priority        Priority
	SectorSize      uint64 // bytes
	RegisteredProof uint64 // RegisteredSealProof, RegisteredPoStProof or RegisteredUpdateProof

	// C1Output is, for PoRep, the SealCommitPhase1Output JSON as filecoin-ffi's
	// SealCommitPhase1 returns it, unwrapped from Curio's envelope.
	C1Output []byte

	// VanillaProofs are, for PoSt, one bincode FallbackPoStSectorProof per sector and, for
	// SnapDeals, one bincode PartitionProof per partition.
	VanillaProofs [][]byte

	SectorNumber   uint64
	MinerID        uint64 // actor id
	Randomness     []byte // PoSt: the 32-byte challenge seed
	PartitionIndex uint32 // WindowPoSt: the partition proved

	// SnapDeals: the sector's old and new comm_r and new comm_d, 32 bytes each.
	CommROld, CommRNew, CommDNew []byte
}

// Circuit returns the circuit id of the request (see CircuitID).
func (r *Request) Circuit() string { return CircuitID(r.Kind, r.SectorSize) }

// Result is a computed proof with the time its stages took.
type Result struct {
	Proof      []byte // the concatenated Groth16 proofs, 192 bytes each
	Partitions int    // number of partition proofs in Proof; 0 means len(Proof)/192
	SRSLoad    time.Duration
	Synthesis  time.Duration
	GPUCompute time.Duration
}

// PreloadResult reports a Backend.Preload.
type PreloadResult struct {
	AlreadyLoaded bool
	LoadTime      time.Duration
}

// EvictResult reports a Backend.Evict.
type EvictResult struct {
	WasLoaded  bool
	FreedBytes uint64
}

// BackendStatus is a snapshot of the backend's devices and memory.
type BackendStatus struct {
	GPUs                   []GPUStatus
	SRS                    []SRSStatus
	PinnedMemoryBytes      uint64
	PinnedMemoryLimitBytes uint64
}

// GPUStatus describes one device.
type GPUStatus struct {
	Ordinal        uint32
	Name           string
	VRAMTotalBytes uint64
	VRAMFreeBytes  uint64
	CurrentJobID   string    // "" when idle
	CurrentKind    ProofKind // 0 when idle
	// Utilization is the fraction of recent time the device computed, in [0, 1]; a negative
	// value means unknown and is not exported as a metric.
	Utilization float64
}

// SRSTier says where a circuit's parameters are (the cuzk.v1 SRSStatus.Tier numbers).
type SRSTier int32

// The parameter tiers.
const (
	TierHot  SRSTier = 0 // resident, ready to prove
	TierWarm SRSTier = 1 // mapped or in the page cache
	TierCold SRSTier = 2 // on disk only
)

// String returns "hot", "warm" or "cold".
func (t SRSTier) String() string {
	switch t {
	case TierHot:
		return "hot"
	case TierWarm:
		return "warm"
	case TierCold:
		return "cold"
	}
	return fmt.Sprintf("tier(%d)", int32(t))
}

// SRSStatus describes one circuit's parameters.
type SRSStatus struct {
	Circuit   string
	Tier      SRSTier
	SizeBytes uint64 // host memory they hold (the engine backend: engine.ParametersBytes)
	RefCount  uint32 // in-flight proofs using them
}

// Errors callers branch on. The gRPC service maps them to status codes.
var (
	// ErrInvalidRequest: the request is malformed (codes.InvalidArgument).
	ErrInvalidRequest = errors.New("invalid request")
	// ErrUnsupported: no backend proves this kind or circuit (codes.Unimplemented).
	ErrUnsupported = errors.New("not supported by this daemon's proving backend")
	// ErrQueueFull: the queue holds MaxQueueDepth jobs (codes.ResourceExhausted).
	ErrQueueFull = errors.New("queue full")
	// ErrJobNotFound: no such job, or its result is no longer retained (codes.NotFound).
	ErrJobNotFound = errors.New("job not found")
	// ErrJobExists: a different request with the same request_id is queued or running
	// (codes.AlreadyExists).
	ErrJobExists = errors.New("another request with this request_id is in progress")
	// ErrShuttingDown: the daemon no longer accepts jobs (codes.Unavailable).
	ErrShuttingDown = errors.New("daemon shutting down")
	// ErrNotReady: the host lacks what the request needs, e.g. a parameter file is missing or
	// corrupt; the request is good and may succeed once the operator fixes the host
	// (codes.FailedPrecondition).
	ErrNotReady = errors.New("host not ready")
)

// RequestError is an ErrInvalidRequest naming the field at fault.
type RequestError struct {
	Field  string // the cuzk.v1 field name, e.g. "sector_size", "vanilla_proofs[3]"
	Reason string
}

// Error returns "invalid request: <field>: <reason>".
func (e *RequestError) Error() string {
	return fmt.Sprintf("invalid request: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidRequest.
func (e *RequestError) Unwrap() error { return ErrInvalidRequest }

func badField(field, format string, args ...any) error {
	return &RequestError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// NoBackend is the Backend of a daemon built without a prover: it supports nothing, so every
// proof and parameter request is answered with codes.Unimplemented, while the daemon still
// serves status, metrics and the queue machinery.
type NoBackend struct{}

// Supports returns an error wrapping ErrUnsupported.
func (NoBackend) Supports(k ProofKind, rp uint64) error {
	return fmt.Errorf("%s (registered proof %d): %w", k, rp, ErrUnsupported)
}

// Prove returns an error wrapping ErrUnsupported.
func (NoBackend) Prove(_ context.Context, req *Request) (*Result, error) {
	return nil, fmt.Errorf("prove %s: %w", req.Kind, ErrUnsupported)
}

// Preload returns an error wrapping ErrUnsupported.
func (NoBackend) Preload(_ context.Context, circuit string) (PreloadResult, error) {
	return PreloadResult{}, fmt.Errorf("preload %s: %w", circuit, ErrUnsupported)
}

// Evict returns an error wrapping ErrUnsupported.
func (NoBackend) Evict(_ context.Context, circuit string) (EvictResult, error) {
	return EvictResult{}, fmt.Errorf("evict %s: %w", circuit, ErrUnsupported)
}

// Status returns an empty status.
func (NoBackend) Status() BackendStatus { return BackendStatus{} }
