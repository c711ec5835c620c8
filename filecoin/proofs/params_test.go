package proofs

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/engine"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/post"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/timeline"
)

// insecureParamsFile writes INSECURE development parameters of the PoSt type's circuit to a new
// directory under the name of the type's .params file and returns the type and the file's path.
func insecureParamsFile(t *testing.T, pt post.ProofType) (ProofInfo, string) {
	t.Helper()
	pi, err := PoStProofInfo(pt)
	require.NoError(t, err)
	shape, err := PoStCircuitShape(pt)
	require.NoError(t, err)
	tw, err := devsetup.NewToxicWaste(rand.Reader)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), pi.ParamsFile)
	require.NoError(t, devsetup.WriteInsecureSetup(path, shape, tw))
	return pi, path
}

// cacheOf returns a parameter cache of path's directory whose manifest lists the file, under the
// name of pi's .params file, with its digest (the first 16 bytes of BLAKE2b-512, as Filecoin's
// parameters.json), so that the cache accepts it as it is now.
func cacheOf(t *testing.T, pi ProofInfo, path string) *paramcache.Cache {
	t.Helper()
	require.Equal(t, pi.ParamsFile, filepath.Base(path))
	digest, err := paramcache.FileDigest(context.Background(), path)
	require.NoError(t, err)
	entry := paramcache.Default()[pi.ParamsFile]
	entry.Digest = digest
	c, err := paramcache.Open(paramcache.WithDir(filepath.Dir(path)), paramcache.WithMemoFile("-"),
		paramcache.WithManifest(paramcache.Manifest{pi.ParamsFile: entry}))
	require.NoError(t, err)
	return c
}

// openParams maps the type's parameters from c as a caller does (OpenParameters, Unchecked), and
// closes the mapping when the test ends.
func openParams(t *testing.T, pi ProofInfo, c *paramcache.Cache) *prover.Parameters {
	t.Helper()
	m, err := pi.OpenParameters(context.Background(), c, prover.Unchecked)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close()) })
	params, err := m.Parameters()
	require.NoError(t, err)
	require.Same(t, m, params.Mapped(), "the points stay in the mapping")
	require.Zero(t, params.HeapBytes(), "no point on the heap before a CPU proof")
	return params
}

// pointOffset returns the byte offset in the parameters file of point i of the G1 section sec
// (bellperson's layout: the verifying key, then per section a u32 count and the points).
func pointOffset(t *testing.T, params *prover.Parameters, sec primitive.Section, i int) int64 {
	t.Helper()
	vk, err := params.VK.MarshalBinary()
	require.NoError(t, err)
	off := int64(len(vk))
	for s := primitive.SectionH; s < sec; s++ {
		off += 4 + int64(params.Len(s))*prover.G1UncompressedSize
	}
	return off + 4 + int64(i)*prover.G1UncompressedSize
}

// TestOpenParametersCorruptPoint: a parameters file whose digest the cache accepts but whose
// point l[3] is not on the curve opens (only the verifying key and each section's first and last
// points are decoded then), and the proof fails with a *prover.DecodeError naming the section,
// the index and the byte offset when the CPU decodes the points; no panic. The file cut short
// by a byte is refused by OpenParameters, naming it.
func TestOpenParametersCorruptPoint(t *testing.T) {
	const pt = post.StackedDrgWindow2KiBV1_1
	pi, path := insecureParamsFile(t, pt)
	b, err := os.ReadFile(path)
	require.NoError(t, err)

	// A file cut inside its points fails its count check when it is opened.
	short := filepath.Join(t.TempDir(), pi.ParamsFile)
	require.NoError(t, os.WriteFile(short, b[:len(b)-1], 0o644))
	_, err = pi.OpenParameters(context.Background(), cacheOf(t, pi, short), prover.Unchecked)
	require.ErrorIs(t, err, prover.ErrFormat)
	require.ErrorContains(t, err, short)

	m, err := prover.MapParameters(b, prover.Unchecked)
	require.NoError(t, err)
	p, err := m.Parameters()
	require.NoError(t, err)
	off := pointOffset(t, p, primitive.SectionL, 3)
	b[off+prover.G1UncompressedSize-1] ^= 1 // the last byte of y
	require.NoError(t, os.WriteFile(path, b, 0o644))
	params := openParams(t, pi, cacheOf(t, pi, path))

	eng, err := engine.New()
	require.NoError(t, err)
	defer func() { require.NoError(t, eng.Close(context.Background())) }()
	var rnd post.Domain
	replica := sealed2KiB(t, 5, pt)
	fc, err := GeneratePoStFallbackSectorChallenges(pt, 1000, rnd, []uint64{5})
	require.NoError(t, err)
	vp, err := GenerateSingleVanillaProof(replica, fc.Challenges[5])
	require.NoError(t, err)
	_, err = GenerateWindowPoStWithVanilla(context.Background(), eng, params, pt, 1000, rnd, [][]byte{vp})
	var de *prover.DecodeError
	require.True(t, errors.As(err, &de), "%v", err)
	require.Equal(t, "l", de.Section)
	require.Equal(t, 3, de.Index)
	require.Equal(t, off, de.Offset)
	require.ErrorContains(t, err, "point not on curve")
}

// TestGenerationWaitsForItsJob: when the context of a generation ends while a partition is on
// the device, the generation returns the context's error only after the partition has left the
// device, so that the parameters' mapping may be closed then. The timeline hook holds the device
// for 300 ms after cancelling, which a generation that returned at once would not wait for.
func TestGenerationWaitsForItsJob(t *testing.T) {
	const pt = post.StackedDrgWindow2KiBV1_1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng, err := engine.New(engine.WithTimeline(timeline.HookFunc(func(e timeline.Event) {
		if e.Kind == timeline.GPUStart {
			cancel()
			time.Sleep(300 * time.Millisecond)
		}
	})))
	require.NoError(t, err)
	defer func() { require.NoError(t, eng.Close(context.Background())) }()
	shape, err := PoStCircuitShape(pt)
	require.NoError(t, err)
	params := devsetup.RandomParameters(shape, 1)

	var rnd post.Domain
	replica := sealed2KiB(t, 6, pt)
	fc, err := GeneratePoStFallbackSectorChallenges(pt, 1000, rnd, []uint64{6})
	require.NoError(t, err)
	vp, err := GenerateSingleVanillaProof(replica, fc.Challenges[6])
	require.NoError(t, err)
	_, err = GenerateWindowPoStWithVanilla(ctx, eng, params, pt, 1000, rnd, [][]byte{vp})
	require.ErrorIs(t, err, context.Canceled)
	st := eng.Stats()
	require.Zero(t, st.ActiveJobs, "the job still runs after the generation returned")
	require.Zero(t, st.OnDevice)
}
