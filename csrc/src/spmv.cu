// Constraint matrices resident on the device and their product with the
// assignment w: out[r] = Σ coeff·w[col] over the terms of row r (A·w, B·w,
// C·w of Groth16), from synth.Matrix's compact rows (include/cuzk.h).
//
// Algorithm (one call of matrix_mulvec):
//  1. Rows are taken 32 at a time, one row block (CUZK_ROW_BLOCK = 32) per
//     warp and one row per lane. Each lane reads its row's length byte (a long
//     row's length by a binary search in the long-row list), and an inclusive
//     warp scan of the lengths added to the block's offset gives every lane the
//     first word of its row (row_span).
//  2. Light rows (fewer than CUZK_SPMV_HEAVY words: in PoRep all but 0.3 %)
//     are summed by their lane (row_dot): terms of coefficient ±1 are an
//     addition or a subtraction; each lane stops at its next other term and
//     the warp does those products together, so a warp pays as many products
//     as its row with the most of them has, not as many as its longest row has
//     terms.
//  3. Heavy rows, listed once at upload with their first word and length,
//     are summed by a warp each (spmv_heavy): lane j takes words j, j+32, …;
//     a word whose predecessor carries the escape code is that term's
//     coefficient index and is skipped (an index < 2^31 never carries the
//     escape code, so the test needs no context); a tree of shuffles adds the
//     32 partial sums.
// Sums in Fr are independent of their order, so the results equal
// synth.Matrix.MulVec's byte for byte (fully reduced Montgomery form).
//
// Upload checks the encoding on the host (block offsets, long-row list,
// coefficients) and on the device (spmv_check: every row block's lengths
// against its offsets, columns, codes and escaped indices), so that the
// product kernels read only inside their arrays.
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "ops.cuh"

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

struct cuzk_matrix {
  int dev;
  uint64_t rows, cols, n_words, n_long, n_heavy;
  uint32_t col_bits, n_coeffs;
  uint8_t* row_len;      // rows
  uint32_t* block_ptr;   // (rows+31)/32 + 1
  uint32_t* long_rows;   // n_long
  uint32_t* long_lens;   // n_long
  uint32_t* words;       // n_words
  cuzk::fr_t* coeffs;    // n_coeffs
  uint4* heavy;          // n_heavy: {row, first word, length, 0}
};

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

static matrix_view_t view(const cuzk_matrix* m) {
  return matrix_view_t{m->row_len, m->block_ptr, m->long_rows, m->long_lens, m->words, m->coeffs,
                       m->rows,    (uint32_t)m->n_long, m->col_bits};
}

// load_fr reads an element with two 16-byte loads (device arrays of fr_t are 32-byte aligned).
__device__ __forceinline__ fr_t load_fr(const fr_t* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  const uint4 a = __ldg(q), b = __ldg(q + 1);
  fr_t r;
  r.l[0] = a.x, r.l[1] = a.y, r.l[2] = a.z, r.l[3] = a.w;
  r.l[4] = b.x, r.l[5] = b.y, r.l[6] = b.z, r.l[7] = b.w;
  return r;
}

// store_fr writes an element with two 16-byte stores.
__device__ __forceinline__ void store_fr(fr_t* p, const fr_t& v) {
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
  q[1] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
}

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
      const fr_t v = load_fr(w + (x & mask));
      acc = (x >> cb) ? acc - v : acc + v;
      if (++k == end) return acc;
      x = next;
    }
    uint32_t code = x >> cb;
    if (code == esc) code = __ldg(m.words + ++k);
    acc = acc + load_fr(w + (x & mask)) * load_fr(m.coeffs + code);
    k++;
  }
  return acc;
}

