// The kernels of the constraint-matrix product and of its checks (spmv.cu runs them): device
// code only, over the arrays of a resident matrix (matrix_view_t), so that they also build for
// the host emulation of csrc/emu.
#pragma once
#include <cstdint>

#include "../include/cuzk.h"
#include "field.cuh"

// CUZK_SPMV_HEAVY is the row length in words from which a row is summed by a
// whole warp instead of one lane: a lane's row costs its warp up to that many
// iterations. PoRep's A has 1,120 rows of 8–15 words and 1,673 of 16–254 per
// 1.2 M (porep tiny).
#ifndef CUZK_SPMV_HEAVY
#define CUZK_SPMV_HEAVY 16
#endif
#if CUZK_SPMV_HEAVY < 2 || CUZK_SPMV_HEAVY > 255
#error "CUZK_SPMV_HEAVY must be in [2, 255]"
#endif

// The row block is the warp: row_span's scan covers exactly one block.
static_assert(CUZK_ROW_BLOCK == 32, "a row block must be one warp");

namespace cuzk {

constexpr unsigned SPMV_THREADS = 256;  // block size of the matrix kernels: 8 warps, 8 row blocks
constexpr uint32_t FULL_WARP = 0xffffffffu;

// matrix_view_t is what the kernels read of a resident matrix.
struct matrix_view_t {
  const uint8_t* row_len;
  const uint32_t* block_ptr;
  const uint32_t* long_rows;
  const uint32_t* long_lens;
  const uint32_t* words;
  const fr_t* coeffs;
  uint64_t rows;
  uint32_t n_long;
  uint32_t col_bits;
};

// long_length returns the length of long row r from the long-row list, and whether r is listed.
__device__ uint32_t long_length(const matrix_view_t& m, uint32_t r, bool& listed) {
  uint32_t lo = 0, hi = m.n_long;  // the first entry ≥ r
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (__ldg(m.long_rows + mid) < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  listed = lo < m.n_long && m.long_rows[lo] == r;
  return listed ? m.long_lens[lo] : 0;
}

// row_span gives lane `lane` of a warp whose rows are row block `block` the first word and the
// length of its row (length 0 for rows ≥ m.rows). Every lane of the warp must call it. unlisted
// is set when the row is marked long but not in the long-row list (only an unchecked encoding).
__device__ __forceinline__ void row_span(const matrix_view_t& m, uint64_t block, uint32_t lane, uint64_t& start,
                                         uint32_t& len, bool& unlisted) {
  const uint64_t r = block * CUZK_ROW_BLOCK + lane;
  len = 0;
  unlisted = false;
  if (r < m.rows) {
    len = __ldg(m.row_len + r);
    if (len == CUZK_LONG_ROW) {
      bool listed;
      len = long_length(m, (uint32_t)r, listed);
      unlisted = !listed;
    }
  }
  uint64_t inc = len;  // 64-bit: an unchecked block's lengths may sum past 2^32
#pragma unroll
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const uint64_t t = __shfl_up_sync(FULL_WARP, inc, d);
    if (lane >= d) inc += t;
  }
  start = __ldg(m.block_ptr + block) + inc - len;
}

// row_dot returns Σ coeff·w[col] over the terms in words [k, end) of a checked matrix. Terms of
// coefficient ±1 are summed in the inner loop, which loads each word one term ahead so that the
// load overlaps the previous term's read of w; the loop stops at a lane's next other term, so
// that the lanes of a warp do their products together.
__device__ fr_t row_dot(const matrix_view_t& m, const fr_t* __restrict__ w, uint64_t k, uint64_t end) {
  const uint32_t cb = m.col_bits, mask = (1u << cb) - 1, esc = 0xffffffffu >> cb;
  fr_t acc = fr_t::zero();
  while (k < end) {
    uint32_t x = __ldg(m.words + k);
    while ((x >> cb) <= 1) {
      const uint32_t next = k + 1 < end ? __ldg(m.words + k + 1) : 0;
      const fr_t v = fr_t::load_ro(w + (x & mask));
      acc = (x >> cb) ? acc - v : acc + v;
      if (++k == end) return acc;
      x = next;
    }
    uint32_t code = x >> cb;
    if (code == esc) code = __ldg(m.words + ++k);
    acc = acc + fr_t::load_ro(w + (x & mask)) * fr_t::load_ro(m.coeffs + code);
    k++;
  }
  return acc;
}

// Classes of w's elements (witness_classify), in the layout of a compact witness
// (synth.CompactWitness, cuzk_witness_decode): element i's class is bits 2(i mod 32) and
// 2(i mod 32)+1 of word i/32.
enum : uint32_t { CLASS_ZERO = 0, CLASS_ONE = 1, CLASS_OTHER = 2 };

// witness_class returns the class of w[col].
__device__ __forceinline__ uint32_t witness_class(const uint64_t* __restrict__ cls, uint32_t col) {
  return (uint32_t)(__ldg(cls + col / 32) >> (2 * (col % 32))) & 3;
}

// spread_bits moves bit j of x to bit 2j.
__device__ __forceinline__ uint64_t spread_bits(uint32_t x) {
  uint64_t v = x;
  v = (v | v << 16) & 0x0000FFFF0000FFFFull;
  v = (v | v << 8) & 0x00FF00FF00FF00FFull;
  v = (v | v << 4) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | v << 2) & 0x3333333333333333ull;
  v = (v | v << 1) & 0x5555555555555555ull;
  return v;
}

