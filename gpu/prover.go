package gpu

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover/primitive"
	"github.com/cuzk-go/cuzk/synth"
)

// ProverDevice runs a Groth16 prover's primitives on one GPU: it implements primitive.Device,
// and prover.NewDevice turns it into a prover.Device. Close frees what it holds on the GPU.
//
// A parameter set's points (H, L, A, B_G1, B_G2: the SRS) are uploaded by Resident, once per
// identity, and stay resident until the SRS is closed, Evict or Close. A partition's workspace
// (A·w, B·w, C·w zero-padded to the domain, w, and the A and B scalars compacted from w) lives in
// device buffers that are kept for the next partition of the same sizes. Staging — Upload and
// Compact — runs outside the kernel lock, so its copies overlap another worker's kernels; the
// quotient's NTTs and element-wise steps and the MSMs run under it, all from device memory.
// The 0/1 scalars that dominate Filecoin witnesses take the MSM's bitmap path.
//
// A partition whose assignment carries no evaluations (synth.SynthesizeWitness) is staged from w
// alone: w is uploaded (compactly when most of it is 0 or 1) and A·w, B·w, C·w are computed on
// the device from the shape's matrices, uploaded once per *synth.Shape and kept resident until
// EvictShape or Close (ShapeBytes says how much they take). This staging too runs outside the
// kernel lock.
//
// Preload uploads a job's shape and parameters ahead of its partitions, outside the kernel lock
// (package engine calls it at Submit), so that the first partition finds them resident.
type ProverDevice struct {
	dev *Device

	upload sync.Mutex // one SRS upload at a time, so an identity is uploaded once

	// shapeMu is held for reading while a resident shape evaluates (outside the kernel lock),
	// and for writing to upload, evict or free one, so that a shape is uploaded once and never
	// freed while in use.
	shapeMu sync.RWMutex
	shapes  map[*synth.Shape]*Shape // resident matrices, by the compiled shape they came from

	// streamChunk is the size in bytes of a chunk buffer of a streamed SRS upload:
	// streamChunkBytes, or less in tests.
	streamChunk int

	shiftH atomic.Uint32 // a ShiftTableMode (SetShiftTableH)
	pairs  atomic.Bool   // keep pair tables of the bases whose MSMs sum bits (SetPairTables)
	log    *slog.Logger  // the decisions on tables (SetLogger); nil: none

	mu            sync.Mutex
	srs           map[string]*SRS
	idle          []*workspace // device buffers of finished partitions, reused by the next ones
	times         Breakdown
	nttDecided    bool   // the NTT table was decided on (keepNTTTable), or freed: not tried again
	nttTableBytes uint64 // its size while kept (0: none)
	closed        bool
}

// maxIdleWorkspaces bounds the idle workspaces kept for reuse: one per worker of the usual two.
const maxIdleWorkspaces = 2

// stagingHostBytes is the pinned host memory an upload in flight uses: two 64 MiB chunks
// (csrc/src/staging.cu).
const stagingHostBytes = 2 * 64 << 20

// streamChunkBytes is the size of one of the two host buffers of decoded points that an SRS
// streamed from its source goes through: one chunk is decoded into one buffer while the other
// is copied to the device.
const streamChunkBytes = 128 << 20

// Breakdown sums the time of the partitions a ProverDevice ran, by stage. Each call is
// synchronous, so host-clock intervals around the calls are device time, plus however late the
// Go scheduler resumes the caller; NTT is measured on the device itself (CUDA events), the
// quotient being one call (RunQuotient) whose element-wise steps ride on its transforms' passes.
// Upload happens outside the kernel lock, where it overlaps another worker's kernels; every
// other stage runs under it.
type Breakdown struct {
	Partitions  int           // quotients computed, one per partition
	SRSUpload   time.Duration // uploading parameters (once per identity)
	Upload      time.Duration // staging A·w, B·w, C·w, w (or w alone) and compacting the A and B scalars
	ShapeUpload time.Duration // uploading shapes' matrices for evaluation (once per shape)
	Evaluate    time.Duration // computing A·w, B·w, C·w on the device, outside the kernel lock
	NTT         time.Duration // the six NTTs of H, with a·b and h's coefficients riding on their passes (device time)
	Pointwise   time.Duration // a·b and h's coefficients as steps of their own, where the quotient ran by steps (device time)
	MSMH        time.Duration
	MSMA        time.Duration
	MSMB1       time.Duration
	MSML        time.Duration
	MSMB2       time.Duration

	ShiftTables        int           // H shift tables built by ShiftTableAuto (under the kernel lock)
	ShiftTableBuild    time.Duration // building them
	ShiftTablesDropped int           // of those, freed again to make room
}

// Locked returns the time spent under the kernel lock, the SRS upload excepted.
func (b Breakdown) Locked() time.Duration {
	return b.NTT + b.Pointwise + b.MSMH + b.MSMA + b.MSMB1 + b.MSML + b.MSMB2
}

// Breakdown returns the device time spent so far, by stage.
func (p *ProverDevice) Breakdown() Breakdown {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.times
}

