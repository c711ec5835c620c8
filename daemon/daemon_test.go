package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

func TestSubmitAwaitEveryKind(t *testing.T) {
	h := start(t, &FakeBackend{}, ServerConfig{})
	ctx := ctxT(t)
	for _, in := range []*cuzkv1.SubmitProofRequest{winningReq("w1"), windowReq("p1"), porepReq("c1", 3), snapReq("s1")} {
		sub, err := h.client.SubmitProof(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", in.RequestId, err)
		}
		if sub.JobId != in.RequestId {
			t.Errorf("job id %q, want the request id %q", sub.JobId, in.RequestId)
		}
		res, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != cuzkv1.AwaitProofResponse_COMPLETED || res.JobId != in.RequestId {
			t.Fatalf("%s: %v", in.RequestId, res)
		}
		if want := wantProof(t, in); !bytes.Equal(res.Proof, want) || len(want) != 192 {
			t.Errorf("%s: proof %x…, want %d bytes %x…", in.RequestId, res.Proof[:8], len(want), want[:8])
		}
		if res.TotalMs < res.QueueWaitMs {
			t.Errorf("total %d ms < queue wait %d ms", res.TotalMs, res.QueueWaitMs)
		}
		// The result stays available to a second awaiter.
		again, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId})
		if err != nil || !bytes.Equal(again.Proof, res.Proof) {
			t.Fatalf("second await: %v %v", again, err)
		}
	}
	// Prove without request_id: a fresh job id.
	in := winningReq("")
	res, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: in})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED || !strings.HasPrefix(res.Result.JobId, "job-") ||
		!bytes.Equal(res.Result.Proof, wantProof(t, in)) {
		t.Fatalf("Prove: %v", res.Result)
	}
	st, err := h.client.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil || st.TotalProofsCompleted != 5 || st.TotalProofsFailed != 0 {
		t.Fatalf("status %v %v", st, err)
	}
}

func TestBadRequestsAnsweredAndDaemonKeepsServing(t *testing.T) {
	h := start(t, &FakeBackend{Kinds: []ProofKind{WinningPoSt, WindowPoStPartition, PoRepSealCommit}}, ServerConfig{})
	ctx := ctxT(t)
	mod := func(in *cuzkv1.SubmitProofRequest, f func(*cuzkv1.SubmitProofRequest)) *cuzkv1.SubmitProofRequest {
		f(in)
		return in
	}
	cases := []struct {
		name  string
		in    *cuzkv1.SubmitProofRequest
		code  codes.Code
		field string
	}{
		{"unknown kind", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.ProofKind = 9 }), codes.InvalidArgument, "proof_kind"},
		{"unspecified kind", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.ProofKind = 0 }), codes.InvalidArgument, "proof_kind"},
		{"unknown priority", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.Priority = 7 }), codes.InvalidArgument, "priority"},
		{"wrong sector size", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.SectorSize = 32 << 30 }), codes.InvalidArgument, "sector_size"},
		{"zero sector size", mod(windowReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.SectorSize = 0 }), codes.InvalidArgument, "sector_size"},
		{"window proof type for winning", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.RegisteredProof = 8 }), codes.InvalidArgument, "registered_proof"},
		{"unknown seal proof", mod(porepReq("x", 3), func(r *cuzkv1.SubmitProofRequest) { r.RegisteredProof = 20 }), codes.InvalidArgument, "registered_proof"},
		{"garbage PoRep payload", mod(porepReq("x", 3), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = []byte("\x00\x01garbage") }), codes.InvalidArgument, "vanilla_proof"},
		{"PoRep envelope for another sector", mod(porepReq("x", 3), func(r *cuzkv1.SubmitProofRequest) { r.SectorNumber = 4 }), codes.InvalidArgument, "SectorNum"},
		{"PoRep envelope without C1", mod(porepReq("x", 3), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = []byte(`{"SectorNum":3,"SectorSize":2048}`) }), codes.InvalidArgument, "Phase1Out"},
		{"PoRep C1 not JSON", mod(porepReq("x", 3), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = envelope(3, 2048, []byte("{not json")) }), codes.InvalidArgument, "not valid JSON"},
		{"PoRep without payload", mod(porepReq("x", 3), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = nil }), codes.InvalidArgument, "vanilla_proof"},
		{"PoSt without vanilla proofs", mod(windowReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = nil }), codes.InvalidArgument, "vanilla_proofs"},
		{"PoSt with an empty vanilla proof", mod(windowReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs[1] = nil }), codes.InvalidArgument, "vanilla_proofs[1]"},
		{"too many sectors in a partition", mod(windowReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProofs = append(r.VanillaProofs, []byte("c")) }), codes.InvalidArgument, "at most 2"},
		{"short randomness", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.Randomness = r.Randomness[:31] }), codes.InvalidArgument, "randomness"},
		{"PoSt with a C1 payload", mod(winningReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = []byte("{}") }), codes.InvalidArgument, "vanilla_proof"},
		{"snap short commitment", mod(snapReq("x"), func(r *cuzkv1.SubmitProofRequest) { r.CommDNew = r.CommDNew[:20] }), codes.InvalidArgument, "comm_d_new"},
		{"kind the backend lacks", snapReq("x"), codes.Unimplemented, "snap-update"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.client.SubmitProof(ctx, c.in)
			wantCode(t, err, c.code)
			if !strings.Contains(status.Convert(err).Message(), c.field) {
				t.Errorf("message %q does not name %q", status.Convert(err).Message(), c.field)
			}
			_, err = h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: c.in})
			wantCode(t, err, c.code)
		})
	}
	_, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{})
	wantCode(t, err, codes.InvalidArgument)
	_, err = h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "no-such-job"})
	wantCode(t, err, codes.NotFound)
	_, err = h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{})
	wantCode(t, err, codes.InvalidArgument)
	_, err = h.client.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "no-such-job"})
	wantCode(t, err, codes.NotFound)
	_, err = h.client.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-33g"})
	wantCode(t, err, codes.InvalidArgument)
	_, err = h.client.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "snap-32g"})
	wantCode(t, err, codes.Unimplemented)

	// Still serving, and nothing of the above was queued or counted as a proof.
	res, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: winningReq("after")})
	if err != nil || res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("after bad requests: %v %v", res, err)
	}
	if st := h.d.Status(); st.Completed != 1 || st.Failed != 0 {
		t.Fatalf("status %+v", st)
	}
}

