package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-go/cuzk/synth"
)

// The library's row block and long-row marker (cuzk.h CUZK_ROW_BLOCK, CUZK_LONG_ROW) are
// synth's: a conversion of a negative constant to uint does not compile, so these fail the
// build when synth changes them.
const (
	libRowBlock = 32
	libLongRow  = 255
	libWitBlock = 512
	_           = uint(synth.RowBlock-libRowBlock) + uint(libRowBlock-synth.RowBlock)
	_           = uint(synth.LongRow-libLongRow) + uint(libLongRow-synth.LongRow)
	_           = uint(synth.WitnessBlock-libWitBlock) + uint(libWitBlock-synth.WitnessBlock)
)

// Matrix is one of a compiled shape's constraint matrices (A, B or C, synth.Matrix) resident in
// device memory with its coefficient table, for computing its product with an assignment on the
// device. Close frees it; methods are safe for concurrent use.
type Matrix struct {
	dev        *Device
	rows, cols int
	mu         sync.RWMutex
	h          uintptr
}

// matrixArrays is what crosses to the library for an upload.
type matrixArrays struct {
	rows, cols, nLong, nWords, nCoeffs uint64
	colBits                            uint32
	rowLen, blockPtr, longRows         unsafe.Pointer
	longLens, words, coeffs            unsafe.Pointer
}

