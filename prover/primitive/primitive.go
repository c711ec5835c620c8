// Package primitive is the arithmetic a Groth16 prover asks of a device: staging vectors of Fr,
// number-theoretic transforms, the pointwise quotient on a coset, compaction of scalars by a
// density mask, and multi-scalar multiplications over resident bases. Package prover runs
// Groth16's recipe over these steps; the CPU implements them with gnark-crypto and package gpu
// with libcuzk.so. Nothing here knows Groth16.
//
// A partition's vectors live in a Workspace, named by Buf; the MSM bases of a parameter set
// live in a Bases handle that Device.Resident returns. Scalars are fr.Element in Montgomery form,
// points gnark-crypto's affine types.
package primitive

import (
	"context"
	"fmt"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// Device is a place where the primitives run. Its lock is a kernel-only lock shared by the
// workers of one device: Workspace staging runs outside it, and the transforms, quotient and
// MSMs under it. Implementations are safe for concurrent use.
type Device interface {
	// Name describes the device, e.g. "cpu (16 cores)" or "gpu0 NVIDIA H200".
	Name() string
	// Lock acquires the kernel-only lock, honouring ctx; Unlock releases it.
	Lock(ctx context.Context) error
	Unlock()
	// HostBytes is the host memory, in bytes, that one workspace of dims holds until Release.
	HostBytes(dims Dims) int64
	// Workspace returns the buffers of one partition, sized by dims, contents undefined.
	Workspace(ctx context.Context, dims Dims) (Workspace, error)
	// Resident returns srs's bases on the device, uploading them the first time an identity
	// (SRS.ID) is seen; later calls with the same ID return the same bases without an upload.
	Resident(ctx context.Context, srs *SRS) (Bases, error)
}

// Preloader is a Device that can make a job's parameters and shape resident ahead of its
// partitions, while they are still being synthesized, so that the first partition's staging and
// device work do not wait for the uploads. A device that keeps the points on the host (the CPU's,
// whose Resident decodes mapped parameters onto the heap) is not one.
type Preloader interface {
	Device
	// Preload makes shape's matrices resident, as staging a partition of shape would, when the
	// device evaluates shape (Evaluator.EvaluatesShape; nothing for a nil shape), then srs's
	// points, as Resident would. What is already resident is not uploaded again. It is safe
	// concurrently with partitions using the device; a partition that needs what Preload is
	// uploading waits for it. When ctx ends, Preload stops between chunks, frees what it had
	// uploaded of the unfinished upload and returns ctx's error.
	Preload(ctx context.Context, srs *SRS, shape *synth.Shape) error
}

// Dims are the lengths of a workspace's buffers, in elements.
type Dims struct {
	Domain int  // BufA, BufB and, unless NoC, BufC: the evaluation domain m, a power of two ≥ 2
	NoC    bool // no BufC: the parameters fold C into L (prover.FoldC), and the partition needs no c
	W      int  // BufW: the assignment w = inputs ‖ aux
	A      int  // BufScalarsA; 0 means no such buffer
	B      int  // BufScalarsB; 0 means no such buffer
}

// Lens returns the length of each buffer, indexed by Buf; 0 for a buffer the workspace has not.
func (d Dims) Lens() [BufScalarsB + 1]int {
	c := d.Domain
	if d.NoC {
		c = 0
	}
	return [BufScalarsB + 1]int{d.Domain, d.Domain, c, d.W, d.A, d.B}
}

// Elements returns the number of elements of all the buffers.
func (d Dims) Elements() int {
	n := 0
	for _, l := range d.Lens() {
		n += l
	}
	return n
}

// Buf names one vector of a Workspace.
type Buf int

const (
	BufA        Buf = iota // Domain elements
	BufB                   // Domain elements
	BufC                   // Domain elements
	BufW                   // W elements
	BufScalarsA            // A elements
	BufScalarsB            // B elements
)

// Section names one array of points of an SRS.
type Section int

const (
	SectionH   Section = iota // G1
	SectionL                  // G1
	SectionA                  // G1
	SectionBG1                // G1
	SectionBG2                // G2
)

// String returns the section's name in the parameters file ("h", "l", "a", "b_g1", "b_g2").
func (s Section) String() string {
	switch s {
	case SectionH:
		return "h"
	case SectionL:
		return "l"
	case SectionA:
		return "a"
	case SectionBG1:
		return "b_g1"
	case SectionBG2:
		return "b_g2"
	}
	return "unknown"
}

// SRS is the point arrays a proof's MSMs run over. ID is its identity: two SRS values with the
// same ID hold the same points, so a device uploads them once.
//
// The points are either in the slices, or, when Source is set, streamed from it (the slices are
// then nil): a device that keeps the points resident uploads them a chunk at a time, so that the
// host never holds them decoded; a device that needs them on the host decodes them.
type SRS struct {
	ID           string
	H, L, A, BG1 []bls12381.G1Affine
	BG2          []bls12381.G2Affine
	Source       PointSource
}

// PointSource streams the points of an SRS that stay in their encoding (a memory-mapped
// parameters file: prover.MappedParameters). G1 and G2 decode any range into a buffer of the
// caller, so that one chunk can be decoded while the previous one is copied; Encoded hands out a
// range's bytes as they are, for a device that decodes and checks them itself when Unchecked
// allows it. Methods are safe for concurrent use.
type PointSource interface {
	// Len returns the number of points of section sec.
	Len(sec Section) int
	// G1 decodes points off … off+len(dst)−1 of the G1 section sec into dst.
	G1(sec Section, off int, dst []bls12381.G1Affine) error
	// G2 decodes points off … off+len(dst)−1 of B_G2 into dst.
	G2(off int, dst []bls12381.G2Affine) error
	// DropRange tells the source that points off … off+n−1 of section sec have been read and
	// are not needed soon: a mapping takes their pages out of the process's resident set (they
	// stay in the page cache).
	DropRange(sec Section, off, n int) error
	// Unchecked reports whether the source checks its points as prover.Unchecked does — the
	// flag bits, canonical coordinates, the curve equation, never the point at infinity — and
	// no more (no subgroup check), so that a device may decode and check the Encoded bytes
	// itself. When false, the points go through G1 and G2 on the host.
	Unchecked() bool
	// Encoded returns the encodings of points off … off+n−1 of section sec as they are stored:
	// the zcash/bellperson uncompressed encoding, 96 bytes per G1 point (x‖y big-endian) and
	// 192 per B_G2 point (x.c1‖x.c0‖y.c1‖y.c0), flags in the top 3 bits of each point's first
	// byte. The bytes are the source's own (a slice of a mapping) and must not be modified. A
	// mapping asks the system to bring their pages in before it returns, so that calling
	// Encoded for the next chunk while the previous one is copied overlaps the page faults.
	Encoded(sec Section, off, n int) ([]byte, error)
}

// Len returns the number of points of section s.
func (s *SRS) Len(sec Section) int {
	if s.Source != nil {
		return s.Source.Len(sec)
	}
	switch sec {
	case SectionH:
		return len(s.H)
	case SectionL:
		return len(s.L)
	case SectionA:
		return len(s.A)
	case SectionBG1:
		return len(s.BG1)
	case SectionBG2:
		return len(s.BG2)
	}
	return 0
}

// Bases is an SRS resident on a device. Close evicts it: later Resident calls upload it again.
type Bases interface {
	Close() error
}

// NTT selects a transform of 2^logN elements. The forward transform is A_k = Σ_j a_j·ω^(jk)
// with ω = fft.Generator(2^logN) (gnark-crypto); Inverse uses ω⁻¹ and multiplies by 2^−logN.
// Coset multiplies a_j by g^j before a forward transform and the output of an inverse
// transform by g^(−j), g = Shift, or 7 (gnark-crypto's fft.OnCoset()) when Shift is zero. The
// bit-reversed flags give the order of the input and the output; false is natural order.
type NTT struct {
	Inverse           bool
	Coset             bool
	InputBitReversed  bool
	OutputBitReversed bool
	Shift             fr.Element
}

// Workspace holds one partition's vectors on a device. Upload and Compact stage the partition
// (outside the device's lock); NTT, Mul, Quotient and the MSMs are device work (under it). A
// workspace is used by one goroutine at a time.
type Workspace interface {
	// Upload sets dst[:len(src)] = src and the rest of dst to zero.
	Upload(ctx context.Context, dst Buf, src []fr.Element) error
	// Compact sets dst[off+r] = src[srcOff+i] for the r-th i < n whose bit is set in mask (bit
	// i%64 of mask[i/64]), in order, and returns how many it wrote.
	Compact(ctx context.Context, dst Buf, off int, src Buf, srcOff, n int, mask []uint64) (int, error)
	// NTT transforms b[:2^logN] in place.
	NTT(ctx context.Context, b Buf, logN int, cfg NTT) error
	// Mul sets a[i] = a[i]·b[i] for i < n; a and b are distinct.
	Mul(ctx context.Context, a, b Buf, n int) error
	// Quotient sets a[i] = (a[j] − c[j])·zInv for i < 2^logN, j the reversal of i's logN bits;
	// a and c are distinct. It is the last step of Groth16's quotient (prover.quotient).
	Quotient(ctx context.Context, a, c Buf, logN int, zInv fr.Element) error
	// MSMG1 returns Σ s[off+i]·P_i over i < n, 1 ≤ n ≤ the section's length, for the G1 section
	// sec of bases.
	MSMG1(ctx context.Context, bases Bases, sec Section, s Buf, off, n int) (bls12381.G1Jac, error)
	// MSMG2 returns Σ s[off+i]·Q_i over i < n, 1 ≤ n ≤ |B_G2|, for the B_G2 section of bases.
	MSMG2(ctx context.Context, bases Bases, s Buf, off, n int) (bls12381.G2Jac, error)
	// Release returns the workspace to its device; it is not used afterwards.
	Release()
}

// QuotientRunner is a Workspace that computes Groth16's whole quotient in one call: the steps of
// prover's quotient (NTT, Mul, Quotient) on BufA, BufB and BufC, on the coset shift·⟨ω⟩, with
// H's scalars left in BufA and BufB and BufC overwritten. A device whose host would otherwise
// return between steps (and may be resumed late by the Go scheduler when every core is busy)
// keeps its work back to back this way. The scalars are left in the workspace's own form (a
// GPU's: plain integers, not Montgomery form), which only its MSMRunner reads (MSMJob.RunnerForm).
// Without folded, they are h's coefficients, in natural order or, where RunQuotient reports
// bitReversed, with h_i at BufA[rev(i)], rev the reversal of logN bits (no pass of its own to
// reorder; MSMJob.BitRev). With folded (parameters from prover.FoldC: C folded into L, H on the
// coset) it neither reads nor transforms BufC and leaves â·b̂, the product of a's and b's values
// on the coset, in natural order: four transforms.
type QuotientRunner interface {
	RunQuotient(ctx context.Context, logN int, shift fr.Element, folded bool) (bitReversed bool, err error)
}

// MSMJob is one MSM of MSMRunner.RunMSMs: Σ s[Off+i]·P_i over i < N, 1 ≤ N ≤ the section's
// length, for the section Sec of the bases, or with BitRev = b ≥ 1 Σ s[Off+i]·P_rev(i), rev the
// reversal of b bits, N = 2^b or 2^b − 1 (h as a QuotientRunner leaves it bit-reversed); the
// result goes to G1 for a G1 section, to G2 for SectionBG2. RunnerForm says that s holds what
// the workspace's QuotientRunner left, in its own form.
type MSMJob struct {
	Sec        Section
	S          Buf
	Off, N     int
	BitRev     int
	RunnerForm bool
	G1         *bls12381.G1Jac
	G2         *bls12381.G2Jac
}

// Run computes the job with ws's MSMG1 or MSMG2, as its result's group says; those take no
// bit-reversed scalars.
func (j MSMJob) Run(ctx context.Context, ws Workspace, bases Bases) (err error) {
	if j.BitRev != 0 || j.RunnerForm {
		return fmt.Errorf("primitive: %s msm: scalars bit-reversed or in the runner's form need the workspace's MSMRunner", j.Sec)
	}
	if j.G1 != nil {
		*j.G1, err = ws.MSMG1(ctx, bases, j.Sec, j.S, j.Off, j.N)
	} else {
		*j.G2, err = ws.MSMG2(ctx, bases, j.S, j.Off, j.N)
	}
	return err
}

// MSMRunner is a Workspace that runs several MSMs in one call, one after the other, with nothing
// returned to the host between them (for the reason given at QuotientRunner).
type MSMRunner interface {
	RunMSMs(ctx context.Context, bases Bases, jobs []MSMJob) error
}

// Evaluator is a Device that can stage a partition from its assignment w alone, computing A·w,
// B·w and C·w itself from the shape's matrices (which it keeps resident per shape), so that the
// host never holds the evaluations. Its workspaces implement WitnessStager.
type Evaluator interface {
	Device
	// EvaluatesShape reports whether the workspaces of this device can stage partitions of
	// shape with StageWitness.
	EvaluatesShape(shape *synth.Shape) bool
}

// WitnessStager is the Workspace of an Evaluator.
type WitnessStager interface {
	// StageWitness sets BufW[:len(w)] = w and BufA, BufB and, withC, BufC to the evaluations of
	// shape at w, as synth.Assignment holds them, zero-padded to the workspace's Domain:
	// A·w ‖ w[:NumInputs] ‖ 0…, B·w ‖ 0…, C·w ‖ 0…; without withC (C folded into L) BufC is left
	// as it was. It runs outside the device's lock.
	StageWitness(ctx context.Context, shape *synth.Shape, w []fr.Element, withC bool) error
}
