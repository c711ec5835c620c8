package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"sync"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/prover"
	"github.com/cuzk-go/cuzk/synth"
)

// ProverDevice proves Groth16 partitions on one GPU; it implements prover.Device. The parameters'
// point arrays (H, L, A, B_G1, B_G2: the SRS) are uploaded at the first partition that uses them
// and stay resident until Evict or Close. Its lock is the Device's kernel-only lock.
//
// Per partition, Prepare gathers the B scalars on the CPU and stages A·w, B·w, C·w, w and the B
// scalars in device buffers of the partition's own (outside the lock, so the copies overlap the
// kernels of the other worker); Run, under the lock, computes h = (a·b − c)/Z with NTTs on the
// device (inverse NTT, coset NTT, pointwise product over Z(g·ω^i) = g^m − 1, inverse coset NTT)
// and runs every MSM from device memory: H from h, L from w's aux part, A from w when every aux
// variable is in A (else from the host), B_G1 and B_G2 from the staged B scalars. The 0/1
// scalars that dominate Filecoin witnesses take the MSM's bitmap path. Finalize adds the r·δ, s·δ
// terms on the CPU.
type ProverDevice struct {
	dev *Device

	mu    sync.Mutex
	srs   map[*prover.Parameters]*residentSRS
	idle  []*workspace // device buffers of finished partitions, reused by the next ones
	times Breakdown
}

// maxIdleWorkspaces bounds the idle workspaces kept for reuse: one per worker of the usual two.
const maxIdleWorkspaces = 2

// Breakdown sums the time of the partitions a ProverDevice ran, by stage. Each call is
// synchronous, so host-clock intervals around the calls are device time. Upload happens in
// Prepare, outside the kernel lock, where it overlaps another worker's kernels; every other stage
// runs under the lock.
type Breakdown struct {
	Partitions int
	SRSUpload  time.Duration // uploading parameters (once per parameter set, under the lock)
	Upload     time.Duration // staging A·w, B·w, C·w, w and the B scalars (in Prepare)
	NTT        time.Duration // the seven NTTs of H
	Pointwise  time.Duration // (a·b − c)/Z on the coset
	MSMH       time.Duration
	MSMA       time.Duration
	MSMB1      time.Duration
	MSML       time.Duration
	MSMB2      time.Duration
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
	return &ProverDevice{dev: dev, srs: make(map[*prover.Parameters]*residentSRS)}
}

// ProverDevices loads the library (see Load) and returns one prover device per CUDA device. Its
// errors match ErrNotLoaded or ErrNoDevice when the caller should fall back to the CPU.
func ProverDevices(opts ...Option) ([]prover.Device, error) {
	lib, err := Load(opts...)
	if err != nil {
		return nil, err
	}
	n := lib.DeviceCount()
	if n == 0 {
		return nil, ErrNoDevice
	}
	devs := make([]prover.Device, n)
	for i := range devs {
		d, err := lib.Device(i)
		if err != nil {
			return nil, err
		}
		devs[i] = NewProverDevice(d)
	}
	return devs, nil
}

// Name implements prover.Device.
func (p *ProverDevice) Name() string {
	props, err := p.dev.Properties()
	if err != nil {
		return fmt.Sprintf("gpu%d", p.dev.Index())
	}
	return fmt.Sprintf("gpu%d %s", p.dev.Index(), props.Name)
}

// Lock implements prover.Device: the device's kernel-only lock.
func (p *ProverDevice) Lock(ctx context.Context) error { return p.dev.Lock(ctx) }

// Unlock implements prover.Device.
func (p *ProverDevice) Unlock() { p.dev.Unlock() }

