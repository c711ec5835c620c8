// Command seal-daemon proves a 2 KiB sector's PoRep commit (C2) through cuzkd's gRPC service, as
// Curio does, and verifies the proof from the chain's values:
//
//	sdr.Seal (2 KiB sector sealed in Go) → c1.Commit1 → C1 output JSON in Curio's envelope
//	→ cuzk.v1 SubmitProof + AwaitProof → proofs.VerifySeal
//
// By default it starts the daemon itself, in-process, on a Unix socket in a temporary directory,
// with the engine backend (the GPUs when libcuzk.so finds one, else the CPU) and verifies with the
// backend's verifying key:
//
//	go run ./examples/seal-daemon --insecure-dev-params   # INSECURE parameters made on the spot
//	go run ./examples/seal-daemon                         # real 2 KiB parameters from $FIL_PROOFS_PARAMETER_CACHE
//
// Or it sends the sector to a running cuzkd (with the real parameters) and verifies with the
// verifying key of the local parameter cache:
//
//	cuzkd run --listen unix:///tmp/cuzk.sock &
//	go run ./examples/seal-daemon --addr unix:///tmp/cuzk.sock
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/filecoin/c1"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/gpu"
	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
	"github.com/cuzk-go/cuzk/prover"
)

// The sector proved: miner f01000's sector 7, interactive PoRep v1.1 over 2 KiB.
const (
	sealProof = sector.StackedDrg2KiBV1_1
	minerID   = 1000
	sectorNum = 7
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "seal-daemon: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("seal-daemon", flag.ContinueOnError)
	addr := fl.String("addr", "", "a running cuzkd, unix:///path.sock or host:port (default: start one in-process)")
	paramDir := fl.String("param-cache", "", "directory of the v28 parameter files (default $"+paramcache.DirEnv+" or "+paramcache.DefaultDir+")")
	insecureParams := fl.Bool("insecure-dev-params", false, "INSECURE, in-process daemon only: make development parameters instead of reading the real ones (tests and demos)")
	timeout := fl.Duration("timeout", 30*time.Minute, "give up after this long")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *addr != "" && *insecureParams {
		return fmt.Errorf("--insecure-dev-params applies to the in-process daemon; start cuzkd with it instead, and its proofs cannot be verified here")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	// 1. Seal a sector and run commit phase 1.
	start := time.Now()
	c1JSON, sealed, err := sealAndCommit1(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sealed 2 KiB sector %d of miner %d, C1 output %d bytes (%v)\n", sectorNum, minerID, len(c1JSON), time.Since(start).Round(time.Millisecond))

	// 2. The daemon: a running one, or one started here.
	var vkey func(context.Context) (*prover.VerifyingKey, error)
	if *addr == "" {
		a, b, stop, err := startDaemon(ctx, *paramDir, *insecureParams, out)
		if err != nil {
			return err
		}
		defer stop()
		*addr = a
		vkey = func(ctx context.Context) (*prover.VerifyingKey, error) { return b.VerifyingKey(ctx, "porep-2k") }
	} else {
		vkey = func(ctx context.Context) (*prover.VerifyingKey, error) { return cacheKey(ctx, *paramDir) }
	}

	// 3. Submit the C1 output in Curio's envelope and wait for the proof.
	conn, err := grpc.NewClient(dialTarget(*addr), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", *addr, err)
	}
	defer conn.Close()
	client := cuzkv1.NewProvingEngineClient(conn)
	envelope, err := json.Marshal(struct {
		SectorNum  uint64
		Phase1Out  []byte // base64 in JSON, as Curio's wrapC1Output writes it
		SectorSize uint64
	}{sectorNum, c1JSON, sector.Size2KiB})
	if err != nil {
		return err
	}
	start = time.Now()
	sub, err := client.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, RegisteredProof: uint64(sealProof), SectorSize: sector.Size2KiB,
		MinerId: minerID, SectorNumber: sectorNum, VanillaProof: envelope,
	})
	if err != nil {
		return fmt.Errorf("SubmitProof: %w", err)
	}
	fmt.Fprintf(out, "submitted job %s to %s\n", sub.JobId, *addr)
	res, err := client.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId})
	if err != nil {
		return fmt.Errorf("AwaitProof: %w", err)
	}
	if res.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		return fmt.Errorf("job %s %s: %s", sub.JobId, res.Status, res.ErrorMessage)
	}
	fmt.Fprintf(out, "proved: %d bytes (%v; daemon: parameters %d ms, total %d ms)\n", len(res.Proof), time.Since(start).Round(time.Millisecond), res.SrsLoadMs, res.TotalMs)

	// 4. Verify as the chain does, from public values only.
	vk, err := vkey(ctx)
	if err != nil {
		return err
	}
	pvk, err := prover.PrepareVerifyingKey(vk)
	if err != nil {
		return err
	}
	err = proofs.VerifySeal(pvk, &proofs.SealVerifyInfo{
		SealProof: sealProof, Miner: minerID, SectorNumber: sectorNum,
		Randomness: sealed.Ticket, InteractiveRandomness: sealed.Seed,
		CommR: sdr.Bytes(&sealed.CommR), CommD: sdr.Bytes(&sealed.CommD), Proof: res.Proof,
	})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	fmt.Fprintln(out, "verified: the proof checks against comm_r, comm_d, ticket and seed")
	return nil
}

