package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun runs the example with two jobs of two partitions: every job's assembled proof verifies.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, 2, 2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job 0: 2 partitions, 384 bytes, verified", "job 1: 2 partitions, 384 bytes, verified"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
}
