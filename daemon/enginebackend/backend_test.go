package enginebackend_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cuzk-go/cuzk/daemon"
	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/filecoin/sdr"
	"github.com/cuzk-go/cuzk/filecoin/sector"
	"github.com/cuzk-go/cuzk/filecoin/update"
	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
)

const miner = 1000

func logger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// serve starts a daemon over b on 127.0.0.1 and returns a client connected to it.
func serve(t *testing.T, b daemon.Backend) cuzkv1.ProvingEngineClient {
	t.Helper()
	d, err := daemon.New(b, daemon.WithLogger(logger()))
	require.NoError(t, err)
	srv, err := daemon.NewServer(d, daemon.ServerConfig{Listen: []string{"127.0.0.1:0"}, ShutdownTimeout: time.Second})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	conn, err := grpc.NewClient("passthrough:///"+srv.Addrs()[0].String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() {
		conn.Close()
		cancel()
		<-served
	})
	return cuzkv1.NewProvingEngineClient(conn)
}

// insecureBackend is a CPU backend with INSECURE development parameters.
func insecureBackend(t *testing.T) *enginebackend.Backend {
	t.Helper()
	b, err := enginebackend.New(enginebackend.WithInsecureDevParams(), enginebackend.WithLogger(logger()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// postInputs seals 2 KiB sectors ids in Go and returns their PoSt vanilla proofs
// (bincode, as Curio sends them) for randomness rnd, and the sectors as a verifier sees them.
func postInputs(t *testing.T, pt post.ProofType, rnd post.Domain, ids []uint64) ([][]byte, []proofs.SectorInfo) {
	t.Helper()
	fc, err := proofs.GeneratePoStFallbackSectorChallenges(pt, miner, rnd, ids)
	require.NoError(t, err)
	return postInputsFor(t, pt, fc, ids)
}

// postInputsFor seals 2 KiB sectors ids and returns their vanilla proofs for the challenges fc.
func postInputsFor(t *testing.T, pt post.ProofType, fc *proofs.FallbackChallenges, ids []uint64) ([][]byte, []proofs.SectorInfo) {
	t.Helper()
	var vanilla [][]byte
	var sectors []proofs.SectorInfo
	for _, id := range ids {
		data := make([]byte, 2<<10)
		_, _ = rand.Read(data)
		for i := 31; i < len(data); i += 32 {
			data[i] &= 0x3f // fr32: each 32-byte word below the modulus
		}
		s, err := sdr.Seal(context.Background(), sector.StackedDrg2KiBV1_1, sector.ProverID(miner), id, [32]byte{0: byte(id)}, data)
		require.NoError(t, err)
		si := proofs.SectorInfo{SealProof: sector.StackedDrg2KiBV1_1, SectorNumber: id, SealedCID: post.SealedCID(post.DomainOf(&s.CommR))}
		vp, err := proofs.GenerateSingleVanillaProof(proofs.PrivateSectorInfo{SectorInfo: si, PoStProofType: pt, CommC: s.CommC, TreeRLast: s.TreeR}, fc.Challenges[id])
		require.NoError(t, err)
		vanilla = append(vanilla, vp)
		sectors = append(sectors, si)
	}
	return vanilla, sectors
}

// TestWindowPoSt2KiBOverGRPC: two 2 KiB sectors sealed in Go, their vanilla proofs submitted
// to the daemon over gRPC as Curio does (Prove, WINDOW_POST_PARTITION), proved by the engine
// backend with INSECURE parameters of the real 21,866-constraint circuit, and the proof verified
// with proofs.VerifyWindowPoStWithKey from the sectors' numbers, sealed CIDs and the randomness
// alone; with another randomness it does not verify. Status then lists wpost-2k, hot.
func TestWindowPoSt2KiBOverGRPC(t *testing.T) {
	ctx := t.Context()
	const pt = post.StackedDrgWindow2KiBV1_1
	var rnd post.Domain
	rnd[0], rnd[9] = 7, 3
	vanilla, sectors := postInputs(t, pt, rnd, []uint64{4, 9})
	b := insecureBackend(t)
	c := serve(t, b)

	res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(pt),
		MinerId: miner, Randomness: rnd[:], VanillaProofs: vanilla, PartitionIndex: 1,
	}})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_COMPLETED, res.Result.Status, res.Result.ErrorMessage)
	require.Len(t, res.Result.Proof, prover.ProofSize)

	vk, err := b.VerifyingKey(ctx, "wpost-2k")
	require.NoError(t, err)
	vi := proofs.WindowPoStVerifyInfo{Randomness: rnd, Prover: miner, ChallengedSectors: sectors,
		Proofs: []proofs.PoStProof{{PoStProof: pt, ProofBytes: res.Result.Proof}}}
	ok, err := proofs.VerifyWindowPoStWithKey(vi, vk)
	require.NoError(t, err)
	require.True(t, ok)
	vi.Randomness[0] ^= 1
	ok, err = proofs.VerifyWindowPoStWithKey(vi, vk)
	require.NoError(t, err)
	require.False(t, ok, "another randomness")

	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	require.NoError(t, err)
	require.Len(t, st.LoadedSrs, 1)
	require.Equal(t, "wpost-2k", st.LoadedSrs[0].CircuitId)
	require.Equal(t, cuzkv1.SRSStatus_HOT, st.LoadedSrs[0].Tier)
	require.NotZero(t, st.LoadedSrs[0].SizeBytes)
	require.Zero(t, st.LoadedSrs[0].RefCount)
	require.Empty(t, st.Gpus, "a CPU engine reports no GPU")
	require.NotZero(t, st.PinnedMemoryLimitBytes)

	// Vanilla proofs for another randomness fail the job with the sector named.
	rnd2 := rnd
	rnd2[1] = 1
	res, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(pt),
		MinerId: miner, Randomness: rnd2[:], VanillaProofs: vanilla,
	}})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_FAILED, res.Result.Status)
	require.Contains(t, res.Result.ErrorMessage, "sector 4")
}

