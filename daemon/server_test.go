package daemon

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

func TestUnixSocketAndTCPTogether(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "run", "cuzk.sock") // the directory is created
	h := start(t, &FakeBackend{}, ServerConfig{Listen: []string{"unix://" + sock, "127.0.0.1:0"}})
	ctx := ctxT(t)
	r, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: winningReq("over-unix")})
	if err != nil || r.Result.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("%v %v", r, err)
	}
	if a := h.srv.Addrs(); len(a) != 2 || a[0].Network() != "unix" || a[1].Network() != "tcp" {
		t.Fatalf("addrs %v", a)
	}
	// A second daemon must not take over a live socket.
	d2, _ := New(&FakeBackend{})
	if _, err := NewServer(d2, ServerConfig{Listen: []string{"unix://" + sock}}); err == nil || !strings.Contains(err.Error(), "another daemon") {
		t.Fatalf("second daemon on a live socket: %v", err)
	}
	h.shutdown(t)
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket file left after shutdown: %v", err)
	}
}

func TestStaleSocketReplacedOtherFilesNot(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // a socket file with nobody listening, as a killed daemon leaves it
	d, _ := New(&FakeBackend{})
	s, err := NewServer(d, ServerConfig{Listen: []string{"unix:" + stale}})
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	s.closeListeners()

	regular := filepath.Join(dir, "data.sock")
	os.WriteFile(regular, []byte("precious"), 0o644)
	if _, err := NewServer(d, ServerConfig{Listen: []string{"unix:" + regular}}); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("regular file: %v", err)
	}
	if b, _ := os.ReadFile(regular); string(b) != "precious" {
		t.Fatal("regular file was touched")
	}
}

func TestMetricsOverGRPCAndHTTP(t *testing.T) {
	h := start(t, &FakeBackend{}, ServerConfig{StatusListen: "127.0.0.1:0"})
	ctx := ctxT(t)
	for _, in := range []*cuzkv1.SubmitProofRequest{winningReq("w"), porepReq("c", 1)} {
		if _, err := h.client.Prove(ctx, &cuzkv1.ProveRequest{Submit: in}); err != nil {
			t.Fatal(err)
		}
	}
	bad := winningReq("bad")
	bad.SectorSize = 1
	h.client.SubmitProof(ctx, bad)

	m, err := h.client.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + h.srv.StatusAddr().String()
	httpText := get(t, base+"/metrics")
	for _, text := range []string{m.PrometheusText, httpText} {
		for _, want := range []string{
			`cuzk_proofs_completed_total{proof_kind="winning_post"} 1`,
			`cuzk_proofs_completed_total{proof_kind="porep_c2"} 1`,
			`cuzk_proofs_failed_total{proof_kind="snap_update"} 0`,
			`cuzk_partitions_proved_total{proof_kind="winning_post"} 1`,
			`cuzk_queue_depth{proof_kind="window_post"} 0`,
			`cuzk_jobs_in_flight{proof_kind="porep_c2"} 0`,
			`cuzk_requests_rejected_total{reason="invalid_argument"} 1`,
			`cuzk_proof_duration_seconds_count{proof_kind="porep_c2"} 1`,
			`cuzk_gpu_utilization_ratio{gpu="0",name="fake"} 0`,
			"cuzk_uptime_seconds ",
			"process_resident_memory_bytes ",
			"go_goroutines ",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("metrics lack %q", want)
			}
		}
	}

	var st map[string]any
	if err := json.Unmarshal([]byte(get(t, base+"/status")), &st); err != nil {
		t.Fatal(err)
	}
	if st["totalProofsCompleted"] != "2" || len(st["queues"].([]any)) != 4 {
		t.Fatalf("/status %v", st)
	}
	if got := get(t, base+"/healthz"); got != "ok\n" {
		t.Fatalf("/healthz %q", got)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

func TestParseListenAddr(t *testing.T) {
	for in, want := range map[string][2]string{
		"unix:///run/curio/cuzk.sock": {"unix", "/run/curio/cuzk.sock"},
		"unix:cuzk.sock":              {"unix", "cuzk.sock"},
		"0.0.0.0:9820":                {"tcp", "0.0.0.0:9820"},
		"[::1]:9820":                  {"tcp", "[::1]:9820"},
	} {
		n, a, err := ParseListenAddr(in)
		if err != nil || n != want[0] || a != want[1] {
			t.Errorf("%q: %s %s %v", in, n, a, err)
		}
	}
	for _, in := range []string{"", "9820", "unix:", "unix://rel.sock", "tcp://0.0.0.0:9820"} {
		if _, _, err := ParseListenAddr(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
