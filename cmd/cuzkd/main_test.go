package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/internal/syncbuf"
)

// awaitStatus runs "cuzkd status" against the daemon on the Unix socket sock every poll until
// its output satisfies ready, and returns that output; past within it fails t with the last
// output and the daemon's logs.
func awaitStatus(t *testing.T, sock string, within, poll time.Duration, logs *syncbuf.Buffer, ready func(out string) bool) string {
	t.Helper()
	var out bytes.Buffer
	deadline := time.Now().Add(within)
	for {
		out.Reset()
		err := run(context.Background(), []string{"status", "--addr", "unix://" + sock, "--timeout", "200ms"}, &out, &out)
		if err == nil && ready(out.String()) {
			return out.String()
		}
		if time.Now().After(deadline) {
			t.Fatalf("status: %v\n%s\nlogs:\n%s", err, out.String(), logs.String())
		}
		time.Sleep(poll)
	}
}

// awaitStop cancels the daemon's context, as SIGTERM does, and fails t unless its run returns
// nil on done within the given time.
func awaitStop(t *testing.T, cancel context.CancelFunc, done <-chan error, within time.Duration) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(within):
		t.Fatal("daemon did not stop")
	}
}

// TestRunStatusAndShutdown starts cuzkd on a Unix socket with the fake backend, queries it with
// "cuzkd status" and stops it by cancelling the context, as SIGTERM does.
func TestRunStatusAndShutdown(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "cuzk.sock")
	cfg := filepath.Join(dir, "cuzk.toml")
	os.WriteFile(cfg, []byte("[daemon]\nlisten = \"unix://"+sock+"\"\n\n[srs]\npreload = [\"winning-2k\"]\n\n[logging]\nformat = \"json\"\n"), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--config", cfg, "--fake-backend"}, &logs, &logs) }()

	status := awaitStatus(t, sock, 3*time.Second, 10*time.Millisecond, &logs, func(out string) bool {
		return strings.Contains(out, "winning-2k")
	})
	for _, want := range []string{"cuzkd at unix://" + sock, "winning-post", "porep-c2", "fake", "hot"} {
		if !strings.Contains(status, want) {
			t.Errorf("status output lacks %q:\n%s", want, status)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"status", "--addr", "unix://" + sock, "--metrics"}, &out, &out); err != nil ||
		!strings.Contains(out.String(), "cuzk_queue_depth") {
		t.Fatalf("status --metrics: %v\n%s", err, out.String())
	}

	awaitStop(t, cancel, done, 5*time.Second)
	for _, want := range []string{`"msg":"proving with the FAKE backend`, `"msg":"preloaded","circuit":"winning-2k"`, `"msg":"daemon stopped"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %s:\n%s", want, logs.String())
		}
	}
}

func TestConfigErrorsStopTheStart(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cuzk.toml")
	os.WriteFile(cfg, []byte("[daemon]\nlisten = \"127.0.0.1:0\"\n[pipeline]\nenabled = true\nturbo = true\n"), 0o644)
	var out bytes.Buffer
	err := run(context.Background(), []string{"--config", cfg}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), cfg+`:5: unknown key "pipeline.turbo"`) {
		t.Fatalf("got %v", err)
	}
	err = run(context.Background(), []string{"--config", filepath.Join(dir, "missing.toml")}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Fatalf("missing explicit config: %v", err)
	}
	err = run(context.Background(), []string{"--config", os.DevNull, "--listen", "9820"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "daemon.listen") {
		t.Fatalf("bad --listen: %v", err)
	}
	if err := run(context.Background(), []string{"frobnicate"}, &out, &out); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// TestCheckConfigRoundTrips: the printed effective configuration parses back to the same.
func TestCheckConfigRoundTrips(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"check-config", "--config", filepath.Join("..", "..", "daemon", "testdata", "full.toml")}, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "memory.pinned_budget is deprecated") {
		t.Errorf("no deprecation warning: %q", errs.String())
	}
	back, err := daemon.ParseConfig(out.Bytes(), "printed")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	orig, _ := daemon.LoadConfig(filepath.Join("..", "..", "daemon", "testdata", "full.toml"))
	if a, b := strings.TrimSpace(mustTOML(t, back)), strings.TrimSpace(mustTOML(t, orig)); a != b {
		t.Fatalf("round trip differs:\n%s\n---\n%s", a, b)
	}
}

func mustTOML(t *testing.T, c daemon.Config) string {
	var out bytes.Buffer
	if err := printConfig(&out, c); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestRunInsecureDevParams starts cuzkd with the engine backend and INSECURE development
// parameters, preloading the 2 KiB WindowPoSt circuit from the configuration: status lists it
// hot, and the log says INSECURE.
func TestRunInsecureDevParams(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "cuzk.sock")
	cfg := filepath.Join(dir, "cuzk.toml")
	os.WriteFile(cfg, []byte("[daemon]\nlisten = \"unix://"+sock+"\"\n\n[srs]\npreload = [\"wpost-2k\"]\n"), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--config", cfg, "--insecure-dev-params", "--cpu-only"}, &logs, &logs)
	}()

	awaitStatus(t, sock, 60*time.Second, 50*time.Millisecond, &logs, func(out string) bool {
		return strings.Contains(out, "wpost-2k") && strings.Contains(out, "hot")
	})
	awaitStop(t, cancel, done, 10*time.Second)
	for _, want := range []string{"INSECURE development parameters", "preloaded circuit=wpost-2k"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}
}

// TestParamCacheDir: --param-cache, then a srs.param_cache the file sets, then
// $FIL_PROOFS_PARAMETER_CACHE, then the default.
func TestParamCacheDir(t *testing.T) {
	def := daemon.DefaultConfig()
	set := daemon.DefaultConfig()
	set.SRS.ParamCache = "/from/config"
	t.Setenv("FIL_PROOFS_PARAMETER_CACHE", "/from/env")
	for _, c := range []struct {
		cfg  daemon.Config
		flag string
		want string
	}{{set, "/from/flag", "/from/flag"}, {set, "", "/from/config"}, {def, "", "/from/env"}} {
		if got := paramCacheDir(c.cfg, c.flag); got != c.want {
			t.Errorf("paramCacheDir(%q, %q) = %q, want %q", c.cfg.SRS.ParamCache, c.flag, got, c.want)
		}
	}
	t.Setenv("FIL_PROOFS_PARAMETER_CACHE", "")
	if got := paramCacheDir(def, ""); got != def.SRS.ParamCache {
		t.Errorf("default: %q", got)
	}
}

// TestEngineOptions: the engine keys out of the engine's range are errors naming the key.
func TestEngineOptions(t *testing.T) {
	c := daemon.DefaultConfig()
	if opts, err := engineOptions(c, true); err != nil || len(opts) == 0 {
		t.Fatalf("defaults: %d options, %v", len(opts), err)
	}
	c.GPUs.GPUWorkersPerDevice = 1000
	if _, err := engineOptions(c, true); err == nil || !strings.Contains(err.Error(), "gpus.gpu_workers_per_device") {
		t.Errorf("workers: %v", err)
	}
	c = daemon.DefaultConfig()
	c.Pipeline.MaxGPUQueueDepth = 1 << 20
	if _, err := engineOptions(c, false); err == nil || !strings.Contains(err.Error(), "pipeline.max_gpu_queue_depth") {
		t.Errorf("queue depth: %v", err)
	}
	c = daemon.DefaultConfig()
	c.Memory.TotalBudget = "0"
	if _, err := engineOptions(c, false); err == nil || !strings.Contains(err.Error(), "memory.total_budget") {
		t.Errorf("budget: %v", err)
	}
}

// TestCommandHelpExitsZero: `cuzkd <command> -h` prints the command's flags and exits 0; a bad
// command line still exits 1.
func TestCommandHelpExitsZero(t *testing.T) {
	for _, c := range commands() {
		var out bytes.Buffer
		err := run(context.Background(), []string{c.name, "-h"}, &out, &out)
		if code := exitCode(err); code != 0 {
			t.Errorf("%s -h: exit %d (%v), want 0", c.name, code, err)
		}
		if !strings.Contains(out.String(), "-") {
			t.Errorf("%s -h printed no flags: %q", c.name, out.String())
		}
	}
	err := run(context.Background(), []string{"run", "--no-such-flag"}, io.Discard, io.Discard)
	if code := exitCode(err); code != 1 {
		t.Errorf("run --no-such-flag: exit %d (%v), want 1", code, err)
	}
}
