// The exported C ABI of libcuzk.so (include/cuzk.h) and nothing else: each
// entry point checks what it can, selects its device and calls the operation
// in ops.cuh inside guard, which turns every C++ exception into the
// cuzk_error_t it returns.
#include <cstdlib>
#include <cstring>
#include <new>

#include "curve.cuh"
#include "ops.cuh"

namespace cuzk {

// dup returns a malloc'd copy of s (NULL when out of memory), which the caller frees with cuzk_error_free.
static char* dup(const char* s) {
  size_t n = strlen(s);
  char* p = (char*)malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

// guard runs fn and returns CUZK_OK, or the code and "op: message" of the exception fn threw.
template <class Fn>
static cuzk_error_t guard(const char* op, Fn&& fn) {
  try {
    fn();
    return cuzk_error_t{CUZK_OK, nullptr};
  } catch (const error& e) {
    std::string m = std::string(op) + ": " + e.what();
    return cuzk_error_t{e.code, dup(m.c_str())};
  } catch (const std::bad_alloc&) {
    std::string m = std::string(op) + ": host allocation failed";
    return cuzk_error_t{CUZK_ERR_OOM, dup(m.c_str())};
  } catch (const std::exception& e) {
    std::string m = std::string(op) + ": " + e.what();
    return cuzk_error_t{CUZK_ERR_INTERNAL, dup(m.c_str())};
  } catch (...) {
    std::string m = std::string(op) + ": unknown exception";
    return cuzk_error_t{CUZK_ERR_INTERNAL, dup(m.c_str())};
  }
}

}  // namespace cuzk

using namespace cuzk;

extern "C" {

int cuzk_abi_version(void) { return CUZK_ABI_VERSION; }

void cuzk_error_free(char* msg) { free(msg); }

cuzk_error_t cuzk_device_count(int32_t* out) {
  return guard("device count", [&] {
    require(out != nullptr, "out is NULL");
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
      cudaGetLastError();
      *out = 0;
      return;
    }
    if (e != cudaSuccess) throw_cuda(e, "cudaGetDeviceCount", __FILE__, __LINE__);
    *out = n;
  });
}

cuzk_error_t cuzk_device_props(int32_t dev, cuzk_device_props_t* out) {
  return guard("device properties", [&] {
    require(out != nullptr, "out is NULL");
    set_device(dev);
    cudaDeviceProp p;
    CUZK_CUDA(cudaGetDeviceProperties(&p, dev));
    memset(out, 0, sizeof *out);
    strncpy(out->name, p.name, sizeof(out->name) - 1);
    size_t fr = 0, tot = 0;
    CUZK_CUDA(cudaMemGetInfo(&fr, &tot));
    out->total_mem = tot;
    out->pool_free_mem = pool_unused_bytes(dev);
    out->free_mem = fr + out->pool_free_mem;
    out->l2_bytes = p.l2CacheSize;
    out->major = p.major;
    out->minor = p.minor;
    out->sm_count = p.multiProcessorCount;
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev) == cudaSuccess) out->clock_khz = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) == cudaSuccess) out->mem_clock_khz = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess) out->mem_bus_bits = v;
  });
}

cuzk_error_t cuzk_fr_alloc(int32_t dev, uint64_t n, cuzk_fr_buf_t** out) {
  return guard("alloc scalars", [&] {
    require(out != nullptr, "out is NULL");
    require(n > 0, "n must be positive");
    set_device(dev);
    void* p = device_malloc(n * sizeof(fr_t));
    *out = new cuzk_fr_buf{dev, n, (fr_t*)p};
  });
}

cuzk_error_t cuzk_fr_free(cuzk_fr_buf_t* buf) {
  return guard("free scalars", [&] {
    if (!buf) return;
    set_device(buf->dev);
    cudaError_t e = cudaFree(buf->p);
    delete buf;
    if (e != cudaSuccess) throw_cuda(e, "cudaFree", __FILE__, __LINE__);
  });
}

cuzk_error_t cuzk_fr_upload(cuzk_fr_buf_t* buf, uint64_t off, const void* src, uint64_t n) {
  return guard("upload scalars", [&] {
    check_range(buf, off, n);
    require(src != nullptr || n == 0, "src is NULL");
    set_device(buf->dev);
    stream_t s;
    upload_pageable(buf->p + off, src, n * sizeof(fr_t), s);
  });
}