func TestNoBackendAnswersUnimplemented(t *testing.T) {
	h := start(t, NoBackend{}, ServerConfig{})
	ctx := ctxT(t)
	for _, in := range []*cuzkv1.SubmitProofRequest{winningReq("w"), windowReq("p"), porepReq("c", 1), snapReq("s")} {
		_, err := h.client.SubmitProof(ctx, in)
		wantCode(t, err, codes.Unimplemented)
	}
	_, err := h.client.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"})
	wantCode(t, err, codes.Unimplemented)
	_, err = h.client.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-32g"})
	wantCode(t, err, codes.Unimplemented)
	if _, err := h.client.GetStatus(ctx, &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatal(err)
	}
}

func TestBackendFailureAndPanicFailTheJobOnly(t *testing.T) {
	f := &FakeBackend{FailJob: func(r *Request) error {
		switch r.JobID {
		case "fails":
			return errors.New("partition 3: synthesis: constraint unsatisfied")
		case "panics":
			panic("index out of range")
		}
		return nil
	}}
	h := start(t, f, ServerConfig{})
	ctx := ctxT(t)
	for id, msg := range map[string]string{"fails": "partition 3: synthesis", "panics": "backend panicked: index out of range"} {
		res, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: windowReq(id)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Result.Status != cuzkv1.AwaitProofResponse_FAILED || !strings.Contains(res.Result.ErrorMessage, msg) || len(res.Result.Proof) != 0 {
			t.Fatalf("%s: %v", id, res.Result)
		}
	}
	res, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: windowReq("fine")})
	if err != nil || res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("%v %v", res, err)
	}
	st, _ := h.client.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if st.TotalProofsCompleted != 1 || st.TotalProofsFailed != 2 {
		t.Fatalf("totals %d completed %d failed", st.TotalProofsCompleted, st.TotalProofsFailed)
	}
}

