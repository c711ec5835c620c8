// Internal helpers of libcuzk: error type, CUDA checks, RAII wrappers for
// streams and stream-ordered device allocations, per-device context.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../include/cuzk.h"
#include "ec.cuh"
#include "field.cuh"

namespace cuzk {

// error carries a cuzk error code and message; thrown inside the library and
// turned into cuzk_error_t at the ABI boundary.
struct error : std::runtime_error {
  int code;
  error(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  int code = CUZK_ERR_CUDA;
  if (e == cudaErrorMemoryAllocation) code = CUZK_ERR_OOM;
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) code = CUZK_ERR_NO_DEVICE;
  char buf[512];
  snprintf(buf, sizeof buf, "%s: %s (%s at %s:%d)", cudaGetErrorName(e), cudaGetErrorString(e), what, file, line);
  throw error(code, buf);
}

#define CUZK_CUDA(call)                                                  \
  do {                                                                   \
    cudaError_t e_ = (call);                                             \
    if (e_ != cudaSuccess) ::cuzk::throw_cuda(e_, #call, __FILE__, __LINE__); \
  } while (0)

#define CUZK_LAUNCHED() CUZK_CUDA(cudaGetLastError())

inline void require(bool ok, const std::string& msg) {
  if (!ok) throw error(CUZK_ERR_INVALID, msg);
}

// stream_t owns a non-blocking stream.
struct stream_t {
  cudaStream_t s = nullptr;
  stream_t() { CUZK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_t() {
    if (s) cudaStreamDestroy(s);
  }
  stream_t(const stream_t&) = delete;
  stream_t& operator=(const stream_t&) = delete;
  void sync() { CUZK_CUDA(cudaStreamSynchronize(s)); }
  operator cudaStream_t() const { return s; }
};

// dbuf_t is a stream-ordered device allocation of n elements of T.
template <class T>
struct dbuf_t {
  T* p = nullptr;
  size_t n = 0;
  cudaStream_t s = nullptr;
  dbuf_t() = default;
  dbuf_t(size_t count, cudaStream_t st) : n(count), s(st) {
    if (n) CUZK_CUDA(cudaMallocAsync((void**)&p, n * sizeof(T), s));
  }
  ~dbuf_t() { reset(); }
  void reset() {
    if (p) cudaFreeAsync(p, s);
    p = nullptr;
    n = 0;
  }
  dbuf_t(const dbuf_t&) = delete;
  dbuf_t& operator=(const dbuf_t&) = delete;
  dbuf_t(dbuf_t&& o) noexcept : p(o.p), n(o.n), s(o.s) { o.p = nullptr; o.n = 0; }
  dbuf_t& operator=(dbuf_t&& o) noexcept {
    reset();
    p = o.p; n = o.n; s = o.s;
    o.p = nullptr; o.n = 0;
    return *this;
  }
  operator T*() const { return p; }
};

// set_device selects dev for the calling thread after checking the index.
void set_device(int dev);

// pow_table gives x^e for e < 2^28 as lo[e mod 2^14]·hi[e >> 14].
struct pow_table {
  const fr_t* lo;
  const fr_t* hi;
};
constexpr int POW_BITS = 14;
constexpr int NTT_MAX_LOG = 28;

// ntt_twiddles are the powers of one root of unity (ω_{2^28} or its inverse):
// pow for any exponent (two lookups and a product), and diag[x] = ω_{2^DIAG_BITS}^x
// for x < 2^DIAG_BITS (one lookup; 8 MiB, resident in L2), which serves every
// twiddle diagonal of a sub-transform of size ≤ 2^DIAG_BITS.
constexpr int DIAG_BITS = 18;
struct ntt_twiddles {
  pow_table pow;
  const fr_t* diag;
};

// The device context holds, per device, the twiddles of ω = ω_{2^28} and ω⁻¹
// and the coset powers of the shifts used so far.
struct coset_tables {
  fr_t shift;
  pow_table fwd, inv;
};
struct device_ctx {
  int dev;
  std::mutex mu;
  bool ntt_ready = false;
  ntt_twiddles omega{}, omega_inv{};
  std::vector<coset_tables> cosets;
  std::vector<void*> allocations;  // owned device tables, freed never (process lifetime)
};
device_ctx& ctx_for(int dev);
void ntt_tables(device_ctx& c, ntt_twiddles* omega, ntt_twiddles* omega_inv);
coset_tables coset_for(device_ctx& c, const fr_t& shift);

// Opaque handle types of the ABI.
}  // namespace cuzk

struct cuzk_fr_buf {
  int dev;
  uint64_t n;
  cuzk::fr_t* p;
};

struct cuzk_bases {
  int dev;
  int group;
  uint64_t n;
  void* p;
};

namespace cuzk {
void ntt_run(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t& cfg, cudaStream_t s);
void msm_run(const cuzk_bases* b, const fr_t* d_scalars, uint64_t n, void* out, cudaStream_t s);
// check_range refuses a NULL buffer or a range [off, off+n) outside it.
void check_range(const cuzk_fr_buf_t* b, uint64_t off, uint64_t n);
void fr_zero(cuzk_fr_buf_t* buf, uint64_t off, uint64_t n);
// upload_pageable copies bytes from pageable host memory to the device and waits for the copy.
void upload_pageable(void* dst, const void* src, size_t bytes, cudaStream_t s);
uint64_t fr_compact(cuzk_fr_buf_t* dst, uint64_t dst_off, const cuzk_fr_buf_t* src, uint64_t src_off, uint64_t n,
                    const uint64_t* mask);
void fr_h_pointwise(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* b, const cuzk_fr_buf_t* c, uint64_t n, const void* z_inv);
}  // namespace cuzk
