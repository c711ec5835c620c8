package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sector"
)

// TestRun runs the example end to end with INSECURE development parameters: seal, C1, C2 and
// VerifySeal.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a development setup of the 2 KiB PoRep circuit (2^22 rows) takes minutes on 2 cores; TestMissingParameters covers sealing and C1 in -short")
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--insecure-dev-params"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if !strings.Contains(out.String(), "proved: 192 bytes") || !strings.Contains(out.String(), "verified:") {
		t.Fatalf("unexpected output:\n%s", out.String())
	}
}

// TestMissingParameters: without parameters the example seals and runs C1, then stops with the
// missing file's name and how to get it.
func TestMissingParameters(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"--param-cache", t.TempDir()}, &out)
	pi, _ := proofs.SealProofInfo(sector.StackedDrg2KiBV1_1)
	if err == nil || !strings.Contains(err.Error(), pi.ParamsFile) || !strings.Contains(err.Error(), "--insecure-dev-params") {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(out.String(), "sealed 2 KiB sector 7") {
		t.Fatalf("unexpected output:\n%s", out.String())
	}
}