cuzk_error_t cuzk_fr_download(cuzk_fr_buf_t* buf, uint64_t off, void* dst, uint64_t n) {
  return guard("download scalars", [&] {
    check_range(buf, off, n);
    require(dst != nullptr || n == 0, "dst is NULL");
    set_device(buf->dev);
    stream_t s;
    read_back(static_cast<fr_t*>(dst), buf->p + off, n, s);
  });
}

cuzk_error_t cuzk_fr_zero(cuzk_fr_buf_t* buf, uint64_t off, uint64_t n) {
  return guard("zero scalars", [&] { fr_zero(buf, off, n); });
}

cuzk_error_t cuzk_fr_compact(cuzk_fr_buf_t* dst, uint64_t dst_off, const cuzk_fr_buf_t* src, uint64_t src_off,
                             uint64_t n, const uint64_t* mask, uint64_t* selected) {
  return guard("compact scalars", [&] { *selected = fr_compact(dst, dst_off, src, src_off, n, mask); });
}

cuzk_error_t cuzk_fr_mul(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* b, uint64_t n) {
  return guard("multiply scalars", [&] { fr_mul(a, b, n); });
}

cuzk_error_t cuzk_fr_quotient(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* c, uint32_t log_n, const void* z_inv) {
  return guard("quotient", [&] { fr_quotient(a, c, log_n, z_inv); });
}

cuzk_error_t cuzk_groth16_h(cuzk_fr_buf_t* a, cuzk_fr_buf_t* b, cuzk_fr_buf_t* c, uint32_t log_n, const void* shift,
                            uint64_t* device_ns) {
  return guard("groth16 quotient", [&] { groth16_h(a, b, c, log_n, shift, device_ns); });
}

cuzk_error_t cuzk_ntt_device(cuzk_fr_buf_t* buf, uint64_t off, uint32_t log_n, const cuzk_ntt_cfg_t* cfg) {
  return guard("ntt", [&] {
    require(cfg != nullptr, "cfg is NULL");
    check_log_n(log_n);
    check_range(buf, off, 1ull << log_n);
    set_device(buf->dev);
    stream_t s;
    ntt_run(buf->dev, buf->p + off, log_n, *cfg, s);
    s.sync();
  });
}

cuzk_error_t cuzk_ntt_host(int32_t dev, void* data, uint32_t log_n, const cuzk_ntt_cfg_t* cfg) {
  return guard("ntt", [&] {
    require(cfg != nullptr, "cfg is NULL");
    require(data != nullptr, "data is NULL");
    check_log_n(log_n);
    set_device(dev);
    stream_t s;
    uint64_t n = 1ull << log_n;
    dbuf_t<fr_t> d(n, s);
    upload_pageable(d.p, data, n * sizeof(fr_t), s);
    ntt_run(dev, d.p, log_n, *cfg, s);
    read_back(static_cast<fr_t*>(data), d.p, n, s);
  });
}

cuzk_error_t cuzk_ntt_table(int32_t dev, uint32_t log_n) {
  return guard("ntt table", [&] {
    set_device(dev);
    ntt_full_table(dev, log_n);
  });
}

cuzk_error_t cuzk_bases_upload(int32_t dev, int32_t group, const void* points, uint64_t n, cuzk_bases_t** out) {
  return guard("upload bases", [&] {
    require(out != nullptr, "out is NULL");
    require(group == 1 || group == 2, "group must be 1 or 2, got " + std::to_string(group));
    require(n > 0 && n <= MAX_BASES, "number of bases must be in [1, 2^31), got " + std::to_string(n));
    require(points != nullptr, "points is NULL");
    set_device(dev);
    size_t sz = group == 1 ? sizeof(g1_affine_t) : sizeof(g2_affine_t);
    void* p = device_malloc(n * sz);
    try {
      stream_t s;
      upload_pageable(p, points, n * sz, s);
    } catch (...) {
      cudaFree(p);
      throw;
    }
    *out = new cuzk_bases{dev, group, n, p};
  });
}

cuzk_error_t cuzk_bases_alloc(int32_t dev, int32_t group, uint64_t n, cuzk_bases_t** out) {
  return guard("alloc bases", [&] {
    require(out != nullptr, "out is NULL");
    require(group == 1 || group == 2, "group must be 1 or 2, got " + std::to_string(group));
    require(n > 0 && n <= MAX_BASES, "number of bases must be in [1, 2^31), got " + std::to_string(n));
    set_device(dev);
    size_t sz = group == 1 ? sizeof(g1_affine_t) : sizeof(g2_affine_t);
    void* p = device_malloc(n * sz);
    *out = new cuzk_bases{dev, group, n, p};
  });
}

