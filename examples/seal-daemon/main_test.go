package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestRun runs the example end to end with an in-process daemon and INSECURE development
// parameters: seal, C1, SubmitProof/AwaitProof over a Unix socket, VerifySeal.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a development setup of the 2 KiB PoRep circuit (2^22 rows) takes minutes on 2 cores; TestMissingParameters covers the daemon path in -short")
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--insecure-dev-params"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	for _, want := range []string{"cuzkd serving at unix://", "proved: 192 bytes", "verified:"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestMissingParameters: with no parameter files the daemon accepts the job, and the job fails
// naming the missing file and the command that fetches it.
func TestMissingParameters(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"--param-cache", t.TempDir()}, &out)
	pi, _ := proofs.SealProofInfo(sector.StackedDrg2KiBV1_1)
	if err == nil || !strings.Contains(err.Error(), "FAILED") || !strings.Contains(err.Error(), pi.ParamsFile) || !strings.Contains(err.Error(), "fetch-params 2KiB") {
		t.Fatalf("got %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "submitted job") {
		t.Fatalf("unexpected output:\n%s", out.String())
	}
}

// TestFlags: --insecure-dev-params is refused with --addr, whose daemon has its own parameters.
func TestFlags(t *testing.T) {
	err := run(context.Background(), []string{"--addr", "unix:///nonexistent.sock", "--insecure-dev-params"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "in-process") {
		t.Fatalf("got %v", err)
	}
}