func TestCancelQueuedAndRunning(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{})
	ctx := ctxT(t)
	if _, err := h.client.SubmitProof(ctx, porepReq("running", 1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "job running", func() bool { return h.running() == 1 })
	sub, err := h.client.SubmitProof(ctx, porepReq("queued", 2))
	if err != nil || sub.QueuePosition != 0 {
		t.Fatalf("%v %v", sub, err)
	}

	c, err := h.client.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "queued"})
	if err != nil || c.WasRunning {
		t.Fatalf("cancel queued: %v %v", c, err)
	}
	if res, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "queued"}); err != nil || res.Status != cuzkv1.AwaitProofResponse_CANCELLED {
		t.Fatalf("await queued: %v %v", res, err)
	}
	c, err = h.client.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "running"})
	if err != nil || !c.WasRunning {
		t.Fatalf("cancel running: %v %v", c, err)
	}
	if res, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "running"}); err != nil || res.Status != cuzkv1.AwaitProofResponse_CANCELLED {
		t.Fatalf("await running: %v %v", res, err)
	}
	// Cancelling again is harmless; the worker is free for the next job.
	if c, err := h.client.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "running"}); err != nil || c.WasRunning {
		t.Fatalf("cancel ended: %v %v", c, err)
	}
	waitFor(t, "worker freed", func() bool { return h.running() == 0 })
	close(f.Gate)
	res, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: porepReq("next", 3)})
	if err != nil || res.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("next: %v %v", res, err)
	}
	if got := f.Order(); !slices.Equal(got, []string{"running", "next"}) {
		t.Fatalf("backend saw %q; a cancelled queued job must never reach it", got)
	}
	if st := h.d.Status(); st.Cancelled != 2 || st.Completed != 1 {
		t.Fatalf("status %+v", st)
	}
	text, _ := h.d.MetricsText()
	for _, want := range []string{`cuzk_queue_depth{proof_kind="porep_c2"} 0`, `cuzk_jobs_in_flight{proof_kind="porep_c2"} 0`,
		`cuzk_proofs_cancelled_total{proof_kind="porep_c2"} 2`, `cuzk_proofs_completed_total{proof_kind="porep_c2"} 1`} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestStatusQueuesAndGPUs(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{})
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, porepReq("c1", 1))
	waitFor(t, "job running", func() bool { return h.running() == 1 })
	for _, in := range []*cuzkv1.SubmitProofRequest{porepReq("c2", 2), windowReq("p1"), windowReq("p2"), snapReq("s1")} {
		if _, err := h.client.SubmitProof(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	st, err := h.client.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]uint32{}
	for _, q := range st.Queues {
		got[q.ProofKind] = [2]uint32{q.Pending, q.InProgress}
	}
	want := map[string][2]uint32{"winning-post": {0, 0}, "window-post": {2, 0}, "porep-c2": {1, 1}, "snap-update": {1, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("queues %v, want %v", got, want)
	}
	if len(st.Gpus) != 1 || st.Gpus[0].CurrentJobId != "c1" || st.Gpus[0].CurrentProofKind != "porep-c2" {
		t.Fatalf("gpus %v", st.Gpus)
	}
	close(f.Gate)
}

func TestPreloadEvict(t *testing.T) {
	h := start(t, &FakeBackend{}, ServerConfig{})
	ctx := ctxT(t)
	p, err := h.client.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"})
	if err != nil || p.AlreadyLoaded {
		t.Fatalf("first preload: %v %v", p, err)
	}
	if p, err = h.client.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"}); err != nil || !p.AlreadyLoaded {
		t.Fatalf("second preload: %v %v", p, err)
	}
	st, _ := h.client.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if len(st.LoadedSrs) != 1 || st.LoadedSrs[0].CircuitId != "porep-32g" || st.LoadedSrs[0].Tier != cuzkv1.SRSStatus_HOT {
		t.Fatalf("loaded %v", st.LoadedSrs)
	}
	e, err := h.client.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-32g"})
	if err != nil || !e.WasLoaded {
		t.Fatalf("evict: %v %v", e, err)
	}
	if e, err = h.client.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-32g"}); err != nil || e.WasLoaded {
		t.Fatalf("second evict: %v %v", e, err)
	}
	_, err = h.client.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: ""})
	wantCode(t, err, codes.InvalidArgument)
}