// timed runs f and adds its duration to the stage field of the device's breakdown.
func (p *ProverDevice) timed(stage func(*Breakdown) *time.Duration, f func() error) error {
	start := time.Now()
	err := f()
	d := time.Since(start)
	p.mu.Lock()
	*stage(&p.times) += d
	p.mu.Unlock()
	return err
}

// NewProverDevice returns the prover device of dev.
func NewProverDevice(dev *Device) *ProverDevice {
	return &ProverDevice{dev: dev, streamChunk: streamChunkBytes, srs: make(map[string]*SRS), shapes: make(map[*synth.Shape]*Shape)}
}

// ProverDevices loads the library (see Load) and returns one prover device per CUDA device. Its
// errors match ErrNotLoaded or ErrNoDevice when the caller should fall back to the CPU. The
// caller closes the devices.
func ProverDevices(opts ...Option) ([]*ProverDevice, error) {
	lib, err := Load(opts...)
	if err != nil {
		return nil, err
	}
	n := lib.DeviceCount()
	if n == 0 {
		return nil, ErrNoDevice
	}
	devs := make([]*ProverDevice, n)
	for i := range devs {
		d, err := lib.Device(i)
		if err != nil {
			return nil, err
		}
		devs[i] = NewProverDevice(d)
	}
	return devs, nil
}

// Name implements primitive.Device.
func (p *ProverDevice) Name() string {
	props, err := p.dev.Properties()
	if err != nil {
		return fmt.Sprintf("gpu%d", p.dev.Index())
	}
	return fmt.Sprintf("gpu%d %s", p.dev.Index(), props.Name)
}

// Lock implements primitive.Device: the device's kernel-only lock.
func (p *ProverDevice) Lock(ctx context.Context) error { return p.dev.Lock(ctx) }

// Unlock implements primitive.Device.
func (p *ProverDevice) Unlock() { p.dev.Unlock() }

// HostBytes implements primitive.Device: a workspace lives on the device; the host holds only
// the pinned staging of an upload in flight (128 MiB) and, while the partition whose Run
// uploads a streamed SRS does so, the two chunk buffers of points decoded on the host (256 MiB;
// none when the device decodes them, but the bound stays).
func (p *ProverDevice) HostBytes(primitive.Dims) int64 { return stagingHostBytes + 2*streamChunkBytes }

// SRS is a parameter set resident on one device, the handle Resident returns. Close evicts it:
// it waits for the device's kernel lock, so that no partition is using it, and frees its points.
type SRS struct {
	p           *ProverDevice
	id          string
	h, l, a, b1 *G1Bases // nil for an empty section
	b2          *G2Bases

	hMSMs     int  // MSMs run over h (counted until AutoTablesAfter, under ShiftTableAuto or SetPairTables); guarded by p.mu
	autoShift bool // h's shift table was built by ShiftTableAuto and may be freed for room; guarded by p.mu
}

// ID returns the identity the SRS was uploaded under.
func (s *SRS) ID() string { return s.id }

// Close evicts s from its device; later partitions upload it again.
func (s *SRS) Close() error { return s.p.evict(context.Background(), s) }

func (s *SRS) free() error {
	var errs []error
	for _, g := range []*G1Bases{s.h, s.l, s.a, s.b1} {
		if g != nil {
			errs = append(errs, g.Close())
		}
	}
	if s.b2 != nil {
		errs = append(errs, s.b2.Close())
	}
	return errors.Join(errs...)
}

// Resident implements primitive.Device: it returns srs's points on the device, uploading them
// when no SRS of the same identity is resident. The returned value is an *SRS.
func (p *ProverDevice) Resident(ctx context.Context, srs *primitive.SRS) (primitive.Bases, error) {
	if srs.ID == "" {
		return nil, errors.New("gpu: resident parameters need an identity")
	}
	if s, err := p.lookup(srs.ID); err != nil {
		return nil, err
	} else if s != nil {
		return s, nil
	}
	p.upload.Lock()
	defer p.upload.Unlock()
	if s, err := p.lookup(srs.ID); err != nil {
		return nil, err
	} else if s != nil {
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var s *SRS
	err := p.timed(func(b *Breakdown) *time.Duration { return &b.SRSUpload }, func() (err error) {
		s, err = p.uploadSRS(ctx, srs)
		return err
	})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		s.free()
		return nil, fmt.Errorf("gpu: device %d: %w", p.dev.Index(), ErrClosed)
	}
	p.srs[srs.ID] = s
	p.mu.Unlock()
	return s, nil
}

// ProverDevice preloads (the engine calls Preload at Submit).
var _ primitive.Preloader = (*ProverDevice)(nil)