// TestPreloadEvictStatus: PreloadSRS loads a circuit (then reports it already loaded), GetStatus
// lists it hot with its size, EvictSRS frees those bytes and the status is empty again.
func TestPreloadEvictStatus(t *testing.T) {
	ctx := t.Context()
	c := serve(t, insecureBackend(t))

	pre, err := c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "wpost-2k"})
	require.NoError(t, err)
	require.False(t, pre.AlreadyLoaded)
	pre, err = c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "wpost-2k"})
	require.NoError(t, err)
	require.True(t, pre.AlreadyLoaded)

	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	require.NoError(t, err)
	require.Len(t, st.LoadedSrs, 1)
	require.Equal(t, cuzkv1.SRSStatus_HOT, st.LoadedSrs[0].Tier)
	size := st.LoadedSrs[0].SizeBytes
	require.NotZero(t, size)

	ev, err := c.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "wpost-2k"})
	require.NoError(t, err)
	require.True(t, ev.WasLoaded)
	require.Equal(t, size, ev.FreedBytes)
	st, err = c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	require.NoError(t, err)
	require.Empty(t, st.LoadedSrs)
	ev, err = c.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "wpost-2k"})
	require.NoError(t, err)
	require.False(t, ev.WasLoaded)

	// Development parameters are made for 2 KiB circuits only.
	for _, id := range []string{"porep-32g", "snap-32g"} {
		_, err = c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: id})
		require.Equal(t, codes.Unimplemented, status.Code(err), id)
	}
}