// TestFiftyConcurrentMixedPriority blocks the single worker on a first job, lets 49 clients
// submit concurrently through Prove, then releases the worker: every client must get its own
// proof, and the backend must have seen the jobs in priority order (WinningPoSt first).
func TestFiftyConcurrentMixedPriority(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{}, WithMaxQueueDepth(100))
	ctx := ctxT(t)
	if _, err := h.client.SubmitProof(ctx, porepReq("first", 1000)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "first job running", func() bool { return h.running() == 1 })

	rng := rand.New(rand.NewPCG(1, 2))
	var reqs []*cuzkv1.SubmitProofRequest
	for i := range 49 {
		id := fmt.Sprintf("r%02d", i)
		switch rng.IntN(4) {
		case 0:
			reqs = append(reqs, winningReq(id))
		case 1:
			reqs = append(reqs, windowReq(id))
		case 2:
			reqs = append(reqs, porepReq(id, uint64(i)))
		default:
			reqs = append(reqs, snapReq(id))
		}
	}
	results := make([]*cuzkv1.ProveResponse, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, in := range reqs {
		wg.Go(func() { results[i], errs[i] = h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: in}) })
	}
	waitFor(t, "49 jobs queued", func() bool { return h.pending() == 49 })
	close(f.Gate)
	wg.Wait()

	prio := map[string]cuzkv1.Priority{"first": cuzkv1.Priority_NORMAL}
	for i, in := range reqs {
		if errs[i] != nil {
			t.Fatalf("%s: %v", in.RequestId, errs[i])
		}
		r := results[i].Result
		if r.Status != cuzkv1.AwaitProofResponse_COMPLETED || r.JobId != in.RequestId || !bytes.Equal(r.Proof, wantProof(t, in)) {
			t.Fatalf("%s: got %v", in.RequestId, r)
		}
		prio[in.RequestId] = in.Priority
	}
	order := f.Order()
	if len(order) != 50 || order[0] != "first" {
		t.Fatalf("backend saw %d jobs starting with %q", len(order), order[0])
	}
	for i := 2; i < len(order); i++ {
		if prio[order[i]] > prio[order[i-1]] {
			t.Fatalf("job %s (%v) ran after %s (%v): %q", order[i], prio[order[i]], order[i-1], prio[order[i-1]], order)
		}
	}
	if prio[order[1]] != cuzkv1.Priority_CRITICAL {
		t.Fatalf("first job after the blocker is %s, not a WinningPoSt", order[1])
	}
}

// TestFIFOWithinPriority checks submission order among equal priorities and that an unspecified
// priority takes the kind's default (WindowPoSt high, before PoRep normal).
func TestFIFOWithinPriority(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{})
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, porepReq("blocker", 99))
	waitFor(t, "blocker running", func() bool { return h.running() == 1 })
	var ids []string
	for i := range 5 {
		in := porepReq(fmt.Sprintf("c%d", i), uint64(i))
		sub, err := h.client.SubmitProof(ctx, in)
		if err != nil || sub.QueuePosition != uint32(i) {
			t.Fatalf("%v %v", sub, err)
		}
		ids = append(ids, in.RequestId)
	}
	w := windowReq("post")
	w.Priority = cuzkv1.Priority_PRIORITY_UNSPECIFIED
	if sub, err := h.client.SubmitProof(ctx, w); err != nil || sub.QueuePosition != 0 {
		t.Fatalf("default-priority WindowPoSt: %v %v", sub, err)
	}
	close(f.Gate)
	for _, id := range append(ids, "post") {
		h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: id})
	}
	if got, want := f.Order(), append([]string{"blocker", "post"}, ids...); !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
}

func TestQueueBoundSparesWinningPoSt(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{}, WithMaxQueueDepth(2))
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, porepReq("blocker", 99))
	waitFor(t, "blocker running", func() bool { return h.running() == 1 })
	for i := range 2 {
		if _, err := h.client.SubmitProof(ctx, porepReq(fmt.Sprint(i), uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	_, err := h.client.SubmitProof(ctx, windowReq("over"))
	wantCode(t, err, codes.ResourceExhausted)
	sub, err := h.client.SubmitProof(ctx, winningReq("winning"))
	if err != nil || sub.QueuePosition != 0 {
		t.Fatalf("WinningPoSt refused on a full queue: %v %v", sub, err)
	}
	close(f.Gate)
}

func TestRequestIDIsIdempotent(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{})
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, porepReq("blocker", 99))
	waitFor(t, "blocker running", func() bool { return h.running() == 1 })
	a, err := h.client.SubmitProof(ctx, porepReq("porep-1000-5", 5))
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.client.SubmitProof(ctx, porepReq("porep-1000-5", 5))
	if err != nil || b.JobId != a.JobId {
		t.Fatalf("resubmission: %v %v", b, err)
	}
	if n := h.pending(); n != 1 {
		t.Fatalf("%d queued, want the resubmission joined", n)
	}
	_, err = h.client.SubmitProof(ctx, porepReq("porep-1000-5", 6))
	wantCode(t, err, codes.AlreadyExists)
	close(f.Gate)
	if r, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: a.JobId}); err != nil || r.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("%v %v", r, err)
	}
	// Once ended, the same id starts a new job (Curio retries a task under the same id).
	r, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: porepReq("porep-1000-5", 6)})
	if err != nil || r.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED || !bytes.Equal(r.Result.Proof, wantProof(t, porepReq("porep-1000-5", 6))) {
		t.Fatalf("%v %v", r, err)
	}
	if got := f.Order(); !slices.Equal(got, []string{"blocker", "porep-1000-5", "porep-1000-5"}) {
		t.Fatalf("order %q", got)
	}
}

