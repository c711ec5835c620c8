package prover

import (
	"fmt"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-go/cuzk/prover/primitive"
)

// Parameters returns parameters whose points stay in m: VK is m's verifying key, ID its identity
// (m.Identity), and the five point slices are nil. They prove as the decoded parameters would:
//
//   - a GPU (package gpu) uploads the points from m chunk by chunk, once per identity, and drops
//     the pages of each chunk and section from the process's resident set afterwards, so the
//     host keeps only the page cache and the chunk buffers. In Unchecked mode the file's
//     encodings go to the device as they are and a kernel decodes and checks them there (the
//     host decode would be the upload's bottleneck); in Checked mode the host decodes them,
//     with the subgroup check, which is several times slower;
//   - the CPU needs the points on the heap: the first CPU proof decodes them all (Decode), once,
//     and keeps them until m is garbage; at full size that is the heap a decoded file costs
//     (96 bytes per G1 point and 192 per G2 point: about 44 GiB for a 32 GiB PoRep), so a CPU
//     fallback with mapped parameters costs what decoded parameters cost. HeapBytes says when.
//
// A bad point is found when the points are read: the upload or the proof fails with a
// *DecodeError naming its section, index and offset. Every call returns the same *Parameters
// (and error). m must stay open while the parameters are used.
func (m *MappedParameters) Parameters() (*Parameters, error) {
	m.paramsOnce.Do(func() {
		id, err := m.Identity()
		if err != nil {
			m.paramsErr = fmt.Errorf("prover: mapped parameters: %w", err)
			return
		}
		m.id = id
		m.params = &Parameters{ID: id, VK: m.VK, CFold: m.fold, mapped: m}
	})
	return m.params, m.paramsErr
}

// Mapped returns the mapped file whose points p streams (MappedParameters.Parameters), or nil
// when p holds its points in its slices.
func (p *Parameters) Mapped() *MappedParameters { return p.mapped }

// Len returns the number of points of section sec: the length of its slice, or of the section
// in the mapped file.
func (p *Parameters) Len(sec primitive.Section) int {
	switch {
	case p.mapped != nil:
		return p.mapped.Len(sec)
	case sec == primitive.SectionBG2:
		return len(p.BG2)
	}
	return len(p.g1Slice(sec))
}

// PointBytes returns the heap, in bytes, that p's points take decoded: 96·(|H| + |L| + |A| +
// |B_G1|) + 192·|B_G2| (gnark-crypto's affine points), whether they are decoded yet or not. The
// verifying key is not counted.
func (p *Parameters) PointBytes() int64 {
	var n int64
	for sec := primitive.SectionH; sec <= primitive.SectionBG1; sec++ {
		n += int64(p.Len(sec)) * int64(unsafe.Sizeof(bls12381.G1Affine{}))
	}
	return n + int64(p.Len(primitive.SectionBG2))*int64(unsafe.Sizeof(bls12381.G2Affine{}))
}

// HeapBytes returns the heap, in bytes, that p's points take now: PointBytes for decoded
// parameters. Mapped parameters take 0 — their points are the file's pages, page cache — until
// a CPU proof has decoded them, then PointBytes. The verifying key is not counted.
func (p *Parameters) HeapBytes() int64 {
	if p.mapped != nil && !p.mapped.onHeap.Load() {
		return 0
	}
	return p.PointBytes()
}

// g1Slice returns the slice of the G1 section sec of decoded parameters.
func (p *Parameters) g1Slice(sec primitive.Section) []bls12381.G1Affine {
	switch sec {
	case primitive.SectionH:
		return p.H
	case primitive.SectionL:
		return p.L
	case primitive.SectionA:
		return p.A
	case primitive.SectionBG1:
		return p.BG1
	}
	return nil
}

// decoded returns every point of m decoded onto the heap, decoding them on the first call (on all
// cores) and dropping the file's pages from the resident set afterwards; later calls, from any
// goroutine, return the same points, or the same error.
func (m *MappedParameters) decoded() (*Parameters, error) {
	m.hostOnce.Do(func() {
		host, err := m.Decode()
		for sec := primitive.SectionH; sec <= primitive.SectionBG2 && err == nil; sec++ {
			err = m.DropPages(sec)
		}
		if err != nil {
			m.hostErr = err
			return
		}
		m.host = host
		m.onHeap.Store(true)
	})
	return m.host, m.hostErr
}

// hostPoints returns srs, streamed from its Source, with its points on the heap: a mapped file's
// decoded once and kept by it (MappedParameters.Parameters), another source's decoded afresh.
func hostPoints(srs *primitive.SRS) (*primitive.SRS, error) {
	if m, ok := srs.Source.(*MappedParameters); ok {
		p, err := m.decoded()
		if err != nil {
			return nil, err
		}
		return &primitive.SRS{ID: srs.ID, H: p.H, L: p.L, A: p.A, BG1: p.BG1, BG2: p.BG2}, nil
	}
	src := srs.Source
	host := &primitive.SRS{ID: srs.ID}
	for sec, dst := range [4]*[]bls12381.G1Affine{&host.H, &host.L, &host.A, &host.BG1} {
		*dst = make([]bls12381.G1Affine, src.Len(primitive.Section(sec)))
		if err := src.G1(primitive.Section(sec), 0, *dst); err != nil {
			return nil, err
		}
	}
	host.BG2 = make([]bls12381.G2Affine, src.Len(primitive.SectionBG2))
	if err := src.G2(0, host.BG2); err != nil {
		return nil, err
	}
	return host, nil
}