// TestUnsupported: NonInteractive PoRep, and SnapDeals beyond 2 KiB with development parameters,
// are refused at submission with Unimplemented; a WindowPoSt …V1 partition other than 0 and
// malformed vanilla proofs with InvalidArgument, naming the field.
func TestUnsupported(t *testing.T) {
	ctx := t.Context()
	c := serve(t, insecureBackend(t))
	h := make([]byte, 32)
	_, err := c.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 32 << 30, RegisteredProof: uint64(update.StackedDrg32GiBV1),
		VanillaProofs: [][]byte{{1}}, CommROld: h, CommRNew: h, CommDNew: h,
	})
	require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	_, err = c.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 2 << 10, RegisteredProof: uint64(update.StackedDrg2KiBV1),
		VanillaProofs: [][]byte{{1}}, CommROld: h, CommRNew: h, CommDNew: h,
	})
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	require.ErrorContains(t, err, "vanilla_proofs[0]")
	require.ErrorContains(t, err, "comm_c")
	_, err = c.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 2 << 10, RegisteredProof: uint64(update.StackedDrg2KiBV1),
		VanillaProofs: [][]byte{{1}, {2}}, CommROld: h, CommRNew: h, CommDNew: h,
	})
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	require.ErrorContains(t, err, "2 partition proofs, StackedDrg2KiBV1 has 1 partitions")

	env := []byte(`{"SectorNum":1,"SectorSize":2048,"Phase1Out":"eyJ9"}`)
	_, err = c.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2 << 10, SectorNumber: 1,
		RegisteredProof: 15, VanillaProof: env, // StackedDrg2KiBV1_2_Feat_NiPoRep
	})
	require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)

	var rnd post.Domain
	vanilla, _ := postInputs(t, post.StackedDrgWindow2KiBV1, rnd, []uint64{1})
	_, err = c.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(post.StackedDrgWindow2KiBV1),
		Randomness: rnd[:], VanillaProofs: vanilla, PartitionIndex: 2,
	})
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	require.ErrorContains(t, err, "partition_index")

	_, err = c.SubmitProof(ctx, &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINNING_POST, SectorSize: 2 << 10, RegisteredProof: uint64(post.StackedDrgWinning2KiBV1),
		Randomness: rnd[:], VanillaProofs: [][]byte{{1, 2, 3}},
	})
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	require.ErrorContains(t, err, "vanilla_proofs[0]")
}

// TestMissingParameterFile: with real parameters from an empty directory, PreloadSRS and a
// proof fail with the file's name, the directory and the command that fetches it.
func TestMissingParameterFile(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	cache, err := paramcache.Open(paramcache.WithDir(dir), paramcache.WithMemoFile("-"))
	require.NoError(t, err)
	b, err := enginebackend.New(enginebackend.WithParamCache(cache), enginebackend.WithLogger(logger()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	c := serve(t, b)

	pi, err := proofs.PoStProofInfo(post.StackedDrgWindow2KiBV1_1)
	require.NoError(t, err)
	check := func(msg string) {
		t.Helper()
		for _, want := range []string{pi.ParamsFile, dir, "fetch-params 2KiB", paramcache.DirEnv} {
			require.Contains(t, msg, want)
		}
	}
	_, err = c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "wpost-2k"})
	require.Equal(t, codes.FailedPrecondition, status.Code(err), "a missing file is the host's state, not a bad request")
	check(status.Convert(err).Message())

	var rnd post.Domain
	vanilla, _ := postInputs(t, post.StackedDrgWindow2KiBV1_1, rnd, []uint64{1})
	res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(post.StackedDrgWindow2KiBV1_1),
		Randomness: rnd[:], VanillaProofs: vanilla,
	}})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_FAILED, res.Result.Status)
	check(res.Result.ErrorMessage)
	require.True(t, strings.HasPrefix(res.Result.ErrorMessage, "load parameters of wpost-2k"), res.Result.ErrorMessage)

	st := b.Status()
	require.Empty(t, st.SRS, "a failed load is not listed")
}