// Preload implements primitive.Preloader: it uploads shape's matrices (unless shape is nil or
// already resident), then srs's points (unless an SRS of the same identity is resident), without
// the kernel lock. A partition's staging that needs the shape waits for the upload on shapeMu,
// and its Run that needs the SRS waits in Resident on the upload lock, then finds them resident.
// When ctx ends, the upload in progress stops between chunks, frees what it had allocated and
// Preload returns ctx's error; a partition waiting for it then uploads on its own.
func (p *ProverDevice) Preload(ctx context.Context, srs *primitive.SRS, shape *synth.Shape) error {
	if shape != nil && p.EvaluatesShape(shape) {
		if err := p.uploadShape(ctx, shape); err != nil {
			return err
		}
	}
	_, err := p.Resident(ctx, srs)
	return err
}

// lookup returns the resident SRS of identity id (nil if none), or ErrClosed after Close.
func (p *ProverDevice) lookup(id string) (*SRS, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("gpu: device %d: %w", p.dev.Index(), ErrClosed)
	}
	return p.srs[id], nil
}

// uploadSRS uploads srs's points, streamed from srs.Source when it is set, then builds H's shift
// table under ShiftTableOn (the tables a device decides on come after AutoTablesAfter H MSMs); it
// checks ctx between sections (and between the chunks of a streamed section) and, when ctx ends,
// frees what it uploaded and returns ctx's error.
func (p *ProverDevice) uploadSRS(ctx context.Context, srs *primitive.SRS) (*SRS, error) {
	shiftH := p.shiftMode() == ShiftTableOn
	if err := p.checkFits(srs, shiftH); err != nil {
		return nil, err
	}
	var s *SRS
	var err error
	if srs.Source != nil {
		s, err = p.streamSRS(ctx, srs.ID, srs.Source)
	} else {
		s, err = p.uploadPoints(ctx, srs)
	}
	if err != nil {
		return s, err
	}
	if shiftH && s.h != nil {
		if err := s.h.AddShiftTable(); err != nil {
			s.free()
			return nil, fmt.Errorf("gpu: upload parameters: section %s: %w", primitive.SectionH, err)
		}
	}
	return s, nil
}

// uploadPoints uploads the points srs holds in memory, section by section.
func (p *ProverDevice) uploadPoints(ctx context.Context, srs *primitive.SRS) (*SRS, error) {
	s := &SRS{p: p, id: srs.ID}
	var err error
	up1 := func(dst **G1Bases, pts []bls12381.G1Affine) {
		if err == nil && len(pts) > 0 {
			if err = ctx.Err(); err == nil {
				*dst, err = p.dev.UploadG1Bases(pts)
			}
		}
	}
	up1(&s.h, srs.H)
	up1(&s.l, srs.L)
	up1(&s.a, srs.A)
	up1(&s.b1, srs.BG1)
	if err == nil && len(srs.BG2) > 0 {
		if err = ctx.Err(); err == nil {
			s.b2, err = p.dev.UploadG2Bases(srs.BG2)
		}
	}
	if err != nil {
		s.free()
		return nil, fmt.Errorf("gpu: upload parameters: %w", err)
	}
	return s, nil
}

// streamSRS uploads the points of src section by section: it allocates a section's bases and
// fills them a chunk at a time (decoding the next chunk while the previous one is copied, see
// streamPoints), telling src to drop each chunk's pages once it is on the device, and the
// section's once it is all there (the pages two chunks share). The host thus holds the two chunk
// buffers, the pinned staging and about two chunks of the file's pages at a time. The device
// holds what UploadG1Bases and UploadG2Bases would upload: the decoded affine points.
//
// A source that checks its points as prover.Unchecked does (src.Unchecked()) is not decoded on the
// host: its encodings go to the device as they are and a kernel decodes and checks them there
// (streamEncoded).
//
// ctx is checked before each chunk: when it ends, what was allocated is freed and ctx's error
// returned.
func (p *ProverDevice) streamSRS(ctx context.Context, id string, src primitive.PointSource) (*SRS, error) {
	s := &SRS{p: p, id: id}
	err := func() error {
		for sec, dst := range [4]**G1Bases{&s.h, &s.l, &s.a, &s.b1} {
			sec := primitive.Section(sec)
			if n := src.Len(sec); n > 0 {
				b, err := p.dev.allocBases(1, n)
				if err != nil {
					return err
				}
				*dst = &G1Bases{b}
				decode := func(off int, pts []bls12381.G1Affine) error { return src.G1(sec, off, pts) }
				if err := streamSection(ctx, p, src, sec, b, n, decode); err != nil {
					return fmt.Errorf("section %s: %w", sec, err)
				}
			}
		}
		if n := src.Len(primitive.SectionBG2); n > 0 {
			b, err := p.dev.allocBases(2, n)
			if err != nil {
				return err
			}
			s.b2 = &G2Bases{b}
			if err := streamSection(ctx, p, src, primitive.SectionBG2, b, n, src.G2); err != nil {
				return fmt.Errorf("section %s: %w", primitive.SectionBG2, err)
			}
		}
		return nil
	}()
	if err != nil {
		s.free()
		return nil, fmt.Errorf("gpu: upload parameters: %w", err)
	}
	return s, nil
}

