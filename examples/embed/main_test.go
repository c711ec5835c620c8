package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun runs the example end to end: setup, proof and verification of one small partition.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "proved and verified x³ + x + 5 = 35") {
		t.Fatalf("unexpected output %q", out.String())
	}
}
