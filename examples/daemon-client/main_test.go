package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-go/cuzk/daemon"
)

// TestDemoAgainstFakeDaemon runs the example against a daemon with the fake backend on a Unix
// socket, for every kind.
func TestDemoAgainstFakeDaemon(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "cuzk.sock")
	d, err := daemon.New(&daemon.FakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := daemon.NewServer(d, daemon.ServerConfig{Listen: []string{"unix://" + sock}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	defer func() { cancel(); <-served }()

	for _, kind := range []string{"porep", "snap", "window", "winning"} {
		var out bytes.Buffer
		proof := filepath.Join(dir, kind+".proof")
		if err := run(context.Background(), []string{"--addr", "unix://" + sock, "--kind", kind, "--demo", "--out", proof}, &out); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !strings.Contains(out.String(), "proof: 192 bytes (1 partitions)") {
			t.Errorf("%s: %s", kind, out.String())
		}
		if b, err := os.ReadFile(proof); err != nil || len(b) != 192 {
			t.Errorf("%s: proof file %d bytes, %v", kind, len(b), err)
		}
	}
	// Without --demo the inputs must be given.
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--addr", "unix://" + sock, "--kind", "porep"}, &out); err == nil || !strings.Contains(err.Error(), "--c1") {
		t.Fatalf("missing --c1: %v", err)
	}
}