func TestAwaitTimeout(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{})
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, winningReq("slow"))
	r, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "slow", TimeoutMs: 20})
	if err != nil || r.Status != cuzkv1.AwaitProofResponse_TIMEOUT {
		t.Fatalf("%v %v", r, err)
	}
	close(f.Gate)
	r, err = h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "slow", TimeoutMs: 3000})
	if err != nil || r.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("%v %v", r, err)
	}
}

func TestResultRetention(t *testing.T) {
	h := start(t, &FakeBackend{}, ServerConfig{}, WithResultRetention(time.Hour, 2))
	ctx := ctxT(t)
	for _, id := range []string{"a", "b", "c"} {
		if _, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: winningReq(id)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "a"})
	wantCode(t, err, codes.NotFound)
	for _, id := range []string{"b", "c"} {
		if r, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: id}); err != nil || r.Status != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("%s: %v %v", id, r, err)
		}
	}

	h2 := start(t, &FakeBackend{}, ServerConfig{}, WithResultRetention(30*time.Millisecond, 100))
	if _, err := h2.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: winningReq("old")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	_, err = h2.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "old"})
	wantCode(t, err, codes.NotFound)
}

// TestGracefulShutdown: at shutdown the running job finishes within the deadline, queued jobs
// are reported cancelled to their awaiters, and new work is refused.
func TestGracefulShutdown(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	h := start(t, f, ServerConfig{ShutdownTimeout: 3 * time.Second})
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, porepReq("running", 1))
	waitFor(t, "job running", func() bool { return h.running() == 1 })
	h.client.SubmitProof(ctx, porepReq("queued1", 2))
	h.client.SubmitProof(ctx, windowReq("queued2"))

	type res struct {
		r   *cuzkv1.AwaitProofResponse
		err error
	}
	got := map[string]chan res{}
	for _, id := range []string{"running", "queued1", "queued2"} {
		ch := make(chan res, 1)
		got[id] = ch
		go func() {
			r, err := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: id})
			ch <- res{r, err}
		}()
	}
	time.Sleep(20 * time.Millisecond) // let the awaits reach the server
	h.stop()
	waitFor(t, "shutdown started", func() bool { return h.pending() == 0 })
	_, err := h.client.SubmitProof(ctx, winningReq("late"))
	wantCode(t, err, codes.Unavailable)
	if _, err := h.client.GetStatus(ctx, &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("status while draining: %v", err)
	}
	close(f.Gate) // the running job finishes within the deadline

	for id, want := range map[string]cuzkv1.AwaitProofResponse_Status{
		"running": cuzkv1.AwaitProofResponse_COMPLETED, "queued1": cuzkv1.AwaitProofResponse_CANCELLED, "queued2": cuzkv1.AwaitProofResponse_CANCELLED,
	} {
		x := <-got[id]
		if x.err != nil || x.r.Status != want {
			t.Errorf("%s: %v %v, want %v", id, x.r, x.err, want)
		}
	}
	if err := h.shutdown(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestShutdownDeadlineCancelsRunningJob: a job still running at the deadline is cancelled and
// its awaiter told so.
func TestShutdownDeadlineCancelsRunningJob(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})} // never opened
	h := start(t, f, ServerConfig{ShutdownTimeout: 100 * time.Millisecond})
	ctx := ctxT(t)
	h.client.SubmitProof(ctx, porepReq("stuck", 1))
	waitFor(t, "job running", func() bool { return h.running() == 1 })
	done := make(chan *cuzkv1.AwaitProofResponse, 1)
	go func() {
		r, _ := h.client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "stuck"})
		done <- r
	}()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	if err := h.shutdown(t); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r == nil || r.Status != cuzkv1.AwaitProofResponse_CANCELLED || !strings.Contains(r.ErrorMessage, "shutdown deadline") {
		t.Fatalf("awaiter got %v", r)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
}
