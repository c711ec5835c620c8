package daemon

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestProofSectorSize(t *testing.T) {
	// go-state-types abi/sector.go numbering.
	cases := []struct {
		k    ProofKind
		rp   uint64
		size uint64
	}{
		{PoRepSealCommit, 0, 2 << 10}, {PoRepSealCommit, 3, 32 << 30}, {PoRepSealCommit, 8, 32 << 30},
		{PoRepSealCommit, 14, 64 << 30}, {PoRepSealCommit, 18, 32 << 30}, {PoRepSealCommit, 16, 8 << 20},
		{WinningPoSt, 3, 32 << 30}, {WinningPoSt, 2, 512 << 20},
		{WindowPoStPartition, 8, 32 << 30}, {WindowPoStPartition, 13, 32 << 30}, {WindowPoStPartition, 5, 2 << 10},
		{SnapDealsUpdate, 4, 64 << 30}, {SnapDealsUpdate, 0, 2 << 10},
	}
	for _, c := range cases {
		if got, err := ProofSectorSize(c.k, c.rp); err != nil || got != c.size {
			t.Errorf("%s %d: %d %v, want %d", c.k, c.rp, got, err, c.size)
		}
	}
	for _, c := range []struct {
		k  ProofKind
		rp uint64
	}{{PoRepSealCommit, 20}, {WinningPoSt, 5}, {WindowPoStPartition, 4}, {WindowPoStPartition, 15}, {SnapDealsUpdate, 5}, {0, 0}} {
		if _, err := ProofSectorSize(c.k, c.rp); err == nil {
			t.Errorf("%s %d accepted", c.k, c.rp)
		}
	}
}

func TestCircuitIDs(t *testing.T) {
	for _, c := range []struct {
		k    ProofKind
		size uint64
		id   string
	}{{PoRepSealCommit, 32 << 30, "porep-32g"}, {PoRepSealCommit, 64 << 30, "porep-64g"}, {WindowPoStPartition, 32 << 30, "wpost-32g"},
		{WinningPoSt, 32 << 30, "winning-32g"}, {SnapDealsUpdate, 64 << 30, "snap-64g"}, {WinningPoSt, 2 << 10, "winning-2k"}, {SnapDealsUpdate, 512 << 20, "snap-512m"}} {
		if got := CircuitID(c.k, c.size); got != c.id {
			t.Errorf("CircuitID(%s, %d) = %q, want %q", c.k, c.size, got, c.id)
		}
		k, size, err := ParseCircuitID(c.id)
		if err != nil || k != c.k || size != c.size {
			t.Errorf("ParseCircuitID(%q) = %s %d %v", c.id, k, size, err)
		}
	}
	for _, id := range []string{"", "porep", "porep-", "porep-32G", "post-32g", "porep-32g-x"} {
		if _, _, err := ParseCircuitID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
	if CircuitID(WinningPoSt, 1234) != "" || CircuitID(9, 2048) != "" {
		t.Error("CircuitID of an unknown size or kind is not empty")
	}
	// Labels as the Rust daemon prints them.
	want := map[ProofKind][2]string{PoRepSealCommit: {"porep-c2", "porep_c2"}, SnapDealsUpdate: {"snap-update", "snap_update"},
		WindowPoStPartition: {"window-post", "window_post"}, WinningPoSt: {"winning-post", "winning_post"}}
	for k, w := range want {
		if k.String() != w[0] || k.MetricLabel() != w[1] {
			t.Errorf("%d: %q %q", k, k.String(), k.MetricLabel())
		}
	}
}

// TestInProcessAwaitAndShutdownError uses the Daemon without gRPC: an abandoned Await leaves the
// job running, and a shutdown deadline names the jobs it cancelled.
func TestInProcessAwaitAndShutdownError(t *testing.T) {
	f := &FakeBackend{Gate: make(chan struct{})}
	d, err := New(f, WithMaxConcurrent(2))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := RequestFromProto(windowReq("p"))
	tk, err := d.Submit(r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := d.Await(ctx, tk.JobID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("await: %v", err)
	}
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer scancel()
	err = d.Shutdown(sctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"p"`) {
		t.Fatalf("shutdown: %v", err)
	}
	o, err := d.Await(context.Background(), "p")
	if err != nil || o.State != Cancelled {
		t.Fatalf("outcome %+v %v", o, err)
	}
	if _, err := New(nil); err == nil {
		t.Error("nil backend accepted")
	}
	if _, err := New(f, WithMaxConcurrent(0)); err == nil {
		t.Error("zero workers accepted")
	}
}
