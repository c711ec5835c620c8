// Constraint matrices resident on the device and their product with the
// assignment w: out[r] = Σ coeff·w[col] over the terms of row r (A·w, B·w,
// C·w of Groth16), from synth.Matrix's compact rows (include/cuzk.h).
//
// Algorithm (one call of matrix_mulvec, for one w and one or more matrices):
//  0. w's elements are classified once (witness_classify: 0, 1 or other, 2
//     bits each, a compact witness's class words), and their others counted.
//     When at most 3/4 of them are others, the products read the classes:
//     a term on a 0 is skipped, one on a 1 adds its coefficient, and only a
//     term on another value reads w's 32 bytes (in PoRep 1.7 % of terms; the
//     class words take n/4 bytes, which L2 can hold).
//  1. Rows are taken 32 at a time, one row block (CUZK_ROW_BLOCK = 32) per
//     warp and one row per lane. Each lane reads its row's length byte (a long
//     row's length by a binary search in the long-row list), and an inclusive
//     warp scan of the lengths added to the block's offset gives every lane the
//     first word of its row (row_span).
//  2. Light rows (fewer than CUZK_SPMV_HEAVY words: in PoRep all but 0.3 %)
//     are summed by their lane (row_dot, row_dot_classed): terms of
//     coefficient ±1 are an addition or a subtraction; each lane stops at its
//     next term that needs a product and the warp does those together, so a
//     warp pays as many products as its row with the most of them has, not as
//     many as its longest row has terms.
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
#include "spmv.cuh"

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

static matrix_view_t view(const cuzk_matrix* m) {
  return matrix_view_t{m->row_len, m->block_ptr, m->long_rows, m->long_lens, m->words, m->coeffs,
                       m->rows,    (uint32_t)m->n_long, m->col_bits};
}

// dev_alloc returns n elements of T in device memory (nullptr for n = 0).
template <class T>
static T* dev_alloc(uint64_t n) {
  return n ? (T*)device_malloc(n * sizeof(T)) : nullptr;
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
      read_back(&first_bad, bad.p, 1, s);
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
      read_back(&n_heavy, offset.p + nb, 1, s);
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

// Reading w's classes pays when most of w is 0 or 1 (PoRep's: 98.9 %): each term then reads an
// 8-byte class word, from an array a 128th of w's size, before, at most, w's 32 bytes.
// matrix_mulvec reads them when at most CLASSED_OTHERS_NUM/CLASSED_OTHERS_DEN of w's elements
// are others.
constexpr uint64_t CLASSED_OTHERS_NUM = 3, CLASSED_OTHERS_DEN = 4;

void matrix_mulvec(const cuzk_matrix* const* ms, cuzk_fr_buf_t* const* outs, uint32_t count, const cuzk_fr_buf_t* w,
                   uint64_t out_off) {
  require(count >= 1, "no matrices");
  require(ms != nullptr && outs != nullptr, "ms or outs is NULL");
  require(w != nullptr, "w is NULL");
  uint64_t cols = 0;
  for (uint32_t i = 0; i < count; i++) {
    const std::string which = "matrix " + std::to_string(i);
    const cuzk_matrix* m = ms[i];
    require(m != nullptr && outs[i] != nullptr, which + ": the matrix or its output is NULL");
    require(outs[i] != w, which + ": w and the output must be distinct buffers");
    for (uint32_t j = 0; j < i; j++) require(outs[j] != outs[i], which + ": the same output as matrix " + std::to_string(j));
    require(w->dev == m->dev && outs[i]->dev == m->dev, which + ": the matrix, w and the output must be on one device");
    require(w->n >= m->cols, which + ": w has " + std::to_string(w->n) + " elements, the matrix reads " +
                                 std::to_string(m->cols));
    check_range(outs[i], out_off, m->rows);
    cols = std::max(cols, m->cols);
  }
  set_device(w->dev);
  stream_t s;
  const uint64_t n_words = (cols + 31) / 32;
  dbuf_t<uint64_t> classes(n_words, s);
  dbuf_t<unsigned long long> n_others(1, s);
  CUZK_CUDA(cudaMemsetAsync(n_others.p, 0, sizeof(unsigned long long), s));
  const uint64_t classify_blocks = std::min<uint64_t>((n_words + SPMV_THREADS / 32 - 1) / (SPMV_THREADS / 32), 4096);
  witness_classify<<<(unsigned)classify_blocks, SPMV_THREADS, 0, s>>>(w->p, cols, classes.p, n_others.p);
  CUZK_LAUNCHED();
  unsigned long long others = 0;
  read_back(&others, n_others.p, 1, s);
  const bool classed = others * CLASSED_OTHERS_DEN <= cols * CLASSED_OTHERS_NUM;
  for (uint32_t i = 0; i < count; i++) {
    const cuzk_matrix* m = ms[i];
    if (m->rows == 0) continue;
    const matrix_view_t v = view(m);
    fr_t* out = outs[i]->p + out_off;
    const uint64_t nb = (m->rows + CUZK_ROW_BLOCK - 1) / CUZK_ROW_BLOCK;
    const unsigned blocks = (unsigned)((nb * CUZK_ROW_BLOCK + SPMV_THREADS - 1) / SPMV_THREADS);
    if (classed)
      spmv_light<true><<<blocks, SPMV_THREADS, 0, s>>>(v, w->p, classes.p, out, CUZK_SPMV_HEAVY);
    else
      spmv_light<false><<<blocks, SPMV_THREADS, 0, s>>>(v, w->p, nullptr, out, CUZK_SPMV_HEAVY);
    CUZK_LAUNCHED();
    if (m->n_heavy) {
      const unsigned hblocks = (unsigned)((m->n_heavy * 32 + SPMV_THREADS - 1) / SPMV_THREADS);
      if (classed)
        spmv_heavy<true><<<hblocks, SPMV_THREADS, 0, s>>>(v, m->heavy, m->n_heavy, w->p, classes.p, out);
      else
        spmv_heavy<false><<<hblocks, SPMV_THREADS, 0, s>>>(v, m->heavy, m->n_heavy, w->p, nullptr, out);
      CUZK_LAUNCHED();
    }
  }
  s.sync();
}

}  // namespace cuzk
