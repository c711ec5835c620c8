// Batch fixed-base scalar multiplication on G1 and G2 (fixedbase.cuh): the
// per-base table, built once per handle, and the chunked passes of
// fixedbase_mul, which stream host scalars in and host affine points out.
#include <algorithm>
#include <vector>

#include "fixedbase.cuh"
#include "ops.cuh"

namespace cuzk {

// fb_build returns a cudaMalloc'd table of FB_TABLE affine points for base on
// the current device: window bases 2^(c·w)·base on the host, the multiples on
// the device.
template <class F>
static void* fb_build(const affine_t<F>& base) {
  std::vector<affine_t<F>> wbase(FB_W);
  xyzz_t<F> p = xyzz_t<F>::from_affine(base);
  for (int w = 0; w < FB_W; w++) {
    wbase[w] = fb_affine(p);
    for (int b = 0; b < FB_C; b++) p.dbl();
  }
  void* table = nullptr;
  CUZK_CUDA(cudaMalloc(&table, FB_TABLE * sizeof(affine_t<F>)));
  try {
    stream_t s;
    dbuf_t<affine_t<F>> dwbase(FB_W, s);
    try {
      CUZK_CUDA(cudaMemcpyAsync(dwbase.p, wbase.data(), FB_W * sizeof(affine_t<F>), cudaMemcpyHostToDevice, s));
      fb_table<F><<<(unsigned)((FB_TABLE + FB_THREADS - 1) / FB_THREADS), FB_THREADS, 0, s>>>(dwbase.p,
                                                                                              (affine_t<F>*)table);
      CUZK_LAUNCHED();
      s.sync();
    } catch (...) {
      cudaStreamSynchronize(s);
      throw;
    }
  } catch (...) {
    cudaFree(table);
    throw;
  }
  return table;
}

void* fixedbase_table(int group, const void* base) {
  if (group == 1) return fb_build(*(const g1_affine_t*)base);
  return fb_build(*(const g2_affine_t*)base);
}

// fb_mul runs fixedbase_mul for the point type affine_t<F>, in chunks of at
// most FB_CHUNK points: upload the scalars, accumulate, convert to affine,
// download the points and the smallest invalid scalar index, and wait.
template <class F>
static void fb_mul(const cuzk_fixedbase* fb, const fr_t* scalars, uint64_t n, affine_t<F>* out) {
  const affine_t<F>* table = (const affine_t<F>*)fb->table;
  const uint64_t chunk = std::min(n, FB_CHUNK);
  stream_t s;
  dbuf_t<fr_t> dscalars(chunk, s);
  dbuf_t<xyzz_t<F>> dxyzz(chunk, s);
  dbuf_t<affine_t<F>> daffine(chunk, s);
  dbuf_t<unsigned long long> dbad(1, s);
  try {
    for (uint64_t off = 0; off < n; off += chunk) {
      const uint64_t m = std::min(chunk, n - off);
      upload_pageable(dscalars.p, scalars + off, m * sizeof(fr_t), s);
      CUZK_CUDA(cudaMemsetAsync(dbad.p, 0xff, sizeof(unsigned long long), s));
      fb_accumulate<F><<<(unsigned)((m + FB_THREADS - 1) / FB_THREADS), FB_THREADS, 0, s>>>(table, dscalars.p, m,
                                                                                            dxyzz.p, dbad.p);
      CUZK_LAUNCHED();
      const uint64_t threads = (m + FB_BATCH - 1) / FB_BATCH;
      fb_to_affine<F><<<(unsigned)((threads + FB_THREADS - 1) / FB_THREADS), FB_THREADS, 0, s>>>(dxyzz.p, daffine.p,
                                                                                                 m, threads);
      CUZK_LAUNCHED();
      unsigned long long bad = 0;
      CUZK_CUDA(cudaMemcpyAsync(&bad, dbad.p, sizeof bad, cudaMemcpyDeviceToHost, s));
      CUZK_CUDA(cudaMemcpyAsync(out + off, daffine.p, m * sizeof(affine_t<F>), cudaMemcpyDeviceToHost, s));
      s.sync();
      if (bad != ~0ull)
        throw error(CUZK_ERR_INVALID, "scalar " + std::to_string(off + bad) +
                                          " of the call is not a valid fr.Element (its Montgomery limbs are >= r)");
    }
  } catch (...) {
    cudaStreamSynchronize(s);  // no copy may still write to out after the call returns
    throw;
  }
}

void fixedbase_mul(const cuzk_fixedbase* fb, const void* scalars, uint64_t n, void* out) {
  if (fb->group == 1) {
    fb_mul(fb, (const fr_t*)scalars, n, (g1_affine_t*)out);
  } else {
    fb_mul(fb, (const fr_t*)scalars, n, (g2_affine_t*)out);
  }
}

}  // namespace cuzk
