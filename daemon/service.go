package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

// Service serves a Daemon as the cuzk.v1.ProvingEngine gRPC service. Register it with
// cuzkv1.RegisterProvingEngineServer.
type Service struct {
	cuzkv1.UnimplementedProvingEngineServer
	d   *Daemon
	log *slog.Logger
}

// NewService returns the gRPC service for d.
func NewService(d *Daemon) *Service { return &Service{d: d, log: d.log} }

var _ cuzkv1.ProvingEngineServer = (*Service)(nil)

// SubmitProof queues a proof. request_id, when set, becomes the job id (see Daemon.Submit);
// queue_position counts the queued jobs served first; assigned_gpu is always empty (devices are
// the backend's business). Errors: InvalidArgument, Unimplemented, ResourceExhausted,
// AlreadyExists, Unavailable.
func (s *Service) SubmitProof(_ context.Context, in *cuzkv1.SubmitProofRequest) (*cuzkv1.SubmitProofResponse, error) {
	req, err := RequestFromProto(in)
	if err != nil {
		return nil, s.refuse("SubmitProof", err)
	}
	t, err := s.d.Submit(req)
	if err != nil {
		return nil, grpcError(err)
	}
	return &cuzkv1.SubmitProofResponse{JobId: t.JobID, QueuePosition: clampU32(t.QueuePosition)}, nil
}

// AwaitProof waits for a job to end. timeout_ms > 0 bounds the wait and answers status TIMEOUT
// when it passes (the job goes on). An unknown or expired job id is NotFound.
func (s *Service) AwaitProof(ctx context.Context, in *cuzkv1.AwaitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	if in.GetJobId() == "" {
		return nil, status.Error(codes.InvalidArgument, "invalid request: job_id: empty")
	}
	return s.await(ctx, in.GetJobId(), time.Duration(in.GetTimeoutMs())*time.Millisecond)
}

func (s *Service) await(ctx context.Context, id string, timeout time.Duration) (*cuzkv1.AwaitProofResponse, error) {
	wait := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	o, err := s.d.Await(wait, id)
	switch {
	case err == nil:
		return outcomeToProto(o), nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return &cuzkv1.AwaitProofResponse{JobId: id, Status: cuzkv1.AwaitProofResponse_TIMEOUT,
			ErrorMessage: fmt.Sprintf("job still running after timeout_ms=%d", timeout.Milliseconds())}, nil
	}
	return nil, grpcError(err)
}

// Prove is SubmitProof then AwaitProof without a timeout. If the client goes away the job goes
// on; submitting again with the same request_id joins it.
func (s *Service) Prove(ctx context.Context, in *cuzkv1.ProveRequest) (*cuzkv1.ProveResponse, error) {
	if in.GetSubmit() == nil {
		return nil, status.Error(codes.InvalidArgument, "invalid request: submit: missing")
	}
	req, err := RequestFromProto(in.GetSubmit())
	if err != nil {
		return nil, s.refuse("Prove", err)
	}
	t, err := s.d.Submit(req)
	if err != nil {
		return nil, grpcError(err)
	}
	res, err := s.await(ctx, t.JobID, 0)
	if err != nil {
		return nil, err
	}
	return &cuzkv1.ProveResponse{Result: res}, nil
}

// CancelProof cancels a queued or running job; was_running says which. Cancelling an ended job
// succeeds with was_running false; an unknown job id is NotFound.
func (s *Service) CancelProof(_ context.Context, in *cuzkv1.CancelProofRequest) (*cuzkv1.CancelProofResponse, error) {
	if in.GetJobId() == "" {
		return nil, status.Error(codes.InvalidArgument, "invalid request: job_id: empty")
	}
	running, err := s.d.Cancel(in.GetJobId())
	if err != nil {
		return nil, grpcError(err)
	}
	return &cuzkv1.CancelProofResponse{WasRunning: running}, nil
}

