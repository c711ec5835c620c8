package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

// harness is a daemon served over gRPC on loopback with a client connected to it.
type harness struct {
	d      *Daemon
	srv    *Server
	client cuzkv1.ProvingEngineClient
	stop   context.CancelFunc
	served chan error
}

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// start serves b on 127.0.0.1 (or on cfg.Listen when set) and connects a client.
func start(t testing.TB, b Backend, cfg ServerConfig, opts ...Option) *harness {
	t.Helper()
	d, err := New(b, append([]Option{WithLogger(testLogger(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Listen) == 0 {
		cfg.Listen = []string{"127.0.0.1:0"}
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 500 * time.Millisecond // a failing test must not hang in cleanup
	}
	srv, err := NewServer(d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{d: d, srv: srv, stop: cancel, served: make(chan error, 1)}
	go func() { h.served <- srv.Serve(ctx) }()
	a := srv.Addrs()[0]
	target := "passthrough:///" + a.String()
	if a.Network() == "unix" {
		target = "unix://" + a.String()
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	h.client = cuzkv1.NewProvingEngineClient(conn)
	t.Cleanup(func() {
		conn.Close()
		h.shutdown(t)
	})
	return h
}

// shutdown stops the server (once) and returns Serve's result.
func (h *harness) shutdown(t testing.TB) error {
	h.stop()
	select {
	case err, ok := <-h.served:
		if ok {
			close(h.served)
		}
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
	return nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds, failing the test after 3 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (h *harness) running() int {
	n := 0
	for _, q := range h.d.Status().Queues {
		n += q.InProgress
	}
	return n
}

func (h *harness) pending() int {
	n := 0
	for _, q := range h.d.Status().Queues {
		n += q.Pending
	}
	return n
}

func seed(tag string) []byte {
	s := sha256.Sum256([]byte(tag))
	return s[:]
}

// Requests for 2 KiB sectors, one per kind, as Curio builds them (lib/ffi/cuzk_funcs.go).

func winningReq(id string) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_WINNING_POST,
		SectorSize: 2048, RegisteredProof: 0, Priority: cuzkv1.Priority_CRITICAL,
		VanillaProofs: [][]byte{[]byte("vanilla " + id)}, MinerId: 1000, Randomness: seed(id)}
}

func windowReq(id string) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION,
		SectorSize: 2048, RegisteredProof: 10, Priority: cuzkv1.Priority_HIGH,
		VanillaProofs: [][]byte{[]byte("a " + id), []byte("b " + id)}, MinerId: 1000, Randomness: seed(id), PartitionIndex: 1}
}

func porepReq(id string, sector uint64) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		SectorSize: 2048, RegisteredProof: 5, Priority: cuzkv1.Priority_NORMAL,
		VanillaProof: envelope(sector, 2048, []byte(fmt.Sprintf(`{"sector":%d,"id":%q}`, sector, id))),
		SectorNumber: sector, MinerId: 1000}
}

func snapReq(id string) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
		SectorSize: 2048, RegisteredProof: 0, Priority: cuzkv1.Priority_NORMAL,
		VanillaProofs: [][]byte{[]byte("partition " + id)}, SectorNumber: 7, MinerId: 1000,
		CommROld: seed("old" + id), CommRNew: seed("new" + id), CommDNew: seed("d" + id)}
}

// envelope wraps a C1 output as Curio's wrapC1Output does.
func envelope(sector, size uint64, c1 []byte) []byte {
	b, err := json.Marshal(struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{int64(sector), c1, size})
	if err != nil {
		panic(err)
	}
	return b
}

// wantProof returns the fake backend's proof for in.
func wantProof(t *testing.T, in *cuzkv1.SubmitProofRequest) []byte {
	t.Helper()
	r, err := RequestFromProto(in)
	if err != nil {
		t.Fatal(err)
	}
	return FakeProof(r)
}

func wantCode(t *testing.T, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("got %v, want code %v", err, code)
	}
}