// ptr returns the address of s's first element, or nil when s is empty.
func ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// UploadMatrix copies a matrix (synth.Matrix.Encoding) and the shape's coefficient table
// (synth.Shape.Coeffs) to the device. cols is the length of the assignments it will be applied
// to, NumInputs + NumAux. The library checks the whole encoding (block offsets, long rows,
// columns < cols, coefficient codes) and refuses a bad one naming the row, with an error whose
// Code is CodeInvalid. Device memory taken: about len(RowLen)·1.125 + 4·len(Words) +
// 32·len(coeffs) bytes, plus 16 bytes per row of 16 words or more.
func (d *Device) UploadMatrix(ctx context.Context, enc synth.MatrixEncoding, coeffs []fr.Element, cols int) (*Matrix, error) {
	rows := len(enc.RowLen)
	switch {
	case len(enc.BlockPtr) != (rows+libRowBlock-1)/libRowBlock+1:
		return nil, fmt.Errorf("gpu: upload matrix: %d block offsets for %d rows, want %d", len(enc.BlockPtr), rows, (rows+libRowBlock-1)/libRowBlock+1)
	case len(enc.LongRows) != len(enc.LongLens):
		return nil, fmt.Errorf("gpu: upload matrix: %d long rows with %d lengths", len(enc.LongRows), len(enc.LongLens))
	case len(coeffs) < 2:
		return nil, fmt.Errorf("gpu: upload matrix: %d coefficients, want at least 2 (1 and −1)", len(coeffs))
	case cols < 1:
		return nil, fmt.Errorf("gpu: upload matrix: %d columns", cols)
	case enc.ColBits < 1 || enc.ColBits > 30:
		return nil, fmt.Errorf("gpu: upload matrix: %d column bits, want 1..30", enc.ColBits)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := &matrixArrays{
		rows: uint64(rows), cols: uint64(cols), nLong: uint64(len(enc.LongRows)), nWords: uint64(len(enc.Words)),
		nCoeffs: uint64(len(coeffs)), colBits: uint32(enc.ColBits),
		rowLen: ptr(enc.RowLen), blockPtr: ptr(enc.BlockPtr), longRows: ptr(enc.LongRows),
		longLens: ptr(enc.LongLens), words: ptr(enc.Words), coeffs: ptr(coeffs),
	}
	h, err := d.lib.b.matrixUpload(d.index, a)
	if err != nil {
		return nil, fmt.Errorf("gpu: upload matrix of %d rows, %d words: %w", rows, len(enc.Words), err)
	}
	return &Matrix{dev: d, rows: rows, cols: cols, h: h}, nil
}

// Rows returns the number of rows.
func (m *Matrix) Rows() int { return m.rows }

// Cols returns the length of the assignments the rows index.
func (m *Matrix) Cols() int { return m.cols }

// Device returns the device holding m.
func (m *Matrix) Device() *Device { return m.dev }

// MulVec sets out[off+r] = ⟨row r, w⟩ = Σ coeff·w[col] over the terms of row r, for every row
// r < Rows(), on the device: the same values as synth.Matrix.MulVec, fully reduced Montgomery
// form. w holds the assignment inputs ‖ aux (at least Cols() elements); w, out and m are on one
// device and w and out are distinct. MulVecs does several matrices with one w.
func (m *Matrix) MulVec(ctx context.Context, w, out *Scalars, off int) error {
	return MulVecs(ctx, w, []*Matrix{m}, []*Scalars{out}, off)
}

// MulVecs sets outs[i][off+r] = ⟨row r of mats[i], w⟩ for every row of each matrix (Matrix.MulVec
// for each), classifying w's elements once for all of them: when most are 0 or 1 (PoRep's
// assignments), a term on a 0 is skipped, one on a 1 adds its coefficient and only the others
// read w's 32 bytes. The matrices, w and the outputs are on one device; the outputs are distinct
// from w and from each other. The classes take ⌈cols/32⌉·8 bytes of device memory during the call.
func MulVecs(ctx context.Context, w *Scalars, mats []*Matrix, outs []*Scalars, off int) error {
	if len(mats) == 0 || len(mats) != len(outs) {
		return fmt.Errorf("gpu: matrix times vector: %d matrices and %d outputs", len(mats), len(outs))
	}
	for i, m := range mats {
		out := outs[i]
		if w.dev != m.dev || out.dev != m.dev {
			return fmt.Errorf("gpu: matrix times vector: matrix %d on device %d, w on %d, its output on %d", i, m.dev.index, w.dev.index, out.dev.index)
		}
		if w == out {
			return fmt.Errorf("gpu: matrix times vector: w and matrix %d's output are the same buffer", i)
		}
		if j := slices.Index(outs[:i], out); j >= 0 {
			return fmt.Errorf("gpu: matrix times vector: matrices %d and %d have the same output", j, i)
		}
		if w.n < m.cols {
			return fmt.Errorf("gpu: matrix times vector: w has %d elements, matrix %d reads %d", w.n, i, m.cols)
		}
		if err := out.checkRange("matrix times vector", off, m.rows); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hm, ho := make([]uintptr, len(mats)), make([]uintptr, len(outs))
	for i, m := range mats {
		if slices.Index(mats[:i], m) < 0 { // a read lock is not taken twice (Close may wait between)
			m.mu.RLock()
			defer m.mu.RUnlock()
		}
		outs[i].mu.RLock()
		defer outs[i].mu.RUnlock()
		hm[i], ho[i] = m.h, outs[i].h
		if hm[i] == 0 || ho[i] == 0 {
			return ErrClosed
		}
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.h == 0 {
		return ErrClosed
	}
	if err := w.dev.lib.b.matrixMulVec(w.dev.index, hm, ho, w.h, uint64(off)); err != nil {
		rows := make([]int, len(mats))
		for i, m := range mats {
			rows[i] = m.rows
		}
		return fmt.Errorf("gpu: matrix times vector, %v rows: %w", rows, err)
	}
	return nil
}

// Close frees the device memory; later calls return ErrClosed.
func (m *Matrix) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h == 0 {
		return nil
	}
	err := m.dev.lib.b.matrixFree(m.dev.index, m.h)
	m.h = 0
	if err != nil {
		return fmt.Errorf("gpu: free matrix: %w", err)
	}
	return nil
}

// UploadWitness decodes the compact witness cw into s[off : off+cw.N] on the device: only cw's
// classes, others and block counts (about cw.Bytes()) cross the link, instead of 32 bytes an
// element. An inconsistent encoding (an element of class 3, a block whose others disagree with
// its count, arrays that do not fit N) is refused with an error matching synth.ErrCompactWitness;
// s's contents are then undefined.
func (s *Scalars) UploadWitness(ctx context.Context, off int, cw *synth.CompactWitness) error {
	nBlocks := (cw.N + libWitBlock - 1) / libWitBlock
	switch {
	case cw.N < 0 || uint64(cw.N) > math.MaxUint32:
		return fmt.Errorf("gpu: upload witness: %w: %d elements", synth.ErrCompactWitness, cw.N)
	case len(cw.Classes) != (cw.N+31)/32 || len(cw.BlockOthers) != nBlocks+1:
		return fmt.Errorf("gpu: upload witness: %w: %d class words and %d block counts for %d elements",
			synth.ErrCompactWitness, len(cw.Classes), len(cw.BlockOthers), cw.N)
	}
	if err := s.checkRange("upload witness", off, cw.N); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if cw.N == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == 0 {
		return ErrClosed
	}
	err := s.dev.lib.b.witnessDecode(s.dev.index, s.h, uint64(off), uint64(cw.N), &cw.Classes[0], ptr(cw.Others),
		uint64(len(cw.Others)), &cw.BlockOthers[0])
	if err != nil {
		var de *DeviceError
		if errors.As(err, &de) && de.Code == CodeInvalid {
			return fmt.Errorf("gpu: upload witness of %d elements: %w: %w", cw.N, synth.ErrCompactWitness, err)
		}
		return fmt.Errorf("gpu: upload witness of %d elements: %w", cw.N, err)
	}
	return nil
}

// CopyFrom copies src[srcOff : srcOff+n] to s[off : off+n] on the device (both on one device; when
// src is s, the ranges may not overlap): for example the evaluations' input rows, a[rows+i] = w[i].
func (s *Scalars) CopyFrom(ctx context.Context, off int, src *Scalars, srcOff, n int) error {
	if err := s.checkRange("copy to", off, n); err != nil {
		return err
	}
	if err := src.checkRange("copy from", srcOff, n); err != nil {
		return err
	}
	if s.dev != src.dev {
		return fmt.Errorf("gpu: copy scalars: from device %d to device %d", src.dev.index, s.dev.index)
	}
	if s == src && off < srcOff+n && srcOff < off+n {
		return fmt.Errorf("gpu: copy scalars: [%d, %d) and [%d, %d) overlap", srcOff, srcOff+n, off, off+n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if src != s {
		src.mu.RLock()
		defer src.mu.RUnlock()
	}
	if s.h == 0 || src.h == 0 {
		return ErrClosed
	}
	if err := s.dev.lib.b.frCopy(s.dev.index, s.h, uint64(off), src.h, uint64(srcOff), uint64(n)); err != nil {
		return fmt.Errorf("gpu: copy %d scalars: %w", n, err)
	}
	return nil
}