// GetStatus reports one QueueStatus per proof kind (all four, also when empty), the backend's
// GPUs (annotated with the job each runs when the backend says) and loaded parameters, the
// completed and failed totals and the uptime.
func (s *Service) GetStatus(context.Context, *cuzkv1.GetStatusRequest) (*cuzkv1.GetStatusResponse, error) {
	st := s.d.Status()
	out := &cuzkv1.GetStatusResponse{
		TotalProofsCompleted:   st.Completed,
		TotalProofsFailed:      st.Failed,
		UptimeSeconds:          uint64(st.Uptime / time.Second),
		PinnedMemoryBytes:      st.Backend.PinnedMemoryBytes,
		PinnedMemoryLimitBytes: st.Backend.PinnedMemoryLimitBytes,
	}
	for _, q := range st.Queues {
		out.Queues = append(out.Queues, &cuzkv1.QueueStatus{ProofKind: q.Kind.String(),
			Pending: clampU32(q.Pending), InProgress: clampU32(q.InProgress)})
	}
	for _, g := range st.Backend.GPUs {
		gs := &cuzkv1.GPUStatus{Ordinal: g.Ordinal, Name: g.Name, VramTotalBytes: g.VRAMTotalBytes,
			VramFreeBytes: g.VRAMFreeBytes, CurrentJobId: g.CurrentJobID}
		if g.CurrentKind.Valid() {
			gs.CurrentProofKind = g.CurrentKind.String()
		}
		out.Gpus = append(out.Gpus, gs)
	}
	for _, r := range st.Backend.SRS {
		out.LoadedSrs = append(out.LoadedSrs, &cuzkv1.SRSStatus{CircuitId: r.Circuit,
			Tier: cuzkv1.SRSStatus_Tier(r.Tier), SizeBytes: r.SizeBytes, RefCount: r.RefCount})
	}
	return out, nil
}

// GetMetrics returns the same metrics the HTTP /metrics endpoint serves.
func (s *Service) GetMetrics(context.Context, *cuzkv1.GetMetricsRequest) (*cuzkv1.GetMetricsResponse, error) {
	text, err := s.d.MetricsText()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &cuzkv1.GetMetricsResponse{PrometheusText: text}, nil
}

// PreloadSRS loads a circuit's parameters through the backend. An unknown circuit id is
// InvalidArgument; one the backend cannot load is Unimplemented.
func (s *Service) PreloadSRS(ctx context.Context, in *cuzkv1.PreloadSrsRequest) (*cuzkv1.PreloadSrsResponse, error) {
	if _, _, err := ParseCircuitID(in.GetCircuitId()); err != nil {
		return nil, s.fail("PreloadSRS", badField("circuit_id", "%v", err))
	}
	r, err := s.d.backend.Preload(ctx, in.GetCircuitId())
	if err != nil {
		return nil, s.fail("PreloadSRS", err)
	}
	s.log.Info("parameters preloaded", "circuit", in.GetCircuitId(), "already_loaded", r.AlreadyLoaded, "load_time", r.LoadTime)
	return &cuzkv1.PreloadSrsResponse{AlreadyLoaded: r.AlreadyLoaded, LoadTimeMs: uint64(r.LoadTime.Milliseconds())}, nil
}

// EvictSRS releases a circuit's parameters through the backend. Errors as PreloadSRS.
func (s *Service) EvictSRS(ctx context.Context, in *cuzkv1.EvictSrsRequest) (*cuzkv1.EvictSrsResponse, error) {
	if _, _, err := ParseCircuitID(in.GetCircuitId()); err != nil {
		return nil, s.fail("EvictSRS", badField("circuit_id", "%v", err))
	}
	r, err := s.d.backend.Evict(ctx, in.GetCircuitId())
	if err != nil {
		return nil, s.fail("EvictSRS", err)
	}
	s.log.Info("parameters evicted", "circuit", in.GetCircuitId(), "was_loaded", r.WasLoaded, "freed_bytes", r.FreedBytes)
	return &cuzkv1.EvictSrsResponse{WasLoaded: r.WasLoaded, FreedBytes: r.FreedBytes}, nil
}