// witness_classify writes the classes of w[0 : n] to classes[0 : ⌈n/32⌉) (the bits of elements
// ≥ n clear) and adds the number of elements of class CLASS_OTHER to *n_others. A warp takes 32
// consecutive elements a step, one a lane (coalesced 32-byte reads), and its first lane writes
// their word from two ballots.
__global__ void __launch_bounds__(SPMV_THREADS) witness_classify(const fr_t* __restrict__ w, uint64_t n,
                                                                 uint64_t* __restrict__ classes,
                                                                 unsigned long long* n_others) {
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t n_words = (n + 31) / 32, warps = (uint64_t)gridDim.x * (blockDim.x / 32);
  uint32_t others = 0;
  for (uint64_t wi = (uint64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; wi < n_words; wi += warps) {
    const uint64_t i = wi * 32 + lane;
    uint32_t c = CLASS_ZERO;
    if (i < n) {
      const fr_t v = fr_t::load_ro(w + i);
      c = v.is_zero() ? CLASS_ZERO : v == fr_t::one() ? CLASS_ONE : CLASS_OTHER;
    }
    const uint32_t lo = __ballot_sync(FULL_WARP, c & 1), hi = __ballot_sync(FULL_WARP, c >> 1);
    if (lane == 0) classes[wi] = spread_bits(lo) | spread_bits(hi) << 1;
    others += c >> 1;
  }
#pragma unroll
  for (uint32_t d = 16; d >= 1; d >>= 1) others += __shfl_down_sync(FULL_WARP, others, d);
  if (lane == 0 && others) atomicAdd(n_others, (unsigned long long)others);
}

// row_dot_classed is row_dot over w's classes (witness_classify): a term on a 0 is skipped, a
// term on a 1 adds its coefficient, and only a term on another value reads w — an 8-byte class
// word from an array of n/4 bytes (32 MiB at 2^27 columns, which L2 can hold) instead of a 32-byte
// element from n·32 bytes. Each lane stops at its next term that needs a product (another value
// times a coefficient other than ±1), so that the lanes of a warp do their products together.
__device__ fr_t row_dot_classed(const matrix_view_t& m, const fr_t* __restrict__ w, const uint64_t* __restrict__ cls,
                                uint64_t k, uint64_t end) {
  const uint32_t cb = m.col_bits, mask = (1u << cb) - 1, esc = 0xffffffffu >> cb;
  fr_t acc = fr_t::zero();
  while (k < end) {
    uint32_t x = __ldg(m.words + k), c = witness_class(cls, x & mask);
    while (c != CLASS_OTHER || (x >> cb) <= 1) {
      uint32_t code = x >> cb;
      if (code == esc) code = __ldg(m.words + ++k);
      if (c != CLASS_ZERO) {
        // A term on another value here has the coefficient ±1; one on a 1 is its coefficient.
        const fr_t t = c == CLASS_OTHER ? fr_t::load_ro(w + (x & mask)) : code > 1 ? fr_t::load_ro(m.coeffs + code) : fr_t::one();
        acc = code == 1 ? acc - t : acc + t;
      }
      if (++k == end) return acc;
      x = __ldg(m.words + k);
      c = witness_class(cls, x & mask);
    }
    uint32_t code = x >> cb;
    if (code == esc) code = __ldg(m.words + ++k);
    acc = acc + fr_t::load_ro(w + (x & mask)) * fr_t::load_ro(m.coeffs + code);
    k++;
  }
  return acc;
}

// spmv_light writes out[r] = ⟨row r, w⟩ for the rows shorter than heavy_min words, reading w's
// classes cls (row_dot_classed) when CLASSED.
template <bool CLASSED>
__global__ void __launch_bounds__(SPMV_THREADS) spmv_light(matrix_view_t m, const fr_t* __restrict__ w,
                                                           const uint64_t* __restrict__ cls, fr_t* __restrict__ out,
                                                           uint32_t heavy_min) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t block = r / CUZK_ROW_BLOCK;
  if (block * CUZK_ROW_BLOCK >= m.rows) return;  // the whole warp
  uint64_t start;
  uint32_t len;
  bool unlisted;
  row_span(m, block, threadIdx.x % 32, start, len, unlisted);
  if (r >= m.rows || len >= heavy_min) return;
  if constexpr (CLASSED)
    fr_t::store(out + r, row_dot_classed(m, w, cls, start, start + len));
  else
    fr_t::store(out + r, row_dot(m, w, start, start + len));
}