// TestWinningPoSt2KiBOverGRPC: a 2 KiB sector sealed in Go, its WinningPoSt vanilla proof
// submitted over gRPC (WINNING_POST, critical priority by default), proved with INSECURE
// parameters of the real 90,750-constraint circuit and verified with
// proofs.VerifyWinningPoStWithKey.
func TestWinningPoSt2KiBOverGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("a development setup of the 90,750-constraint WinningPoSt circuit; TestWindowPoSt2KiBOverGRPC covers the path in -short")
	}
	ctx := t.Context()
	const pt = post.StackedDrgWinning2KiBV1
	var rnd post.Domain
	rnd[0], rnd[31] = 1, 2
	fc, err := proofs.GeneratePoStFallbackSectorChallenges(pt, miner, rnd, []uint64{5})
	require.NoError(t, err)
	vanilla, sectors := postInputsFor(t, pt, fc, []uint64{5})
	b := insecureBackend(t)
	c := serve(t, b)
	res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINNING_POST, SectorSize: 2 << 10, RegisteredProof: uint64(pt),
		MinerId: miner, Randomness: rnd[:], VanillaProofs: vanilla,
	}})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_COMPLETED, res.Result.Status, res.Result.ErrorMessage)
	vk, err := b.VerifyingKey(ctx, "winning-2k")
	require.NoError(t, err)
	ok, err := proofs.VerifyWinningPoStWithKey(proofs.WinningPoStVerifyInfo{Randomness: rnd, Prover: miner,
		ChallengedSectors: sectors, Proofs: []proofs.PoStProof{{PoStProof: pt, ProofBytes: res.Result.Proof}}}, vk)
	require.NoError(t, err)
	require.True(t, ok)
}

// TestSnapDealsEndToEnd2KiBOverGRPC: a 2 KiB sector sealed in Go and updated with new data, its
// bincode partition proof submitted over gRPC as Curio does (Prove, SNAP_DEALS_UPDATE with the
// three commitments), proved by the engine backend with INSECURE parameters of the real
// 1,705,039-constraint circuit, and verified with proofs.VerifyEmptySectorUpdateProofWithKey
// from the commitments alone; with another comm_r_new it does not verify, and vanilla proofs
// for other commitments fail the job naming the partition.
func TestSnapDealsEndToEnd2KiBOverGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.7 M-constraint development setup and proof on the CPU; TestUnsupported covers the request checks")
	}
	ctx := t.Context()
	data := func() []byte {
		b := make([]byte, 2<<10)
		_, _ = rand.Read(b)
		for i := 31; i < len(b); i += 32 {
			b[i] &= 0x3f
		}
		return b
	}
	s, err := sdr.Seal(ctx, sector.StackedDrg2KiBV1_1, sector.ProverID(miner), 6, [32]byte{0: 6}, data())
	require.NoError(t, err)
	nodes, err := sdr.DataNodes(data())
	require.NoError(t, err)
	r, err := update.Encode(update.StackedDrg2KiBV1, s.TreeR, s.CommC, nodes)
	require.NoError(t, err)
	vanilla, err := proofs.GenerateEmptySectorUpdatePartitionProofs(r)
	require.NoError(t, err)
	rOld, rNew, dNew := sdr.Bytes(&r.CommROld), sdr.Bytes(&r.CommRNew), sdr.Bytes(&r.CommDNew)

	b := insecureBackend(t)
	c := serve(t, b)
	req := &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 2 << 10, RegisteredProof: uint64(update.StackedDrg2KiBV1),
		SectorNumber: 6, MinerId: miner, VanillaProofs: vanilla, CommROld: rOld[:], CommRNew: rNew[:], CommDNew: dNew[:],
	}
	res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_COMPLETED, res.Result.Status, res.Result.ErrorMessage)
	require.Len(t, res.Result.Proof, prover.ProofSize)

	vk, err := b.VerifyingKey(ctx, "snap-2k")
	require.NoError(t, err)
	info := proofs.ReplicaUpdateInfo{UpdateProofType: update.StackedDrg2KiBV1, CommROld: rOld, CommRNew: rNew, CommDNew: dNew, Proof: res.Result.Proof}
	ok, err := proofs.VerifyEmptySectorUpdateProofWithKey(info, vk)
	require.NoError(t, err)
	require.True(t, ok)
	info.CommRNew[0] ^= 1
	ok, err = proofs.VerifyEmptySectorUpdateProofWithKey(info, vk)
	require.NoError(t, err)
	require.False(t, ok, "another comm_r_new")

	bad := proto.Clone(req).(*cuzkv1.SubmitProofRequest)
	bad.CommRNew = info.CommRNew[:]
	res, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: bad})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_FAILED, res.Result.Status)
	require.Contains(t, res.Result.ErrorMessage, "partition 0")
}

