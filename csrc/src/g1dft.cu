// cuzk_g1_dft: the transform of g1dft.cuh over host points, one call.
#include <algorithm>
#include <cstring>
#include <vector>

#include "g1dft.cuh"
#include "ops.cuh"

namespace cuzk {

// dmem_t is device memory from device_malloc (outside the memory pool, which would keep a
// one-time call's tens of GiB), freed when it goes.
template <class T>
struct dmem_t {
  T* p = nullptr;
  explicit dmem_t(uint64_t count) : p((T*)device_malloc(std::max<uint64_t>(count, 1) * sizeof(T))) {}
  ~dmem_t() { cudaFree(p); }
  dmem_t(const dmem_t&) = delete;
  dmem_t& operator=(const dmem_t&) = delete;
};

void g1_dft(int dev, const void* in, uint64_t n_in, uint32_t log_n, const void* omega, const void* twist,
            const void* scale, void* out, uint64_t* stages_done, const int32_t* cancel) {
  require(log_n >= 1 && log_n <= 27, "g1 dft: log size " + std::to_string(log_n) + " outside [1, 27]");
  const uint64_t n = 1ull << log_n;
  require(n_in <= n, "g1 dft: " + std::to_string(n_in) + " points for a transform of " + std::to_string(n));
  require((in != nullptr || n_in == 0) && omega != nullptr && twist != nullptr && scale != nullptr &&
              out != nullptr,
          "g1 dft: a pointer is NULL");
  fr_t w, t, s;
  memcpy(&w, omega, sizeof w);
  memcpy(&t, twist, sizeof t);
  memcpy(&s, scale, sizeof s);
  const uint64_t half = n / 2;
  const std::vector<dft_glv_t> twiddles = dft_twiddle_table(w, half, fr_t::one());  // ω^j, j < n/2, split
  const std::vector<dft_glv_t> scalars = dft_twiddle_table(t, n_in, s);            // s·t^i, i < n_in, split
  set_device(dev);
  dmem_t<g1_affine_t> aff(n);
  dmem_t<g1_xyzz_t> x(n);
  dmem_t<dft_glv_t> tw(half);
  dmem_t<dft_glv_t> sc(n_in);
  stream_t st;
  try {
    upload_pageable(aff.p, in, n_in * sizeof(g1_affine_t), st);
    upload_pageable(tw.p, twiddles.data(), half * sizeof(dft_glv_t), st);
    upload_pageable(sc.p, scalars.data(), n_in * sizeof(dft_glv_t), st);
    dft_load<<<fb_blocks(n), FB_THREADS, 0, st>>>(aff.p, sc.p, n_in, x.p, log_n);
    CUZK_LAUNCHED();
    // A stage at a time, waited for, so that the caller sees the stages finish and can stop
    // the call between two (a stage of 2^26 butterflies takes seconds; a wait, microseconds).
    for (uint32_t h = 0; h < log_n; h++) {
      require(cancel == nullptr || __atomic_load_n(cancel, __ATOMIC_RELAXED) == 0, "g1 dft: cancelled");
      dft_stage<<<fb_blocks(half), FB_THREADS, 0, st>>>(x.p, tw.p, log_n, h);
      CUZK_LAUNCHED();
      st.sync();
      if (stages_done != nullptr) __atomic_store_n(stages_done, uint64_t(h + 1), __ATOMIC_RELAXED);
    }
    fb_to_affine_enqueue(x.p, aff.p, n, st);
    CUZK_LAUNCHED();
    CUZK_CUDA(cudaMemcpyAsync(out, aff.p, n * sizeof(g1_affine_t), cudaMemcpyDeviceToHost, st));
    st.sync();
  } catch (...) {
    cudaStreamSynchronize(st);  // nothing may still read or write the buffers or out
    throw;
  }
}

}  // namespace cuzk