// streamSection fills b, the n points of section sec of src, and drops the section's pages at
// the end: from the encodings, decoded on the device, when src allows it (streamEncoded); else
// decoded on the host with decode, chunk by chunk into points of type T (G1 or G2 affine), each
// chunk's pages dropped once it has landed. It stops before a chunk once ctx has ended.
func streamSection[T any](ctx context.Context, p *ProverDevice, src primitive.PointSource, sec primitive.Section, b *bases, n int, decode func(off int, pts []T) error) error {
	if src.Unchecked() {
		return p.streamEncoded(ctx, src, sec, b, n)
	}
	var zero T
	err := streamPoints(ctx, n, p.streamChunk/int(unsafe.Sizeof(zero)), decode, func(off int, pts []T) error {
		if err := b.write(off, unsafe.Pointer(&pts[0]), len(pts)); err != nil {
			return err
		}
		return src.DropRange(sec, off, len(pts))
	})
	if err != nil {
		return err
	}
	return src.DropRange(sec, 0, n)
}

// streamEncoded fills b, the n points of section sec of src, from src's encodings (Encoded) in
// chunks of p.streamChunk bytes, each copied through the pinned staging and decoded and checked
// on the device (bases.writeEncoded). While chunk k is copied, chunk k−1's pages are dropped from
// the resident set (it has landed) and chunk k+1's are brought in (Encoded prefetches them), so
// that neither the page faults nor the drops hold up the copies; the section's pages are dropped
// once it is complete. A point the device rejects is decoded again on the host, which returns the
// *prover.DecodeError the host decode gives for it. It stops before a chunk once ctx has ended.
func (p *ProverDevice) streamEncoded(ctx context.Context, src primitive.PointSource, sec primitive.Section, b *bases, n int) error {
	chunk := max(1, min(p.streamChunk/(96*b.group), n))
	var enc [2][]byte
	fetch := func(k, off int) error {
		if k >= 2 { // chunk k−2, whose write returned before this fetch began
			if err := src.DropRange(sec, off-2*chunk, chunk); err != nil {
				return err
			}
		}
		var err error
		enc[k&1], err = src.Encoded(sec, off, min(chunk, n-off))
		return err
	}
	write := func(k, off int) error {
		bad, reason, err := b.writeEncoded(off, enc[k&1], min(chunk, n-off))
		if err != nil {
			return err
		}
		if reason != 0 {
			return hostDecodeFault(src, sec, off+bad, reason)
		}
		return nil
	}
	if err := overlapChunks(ctx, n, chunk, fetch, write); err != nil {
		return err
	}
	return src.DropRange(sec, 0, n)
}