// spmv_light writes out[r] = ⟨row r, w⟩ for the rows shorter than heavy_min words.
__global__ void __launch_bounds__(SPMV_THREADS) spmv_light(matrix_view_t m, const fr_t* __restrict__ w,
                                                           fr_t* __restrict__ out, uint32_t heavy_min) {
  const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t block = r / CUZK_ROW_BLOCK;
  if (block * CUZK_ROW_BLOCK >= m.rows) return;  // the whole warp
  uint64_t start;
  uint32_t len;
  bool unlisted;
  row_span(m, block, threadIdx.x % 32, start, len, unlisted);
  if (r >= m.rows || len >= heavy_min) return;
  store_fr(out + r, row_dot(m, w, start, start + len));
}

// spmv_heavy writes out[row] = ⟨row, w⟩ for the listed heavy rows, one warp each.
__global__ void __launch_bounds__(SPMV_THREADS) spmv_heavy(matrix_view_t m, const uint4* __restrict__ heavy,
                                                           uint64_t n_heavy, const fr_t* __restrict__ w,
                                                           fr_t* __restrict__ out) {
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
    const fr_t v = load_fr(w + (x & mask));
    if (code == 0) {
      acc = acc + v;
    } else if (code == 1) {
      acc = acc - v;
    } else {
      if (code == esc) code = __ldg(m.words + k + 1);
      acc = acc + v * load_fr(m.coeffs + code);
    }
  }
#pragma unroll
  for (uint32_t d = 16; d >= 1; d >>= 1) {
    fr_t o;
#pragma unroll
    for (int j = 0; j < 8; j++) o.l[j] = __shfl_down_sync(FULL_WARP, acc.l[j], d);
    acc = acc + o;
  }
  if (lane == 0) store_fr(out + h.x, acc);
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

// dev_alloc returns n elements of T in device memory (nullptr for n = 0).
template <class T>
static T* dev_alloc(uint64_t n) {
  void* p = nullptr;
  if (n) CUZK_CUDA(cudaMalloc(&p, n * sizeof(T)));
  return (T*)p;
}

// free_arrays releases the device arrays of m (on its device, selected by the caller).
static void free_arrays(cuzk_matrix* m) {
  void* ps[] = {m->row_len, m->block_ptr, m->long_rows, m->long_lens, m->words, m->coeffs, m->heavy};
  for (void* p : ps)
    if (p) cudaFree(p);
}

// is_reduced tells whether the 4 little-endian limbs of x are < r.
static bool is_reduced(const uint64_t* x) {
  const uint32_t* l = reinterpret_cast<const uint32_t*>(x);
  for (int i = fr_params::N - 1; i >= 0; i--) {
    if (l[i] != fr_params::mod(i)) return l[i] < fr_params::mod(i);
  }
  return false;
}

