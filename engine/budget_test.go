package engine

import (
	"testing"
	"testing/fstest"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk-go/cuzk/circuits"
	"github.com/cuzk-go/cuzk/devsetup"
	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

const meminfo = "MemTotal:       131072000 kB\nMemFree:        1000 kB\n" // 125 GiB

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestDetectMemoryLimit(t *testing.T) {
	const ram = 131072000 << 10
	for _, tc := range []struct {
		name   string
		fs     fstest.MapFS
		bytes  int64
		source string // prefix
	}{
		{"cgroup v2 at the root", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"sys/fs/cgroup/memory.max": file("68719476736\n"),
			"proc/self/cgroup":         file("0::/\n"),
		}, 64 << 30, "/sys/fs/cgroup/memory.max"},
		{"cgroup v2 nested, the parent tighter", fstest.MapFS{
			"proc/meminfo":                        file(meminfo),
			"proc/self/cgroup":                    file("0::/job/prover\n"),
			"sys/fs/cgroup/job/prover/memory.max": file("max\n"),
			"sys/fs/cgroup/job/memory.max":        file("34359738368\n"),
			"sys/fs/cgroup/memory.max":            file("max\n"),
		}, 32 << 30, "/sys/fs/cgroup/job/memory.max"},
		{"cgroup v2 max: the RAM", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"sys/fs/cgroup/memory.max": file("max\n"),
		}, ram, "/proc/meminfo"},
		{"cgroup v2 above the RAM: the RAM", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"sys/fs/cgroup/memory.max": file("274877906944\n"),
		}, ram, "/proc/meminfo"},
		{"cgroup v1", fstest.MapFS{
			"proc/meminfo":     file(meminfo),
			"proc/self/cgroup": file("12:cpu,cpuacct:/x\n4:memory:/docker/abc\n"),
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": file("17179869184\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            file("9223372036854771712\n"),
		}, 16 << 30, "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"},
		{"cgroup v1 unlimited", fstest.MapFS{
			"proc/meminfo": file(meminfo),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
		}, ram, "/proc/meminfo"},
		{"no cgroup files", fstest.MapFS{"proc/meminfo": file(meminfo)}, ram, "/proc/meminfo"},
		{"garbage cgroup file: the RAM, and why", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"sys/fs/cgroup/memory.max": file("lots\x00\xff"),
		}, ram, "/proc/meminfo (cgroup limit ignored: /sys/fs/cgroup/memory.max: \"lots\\x00\\xff\" is not a byte count"},
		{"zero cgroup limit", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"sys/fs/cgroup/memory.max": file("0\n"),
		}, ram, "/proc/meminfo (cgroup limit ignored: /sys/fs/cgroup/memory.max: limit of 0 bytes"},
		{"negative cgroup limit", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"sys/fs/cgroup/memory.max": file("-1\n"),
		}, ram, "/proc/meminfo (cgroup limit ignored"},
		{"garbage proc/self/cgroup", fstest.MapFS{
			"proc/meminfo":             file(meminfo),
			"proc/self/cgroup":         file("::::\n0::../../..\nxyz"),
			"sys/fs/cgroup/memory.max": file("1073741824"),
		}, 1 << 30, "/sys/fs/cgroup/memory.max"},
		{"cgroup limit without meminfo", fstest.MapFS{
			"sys/fs/cgroup/memory.max": file("1073741824"),
		}, 1 << 30, "/sys/fs/cgroup/memory.max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim, err := detectMemoryLimit(tc.fs)
			require.NoError(t, err)
			require.Equal(t, tc.bytes, lim.Bytes)
			require.Contains(t, lim.Source, tc.source)
		})
	}

	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		msg  string
	}{
		{"nothing", fstest.MapFS{}, "read /proc/meminfo"},
		{"garbage meminfo", fstest.MapFS{"proc/meminfo": file("MemTotal: many kB\n")}, "no valid MemTotal"},
		{"meminfo in MB", fstest.MapFS{"proc/meminfo": file("MemTotal: 100 MB\n")}, "no valid MemTotal"},
		{"garbage both", fstest.MapFS{
			"proc/meminfo":             file("\xff"),
			"sys/fs/cgroup/memory.max": file("12abc"),
		}, "cgroup limit ignored: /sys/fs/cgroup/memory.max: \"12abc\""},
	} {
		t.Run("error/"+tc.name, func(t *testing.T) {
			_, err := detectMemoryLimit(tc.fs)
			require.ErrorContains(t, err, tc.msg)
		})
	}

	// The real machine: whatever it is, a positive limit and a budget below it.
	lim, err := DetectMemoryLimit()
	require.NoError(t, err)
	require.Positive(t, lim.Bytes)
	require.Less(t, DefaultBudget(lim), lim.Bytes)
	require.Positive(t, DefaultBudget(lim))
}

func TestMemoryMargin(t *testing.T) {
	require.Equal(t, int64(1<<30), MemoryMargin(4<<30), "at least 1 GiB")
	require.Equal(t, int64(1<<29), MemoryMargin(1<<30), "at most half")
	require.Equal(t, int64(128<<30)/10, MemoryMargin(128<<30), "10%")
	require.Equal(t, int64(128<<30)-int64(128<<30)/10, DefaultBudget(MemoryLimit{Bytes: 128 << 30}))
}