cuzk_error_t cuzk_bases_write(cuzk_bases_t* b, uint64_t off, const void* points, uint64_t count) {
  return guard("write bases", [&] {
    check_bases_write(b, off, count);
    require(points != nullptr || count == 0, "points is NULL");
    if (count == 0) return;
    set_device(b->dev);
    size_t sz = b->group == 1 ? sizeof(g1_affine_t) : sizeof(g2_affine_t);
    stream_t s;
    upload_pageable((char*)b->p + off * sz, points, count * sz, s);
  });
}

cuzk_error_t cuzk_bases_write_encoded(cuzk_bases_t* b, uint64_t off, const void* encoded, uint64_t count,
                                      uint64_t* bad_index, uint32_t* reason) {
  return guard("write encoded bases", [&] {
    check_bases_write(b, off, count);
    require(bad_index != nullptr && reason != nullptr, "bad_index or reason is NULL");
    require(encoded != nullptr || count == 0, "encoded is NULL");
    *bad_index = 0;
    *reason = 0;
    if (count == 0) return;
    set_device(b->dev);
    *bad_index = bases_write_encoded(b, off, encoded, count, reason);
  });
}

cuzk_error_t cuzk_bases_shift(cuzk_bases_t* b) {
  return guard("shift table", [&] {
    require(b != nullptr, "bases is NULL");
    set_device(b->dev);
    bases_shift(b);
  });
}

// drop_table frees the table of b at slot (its shift or pair table), if any.
static void drop_table(cuzk_bases* b, void* cuzk_bases::*slot) {
  require(b != nullptr, "bases is NULL");
  if (!(b->*slot)) return;
  set_device(b->dev);
  void* q = b->*slot;
  b->*slot = nullptr;
  CUZK_CUDA(cudaFree(q));
}

cuzk_error_t cuzk_bases_unshift(cuzk_bases_t* b) {
  return guard("free shift table", [&] { drop_table(b, &cuzk_bases::shifted); });
}

cuzk_error_t cuzk_bases_pair(cuzk_bases_t* b) {
  return guard("pair table", [&] {
    require(b != nullptr, "bases is NULL");
    set_device(b->dev);
    bases_pair(b);
  });
}

cuzk_error_t cuzk_bases_unpair(cuzk_bases_t* b) {
  return guard("free pair table", [&] { drop_table(b, &cuzk_bases::pairs); });
}

cuzk_error_t cuzk_bases_free(cuzk_bases_t* b) {
  return guard("free bases", [&] {
    if (!b) return;
    set_device(b->dev);
    cudaError_t e = cudaFree(b->p);
    cudaError_t e2 = b->shifted ? cudaFree(b->shifted) : cudaSuccess;
    cudaError_t e3 = b->pairs ? cudaFree(b->pairs) : cudaSuccess;
    delete b;
    if (e != cudaSuccess) throw_cuda(e, "cudaFree", __FILE__, __LINE__);
    if (e2 != cudaSuccess) throw_cuda(e2, "cudaFree", __FILE__, __LINE__);
    if (e3 != cudaSuccess) throw_cuda(e3, "cudaFree", __FILE__, __LINE__);
  });
}

cuzk_error_t cuzk_msm_host(cuzk_bases_t* b, const void* scalars, uint64_t n, void* out) {
  return guard("msm", [&] {
    require(b != nullptr && out != nullptr, "bases or out is NULL");
    check_msm(b, n);
    require(scalars != nullptr, "scalars is NULL");
    set_device(b->dev);
    stream_t s;
    dbuf_t<fr_t> d(n, s);
    upload_pageable(d.p, scalars, n * sizeof(fr_t), s);
    msm_run(b, d.p, n, out, s);
  });
}

cuzk_error_t cuzk_msm_device(cuzk_bases_t* b, cuzk_fr_buf_t* sc, uint64_t off, uint64_t n, void* out) {
  return guard("msm", [&] {
    require(b != nullptr && out != nullptr, "bases or out is NULL");
    check_msm(b, sc, off, n);
    set_device(b->dev);
    stream_t s;
    msm_run(b, sc->p + off, n, out, s);
  });
}

cuzk_error_t cuzk_msm_batch(cuzk_msm_job_t* jobs, uint32_t count, void* out) {
  return guard("msm batch", [&] { msm_batch(jobs, count, out); });
}