// startDaemon serves a daemon with the engine backend on a Unix socket in a temporary directory.
// stop shuts it down and removes the directory.
func startDaemon(ctx context.Context, paramDir string, insecureParams bool, out io.Writer) (string, *enginebackend.Backend, func(), error) {
	var opts []enginebackend.Option
	if insecureParams {
		fmt.Fprintln(out, "INSECURE development parameters: a setup whose toxic waste could forge proofs; for demos only")
		opts = append(opts, enginebackend.WithInsecureDevParams())
	} else {
		cache, err := openCache(paramDir)
		if err != nil {
			return "", nil, nil, err
		}
		opts = append(opts, enginebackend.WithParamCache(cache))
	}
	if lib, err := gpu.Load(); err == nil && lib.DeviceCount() > 0 {
		var devs []*gpu.Device
		for i := range lib.DeviceCount() {
			d, err := lib.Device(i)
			if err != nil {
				return "", nil, nil, err
			}
			devs = append(devs, d)
		}
		fmt.Fprintf(out, "proving on %d GPUs\n", len(devs))
		opts = append(opts, enginebackend.WithGPUs(devs...))
	} else {
		fmt.Fprintln(out, "no GPU: proving on the CPU")
	}
	b, err := enginebackend.New(opts...)
	if err != nil {
		return "", nil, nil, err
	}
	dir, err := os.MkdirTemp("", "seal-daemon-")
	if err != nil {
		b.Close()
		return "", nil, nil, err
	}
	addr := "unix://" + filepath.Join(dir, "cuzk.sock")
	d, err := daemon.New(b)
	if err == nil {
		var srv *daemon.Server
		if srv, err = daemon.NewServer(d, daemon.ServerConfig{Listen: []string{addr}, ShutdownTimeout: 10 * time.Second}); err == nil {
			sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
			served := make(chan error, 1)
			go func() { served <- srv.Serve(sctx) }()
			fmt.Fprintf(out, "cuzkd serving at %s\n", addr)
			return addr, b, func() {
				cancel()
				<-served
				b.Close()
				os.RemoveAll(dir)
			}, nil
		}
		d.Shutdown(ctx)
	}
	b.Close()
	os.RemoveAll(dir)
	return "", nil, nil, err
}

// cacheKey reads the 2 KiB PoRep verifying key from the parameter cache.
func cacheKey(ctx context.Context, dir string) (*prover.VerifyingKey, error) {
	cache, err := openCache(dir)
	if err != nil {
		return nil, err
	}
	pi, err := proofs.SealProofInfo(sealProof)
	if err != nil {
		return nil, err
	}
	return pi.LoadVerifyingKey(ctx, cache)
}

func openCache(dir string) (*paramcache.Cache, error) {
	if dir == "" {
		return paramcache.Open()
	}
	return paramcache.Open(paramcache.WithDir(dir))
}

// dialTarget turns a cuzkd address into a gRPC target.
func dialTarget(addr string) string {
	if strings.HasPrefix(addr, "unix:") {
		return addr
	}
	return "passthrough:///" + addr
}

// sealAndCommit1 seals a 2 KiB sector of pseudo-random fr32 data and returns its C1 output as
// JSON and as parsed.
func sealAndCommit1(ctx context.Context) ([]byte, *c1.SealCommitPhase1Output, error) {
	rng := mrand.New(mrand.NewPCG(minerID, sectorNum))
	data := make([]byte, sector.Size2KiB)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f // fr32 padding: each 32-byte word is below the field modulus
	}
	ticket := [32]byte{0: 5, 31: 0x11} // chain randomness at the pre-commit
	seed := [32]byte{0: 9, 1: 2}       // chain randomness at the commit
	s, err := sdr.Seal(ctx, sealProof, sector.ProverID(minerID), sectorNum, ticket, data)
	if err != nil {
		return nil, nil, fmt.Errorf("seal: %w", err)
	}
	o, err := c1.Commit1(ctx, s, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("commit phase 1: %w", err)
	}
	js, err := c1.Marshal(o)
	if err != nil {
		return nil, nil, err
	}
	return js, o, nil
}