func TestShapeAndParametersBytes(t *testing.T) {
	shape, err := synth.Compile(&circuits.Scalable{Constraints: 1000, Inputs: 3})
	require.NoError(t, err)
	p := devsetup.RandomParameters(shape, 1)
	pts := len(p.VK.IC) + len(p.H) + len(p.L) + len(p.A) + len(p.BG1)
	require.Equal(t, int64(pts)*96+int64(len(p.BG2))*192, ParametersBytes(p))
	require.Equal(t, ParametersBytes(p), ParametersBytesFor(shape), "predicted from the shape")

	// The shape's arrays: at least a 4-byte word a term, at most compressed rows of 4-byte
	// columns and coefficient indices, a 4-byte pointer a row, a bit a variable per density.
	var terms, rows int64
	for _, m := range []*synth.Matrix{&shape.A, &shape.B, &shape.C} {
		terms += int64(m.NumTerms())
		rows += int64(shape.NumConstraints) + 1
	}
	coeffs := int64(len(shape.Coeffs)) * 32
	dens := 3 * (int64(shape.NumInputs+shape.NumAux)/64 + 1) * 8
	got := ShapeBytes(shape)
	require.GreaterOrEqual(t, got, 4*terms+coeffs)
	require.LessOrEqual(t, got, 8*terms+4*rows+coeffs+dens)
}

func TestEngineCountsResident(t *testing.T) {
	shape, params := simSetup(t)
	dev := newSimDevice(0, 0, 0)
	est, _ := EstimatePartitionBytes(shape, dev)
	resident := ShapeBytes(shape) + ParametersBytes(params)
	require.Positive(t, resident)

	t.Run("resident plus one partition must fit", func(t *testing.T) {
		e := newTestEngine(t, WithDevices(dev), WithMemoryBudget(resident+est-1))
		_, err := e.Submit(testCtx(t), simJob(t, 1, 1, 0))
		require.ErrorIs(t, err, ErrMemoryBudget)
		require.ErrorContains(t, err, "resident")
		require.Zero(t, e.Stats().Resident, "a refused job counts nothing")

		e2 := newTestEngine(t, WithDevices(dev), WithMemoryBudget(resident+est))
		h, err := e2.Submit(testCtx(t), simJob(t, 1, 2, 0))
		require.NoError(t, err)
		_, err = h.Wait(testCtx(t))
		require.NoError(t, err)
		st := e2.Stats()
		require.Equal(t, est, st.PeakReserved, "one partition at a time")
	})

	t.Run("shared once, released with the last job", func(t *testing.T) {
		e := newTestEngine(t, WithDevices(dev))
		gate := make(chan struct{})
		block := func(marker int) *Job {
			j := simJob(t, marker, 1, 0)
			inner := j.Circuit
			j.Circuit = func(i int) (synth.Circuit, error) { <-gate; return inner(i) }
			return j
		}
		ctx := testCtx(t)
		h1, err := e.Submit(ctx, block(1))
		require.NoError(t, err)
		h2, err := e.Submit(ctx, block(2))
		require.NoError(t, err)
		st := e.Stats()
		require.Equal(t, ShapeBytes(shape), st.ResidentShapes, "two jobs, one shape")
		require.Equal(t, ParametersBytes(params), st.ResidentParameters)
		require.Equal(t, resident, st.Resident)
		require.Zero(t, st.FallbackReserve)
		require.Equal(t, est, st.PartitionEstimate)
		require.Positive(t, st.Budget)
		require.Positive(t, st.Limit.Bytes)
		require.NotEmpty(t, st.Limit.Source)

		// Another parameter set of the same shape counts on its own.
		other := *params
		j3 := simJob(t, 3, 1, 0)
		j3.Params = &other
		h3, err := e.Submit(ctx, j3)
		require.NoError(t, err)
		require.Equal(t, 2*ParametersBytes(params), e.Stats().ResidentParameters)

		close(gate)
		for _, h := range []*Handle{h1, h2, h3} {
			_, err := h.Wait(ctx)
			require.NoError(t, err)
		}
		st = e.Stats()
		require.Zero(t, st.Resident)
		require.Zero(t, st.PartitionEstimate)
	})

	t.Run("fallback reserve", func(t *testing.T) {
		fb := newSimDevice(0, 0, 0)
		fb.hostBytes = 12345
		e := newTestEngine(t, WithDevices(dev), WithFallback(fb))
		gate := make(chan struct{})
		j := simJob(t, 1, 1, 0)
		inner := j.Circuit
		j.Circuit = func(i int) (synth.Circuit, error) { <-gate; return inner(i) }
		h, err := e.Submit(testCtx(t), j)
		require.NoError(t, err)
		st := e.Stats()
		require.Equal(t, int64(12345), st.FallbackReserve)
		require.Equal(t, resident+12345, st.Resident)
		require.Equal(t, est, st.PartitionEstimate, "the fallback device is not in the per-partition estimate")
		close(gate)
		_, err = h.Wait(testCtx(t))
		require.NoError(t, err)
	})
}

// TestParametersBytesPointSizes pins the in-memory point sizes the accounting assumes.
func TestParametersBytesPointSizes(t *testing.T) {
	p := &prover.Parameters{H: make([]bls12381.G1Affine, 3), BG2: make([]bls12381.G2Affine, 2)}
	require.Equal(t, int64(3*96+2*192), ParametersBytes(p))
}