// check_host checks what the host can check cheaply: sizes, block offsets, the long-row list,
// the coefficients.
static void check_host(const cuzk_matrix_desc_t& d, const void* coeffs, uint64_t n_coeffs) {
  require(d.col_bits >= 1 && d.col_bits <= 30, "col_bits must be in [1, 30], got " + std::to_string(d.col_bits));
  require(d.rows < (1ull << 32), "rows must be below 2^32, got " + std::to_string(d.rows));
  require(d.cols >= 1, "cols must be positive");
  require(d.n_words < (1ull << 32), "n_words must be below 2^32, got " + std::to_string(d.n_words));
  require(n_coeffs >= 2 && n_coeffs < (1ull << 31),
          "n_coeffs must be in [2, 2^31), got " + std::to_string(n_coeffs));
  require(coeffs != nullptr, "coeffs is NULL");
  require(d.block_ptr != nullptr, "block_ptr is NULL");
  require(d.row_len != nullptr || d.rows == 0, "row_len is NULL");
  require(d.words != nullptr || d.n_words == 0, "words is NULL");
  require((d.long_rows != nullptr && d.long_lens != nullptr) || d.n_long == 0, "long_rows or long_lens is NULL");
  require(d.n_long <= d.rows, "n_long = " + std::to_string(d.n_long) + " exceeds rows");
  const uint64_t nb = (d.rows + CUZK_ROW_BLOCK - 1) / CUZK_ROW_BLOCK;
  require(d.block_ptr[0] == 0, "block_ptr[0] = " + std::to_string(d.block_ptr[0]) + ", want 0");
  for (uint64_t b = 0; b < nb; b++) {
    require(d.block_ptr[b + 1] >= d.block_ptr[b], "block_ptr[" + std::to_string(b + 1) + "] = " +
                                                      std::to_string(d.block_ptr[b + 1]) + " decreases");
  }
  require(d.block_ptr[nb] == d.n_words, "block_ptr[" + std::to_string(nb) + "] = " + std::to_string(d.block_ptr[nb]) +
                                            ", want n_words = " + std::to_string(d.n_words));
  for (uint64_t i = 0; i < d.n_long; i++) {
    const uint32_t r = d.long_rows[i];
    require(r < d.rows && (i == 0 || r > d.long_rows[i - 1]) && d.row_len[r] == CUZK_LONG_ROW,
            "long row " + std::to_string(i) + ": row " + std::to_string(r) +
                " beyond the rows, not increasing or not marked 255");
    require(d.long_lens[i] >= CUZK_LONG_ROW,
            "long row " + std::to_string(r) + ": " + std::to_string(d.long_lens[i]) + " words, want at least 255");
  }
  const uint64_t* c = static_cast<const uint64_t*>(coeffs);
  for (uint64_t i = 0; i < n_coeffs; i++) {
    require(is_reduced(c + 4 * i), "coefficient " + std::to_string(i) + " is not below r");
  }
}

cuzk_matrix* matrix_upload(int dev, const cuzk_matrix_desc_t& d, const void* coeffs, uint64_t n_coeffs) {
  check_host(d, coeffs, n_coeffs);
  set_device(dev);
  const uint64_t nb = (d.rows + CUZK_ROW_BLOCK - 1) / CUZK_ROW_BLOCK;
  cuzk_matrix* m = new cuzk_matrix{dev, d.rows, d.cols, d.n_words, d.n_long, 0, d.col_bits, (uint32_t)n_coeffs,
                                   nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  try {
    stream_t s;
    m->row_len = dev_alloc<uint8_t>(d.rows);
    m->block_ptr = dev_alloc<uint32_t>(nb + 1);
    m->long_rows = dev_alloc<uint32_t>(d.n_long);
    m->long_lens = dev_alloc<uint32_t>(d.n_long);
    m->words = dev_alloc<uint32_t>(d.n_words);
    m->coeffs = dev_alloc<fr_t>(n_coeffs);
    if (d.rows) upload_pageable(m->row_len, d.row_len, d.rows, s);
    upload_pageable(m->block_ptr, d.block_ptr, (nb + 1) * sizeof(uint32_t), s);
    if (d.n_long) {
      upload_pageable(m->long_rows, d.long_rows, d.n_long * sizeof(uint32_t), s);
      upload_pageable(m->long_lens, d.long_lens, d.n_long * sizeof(uint32_t), s);
    }
    if (d.n_words) upload_pageable(m->words, d.words, d.n_words * sizeof(uint32_t), s);
    upload_pageable(m->coeffs, coeffs, n_coeffs * sizeof(fr_t), s);
    if (nb) {
      const matrix_view_t v = view(m);
      const unsigned blocks = (unsigned)((nb * CUZK_ROW_BLOCK + SPMV_THREADS - 1) / SPMV_THREADS);
      // Per row block: the heavy rows (then their offsets, by an exclusive sum over nb + 1
      // entries whose last is 0, so that offset[nb] is their number); the first bad row.
      dbuf_t<uint32_t> count(nb + 1, s), offset(nb + 1, s);
      dbuf_t<unsigned long long> bad(1, s);
      CUZK_CUDA(cudaMemsetAsync(count.p, 0, (nb + 1) * sizeof(uint32_t), s));
      CUZK_CUDA(cudaMemsetAsync(bad.p, 0xff, sizeof(unsigned long long), s));
      spmv_check<<<blocks, SPMV_THREADS, 0, s>>>(v, d.cols, (uint32_t)n_coeffs, CUZK_SPMV_HEAVY, count.p, bad.p);
      CUZK_LAUNCHED();
      unsigned long long first_bad = 0;
      CUZK_CUDA(cudaMemcpyAsync(&first_bad, bad.p, sizeof first_bad, cudaMemcpyDeviceToHost, s));
      s.sync();
      if (first_bad != ~0ull) {
        const uint64_t r = first_bad / 16;
        static const char* why[] = {
            "",
            "is marked long (255) but not in the long-row list",
            "is in a block whose row lengths disagree with the next block's offset",
            "has a column beyond w",
            "has a coefficient code beyond the coefficient table",
            "has an escape without a valid coefficient index after it",
        };
        std::string msg = "row " + std::to_string(r) + " " + why[first_bad % 16];
        if (first_bad % 16 == BAD_COLUMN) msg += " (" + std::to_string(d.cols) + " columns)";
        if (first_bad % 16 == BAD_CODE || first_bad % 16 == BAD_ESCAPE)
          msg += " (" + std::to_string(n_coeffs) + " coefficients)";
        throw error(CUZK_ERR_INVALID, msg);
      }
      size_t temp_bytes = 0;
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, count.p, offset.p, (int)(nb + 1), s));
      dbuf_t<uint8_t> temp(std::max<size_t>(temp_bytes, 1), s);
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, count.p, offset.p, (int)(nb + 1), s));
      uint32_t n_heavy = 0;
      CUZK_CUDA(cudaMemcpyAsync(&n_heavy, offset.p + nb, sizeof n_heavy, cudaMemcpyDeviceToHost, s));
      s.sync();
      m->n_heavy = n_heavy;
      m->heavy = dev_alloc<uint4>(n_heavy);
      if (n_heavy) {
        spmv_list_heavy<<<blocks, SPMV_THREADS, 0, s>>>(v, CUZK_SPMV_HEAVY, offset.p, m->heavy);
        CUZK_LAUNCHED();
      }
      s.sync();
    }
  } catch (...) {
    free_arrays(m);
    delete m;
    throw;
  }
  return m;
}

