// Package daemon is the proving daemon behind cuzkd: it serves Curio's cuzk.v1.ProvingEngine
// gRPC service (package proto/cuzk/v1) unchanged, queues proof requests by priority, and proves
// them on a Backend.
//
// # Pieces
//
//   - Daemon: the queue and job table. Submit checks a Request and queues it; workers
//     (MaxConcurrent of them) take the highest-priority job, first come first served within a
//     priority, and call Backend.Prove; Await waits for a job's Outcome; Cancel ends a queued
//     or running job; Shutdown ends everything without losing an acknowledged job.
//   - Backend: the prover. The daemon never proves by itself; NoBackend supports nothing
//     (every proof request is answered UNIMPLEMENTED) and FakeBackend returns hash bytes
//     in place of proofs, for tests.
//   - Service: the gRPC methods over a Daemon; errors map to status codes
//     (ErrInvalidRequest → INVALID_ARGUMENT, ErrUnsupported → UNIMPLEMENTED, ErrQueueFull →
//     RESOURCE_EXHAUSTED, ErrJobNotFound → NOT_FOUND, ErrJobExists → ALREADY_EXISTS,
//     ErrShuttingDown → UNAVAILABLE).
//   - Server: the listeners (Unix sockets, TCP, and HTTP for /metrics, /status, /healthz) and
//     the graceful shutdown.
//   - Config: cuzkd's TOML file, keyed like the Rust cuzk daemon's cuzk.toml.
//
// # Priorities
//
// A request's priority is its own, or its kind's default when unspecified, as in the Rust
// engine: WinningPoSt critical, WindowPoSt high, PoRep and SnapDeals normal. Within a priority
// jobs run in submission order.
//
// # Usage
//
//	d, err := daemon.New(backend, daemon.WithLogger(log), daemon.WithMaxConcurrent(2))
//	srv, err := daemon.NewServer(d, daemon.ServerConfig{Listen: []string{"unix:///run/curio/cuzk.sock"}})
//	err = srv.Serve(ctx) // returns after ctx ends and the shutdown completes
//
// In-process, without gRPC:
//
//	t, err := d.Submit(&daemon.Request{Kind: daemon.WinningPoSt, Priority: daemon.PriorityCritical, …})
//	out, err := d.Await(ctx, t.JobID)
package daemon