// overlapChunks runs, for chunks k = 0, 1, … of at most chunk of n items starting at off = k·chunk,
// fetch(k, off) and then write(k, off), fetching chunk k+1 (in its own goroutine) while chunk k
// is written. It returns the first error, once no fetch is running; ctx is checked before the
// first fetch and before each write, and its error returned (with no fetch running) once it has
// ended.
func overlapChunks(ctx context.Context, n, chunk int, fetch, write func(k, off int) error) error {
	if n == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := fetch(0, 0); err != nil {
		return err
	}
	for k, off := 0, 0; off < n; k, off = k+1, off+chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		var next chan error
		if off+chunk < n {
			next = make(chan error, 1)
			go func() { next <- fetch(k+1, off+chunk) }()
		}
		err := write(k, off)
		if next != nil {
			if ferr := <-next; err == nil {
				err = ferr
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deviceDecodeReasons names the reason codes of cuzk_bases_write_encoded.
var deviceDecodeReasons = [...]string{1: "compression flag", 2: "sort flag", 3: "infinity flag with other bits set",
	4: "point at infinity", 5: "non-canonical coordinate", 6: "not on the curve"}

// hostDecodeFault returns the error src's host decode gives for point i of section sec, which
// the device rejected for reason: the *prover.DecodeError (section, index, byte offset and
// cause) that decoding the points on the host would have returned. Should the host accept the
// point, the device and host checks disagree, and the error says so.
func hostDecodeFault(src primitive.PointSource, sec primitive.Section, i int, reason uint32) error {
	var err error
	if sec == primitive.SectionBG2 {
		var q [1]bls12381.G2Affine
		err = src.G2(i, q[:])
	} else {
		var q [1]bls12381.G1Affine
		err = src.G1(sec, i, q[:])
	}
	if err != nil {
		return err
	}
	what := fmt.Sprintf("reason %d", reason)
	if int(reason) < len(deviceDecodeReasons) && deviceDecodeReasons[reason] != "" {
		what = deviceDecodeReasons[reason]
	}
	return fmt.Errorf("device decode rejected point %d (%s), which the host decode accepts", i, what)
}

// streamPoints moves n points in chunks of at most chunk: decode fills a buffer with the points
// from off, write copies it out. Two buffers alternate, so that chunk k+1 is decoded while chunk
// k is written (overlapChunks); a buffer is decoded into again only after its write has
// returned. It returns the first error, after the write in flight has returned; ctx's error once
// it has ended (checked before each chunk).
func streamPoints[T any](ctx context.Context, n, chunk int, decode, write func(off int, pts []T) error) error {
	chunk = max(1, min(chunk, n))
	var bufs [2][]T
	points := func(k, off int) []T {
		if bufs[k&1] == nil {
			bufs[k&1] = make([]T, chunk)
		}
		return bufs[k&1][:min(chunk, n-off)]
	}
	return overlapChunks(ctx, n, chunk,
		func(k, off int) error { return decode(off, points(k, off)) },
		func(k, off int) error { return write(off, points(k, off)) })
}

// checkFits refuses an SRS larger than the device's free memory, with the sizes in the error,
// after freeing ShiftTableAuto's tables to make room.
func (p *ProverDevice) checkFits(srs *primitive.SRS, shiftH bool) error {
	props, err := p.dev.Properties()
	if err != nil {
		return err
	}
	var need uint64
	for sec := primitive.SectionH; sec <= primitive.SectionBG1; sec++ {
		need += uint64(srs.Len(sec)) * g1AffineBytes
	}
	if shiftH {
		need += uint64(srs.Len(primitive.SectionH)) * g1AffineBytes
	}
	need += uint64(srs.Len(primitive.SectionBG2)) * g2AffineBytes
	if need > props.FreeMem && p.freeAutoTables(need) > 0 {
		if props, err = p.dev.Properties(); err != nil {
			return err
		}
	}
	if need > props.FreeMem {
		return fmt.Errorf("gpu: parameters need %.2f GiB on device %d, %.2f GiB free: %w",
			float64(need)/(1<<30), p.dev.Index(), float64(props.FreeMem)/(1<<30), ErrOutOfMemory)
	}
	return nil
}

// Evict frees the resident SRS of identity id, if any, once no partition uses it (it waits for
// the kernel lock, honouring ctx).
func (p *ProverDevice) Evict(ctx context.Context, id string) error {
	p.mu.Lock()
	s := p.srs[id]
	p.mu.Unlock()
	if s == nil {
		return nil
	}
	return p.evict(ctx, s)
}

func (p *ProverDevice) evict(ctx context.Context, s *SRS) error {
	if err := p.dev.Lock(ctx); err != nil {
		return err
	}
	defer p.dev.Unlock()
	p.mu.Lock()
	if p.srs[s.id] == s {
		delete(p.srs, s.id)
	}
	p.mu.Unlock()
	return s.free()
}

// Close frees every resident SRS, shape and the idle workspaces, once no partition runs (it waits for
// the kernel lock). Workspaces still held by tasks are freed when the tasks release them; later
// Resident calls fail with ErrClosed.
func (p *ProverDevice) Close() error {
	if err := p.dev.Lock(context.Background()); err != nil {
		return err
	}
	defer p.dev.Unlock()
	p.mu.Lock()
	all := p.srs
	p.srs = make(map[string]*SRS)
	idle := p.idle
	p.idle = nil
	p.closed = true
	p.mu.Unlock()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.free())
	}
	for _, ws := range idle {
		errs = append(errs, ws.free())
	}
	if _, err := p.freeNTTTable(); err != nil {
		errs = append(errs, err)
	}
	p.shapeMu.Lock()
	for k, sh := range p.shapes {
		errs = append(errs, sh.Close())
		delete(p.shapes, k)
	}
	p.shapeMu.Unlock()
	return errors.Join(errs...)
}

// workspace is one partition's buffers on the device, indexed by primitive.Buf; nil for an
// absent buffer (a zero length in its dims).
type workspace struct {
	p    *ProverDevice
	dims primitive.Dims
	bufs [primitive.BufScalarsB + 1]*Scalars
}

func (ws *workspace) free() error {
	var errs []error
	for _, s := range ws.bufs {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// Workspace implements primitive.Device: an idle workspace of the same sizes, or new buffers;
// idle workspaces of other sizes are freed first, as the partitions now come in this size.
// Allocation fails with an error matching ErrOutOfMemory when the device has no room.
func (p *ProverDevice) Workspace(ctx context.Context, dims primitive.Dims) (primitive.Workspace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("gpu: device %d: %w", p.dev.Index(), ErrClosed)
	}
	for i, ws := range p.idle {
		if ws.dims == dims {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			p.mu.Unlock()
			return ws, nil
		}
	}
	stale := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, ws := range stale {
		ws.free()
	}
	need := uint64(dims.Elements()) * fr.Bytes
	ws, err := p.allocWorkspace(dims)
	for errors.Is(err, ErrOutOfMemory) && p.freeAutoTables(need) > 0 {
		ws, err = p.allocWorkspace(dims)
	}
	if err != nil {
		return nil, fmt.Errorf("gpu: allocate %.2f GiB of partition buffers on device %d: %w",
			float64(need)/(1<<30), p.dev.Index(), err)
	}
	return ws, nil
}

// allocWorkspace allocates a workspace's buffers; on failure it frees those it had.
func (p *ProverDevice) allocWorkspace(dims primitive.Dims) (*workspace, error) {
	ws := &workspace{p: p, dims: dims}
	var err error
	for b, n := range dims.Lens() {
		if err == nil && n > 0 {
			ws.bufs[b], err = p.dev.AllocScalars(n)
		}
	}
	if err != nil {
		ws.free()
		return nil, err
	}
	return ws, nil
}

// Release implements primitive.Workspace: ws is kept for reuse, or freed when enough are idle
// or the device is closed.
func (ws *workspace) Release() {
	p := ws.p
	p.mu.Lock()
	if !p.closed && len(p.idle) < maxIdleWorkspaces {
		p.idle = append(p.idle, ws)
		ws = nil
	}
	p.mu.Unlock()
	if ws != nil {
		ws.free()
	}
}

func (ws *workspace) buf(b primitive.Buf) (*Scalars, error) {
	if b < 0 || int(b) >= len(ws.bufs) || ws.bufs[b] == nil {
		return nil, fmt.Errorf("gpu: workspace has no buffer %d", b)
	}
	return ws.bufs[b], nil
}

// bufPair returns the buffers a and b.
func (ws *workspace) bufPair(a, b primitive.Buf) (*Scalars, *Scalars, error) {
	x, err := ws.buf(a)
	if err != nil {
		return nil, nil, err
	}
	y, err := ws.buf(b)
	return x, y, err
}

func stageUpload(b *Breakdown) *time.Duration { return &b.Upload }

func stagePointwise(b *Breakdown) *time.Duration { return &b.Pointwise }

// Upload implements primitive.Workspace: src is copied to the device and the rest zeroed there.
func (ws *workspace) Upload(ctx context.Context, dst primitive.Buf, src []fr.Element) error {
	s, err := ws.buf(dst)
	if err != nil {
		return err
	}
	return ws.p.timed(stageUpload, func() error {
		if err := s.Upload(ctx, 0, src); err != nil {
			return err
		}
		return s.Zero(ctx, len(src), s.Len()-len(src))
	})
}

// Compact implements primitive.Workspace on the device, without a round trip through the host.
func (ws *workspace) Compact(ctx context.Context, dst primitive.Buf, off int, src primitive.Buf, srcOff, n int, mask []uint64) (int, error) {
	d, err := ws.buf(dst)
	if err != nil {
		return 0, err
	}
	s, err := ws.buf(src)
	if err != nil {
		return 0, err
	}
	var k int
	err = ws.p.timed(stageUpload, func() (err error) {
		k, err = d.CompactFrom(ctx, off, s, srcOff, n, mask)
		return err
	})
	return k, err
}

// NTT implements primitive.Workspace.
func (ws *workspace) NTT(ctx context.Context, b primitive.Buf, logN int, cfg primitive.NTT) error {
	s, err := ws.buf(b)
	if err != nil {
		return err
	}
	c := NTTConfig{Inverse: cfg.Inverse, Coset: cfg.Coset, InputBitReversed: cfg.InputBitReversed,
		OutputBitReversed: cfg.OutputBitReversed, Shift: cfg.Shift}
	return ws.p.timed(func(b *Breakdown) *time.Duration { return &b.NTT }, func() error {
		return s.NTT(ctx, 0, logN, c)
	})
}

// Mul implements primitive.Workspace.
func (ws *workspace) Mul(ctx context.Context, a, b primitive.Buf, n int) error {
	x, y, err := ws.bufPair(a, b)
	if err != nil {
		return err
	}
	return ws.p.timed(stagePointwise, func() error { return x.Mul(ctx, y, n) })
}

// Quotient implements primitive.Workspace; it counts the partition.
func (ws *workspace) Quotient(ctx context.Context, a, c primitive.Buf, logN int, zInv fr.Element) error {
	x, y, err := ws.bufPair(a, c)
	if err != nil {
		return err
	}
	err = ws.p.timed(stagePointwise, func() error { return x.Quotient(ctx, y, logN, zInv) })
	if err == nil {
		ws.p.mu.Lock()
		ws.p.times.Partitions++
		ws.p.mu.Unlock()
	}
	return err
}

// RunQuotient implements primitive.QuotientRunner: the whole quotient in one device call
// (Scalars.Groth16H), with the NTT table kept where it fits (keepNTTTable), H's scalars left as
// plain integers for RunMSMs, h in bit-reversed order; it counts the partition. For folded
// parameters it runs four transforms and leaves â·b̂ in natural order.
func (ws *workspace) RunQuotient(ctx context.Context, logN int, shift fr.Element, folded bool) (bool, error) {
	ws.p.keepNTTTable(logN)
	a, b, err := ws.bufPair(primitive.BufA, primitive.BufB)
	if err != nil {
		return false, err
	}
	var c *Scalars
	if !folded {
		if c, err = ws.buf(primitive.BufC); err != nil {
			return false, err
		}
	}
	ntt, err := a.Groth16H(ctx, b, c, logN, shift)
	if err != nil {
		return false, err
	}
	ws.p.mu.Lock()
	ws.p.times.NTT += ntt
	ws.p.times.Partitions++
	ws.p.mu.Unlock()
	return !folded, nil
}

// resident returns bases as this device's SRS.
func (ws *workspace) resident(bases primitive.Bases) (*SRS, error) {
	s, ok := bases.(*SRS)
	if !ok || s.p != ws.p {
		return nil, errors.New("gpu: msm: bases resident on another device")
	}
	return s, nil
}

// section returns the resident bases of sec (G1 or G2, the other nil) and the field of its MSMs'
// time in the breakdown.
func (s *SRS) section(sec primitive.Section) (*G1Bases, *G2Bases, func(*Breakdown) *time.Duration, error) {
	var g1 *G1Bases
	var g2 *G2Bases
	var stage func(*Breakdown) *time.Duration
	switch sec {
	case primitive.SectionH:
		g1, stage = s.h, func(b *Breakdown) *time.Duration { return &b.MSMH }
	case primitive.SectionL:
		g1, stage = s.l, func(b *Breakdown) *time.Duration { return &b.MSML }
	case primitive.SectionA:
		g1, stage = s.a, func(b *Breakdown) *time.Duration { return &b.MSMA }
	case primitive.SectionBG1:
		g1, stage = s.b1, func(b *Breakdown) *time.Duration { return &b.MSMB1 }
	case primitive.SectionBG2:
		g2, stage = s.b2, func(b *Breakdown) *time.Duration { return &b.MSMB2 }
	default:
		return nil, nil, nil, fmt.Errorf("gpu: msm: unknown section %s", sec)
	}
	if g1 == nil && g2 == nil {
		return nil, nil, nil, fmt.Errorf("gpu: msm: section %s is empty", sec)
	}
	return g1, g2, stage, nil
}

// MSMG1 implements primitive.Workspace.
func (ws *workspace) MSMG1(ctx context.Context, bases primitive.Bases, sec primitive.Section, sb primitive.Buf, off, n int) (bls12381.G1Jac, error) {
	var out bls12381.G1Jac
	g, _, s, stage, err := ws.msmOperands(bases, sec, sb)
	if err == nil && g == nil {
		err = fmt.Errorf("gpu: msm: %s is not a G1 section", sec)
	}
	if err != nil {
		return out, err
	}
	err = ws.p.timed(stage, func() (err error) {
		out, err = g.MSMDevice(ctx, s, off, n)
		return err
	})
	if err == nil && sec == primitive.SectionH {
		ws.p.afterHMSM(bases.(*SRS))
	}
	return out, err
}

// MSMG2 implements primitive.Workspace.
func (ws *workspace) MSMG2(ctx context.Context, bases primitive.Bases, sb primitive.Buf, off, n int) (bls12381.G2Jac, error) {
	var out bls12381.G2Jac
	_, g, s, stage, err := ws.msmOperands(bases, primitive.SectionBG2, sb)
	if err != nil {
		return out, err
	}
	err = ws.p.timed(stage, func() (err error) {
		out, err = g.MSMDevice(ctx, s, off, n)
		return err
	})
	return out, err
}

// RunMSMs implements primitive.MSMRunner: the jobs in one device call (Device.MSMs), each
// section's time the device's.
func (ws *workspace) RunMSMs(ctx context.Context, bases primitive.Bases, jobs []primitive.MSMJob) error {
	dj := make([]MSMJob, len(jobs))
	stages := make([]func(*Breakdown) *time.Duration, len(jobs))
	for i, j := range jobs {
		g1, g2, s, stage, err := ws.msmOperands(bases, j.Sec, j.S)
		if err != nil {
			return err
		}
		if (j.G1 == nil) != (g1 == nil) || (j.G2 == nil) != (g2 == nil) {
			return fmt.Errorf("gpu: msm: section %s: the result's group is not the section's", j.Sec)
		}
		// RunQuotient leaves H's scalars as plain integers.
		dj[i], stages[i] = MSMJob{G1: g1, G2: g2, Scalars: s, Off: j.Off, N: j.N, BitRev: j.BitRev, Plain: j.RunnerForm}, stage
	}
	res, err := ws.p.dev.MSMs(ctx, dj)
	if err != nil {
		return err
	}
	withH := false
	ws.p.mu.Lock()
	for i, j := range jobs {
		if j.G1 != nil {
			*j.G1 = res[i].G1
		} else {
			*j.G2 = res[i].G2
		}
		*stages[i](&ws.p.times) += res[i].Time
		withH = withH || j.Sec == primitive.SectionH
	}
	ws.p.mu.Unlock()
	if withH {
		ws.p.afterHMSM(bases.(*SRS))
	}
	return nil
}

// msmOperands returns the resident bases of sec (G1 or G2, the other nil), the scalars sb and the
// field of the section's MSM time in the breakdown.
func (ws *workspace) msmOperands(bases primitive.Bases, sec primitive.Section, sb primitive.Buf) (*G1Bases, *G2Bases, *Scalars, func(*Breakdown) *time.Duration, error) {
	srs, err := ws.resident(bases)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s, err := ws.buf(sb)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	g1, g2, stage, err := srs.section(sec)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return g1, g2, s, stage, nil
}

// EvaluatesShape implements primitive.Evaluator: a workspace of this device stages a partition
// of any shape from w alone (StageWitness), computing A·w, B·w, C·w with the shape's matrices
// resident on the device.
func (p *ProverDevice) EvaluatesShape(*synth.Shape) bool { return true }

// ShapeBytes returns the device memory the resident shapes' matrices take, in bytes (about
// synth.Shape.Bytes() each, less the densities).
func (p *ProverDevice) ShapeBytes() int64 {
	p.shapeMu.RLock()
	defer p.shapeMu.RUnlock()
	var n int64
	for s := range p.shapes {
		n += int64(s.Bytes())
	}
	return n
}

// EvictShape frees the matrices of shape resident on the device, if any, once no partition is
// evaluating with them; a later partition of shape uploads them again.
func (p *ProverDevice) EvictShape(shape *synth.Shape) error {
	p.shapeMu.Lock()
	defer p.shapeMu.Unlock()
	sh := p.shapes[shape]
	if sh == nil {
		return nil
	}
	delete(p.shapes, shape)
	return sh.Close()
}

// withShape runs f with shape's matrices resident on the device, uploading them the first time.
func (p *ProverDevice) withShape(ctx context.Context, shape *synth.Shape, f func(*Shape) error) error {
	p.shapeMu.RLock()
	sh := p.shapes[shape]
	if sh == nil {
		p.shapeMu.RUnlock()
		if err := p.uploadShape(ctx, shape); err != nil {
			return err
		}
		p.shapeMu.RLock()
		sh = p.shapes[shape]
	}
	defer p.shapeMu.RUnlock()
	if sh == nil { // evicted between the upload and here
		return fmt.Errorf("gpu: device %d: shape evicted while staging: %w", p.dev.Index(), ErrClosed)
	}
	return f(sh)
}

// uploadShape makes shape resident unless it already is.
func (p *ProverDevice) uploadShape(ctx context.Context, shape *synth.Shape) error {
	p.shapeMu.Lock()
	defer p.shapeMu.Unlock()
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return fmt.Errorf("gpu: device %d: %w", p.dev.Index(), ErrClosed)
	}
	if p.shapes[shape] != nil {
		return nil
	}
	return p.timed(func(b *Breakdown) *time.Duration { return &b.ShapeUpload }, func() error {
		sh, err := p.dev.UploadShape(ctx, shape)
		if err != nil {
			return fmt.Errorf("gpu: device %d: %w", p.dev.Index(), err)
		}
		p.shapes[shape] = sh
		return nil
	})
}

// compactOthers is the most values neither 0 nor 1 that a witness of n elements may hold to be
// shipped compactly: its encoding is then at most an eighth of its 32 bytes an element (each
// such value costs 32 bytes; the classes and block counts cost under 1/4 + 4/512 byte an
// element). Filecoin witnesses qualify (PoRep: about 2 %).
func compactOthers(n int) int { return 3 * n / 32 }

// StageWitness implements primitive.WitnessStager: w is uploaded — compactly (decoded on the
// device) when it holds at most compactOthers values neither 0 nor 1, else as it is, so that
// the host holds at most |w|·4 bytes more while staging — and the evaluations computed from
// shape's resident matrices into BufA, BufB and, withC, BufC, zero-padded to the domain. The
// encoder decides after its one pass over w (synth.EncodeWitnessBounded).
func (ws *workspace) StageWitness(ctx context.Context, shape *synth.Shape, w []fr.Element, withC bool) error {
	wb, err := ws.buf(primitive.BufW)
	if err != nil {
		return err
	}
	if len(w) != shape.NumInputs+shape.NumAux || len(w) > wb.Len() {
		return fmt.Errorf("gpu: stage witness: %d values for a shape of %d and a buffer of %d",
			len(w), shape.NumInputs+shape.NumAux, wb.Len())
	}
	var out [3]*Scalars
	bufs := []primitive.Buf{primitive.BufA, primitive.BufB, primitive.BufC}
	if !withC {
		bufs = bufs[:2] // out[2] stays nil: Shape.Evaluate leaves C·w out
	}
	for i, b := range bufs {
		if out[i], err = ws.buf(b); err != nil {
			return err
		}
	}
	err = ws.p.timed(stageUpload, func() (err error) {
		cw, compact, err := synth.EncodeWitnessBounded(w, compactOthers(len(w)))
		switch {
		case err != nil:
		case compact:
			err = wb.UploadWitness(ctx, 0, cw)
		default:
			err = wb.Upload(ctx, 0, w)
		}
		if err != nil {
			return err
		}
		return wb.Zero(ctx, len(w), wb.Len()-len(w))
	})
	if err != nil {
		return err
	}
	return ws.p.withShape(ctx, shape, func(sh *Shape) error {
		return ws.p.timed(func(b *Breakdown) *time.Duration { return &b.Evaluate }, func() error {
			return sh.Evaluate(ctx, wb, out[0], out[1], out[2], ws.dims.Domain)
		})
	})
}