void matrix_free(cuzk_matrix* m) {
  if (!m) return;
  set_device(m->dev);
  free_arrays(m);
  delete m;
}

void matrix_mulvec(const cuzk_matrix* m, const cuzk_fr_buf_t* w, cuzk_fr_buf_t* out, uint64_t out_off) {
  require(m != nullptr, "matrix is NULL");
  require(w != nullptr && out != nullptr, "w or out is NULL");
  require(w != out, "w and out must be distinct buffers");
  require(w->dev == m->dev && out->dev == m->dev, "matrix, w and out must be on one device");
  require(w->n >= m->cols, "w has " + std::to_string(w->n) + " elements, the matrix reads " +
                               std::to_string(m->cols));
  check_range(out, out_off, m->rows);
  if (m->rows == 0) return;
  set_device(m->dev);
  stream_t s;
  const matrix_view_t v = view(m);
  const uint64_t nb = (m->rows + CUZK_ROW_BLOCK - 1) / CUZK_ROW_BLOCK;
  const unsigned blocks = (unsigned)((nb * CUZK_ROW_BLOCK + SPMV_THREADS - 1) / SPMV_THREADS);
  spmv_light<<<blocks, SPMV_THREADS, 0, s>>>(v, w->p, out->p + out_off, CUZK_SPMV_HEAVY);
  CUZK_LAUNCHED();
  if (m->n_heavy) {
    const unsigned hblocks = (unsigned)((m->n_heavy * 32 + SPMV_THREADS - 1) / SPMV_THREADS);
    spmv_heavy<<<hblocks, SPMV_THREADS, 0, s>>>(v, m->heavy, m->n_heavy, w->p, out->p + out_off);
    CUZK_LAUNCHED();
  }
  s.sync();
}

}  // namespace cuzk
