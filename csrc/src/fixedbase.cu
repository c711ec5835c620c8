// Batch fixed-base scalar multiplication on G1 and G2 (fixedbase.cuh): the
// per-base table, built once per handle, and the chunked passes of
// fixedbase_mul, which stream host scalars in and host affine points out.
#include <algorithm>
#include <memory>
#include <vector>

#include "fixedbase.cuh"
#include "ops.cuh"

namespace cuzk {

// fb_build returns a device_malloc'd table of FB_TABLE affine points for base on
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
  void* table = device_malloc(FB_TABLE * sizeof(affine_t<F>));
  try {
    stream_t s;
    dbuf_t<affine_t<F>> dwbase(FB_W, s);
    try {
      CUZK_CUDA(cudaMemcpyAsync(dwbase.p, wbase.data(), FB_W * sizeof(affine_t<F>), cudaMemcpyHostToDevice, s));
      fb_table<F><<<fb_blocks(FB_TABLE), FB_THREADS, 0, s>>>(dwbase.p, (affine_t<F>*)table);
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

// fb_lane_t is one of the two sets of device buffers fb_mul alternates
// between, with its own stream: chunk i runs on lane i % 2.
template <class F>
struct fb_lane_t {
  stream_t s;
  dbuf_t<fr_t> scalars;
  dbuf_t<xyzz_t<F>> xyzz;
  dbuf_t<affine_t<F>> affine;
  dbuf_t<unsigned long long> bad;  // smallest index of a scalar ≥ r in the chunk, or ~0
  uint64_t off = 0, m = 0;         // the chunk in flight: out[off : off+m]

  explicit fb_lane_t(uint64_t chunk) : scalars(chunk, s), xyzz(chunk, s), affine(chunk, s), bad(1, s) {}

  // start uploads scalars[off : off+m] (returning when they are on the device)
  // and enqueues the kernels.
  void start(const affine_t<F>* table, const fr_t* host, uint64_t off_, uint64_t m_) {
    off = off_;
    m = m_;
    upload_pageable(scalars.p, host + off, m * sizeof(fr_t), s);
    CUZK_CUDA(cudaMemsetAsync(bad.p, 0xff, sizeof(unsigned long long), s));
    fb_accumulate<F><<<fb_blocks(m), FB_THREADS, 0, s>>>(table, scalars.p, m, xyzz.p, bad.p);
    CUZK_LAUNCHED();
    fb_to_affine_enqueue(xyzz.p, affine.p, m, s);
    CUZK_LAUNCHED();
  }

  // finish waits for the kernels, copies the points to out[off : off+m] and
  // throws when a scalar was ≥ r.
  void finish(affine_t<F>* out) {
    unsigned long long first_bad = 0;
    CUZK_CUDA(cudaMemcpyAsync(&first_bad, bad.p, sizeof first_bad, cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaMemcpyAsync(out + off, affine.p, m * sizeof(affine_t<F>), cudaMemcpyDeviceToHost, s));
    s.sync();
    if (first_bad != ~0ull)
      throw error(CUZK_ERR_INVALID, "scalar " + std::to_string(off + first_bad) +
                                        " of the call is not a valid fr.Element (its Montgomery limbs are >= r)");
  }
};

// fb_mul runs fixedbase_mul for the point type affine_t<F> in chunks of at
// most FB_CHUNK points on two lanes, so that chunk i's download (a copy to
// pageable memory, which holds the calling thread) and chunk i+1's upload
// overlap the kernels of the other: start(0), start(1), finish(0), start(2),
// finish(1), …, finish(last).
template <class F>
static void fb_mul(const cuzk_fixedbase* fb, const fr_t* scalars, uint64_t n, affine_t<F>* out) {
  const affine_t<F>* table = (const affine_t<F>*)fb->table;
  const uint64_t chunk = std::min(n, FB_CHUNK);
  const uint64_t chunks = (n + chunk - 1) / chunk;
  fb_lane_t<F> lane0(chunk);
  std::unique_ptr<fb_lane_t<F>> lane1;  // only when there are two chunks or more
  if (chunks > 1) lane1.reset(new fb_lane_t<F>(chunk));
  fb_lane_t<F>* lanes[2] = {&lane0, lane1.get()};
  try {
    for (uint64_t i = 0; i < chunks; i++) {
      const uint64_t off = i * chunk;
      lanes[i & 1]->start(table, scalars, off, std::min(chunk, n - off));
      if (i > 0) lanes[(i - 1) & 1]->finish(out);
    }
    lanes[(chunks - 1) & 1]->finish(out);
  } catch (...) {
    // no copy may still write to out after the call returns
    cudaStreamSynchronize(lane0.s);
    if (lane1) cudaStreamSynchronize(lane1->s);
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