// Prepare implements prover.Device. It checks the parameters, then stages the partition on the
// device in buffers of its own — A·w, B·w, C·w zero-padded to the domain and the assignment w,
// from which the B query's scalars (and A's, when A's aux density is not full) are compacted on
// the device — so the copies run outside the kernel lock, under another worker's kernels.
func (p *ProverDevice) Prepare(ctx context.Context, params *prover.Parameters, asg *synth.Assignment, rs prover.Randomness) (prover.Task, error) {
	if err := prover.CheckParameters(params, asg.Shape); err != nil {
		return nil, err
	}
	if asg.A == nil {
		return nil, errors.New("gpu: prove: assignment evaluations were released")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	shape := asg.Shape
	t := &proverTask{p: p, params: params, asg: asg, rs: rs}
	dims := workspaceDims{m: max(shape.DomainSize(), 2), w: len(asg.W),
		b: shape.BDensityInput.Count() + shape.BDensityAux.Count()}
	if shape.ADensityAux.Count() != shape.NumAux {
		dims.a = shape.NumInputs + shape.ADensityAux.Count() // A's scalars are not w itself
	}
	ws, err := p.takeWorkspace(dims)
	if err != nil {
		return nil, err
	}
	t.ws = ws
	err = p.timed(func(b *Breakdown) *time.Duration { return &b.Upload }, func() error {
		for i, ev := range [][]fr.Element{asg.A, asg.B, asg.C} {
			buf := []*Scalars{ws.a, ws.b, ws.c}[i]
			if err := buf.Upload(ctx, 0, ev); err != nil {
				return err
			}
			if err := buf.Zero(ctx, len(ev), dims.m-len(ev)); err != nil {
				return err
			}
		}
		if err := ws.w.Upload(ctx, 0, asg.W); err != nil {
			return err
		}
		if ws.asc != nil {
			if err := compactQuery(ctx, ws.asc, ws.w, shape, nil, shape.ADensityAux); err != nil {
				return fmt.Errorf("a query: %w", err)
			}
		}
		if ws.bsc != nil {
			if err := compactQuery(ctx, ws.bsc, ws.w, shape, shape.BDensityInput, shape.BDensityAux); err != nil {
				return fmt.Errorf("b query: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		t.Release()
		return nil, fmt.Errorf("gpu: stage partition: %w", err)
	}
	return t, nil
}

// compactQuery fills dst, on the device, with a query's scalars as bellperson orders them: the
// inputs that inputs marks (every input when inputs is nil), then the aux values that aux marks,
// both taken from the staged assignment w = inputs ‖ aux.
func compactQuery(ctx context.Context, dst, w *Scalars, shape *synth.Shape, inputs, aux *synth.Density) error {
	nIn := shape.NumInputs
	var inMask []uint64
	if inputs != nil {
		inMask = inputs.Words()
	} else {
		inMask = make([]uint64, (nIn+63)/64)
		for i := range nIn {
			inMask[i/64] |= 1 << (i % 64)
		}
	}
	k, err := dst.CompactFrom(ctx, 0, w, 0, nIn, inMask)
	if err != nil {
		return err
	}
	k2, err := dst.CompactFrom(ctx, k, w, nIn, shape.NumAux, aux.Words())
	if err != nil {
		return err
	}
	if k+k2 != dst.Len() {
		return fmt.Errorf("compacted %d scalars into a buffer of %d", k+k2, dst.Len())
	}
	return nil
}

// Evict frees the resident SRS of params on this device, if any.
func (p *ProverDevice) Evict(params *prover.Parameters) error {
	p.mu.Lock()
	s := p.srs[params]
	delete(p.srs, params)
	p.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.close()
}

// Close frees every resident SRS and the idle workspaces. Tasks still in flight free their own.
func (p *ProverDevice) Close() error {
	p.mu.Lock()
	all := p.srs
	p.srs = make(map[*prover.Parameters]*residentSRS)
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.close())
	}
	for _, ws := range idle {
		errs = append(errs, ws.close())
	}
	return errors.Join(errs...)
}

// residentSRS holds one parameter set's points on the device. A nil field is an empty section.
type residentSRS struct {
	h, l, a, b1 *G1Bases
	b2          *G2Bases
}

func (s *residentSRS) close() error {
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

// resident returns params' SRS on the device, uploading it the first time. The caller holds the
// device lock, so one upload happens at a time.
func (p *ProverDevice) resident(params *prover.Parameters) (*residentSRS, error) {
	p.mu.Lock()
	s := p.srs[params]
	p.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if err := p.checkFits(params); err != nil {
		return nil, err
	}
	s = &residentSRS{}
	var err error
	up1 := func(dst **G1Bases, pts []bls12381.G1Affine) {
		if err == nil && len(pts) > 0 {
			*dst, err = p.dev.UploadG1Bases(pts)
		}
	}
	up1(&s.h, params.H)
	up1(&s.l, params.L)
	up1(&s.a, params.A)
	up1(&s.b1, params.BG1)
	if err == nil && len(params.BG2) > 0 {
		s.b2, err = p.dev.UploadG2Bases(params.BG2)
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("gpu: upload parameters: %w", err)
	}
	p.mu.Lock()
	p.srs[params] = s
	p.mu.Unlock()
	return s, nil
}

// checkFits refuses an SRS larger than the device's free memory, with the sizes in the error.
func (p *ProverDevice) checkFits(params *prover.Parameters) error {
	props, err := p.dev.Properties()
	if err != nil {
		return err
	}
	need := uint64(len(params.H)+len(params.L)+len(params.A)+len(params.BG1))*96 + uint64(len(params.BG2))*192
	if need > props.FreeMem {
		return fmt.Errorf("gpu: parameters need %.2f GiB on device %d, %.2f GiB free: %w",
			float64(need)/(1<<30), p.dev.Index(), float64(props.FreeMem)/(1<<30), ErrOutOfMemory)
	}
	return nil
}

// workspaceDims are the sizes of a workspace's buffers.
type workspaceDims struct {
	m int // domain size: the a, b, c buffers
	w int // the assignment w = inputs ‖ aux
	a int // A's scalars, compacted from w on the device (0 when A uses w itself)
	b int // the B scalars
}

// workspace is one partition's staging on the device: a, b, c (then h in a), w, and the A and B
// scalars.
type workspace struct {
	dims       workspaceDims
	a, b, c, w *Scalars
	asc        *Scalars // A's scalars; nil when A's aux density is full (A uses w)
	bsc        *Scalars // B's scalars; nil when there is none
}

func (ws *workspace) close() error {
	var errs []error
	for _, s := range []*Scalars{ws.a, ws.b, ws.c, ws.w, ws.asc, ws.bsc} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// takeWorkspace returns an idle workspace of the given sizes or allocates one; idle workspaces of
// other sizes are freed first, as the partitions now come in this size. Allocation fails with an
// error matching ErrOutOfMemory when the device has no room.
func (p *ProverDevice) takeWorkspace(dims workspaceDims) (*workspace, error) {
	p.mu.Lock()
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
		ws.close()
	}
	ws := &workspace{dims: dims}
	var err error
	alloc := func(dst **Scalars, n int) {
		if err == nil && n > 0 {
			*dst, err = p.dev.AllocScalars(n)
		}
	}
	alloc(&ws.a, dims.m)
	alloc(&ws.b, dims.m)
	alloc(&ws.c, dims.m)
	alloc(&ws.w, dims.w)
	alloc(&ws.asc, dims.a)
	alloc(&ws.bsc, dims.b)
	if err != nil {
		ws.close()
		need := (3*uint64(dims.m) + uint64(dims.w) + uint64(dims.a) + uint64(dims.b)) * 32
		return nil, fmt.Errorf("gpu: allocate %.2f GiB of partition buffers on device %d: %w",
			float64(need)/(1<<30), p.dev.Index(), err)
	}
	return ws, nil
}

// putWorkspace keeps ws for reuse, or frees it when enough are idle.
func (p *ProverDevice) putWorkspace(ws *workspace) {
	p.mu.Lock()
	if len(p.idle) < maxIdleWorkspaces {
		p.idle = append(p.idle, ws)
		ws = nil
	}
	p.mu.Unlock()
	if ws != nil {
		ws.close()
	}
}

type proverTask struct {
	p      *ProverDevice
	params *prover.Parameters
	asg    *synth.Assignment
	rs     prover.Randomness
	ws     *workspace
	res    prover.MSMResults
}

// Run implements prover.Task: the device work of one partition.
func (t *proverTask) Run(ctx context.Context) error {
	var srs *residentSRS
	err := t.p.timed(func(b *Breakdown) *time.Duration { return &b.SRSUpload }, func() (err error) {
		srs, err = t.p.resident(t.params)
		return err
	})
	if err != nil {
		return err
	}
	ws := t.ws
	m := ws.dims.m
	if err := t.computeH(ctx, m); err != nil {
		return err
	}
	nIn, nAux := t.asg.Shape.NumInputs, t.asg.Shape.NumAux
	steps := []struct {
		name  string
		stage func(*Breakdown) *time.Duration
		run   func() error
	}{
		{"h", func(b *Breakdown) *time.Duration { return &b.MSMH }, func() error {
			return msmDev1(ctx, &t.res.H, srs.h, ws.a, 0, m-1)
		}},
		{"a", func(b *Breakdown) *time.Duration { return &b.MSMA }, func() error {
			if ws.asc == nil { // every aux variable is in A: A's scalars are w itself
				return msmDev1(ctx, &t.res.A, srs.a, ws.w, 0, nIn+nAux)
			}
			return msmDev1(ctx, &t.res.A, srs.a, ws.asc, 0, ws.dims.a)
		}},
		{"b_g1", func(b *Breakdown) *time.Duration { return &b.MSMB1 }, func() error {
			return msmDev1(ctx, &t.res.B1, srs.b1, ws.bsc, 0, ws.dims.b)
		}},
		{"l", func(b *Breakdown) *time.Duration { return &b.MSML }, func() error {
			return msmDev1(ctx, &t.res.L, srs.l, ws.w, nIn, nAux)
		}},
		{"b_g2", func(b *Breakdown) *time.Duration { return &b.MSMB2 }, func() (err error) {
			if srs.b2 == nil || ws.dims.b == 0 {
				t.res.B2 = g2Infinity()
				return nil
			}
			t.res.B2, err = srs.b2.MSMDevice(ctx, ws.bsc, 0, ws.dims.b)
			return err
		}},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.p.timed(s.stage, s.run); err != nil {
			return fmt.Errorf("gpu: %s msm: %w", s.name, err)
		}
	}
	t.p.mu.Lock()
	t.p.times.Partitions++
	t.p.mu.Unlock()
	return nil
}

// msmDev1 sets out = Σ s[off+i]·bases_i for i < n, the identity when the section is empty.
func msmDev1(ctx context.Context, out *bls12381.G1Jac, b *G1Bases, s *Scalars, off, n int) error {
	if b == nil || n == 0 {
		*out = g1Infinity()
		return nil
	}
	r, err := b.MSMDevice(ctx, s, off, n)
	*out = r
	return err
}

func g1Infinity() (p bls12381.G1Jac) {
	p.X.SetOne()
	p.Y.SetOne()
	return p
}

func g2Infinity() (p bls12381.G2Jac) {
	p.X.SetOne()
	p.Y.SetOne()
	return p
}

// computeH turns the staged evaluations of a, b, c into the m−1 coefficients of h, left in the
// workspace's a buffer in natural order: per vector an inverse NTT (natural → bit-reversed) and a
// coset NTT (bit-reversed → natural), the pointwise quotient, and an inverse coset NTT.
func (t *proverTask) computeH(ctx context.Context, m int) error {
	ws := t.ws
	logM := bits.TrailingZeros(uint(m))
	err := t.p.timed(func(b *Breakdown) *time.Duration { return &b.NTT }, func() error {
		for _, buf := range []*Scalars{ws.a, ws.b, ws.c} {
			if err := buf.NTT(ctx, 0, logM, NTTConfig{Inverse: true, OutputBitReversed: true}); err != nil {
				return err
			}
			if err := buf.NTT(ctx, 0, logM, NTTConfig{Coset: true, InputBitReversed: true}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = t.p.timed(func(b *Breakdown) *time.Duration { return &b.Pointwise }, func() error {
		return ws.a.HPointwise(ctx, ws.b, ws.c, m, zInverseOnCoset(m))
	})
	if err != nil {
		return err
	}
	return t.p.timed(func(b *Breakdown) *time.Duration { return &b.NTT }, func() error {
		return ws.a.NTT(ctx, 0, logM, NTTConfig{Inverse: true, Coset: true})
	})
}

// zInverseOnCoset returns 1/(g^m − 1), the inverse of Z(X) = X^m − 1 anywhere on the coset g·⟨ω⟩,
// g = 7 (gnark's coset shift).
func zInverseOnCoset(m int) fr.Element {
	var g, z, one fr.Element
	g.SetUint64(7)
	one.SetOne()
	z.Exp(g, new(big.Int).SetUint64(uint64(m)))
	z.Sub(&z, &one)
	z.Inverse(&z)
	return z
}

// Finalize implements prover.Task.
func (t *proverTask) Finalize(ctx context.Context) (*prover.Proof, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return prover.AssembleProof(&t.params.VK, &t.res, t.rs), nil
}

// Release implements prover.Task: the workspace goes back to the device's pool.
func (t *proverTask) Release() {
	if t.ws != nil {
		t.p.putWorkspace(t.ws)
		t.ws = nil
	}
}