// fileBackend is a CPU backend with parameters from cache.
func fileBackend(t *testing.T, cache *paramcache.Cache) *enginebackend.Backend {
	t.Helper()
	b, err := enginebackend.New(enginebackend.WithParamCache(cache), enginebackend.WithLogger(logger()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// TestWindowPoSt2KiBFromParamsFile: the daemon proves a WindowPoSt partition from a parameters
// file in its cache (INSECURE parameters of the real circuit, written to a file whose digest the
// cache's manifest lists), mapped rather than read onto the heap, and the proof verifies with the
// file's verifying key. On the CPU the points are decoded onto the heap by the proof: the status
// then lists the circuit's full size, which EvictSRS frees.
func TestWindowPoSt2KiBFromParamsFile(t *testing.T) {
	ctx := t.Context()
	const pt = post.StackedDrgWindow2KiBV1_1
	var rnd post.Domain
	rnd[3] = 5
	vanilla, sectors := postInputs(t, pt, rnd, []uint64{2})
	cache, path := enginebackend.WriteParamsFile(t, nil)
	b := fileBackend(t, cache)
	c := serve(t, b)

	res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(pt),
		MinerId: miner, Randomness: rnd[:], VanillaProofs: vanilla,
	}})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_COMPLETED, res.Result.Status, res.Result.ErrorMessage)

	m, err := prover.OpenParametersFile(path, prover.Checked)
	require.NoError(t, err)
	defer m.Close()
	vi := proofs.WindowPoStVerifyInfo{Randomness: rnd, Prover: miner, ChallengedSectors: sectors,
		Proofs: []proofs.PoStProof{{PoStProof: pt, ProofBytes: res.Result.Proof}}}
	ok, err := proofs.VerifyWindowPoStWithKey(vi, &m.VK)
	require.NoError(t, err)
	require.True(t, ok)

	decoded, err := m.Decode()
	require.NoError(t, err)
	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	require.NoError(t, err)
	require.Len(t, st.LoadedSrs, 1)
	require.Equal(t, cuzkv1.SRSStatus_HOT, st.LoadedSrs[0].Tier)
	require.Equal(t, uint64(engine.ParametersBytes(decoded)), st.LoadedSrs[0].SizeBytes, "decoded by the CPU proof")
	ev, err := c.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "wpost-2k"})
	require.NoError(t, err)
	require.Equal(t, st.LoadedSrs[0].SizeBytes, ev.FreedBytes)
}

// TestCorruptParamsFile: a parameters file that matches its manifest digest but holds a point
// off the curve (l[3]) fails the proof, not the daemon, with the file, the section, the index and
// the byte offset of the point, and the circuit is unloaded (the next proof maps the file again).
func TestCorruptParamsFile(t *testing.T) {
	ctx := t.Context()
	const pt = post.StackedDrgWindow2KiBV1_1
	var off int
	cache, path := enginebackend.WriteParamsFile(t, func(b []byte) {
		m, err := prover.MapParameters(b, prover.Unchecked)
		require.NoError(t, err)
		vk, err := m.VK.MarshalBinary()
		require.NoError(t, err)
		// bellperson's layout: the verifying key, then per section a u32 count and the points.
		off = len(vk) + 4 + m.Len(primitive.SectionH)*prover.G1UncompressedSize + 4 + 3*prover.G1UncompressedSize
		b[off+prover.G1UncompressedSize-1] ^= 1 // the last byte of y
	})
	c := serve(t, fileBackend(t, cache))
	var rnd post.Domain
	vanilla, _ := postInputs(t, pt, rnd, []uint64{1})
	res, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: &cuzkv1.SubmitProofRequest{
		ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, SectorSize: 2 << 10, RegisteredProof: uint64(pt),
		MinerId: miner, Randomness: rnd[:], VanillaProofs: vanilla,
	}})
	require.NoError(t, err)
	require.Equal(t, cuzkv1.AwaitProofResponse_FAILED, res.Result.Status)
	require.Contains(t, res.Result.ErrorMessage, fmt.Sprintf("decode l[3] at byte offset %d: point not on curve", off))
	require.True(t, strings.HasPrefix(res.Result.ErrorMessage, "parameters file "+path+": "), res.Result.ErrorMessage)
	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	require.NoError(t, err)
	require.Empty(t, st.LoadedSrs)
}
