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
// Per partition, Prepare gathers the MSM scalars by density on the CPU; Run, under the lock,
// uploads A·w, B·w, C·w, computes h = (a·b − c)/Z with NTTs on the device (inverse NTT, coset
// NTT, pointwise product over Z(g·ω^i) = g^m − 1, inverse coset NTT), runs the H MSM straight from
// device memory and the A, B_G1, L and B_G2 MSMs; Finalize adds the r·δ, s·δ terms on the CPU.
type ProverDevice struct {
	dev *Device

	mu    sync.Mutex
	srs   map[*prover.Parameters]*residentSRS
	ws    *workspace // NTT buffers, reused by the partition that holds the lock
	times Breakdown
}

// Breakdown sums the device time of the partitions a ProverDevice ran, by stage. Each call is
// synchronous, so host-clock intervals around the calls are device time.
type Breakdown struct {
	Partitions int
	SRSUpload  time.Duration // uploading parameters (once per parameter set)
	Upload     time.Duration // A·w, B·w, C·w to the device, zero padding included
	NTT        time.Duration // the seven NTTs of H
	Pointwise  time.Duration // (a·b − c)/Z on the coset
	MSMH       time.Duration
	MSMA       time.Duration
	MSMB1      time.Duration
	MSML       time.Duration
	MSMB2      time.Duration
}

// Total returns the summed device time.
func (b Breakdown) Total() time.Duration {
	return b.SRSUpload + b.Upload + b.NTT + b.Pointwise + b.MSMH + b.MSMA + b.MSMB1 + b.MSML + b.MSMB2
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

// Prepare implements prover.Device: it checks the parameters and gathers the MSM scalars.
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
	return &proverTask{p: p, params: params, asg: asg, rs: rs, sc: prover.CompactScalars(asg)}, nil
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

// Close frees every resident SRS and the NTT buffers.
func (p *ProverDevice) Close() error {
	p.mu.Lock()
	all := p.srs
	p.srs = make(map[*prover.Parameters]*residentSRS)
	ws := p.ws
	p.ws = nil
	p.mu.Unlock()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.close())
	}
	if ws != nil {
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

// workspace holds the three NTT buffers of a domain size.
type workspace struct {
	m       int
	a, b, c *Scalars
}

func (w *workspace) close() error {
	return errors.Join(w.a.Close(), w.b.Close(), w.c.Close())
}

// buffers returns NTT buffers for domain size m, reallocating when m changes. The caller holds
// the device lock.
func (p *ProverDevice) buffers(m int) (*workspace, error) {
	p.mu.Lock()
	ws := p.ws
	p.mu.Unlock()
	if ws != nil && ws.m == m {
		return ws, nil
	}
	if ws != nil {
		ws.close()
	}
	ws = &workspace{m: m}
	var err error
	for _, dst := range []**Scalars{&ws.a, &ws.b, &ws.c} {
		if *dst, err = p.dev.AllocScalars(m); err != nil {
			for _, s := range []*Scalars{ws.a, ws.b, ws.c} {
				if s != nil {
					s.Close()
				}
			}
			p.mu.Lock()
			p.ws = nil
			p.mu.Unlock()
			return nil, fmt.Errorf("gpu: allocate NTT buffers of 2^%d: %w", bits.TrailingZeros(uint(m)), err)
		}
	}
	p.mu.Lock()
	p.ws = ws
	p.mu.Unlock()
	return ws, nil
}

type proverTask struct {
	p      *ProverDevice
	params *prover.Parameters
	asg    *synth.Assignment
	rs     prover.Randomness
	sc     prover.PartitionScalars
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
	m := t.asg.Shape.DomainSize()
	if m < 2 {
		m = 2
	}
	if err := t.computeH(ctx, m); err != nil {
		return err
	}
	ws, _ := t.p.buffers(m)
	steps := []struct {
		name  string
		stage func(*Breakdown) *time.Duration
		run   func() error
	}{
		{"h", func(b *Breakdown) *time.Duration { return &b.MSMH }, func() (err error) {
			if srs.h == nil {
				return nil
			}
			t.res.H, err = srs.h.MSMDevice(ctx, ws.a, 0, m-1)
			return err
		}},
		{"a", func(b *Breakdown) *time.Duration { return &b.MSMA }, func() error { return msm1(ctx, &t.res.A, srs.a, t.sc.A) }},
		{"b_g1", func(b *Breakdown) *time.Duration { return &b.MSMB1 }, func() error { return msm1(ctx, &t.res.B1, srs.b1, t.sc.B) }},
		{"l", func(b *Breakdown) *time.Duration { return &b.MSML }, func() error { return msm1(ctx, &t.res.L, srs.l, t.sc.Aux) }},
		{"b_g2", func(b *Breakdown) *time.Duration { return &b.MSMB2 }, func() (err error) {
			if srs.b2 == nil {
				t.res.B2 = g2Infinity()
				return nil
			}
			t.res.B2, err = srs.b2.MSM(ctx, t.sc.B)
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

// msm1 sets out = Σ scalars_i·bases_i, the identity when the section is empty.
func msm1(ctx context.Context, out *bls12381.G1Jac, b *G1Bases, scalars []fr.Element) error {
	if b == nil || len(scalars) == 0 {
		*out = g1Infinity()
		return nil
	}
	r, err := b.MSM(ctx, scalars)
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

// computeH leaves the m−1 coefficients of h in the workspace's a buffer, natural order.
func (t *proverTask) computeH(ctx context.Context, m int) error {
	ws, err := t.p.buffers(m)
	if err != nil {
		return err
	}
	logM := bits.TrailingZeros(uint(m))
	for i, ev := range [][]fr.Element{t.asg.A, t.asg.B, t.asg.C} {
		buf := []*Scalars{ws.a, ws.b, ws.c}[i]
		err := t.p.timed(func(b *Breakdown) *time.Duration { return &b.Upload }, func() error {
			return uploadPadded(ctx, buf, ev, m)
		})
		if err != nil {
			return err
		}
		// Evaluations over ⟨ω⟩ → coefficients (bit-reversed) → evaluations over g·⟨ω⟩ (natural).
		err = t.p.timed(func(b *Breakdown) *time.Duration { return &b.NTT }, func() error {
			if err := buf.NTT(ctx, 0, logM, NTTConfig{Inverse: true, OutputBitReversed: true}); err != nil {
				return err
			}
			return buf.NTT(ctx, 0, logM, NTTConfig{Coset: true, InputBitReversed: true})
		})
		if err != nil {
			return err
		}
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

// uploadPadded writes v to buf[0:len(v)] and zeros to buf[len(v):m].
func uploadPadded(ctx context.Context, buf *Scalars, v []fr.Element, m int) error {
	if err := buf.Upload(ctx, 0, v); err != nil {
		return err
	}
	return buf.Zero(ctx, len(v), m-len(v))
}

// Finalize implements prover.Task.
func (t *proverTask) Finalize(ctx context.Context) (*prover.Proof, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return prover.AssembleProof(&t.params.VK, &t.res, t.rs), nil
}

// Release implements prover.Task.
func (t *proverTask) Release() { t.sc = prover.PartitionScalars{} }
