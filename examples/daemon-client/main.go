// Command daemon-client submits one proof to a running cuzkd (or any cuzk.v1.ProvingEngine
// server, such as the Rust cuzk daemon) and waits for it, as Curio does: SubmitProof, then
// AwaitProof.
//
// With real inputs:
//
//	go run ./examples/daemon-client --addr unix:///run/curio/cuzk.sock \
//		--kind porep --registered-proof 8 --miner 1000 --sector 5 --c1 c1-output.json
//	go run ./examples/daemon-client --kind winning --registered-proof 3 --miner 1000 \
//		--randomness <64 hex digits> --vanilla sector-0.bin
//
// With made-up inputs, which only a daemon started with --fake-backend accepts (its "proofs"
// are hash bytes, not valid proofs; examples/seal-daemon sends a real sector instead):
//
//	cuzkd --listen unix:///tmp/cuzk.sock --fake-backend &
//	go run ./examples/daemon-client --addr unix:///tmp/cuzk.sock --kind winning --demo
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "daemon-client: %v\n", err)
		os.Exit(1)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

var kinds = map[string]cuzkv1.ProofKind{
	"porep": cuzkv1.ProofKind_POREP_SEAL_COMMIT, "snap": cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
	"window": cuzkv1.ProofKind_WINDOW_POST_PARTITION, "winning": cuzkv1.ProofKind_WINNING_POST,
}

// sectorSizes maps a registered proof's position within its group of five to the sector size
// (go-state-types abi/sector.go).
var sectorSizes = [5]uint64{2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("daemon-client", flag.ContinueOnError)
	addr := fl.String("addr", "unix:///run/curio/cuzk.sock", "daemon address, unix:///path.sock or host:port")
	kindName := fl.String("kind", "winning", "porep, snap, window or winning")
	rp := fl.Uint64("registered-proof", 0, "registered proof number (RegisteredSealProof / RegisteredPoStProof / RegisteredUpdateProof); the sector size follows from it")
	miner := fl.Uint64("miner", 1000, "miner actor id")
	sector := fl.Uint64("sector", 1, "sector number")
	partition := fl.Uint("partition", 0, "WindowPoSt partition index")
	randomness := fl.String("randomness", "", "PoSt challenge seed, 64 hex digits")
	c1 := fl.String("c1", "", "PoRep: file with the C1 output JSON (SealCommitPhase1Output)")
	var vanilla listFlag
	fl.Var(&vanilla, "vanilla", "PoSt/SnapDeals: a file with one bincode vanilla proof (repeat per sector or partition)")
	commROld := fl.String("comm-r-old", "", "SnapDeals: old comm_r, 64 hex digits")
	commRNew := fl.String("comm-r-new", "", "SnapDeals: new comm_r, 64 hex digits")
	commDNew := fl.String("comm-d-new", "", "SnapDeals: new comm_d, 64 hex digits")
	demo := fl.Bool("demo", false, "make up the inputs (2 KiB sector); only a daemon run with --fake-backend accepts them")
	requestID := fl.String("request-id", "", "idempotency key and job id (default: chosen by the daemon)")
	timeout := fl.Duration("timeout", 30*time.Minute, "give up waiting after this long")
	out := fl.String("out", "", "write the proof bytes to this file")
	if err := fl.Parse(args); err != nil {
		return err
	}
	kind, ok := kinds[*kindName]
	if !ok {
		return fmt.Errorf("--kind %q: want porep, snap, window or winning", *kindName)
	}

	req := &cuzkv1.SubmitProofRequest{RequestId: *requestID, ProofKind: kind, RegisteredProof: *rp,
		MinerId: *miner, SectorNumber: *sector, PartitionIndex: uint32(*partition)}
	var err error
	if *demo {
		err = demoInputs(req)
	} else {
		err = fileInputs(req, *c1, vanilla, *randomness, *commROld, *commRNew, *commDNew)
	}
	if err != nil {
		return err
	}

	conn, err := grpc.NewClient(dialTarget(*addr), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", *addr, err)
	}
	defer conn.Close()
	c := cuzkv1.NewProvingEngineClient(conn)

	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	sub, err := c.SubmitProof(ctx, req)
	if err != nil {
		return fmt.Errorf("SubmitProof: %w", err)
	}
	fmt.Fprintf(stdout, "submitted job %s, %d jobs ahead\n", sub.JobId, sub.QueuePosition)
	res, err := c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: sub.JobId})
	if err != nil {
		return fmt.Errorf("AwaitProof %s: %w", sub.JobId, err)
	}
	if res.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		return fmt.Errorf("job %s %s: %s", sub.JobId, res.Status, res.ErrorMessage)
	}
	fmt.Fprintf(stdout, "proof: %d bytes (%d partitions), queue %d ms, total %d ms\n",
		len(res.Proof), len(res.Proof)/192, res.QueueWaitMs, res.TotalMs)
	if *out != "" {
		if err := writeAtomic(*out, res.Proof); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	return nil
}

