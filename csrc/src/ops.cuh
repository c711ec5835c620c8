// The library's operations behind the ABI: the opaque handle types of
// include/cuzk.h and one C++ function per operation, each defined in the file
// named beside it. api.cu checks the arguments it can, selects the device and
// calls these; they throw cuzk::error.
#pragma once
#include <cstdint>
#include <string>

#include "device.cuh"
#include "field.cuh"
#include "ntt.cuh"

struct cuzk_fr_buf {
  int dev;
  uint64_t n;
  cuzk::fr_t* p;
};

struct cuzk_bases {
  int dev;
  int group;  // 1: G1 (affine_t<fp_t>), 2: G2 (affine_t<fp2_t>)
  uint64_t n;
  void* p;
  void* shifted = nullptr;  // G1 only, after cuzk_bases_shift: 2^128·p[i] at i < n, which MSMs use
  void* pairs = nullptr;    // after cuzk_bases_pair: p[2k] + p[2k+1] at k < n/2, which MSMs use
};

namespace cuzk {

// NTT_MAX_LOG bounds NTT sizes to 2^28: the twiddle tables hold the powers of
// ω_{2^28} (ntt.cuh), and 2^28 Fr elements are 8 GiB.
constexpr int NTT_MAX_LOG = 28;

// MAX_BASES bounds the number of MSM bases to 2^31 − 1: a signed digit
// carries its point's index in 31 bits and the sign in bit 31 (msm.cuh).
constexpr uint64_t MAX_BASES = (1ull << 31) - 1;
// MAX_SHIFTED_BASES bounds bases with a shift table to 2^30: a pair's value
// also carries the table (bit 30, msm.cuh's SHIFTED).
constexpr uint64_t MAX_SHIFTED_BASES = 1ull << 30;

// check_range refuses a NULL buffer or a range [off, off+n) outside it.
inline void check_range(const cuzk_fr_buf_t* b, uint64_t off, uint64_t n) {
  require(b != nullptr, "buffer is NULL");
  require(off <= b->n && n <= b->n - off,
          "range [" + std::to_string(off) + ", " + std::to_string(off + n) + ") exceeds buffer of " +
              std::to_string(b->n) + " elements");
}

// check_log_n refuses a transform size 2^log_n outside [2, 2^NTT_MAX_LOG].
inline void check_log_n(uint32_t log_n) {
  require(log_n >= 1 && log_n <= NTT_MAX_LOG, "log_n must be in [1, 28], got " + std::to_string(log_n));
}

// check_bases_write refuses a write of bases b[off : off+count]: b NULL, the range outside b, or
// b with a shift or pair table (built from the points written before it, the table would not
// follow).
inline void check_bases_write(const cuzk_bases* b, uint64_t off, uint64_t count) {
  require(b != nullptr, "bases is NULL");
  require(off <= b->n && count <= b->n - off, "range [" + std::to_string(off) + ", " + std::to_string(off + count) +
                                                  ") exceeds " + std::to_string(b->n) + " bases");
  require(!b->shifted, "the bases have a shift table, built from the points written before it");
  require(!b->pairs, "the bases have a pair table, built from the points written before it");
}

// check_msm refuses an MSM of n scalars over the bases b unless 1 ≤ n ≤ their number.
inline void check_msm(const cuzk_bases* b, uint64_t n) {
  require(n >= 1 && n <= b->n, "n = " + std::to_string(n) + " must be in [1, " + std::to_string(b->n) + "]");
}

// check_msm refuses an MSM of the scalars sc[off : off+n] over the bases b: n out of bounds, a
// range outside sc, or sc on another device than b.
inline void check_msm(const cuzk_bases* b, const cuzk_fr_buf_t* sc, uint64_t off, uint64_t n) {
  check_msm(b, n);
  check_range(sc, off, n);
  require(sc->dev == b->dev, "scalars and bases live on different devices");
}

// ntt.cu: the transform of cuzk_ntt_cfg_t in place on d[0 : 2^log_n], enqueued on s; with times,
// each output element d[i] is multiplied by times[i] as the last pass stores it (only from
// bit-reversed to natural order, and refused for a transform whose last pass scales its output).
void ntt_run(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t& cfg, cudaStream_t s,
             const fr_t* times = nullptr);
// ntt_extra is what a transform of a chain adds to its cuzk_ntt_cfg_t: times (each output d[i]
// multiplied by times[i] as ntt_run's times), minus (minus[i] subtracted from each output: on the
// last pass's store where ntt_set_minus allows, else by an element-wise pass after the chain;
// the chain's last transform only) and inv_scale (an inverse without coset scales its output by
// inv_scale·n⁻¹ instead of n⁻¹, on the table or the constant that carries n⁻¹: no product of its
// own; a table per size and scale, kept as the others are).
struct ntt_extra {
  const fr_t* times = nullptr;
  const fr_t* minus = nullptr;
  fr_t inv_scale = fr_t::one();
};
// ntt.cu: the transforms cfgs[0 : count] one after the other on d (extras[t], when extras is
// given, transform t's ntt_extra); count ≤ NTT_CHAIN_MAX (ntt.cuh).
void ntt_run_chain(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t* cfgs, const ntt_extra* extras,
                   uint32_t count, cudaStream_t s);
// ntt.cu: cuzk_ntt_table's table (ntt_twiddles.full) on dev for transforms up to 2^log_n, or
// none for log_n = 0.
void ntt_full_table(int dev, uint32_t log_n);

// msm.cu: Σ scalars[i]·bases[i] for i < n, Jacobian result to host memory out; waits for s.
void msm_run(const cuzk_bases* b, const fr_t* d_scalars, uint64_t n, void* out, cudaStream_t s);
// msm.cu: b->shifted = 2^128·b->p[i] for every base (cuzk_bases_shift).
void bases_shift(cuzk_bases* b);
// msm.cu: b->pairs = b->p[2k] + b->p[2k+1] for k < n/2 (cuzk_bases_pair).
void bases_pair(cuzk_bases* b);
// msm.cu: the jobs one after the other on one stream, every job checked before the first runs;
// results to out in job order, each job's time to its device_ns (cuzk_msm_batch).
void msm_batch(cuzk_msm_job_t* jobs, uint32_t count, void* out);

// vector.cu: element-wise operations on scalar buffers, each on its own stream, waited for.
void fr_zero(cuzk_fr_buf_t* buf, uint64_t off, uint64_t n);
uint64_t fr_compact(cuzk_fr_buf_t* dst, uint64_t dst_off, const cuzk_fr_buf_t* src, uint64_t src_off, uint64_t n,
                    const uint64_t* mask);
void fr_mul(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* b, uint64_t n);
void fr_quotient(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* c, uint32_t log_n, const void* z_inv);
// vector.cu: Groth16's whole quotient on one stream, waited for once (cuzk_groth16_h).
void groth16_h(cuzk_fr_buf_t* a, cuzk_fr_buf_t* b, cuzk_fr_buf_t* c, uint32_t log_n, const void* shift,
               uint64_t* device_ns);

// decode.cu: copies count encoded points (96 or 192 bytes each) from host memory to
// b[off : off+count] and decodes them there (decode.cuh); returns the lowest failing
// index among them and sets *reason to its decode_reason_t, or sets *reason = 0.
uint64_t bases_write_encoded(cuzk_bases* b, uint64_t off, const void* enc, uint64_t count, uint32_t* reason);

// staging.cu: copies bytes from pageable host memory to the device and waits for the copy.
void upload_pageable(void* dst, const void* src, size_t bytes, cudaStream_t s);

#ifdef CUZK_TEST_KERNELS
// test_kernels.cu: out[i] = a[i] op b[i] for the field and op numbers of cuzk_debug_field.
void debug_field(int dev, int field, int op, const void* a, const void* b, void* out, uint64_t n);
#endif

}  // namespace cuzk