// spmv_heavy writes out[row] = ⟨row, w⟩ for the listed heavy rows, one warp each, reading w's
// classes cls when CLASSED (as row_dot_classed: w only for the terms on other values).
template <bool CLASSED>
__global__ void __launch_bounds__(SPMV_THREADS) spmv_heavy(matrix_view_t m, const uint4* __restrict__ heavy,
                                                           uint64_t n_heavy, const fr_t* __restrict__ w,
                                                           const uint64_t* __restrict__ cls, fr_t* __restrict__ out) {
  const uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const uint32_t lane = threadIdx.x % 32;
  if (i >= n_heavy) return;  // the whole warp
  const uint4 h = heavy[i];
  const uint32_t cb = m.col_bits, mask = (1u << cb) - 1, esc = 0xffffffffu >> cb;
  const uint64_t first = h.y, end = (uint64_t)h.y + h.z;
  fr_t acc = fr_t::zero();
  for (uint64_t k = first + lane; k < end; k += 32) {
    if (k > first && (__ldg(m.words + k - 1) >> cb) == esc) continue;  // word k is an escaped coefficient index
    const uint32_t x = __ldg(m.words + k);
    uint32_t code = x >> cb;
    const uint32_t c = CLASSED ? witness_class(cls, x & mask) : CLASS_OTHER;
    if (c == CLASS_ZERO) continue;
    if (code == esc) code = __ldg(m.words + k + 1);
    const fr_t v = c == CLASS_ONE ? fr_t::one() : fr_t::load_ro(w + (x & mask));
    if (code == 0) {
      acc = acc + v;
    } else if (code == 1) {
      acc = acc - v;
    } else if (c == CLASS_ONE) {
      acc = acc + fr_t::load_ro(m.coeffs + code);
    } else {
      acc = acc + v * fr_t::load_ro(m.coeffs + code);
    }
  }
#pragma unroll
  for (uint32_t d = 16; d >= 1; d >>= 1) {
    fr_t o;
#pragma unroll
    for (int j = 0; j < 8; j++) o.l[j] = __shfl_down_sync(FULL_WARP, acc.l[j], d);
    acc = acc + o;
  }
  if (lane == 0) fr_t::store(out + h.x, acc);
}