#ifdef CUZK_TEST_KERNELS
cuzk_error_t cuzk_debug_field(int32_t dev, int32_t field, int32_t op, const void* a, const void* b, void* out,
                              uint64_t n) {
  return guard("debug field", [&] { debug_field(dev, field, op, a, b, out, n); });
}
#endif


// ---- Fixed-base scalar multiplication ----

cuzk_error_t cuzk_fixedbase_new(int32_t dev, int32_t group, const void* base, cuzk_fixedbase_t** out) {
  return guard("fixed-base table", [&] {
    require(out != nullptr, "out is NULL");
    require(group == 1 || group == 2, "group must be 1 or 2, got " + std::to_string(group));
    require(base != nullptr, "base is NULL");
    set_device(dev);
    void* table = fixedbase_table(group, base);
    *out = new (std::nothrow) cuzk_fixedbase{dev, group, table};
    if (!*out) {
      cudaFree(table);
      throw error(CUZK_ERR_OOM, "host allocation failed");
    }
  });
}

cuzk_error_t cuzk_fixedbase_free(cuzk_fixedbase_t* fb) {
  return guard("free fixed-base table", [&] {
    if (!fb) return;
    set_device(fb->dev);
    cudaError_t e = cudaFree(fb->table);
    delete fb;
    if (e != cudaSuccess) throw_cuda(e, "cudaFree", __FILE__, __LINE__);
  });
}

cuzk_error_t cuzk_g1_dft(int32_t dev, const void* points, uint64_t n, uint32_t log_n, const void* omega,
                         const void* twist, const void* scale, void* out, uint64_t* stages_done,
                         const int32_t* cancel) {
  return guard("g1 dft", [&] { g1_dft(dev, points, n, log_n, omega, twist, scale, out, stages_done, cancel); });
}

cuzk_error_t cuzk_fixedbase_mul(cuzk_fixedbase_t* fb, const void* scalars, uint64_t n, void* out) {
  return guard("fixed-base multiplication", [&] {
    require(fb != nullptr, "handle is NULL");
    if (n == 0) return;
    require(scalars != nullptr && out != nullptr, "scalars or out is NULL");
    set_device(fb->dev);
    fixedbase_mul(fb, scalars, n, out);
  });
}


// ---- Resident constraint matrices and compact witnesses ----
cuzk_error_t cuzk_matrix_upload(int32_t dev, const cuzk_matrix_desc_t* desc, const void* coeffs, uint64_t n_coeffs,
                                cuzk_matrix_t** out) {
  return guard("upload matrix", [&] {
    require(out != nullptr, "out is NULL");
    require(desc != nullptr, "desc is NULL");
    *out = matrix_upload(dev, *desc, coeffs, n_coeffs);
  });
}

cuzk_error_t cuzk_matrix_free(cuzk_matrix_t* m) {
  return guard("free matrix", [&] { matrix_free(m); });
}

cuzk_error_t cuzk_matrix_mulvec(const cuzk_matrix_t* const* ms, cuzk_fr_buf_t* const* outs, uint32_t count,
                                const cuzk_fr_buf_t* w, uint64_t out_off) {
  return guard("matrix times vector", [&] { matrix_mulvec(ms, outs, count, w, out_off); });
}

cuzk_error_t cuzk_witness_decode(cuzk_fr_buf_t* dst, uint64_t off, uint64_t n, const uint64_t* classes,
                                 const void* others, uint64_t n_others, const uint32_t* block_others) {
  return guard("decode witness", [&] { witness_decode(dst, off, n, classes, others, n_others, block_others); });
}
cuzk_error_t cuzk_fr_copy(cuzk_fr_buf_t* dst, uint64_t dst_off, const cuzk_fr_buf_t* src, uint64_t src_off,
                          uint64_t n) {
  return guard("copy scalars", [&] {
    check_range(dst, dst_off, n);
    check_range(src, src_off, n);
    require(dst->dev == src->dev, "dst and src must be on one device");
    require(dst != src || dst_off + n <= src_off || src_off + n <= dst_off, "the ranges overlap");
    if (n == 0) return;
    set_device(dst->dev);
    stream_t s;
    CUZK_CUDA(cudaMemcpyAsync(dst->p + dst_off, src->p + src_off, n * sizeof(fr_t), cudaMemcpyDeviceToDevice, s));
    s.sync();
  });
}
// ---- end of matrices and compact witnesses ----

}  // extern "C"