// ---- Fixed-base scalar multiplication (fixedbase.cuh, fixedbase.cu) ----

// cuzk_fixedbase holds one base's table of multiples on its device.
struct cuzk_fixedbase {
  int dev;
  int group;    // 1: G1, 2: G2
  void* table;  // device_malloc'd, FB_TABLE affine points
};

namespace cuzk {

// fixedbase.cu: the device_malloc'd table of base (a G1 or G2 affine point by
// group) on the current device.
void* fixedbase_table(int group, const void* base);
// fixedbase.cu: out[i] = scalars[i]·base for i < n, host memory in and out;
// throws CUZK_ERR_INVALID naming the first scalar ≥ r.
void fixedbase_mul(const cuzk_fixedbase* fb, const void* scalars, uint64_t n, void* out);
// g1dft.cu: out = the transform of the n_in host points in (cuzk_g1_dft), reporting the stages
// done in *stages_done and stopping once *cancel is nonzero (either NULL: not used).
void g1_dft(int dev, const void* in, uint64_t n_in, uint32_t log_n, const void* omega, const void* twist,
            const void* scale, void* out, uint64_t* stages_done, const int32_t* cancel);

}  // namespace cuzk

// ---- Resident constraint matrices and compact witnesses (spmv.cu, witness.cu) ----
namespace cuzk {

// spmv.cu: the matrix of desc and its coefficient table, checked and copied to device dev
// (cuzk_matrix_upload); matrix_free releases it.
cuzk_matrix* matrix_upload(int dev, const cuzk_matrix_desc_t& desc, const void* coeffs, uint64_t n_coeffs);
void matrix_free(cuzk_matrix* m);
// spmv.cu: outs[i][out_off + r] = ⟨row r of ms[i], w⟩ for every row of each of the count matrices
// (cuzk_matrix_mulvec), waited for.
void matrix_mulvec(const cuzk_matrix* const* ms, cuzk_fr_buf_t* const* outs, uint32_t count, const cuzk_fr_buf_t* w,
                   uint64_t out_off);

// witness.cu: a compact witness decoded into dst[off : off+n] (cuzk_witness_decode), waited for.
void witness_decode(cuzk_fr_buf_t* dst, uint64_t off, uint64_t n, const uint64_t* classes, const void* others,
                    uint64_t n_others, const uint32_t* block_others);

}  // namespace cuzk