// Reasons spmv_check reports, with the row, as row·16 + reason (the smallest wins).
enum : uint32_t {
  BAD_UNLISTED = 1,  // marked long, not in the long-row list
  BAD_BLOCK = 2,     // the block's row lengths disagree with the next block's offset
  BAD_COLUMN = 3,    // a column ≥ cols
  BAD_CODE = 4,      // an inline code ≥ n_coeffs
  BAD_ESCAPE = 5,    // an escape without an index word in the row, or an index outside [escape, n_coeffs)
};

// spmv_check checks every row of the encoding (after the host's checks of the block offsets and
// the long-row list) and counts each row block's heavy rows into heavy_count[block]. The first
// bad row (row·16 + reason) goes to *bad by atomicMin.
__global__ void __launch_bounds__(SPMV_THREADS) spmv_check(matrix_view_t m, uint64_t cols, uint32_t n_coeffs,
                                                           uint32_t heavy_min, uint32_t* __restrict__ heavy_count,
                                                           unsigned long long* bad) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t block = r / CUZK_ROW_BLOCK;
  const uint32_t lane = threadIdx.x % 32;
  if (block * CUZK_ROW_BLOCK >= m.rows) return;  // the whole warp
  uint64_t start;
  uint32_t len;
  bool unlisted;
  row_span(m, block, lane, start, len, unlisted);
  const uint32_t heavy = __ballot_sync(FULL_WARP, r < m.rows && len >= heavy_min);
  if (lane == 0) heavy_count[block] = __popc(heavy);
  // The last lane's row ends where the next block starts, or the block is inconsistent: then no
  // lane reads its words.
  const uint64_t end = start + len;
  const bool block_ok = __shfl_sync(FULL_WARP, end == m.block_ptr[block + 1], 31);
  if (r >= m.rows) return;
  uint32_t reason = 0;
  if (unlisted) {
    reason = BAD_UNLISTED;
  } else if (!block_ok) {
    reason = BAD_BLOCK;
  } else {
    const uint32_t cb = m.col_bits, mask = (1u << cb) - 1, esc = 0xffffffffu >> cb;
    for (uint64_t k = start; k < end; k++) {
      const uint32_t x = m.words[k], code = x >> cb;
      if ((x & mask) >= cols) {
        reason = BAD_COLUMN;
        break;
      }
      if (code == esc) {
        if (k + 1 >= end || m.words[k + 1] < esc || m.words[k + 1] >= n_coeffs) {
          reason = BAD_ESCAPE;
          break;
        }
        k++;
      } else if (code >= n_coeffs) {
        reason = BAD_CODE;
        break;
      }
    }
  }
  if (reason) atomicMin(bad, (unsigned long long)(r * 16 + reason));
}

// spmv_list_heavy writes the heavy rows of every row block to heavy[offset[block] + rank].
__global__ void __launch_bounds__(SPMV_THREADS) spmv_list_heavy(matrix_view_t m, uint32_t heavy_min,
                                                                const uint32_t* __restrict__ offset,
                                                                uint4* __restrict__ heavy) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t block = r / CUZK_ROW_BLOCK;
  const uint32_t lane = threadIdx.x % 32;
  if (block * CUZK_ROW_BLOCK >= m.rows) return;  // the whole warp
  uint64_t start;
  uint32_t len;
  bool unlisted;
  row_span(m, block, lane, start, len, unlisted);
  const bool is_heavy = r < m.rows && len >= heavy_min;
  const uint32_t mask = __ballot_sync(FULL_WARP, is_heavy);
  if (is_heavy) heavy[offset[block] + __popc(mask & ((1u << lane) - 1))] = make_uint4((uint32_t)r, (uint32_t)start, len, 0);
}

}  // namespace cuzk