// fail logs a refused call and returns its gRPC error.
func (s *Service) fail(method string, err error) error {
	s.log.Warn("request refused", "method", method, "err", err)
	return grpcError(err)
}

// refuse is fail for a proof request, which is also counted in cuzk_requests_rejected_total.
func (s *Service) refuse(method string, err error) error {
	s.d.metrics.rejected.WithLabelValues(rejectReason(err)).Inc()
	return s.fail(method, err)
}

// RequestFromProto converts a cuzk.v1 SubmitProofRequest into a Request, unwrapping the PoRep
// C1 envelope and choosing the kind's default priority when none is given. The rest of the
// checks happen in Daemon.Submit.
func RequestFromProto(in *cuzkv1.SubmitProofRequest) (*Request, error) {
	k := ProofKind(in.GetProofKind())
	if !k.Valid() {
		return nil, badField("proof_kind", "unknown proof kind %d (want 1 porep, 2 snap, 3 window post, 4 winning post)", int32(k))
	}
	p := Priority(in.GetPriority())
	if p == 0 {
		p = DefaultPriority(k)
	}
	r := &Request{
		JobID:           in.GetRequestId(),
		Kind:            k,
		Priority:        p,
		SectorSize:      in.GetSectorSize(),
		RegisteredProof: in.GetRegisteredProof(),
		VanillaProofs:   in.GetVanillaProofs(),
		SectorNumber:    in.GetSectorNumber(),
		MinerID:         in.GetMinerId(),
		Randomness:      in.GetRandomness(),
		PartitionIndex:  in.GetPartitionIndex(),
		CommROld:        in.GetCommROld(),
		CommRNew:        in.GetCommRNew(),
		CommDNew:        in.GetCommDNew(),
	}
	switch {
	case k == PoRepSealCommit:
		c1, err := UnwrapC1(in.GetVanillaProof(), in.GetSectorNumber(), in.GetSectorSize())
		if err != nil {
			return nil, err
		}
		r.C1Output = c1
	case len(in.GetVanillaProof()) != 0:
		return nil, badField("vanilla_proof", "must be empty for %s (use vanilla_proofs)", k)
	}
	return r, nil
}

func outcomeToProto(o Outcome) *cuzkv1.AwaitProofResponse {
	st := cuzkv1.AwaitProofResponse_UNKNOWN
	switch o.State {
	case Completed:
		st = cuzkv1.AwaitProofResponse_COMPLETED
	case Failed:
		st = cuzkv1.AwaitProofResponse_FAILED
	case Cancelled:
		st = cuzkv1.AwaitProofResponse_CANCELLED
	}
	ms := func(d time.Duration) uint64 { return uint64(d.Milliseconds()) }
	return &cuzkv1.AwaitProofResponse{
		JobId: o.JobID, Status: st, Proof: o.Proof, ErrorMessage: o.Error,
		QueueWaitMs: ms(o.QueueWait), SrsLoadMs: ms(o.SRSLoad), SynthesisMs: ms(o.Synthesis),
		GpuComputeMs: ms(o.GPUCompute), TotalMs: ms(o.Total),
	}
}

// grpcError maps the daemon's errors to gRPC status codes.
func grpcError(err error) error {
	code := codes.Internal
	switch {
	case errors.Is(err, ErrInvalidRequest):
		code = codes.InvalidArgument
	case errors.Is(err, ErrUnsupported):
		code = codes.Unimplemented
	case errors.Is(err, ErrQueueFull):
		code = codes.ResourceExhausted
	case errors.Is(err, ErrJobNotFound):
		code = codes.NotFound
	case errors.Is(err, ErrJobExists):
		code = codes.AlreadyExists
	case errors.Is(err, ErrShuttingDown):
		code = codes.Unavailable
	case errors.Is(err, ErrNotReady):
		code = codes.FailedPrecondition
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	}
	return status.Error(code, err.Error())
}

func clampU32(n int) uint32 {
	if n < 0 {
		return 0
	}
	if n > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(n)
}
