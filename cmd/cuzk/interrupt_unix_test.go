//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInterruptDuringParamsLoad: reading parameters cannot be interrupted (here the
// parameters are a named pipe no one writes, so the read blocks), yet the first Ctrl-C makes
// cuzk exit 130 within interruptGrace, saying so.
func TestInterruptDuringParamsLoad(t *testing.T) {
	_, errOut := captureOutput(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "circuit.params")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	done := make(chan int, 1)
	go func() {
		done <- runMain(ctx, func() { close(stopped) }, []string{"prove", "--params", fifo, "--constraints", "50",
			"--device", "cpu", "--proof", filepath.Join(dir, "p.bin"), "--inputs-out", filepath.Join(dir, "i.json")})
	}()
	time.Sleep(200 * time.Millisecond)
	select {
	case code := <-done:
		t.Fatalf("prove returned %d before the parameters arrived", code)
	default:
	}
	start := time.Now()
	cancel()
	select {
	case code := <-done:
		require.Equal(t, exitInterrupted, code)
		require.Less(t, time.Since(start), interruptGrace+time.Second)
	case <-time.After(interruptGrace + 5*time.Second):
		t.Fatal("cuzk did not exit after Ctrl-C")
	}
	<-stopped // the signal handler was released: a second Ctrl-C kills at once
	require.Contains(t, errOut.String(), "cuzk: interrupted")
	// Unblock the abandoned read so the goroutine ends.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, w.Close())
}