// fileInputs fills the payload from files, wrapping a C1 output as Curio does.
func fileInputs(req *cuzkv1.SubmitProofRequest, c1 string, vanilla []string, rnd, rOld, rNew, dNew string) error {
	group := req.RegisteredProof % 5
	req.SectorSize = sectorSizes[group]
	var err error
	switch req.ProofKind {
	case cuzkv1.ProofKind_POREP_SEAL_COMMIT:
		if c1 == "" {
			return errors.New("--c1 is required for porep (or --demo)")
		}
		b, err := os.ReadFile(c1)
		if err != nil {
			return err
		}
		req.VanillaProof, err = wrapC1(b, req.SectorNumber, req.SectorSize)
		return err
	case cuzkv1.ProofKind_WINNING_POST, cuzkv1.ProofKind_WINDOW_POST_PARTITION:
		if req.Randomness, err = hex32("--randomness", rnd); err != nil {
			return err
		}
	case cuzkv1.ProofKind_SNAP_DEALS_UPDATE:
		for _, c := range []struct {
			flag, v string
			dst     *[]byte
		}{{"--comm-r-old", rOld, &req.CommROld}, {"--comm-r-new", rNew, &req.CommRNew}, {"--comm-d-new", dNew, &req.CommDNew}} {
			if *c.dst, err = hex32(c.flag, c.v); err != nil {
				return err
			}
		}
	}
	if len(vanilla) == 0 {
		return errors.New("--vanilla is required for PoSt and SnapDeals (or --demo)")
	}
	for _, f := range vanilla {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		req.VanillaProofs = append(req.VanillaProofs, b)
	}
	return nil
}

// demoInputs makes up a well-formed 2 KiB request. The registered proof numbers are the 2 KiB
// ones: StackedDrg2KiBV1_1 (5) for PoRep, StackedDrgWindow2KiBV1_1 (10), StackedDrgWinning2KiBV1
// (0), StackedDrg2KiBV1 update (0).
func demoInputs(req *cuzkv1.SubmitProofRequest) error {
	req.SectorSize = 2 << 10
	seed := sha256.Sum256([]byte(fmt.Sprintf("demo %d %d", req.MinerId, req.SectorNumber)))
	switch req.ProofKind {
	case cuzkv1.ProofKind_POREP_SEAL_COMMIT:
		req.RegisteredProof = 5
		var err error
		req.VanillaProof, err = wrapC1([]byte(`{"demo":true}`), req.SectorNumber, req.SectorSize)
		return err
	case cuzkv1.ProofKind_WINDOW_POST_PARTITION:
		req.RegisteredProof = 10
		req.Randomness = seed[:]
	case cuzkv1.ProofKind_WINNING_POST:
		req.RegisteredProof = 0
		req.Randomness = seed[:]
	case cuzkv1.ProofKind_SNAP_DEALS_UPDATE:
		req.RegisteredProof = 0
		req.CommROld, req.CommRNew, req.CommDNew = seed[:], seed[:], seed[:]
	}
	req.VanillaProofs = [][]byte{[]byte("demo vanilla proof")}
	return nil
}

// wrapC1 wraps a C1 output in the JSON envelope Curio sends (lib/ffi/cuzk_funcs.go wrapC1Output):
// encoding/json writes Phase1Out as base64.
func wrapC1(c1 []byte, sector, size uint64) ([]byte, error) {
	return json.Marshal(struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{int64(sector), c1, size})
}

func hex32(flag, s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%s %q: want 64 hex digits", flag, s)
	}
	return b, nil
}

func dialTarget(addr string) string {
	if strings.Contains(addr, "://") || strings.HasPrefix(addr, "unix:") {
		return addr
	}
	return "dns:///" + addr
}

// writeAtomic writes b to path through a temporary file renamed into place.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".proof-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
