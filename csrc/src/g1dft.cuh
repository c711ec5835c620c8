// The discrete Fourier transform of G1 points over Fr: x̂_j = s·Σ_i ω^(ij)·x_i for n = 2^log_n
// points x (the given ones, then the point at infinity up to n), ω of order n, s a constant: the
// transform over points that prover.FoldC needs (an inverse transform of H's points, scaled), a
// one-time step per circuit.
//
// Radix-2 decimation in time, in XYZZ: the input expanded in bit-reversed order (dft_load), log_n
// stages of n/2 butterflies (dft_butterfly: x_i, x_{i+h} ← u + w·v, u − w·v, w a power of ω
// read from a table of ω^j, j < n/2, held as plain integers; a warp's butterflies share w), each point multiplied by s
// (dft_scale), then fixedbase.cuh's batched affine conversion. A multiplication by a twiddle is
// double-and-add over its 255 bits (≈ 255 doublings and 128 additions in XYZZ): n/2·(log_n − 1)
// of them, plus n for s; at 2^27 ≈ 1.7·10^9 multiplications.
//
// The thread bodies are host-and-device functions, so that a host emulation of the kernels
// (csrc/emu/g1dft_check.cpp) runs the library's own code.
#pragma once
#include "curve.cuh"
#include "fixedbase.cuh"

namespace cuzk {

// DFT_LO_BITS is the size in bits of the low power table that dft_twiddle combines with a high
// one: ω^j = lo[j mod 2^DFT_LO_BITS]·hi[j >> DFT_LO_BITS], 2^13 entries each up to j < 2^26.
constexpr uint32_t DFT_LO_BITS = 13;

// dft_power_tables sets lo[t] = ω^t and hi[t] = ω^(t·2^DFT_LO_BITS) for t < 2^DFT_LO_BITS, on the
// host: every twiddle index below 2^(2·DFT_LO_BITS).
inline void dft_power_tables(const fr_t& w, fr_t* lo, fr_t* hi) {
  constexpr uint64_t T = 1ull << DFT_LO_BITS;
  lo[0] = fr_t::one();
  for (uint64_t t = 1; t < T; t++) lo[t] = lo[t - 1] * w;
  const fr_t step = lo[T - 1] * w;
  hi[0] = fr_t::one();
  for (uint64_t t = 1; t < T; t++) hi[t] = hi[t - 1] * step;
}

// dft_rev returns i with its low log_n bits reversed.
CUZK_HD uint64_t dft_rev(uint64_t i, uint32_t log_n) {
#if defined(__CUDA_ARCH__)
  return log_n ? __brevll(i) >> (64 - log_n) : 0;
#else
  uint64_t r = 0;
  for (uint32_t b = 0; b < log_n; b++) r |= ((i >> b) & 1) << (log_n - 1 - b);
  return r;
#endif
}

// dft_mul sets p = k·p for the plain integer k (fr_t limbs, not Montgomery form): double-and-add
// from the top bit (doubling the point at infinity costs a test).
CUZK_HD void dft_mul(g1_xyzz_t& p, const fr_t& k) {
  const g1_xyzz_t base = p;
  p = g1_xyzz_t::inf();
  for (int i = 255; i >= 0; i--) {
    p.dbl();
    if ((k.l[i / 32] >> (i % 32)) & 1) p.add(base);
  }
}

// dft_twiddle_thread sets tw[j] = ω^j as a plain integer from lo[t] = ω^t and hi[t] = ω^(t·2^13).
CUZK_HD void dft_twiddle_thread(const fr_t* lo, const fr_t* hi, fr_t* tw, uint64_t j) {
  tw[j] = (lo[j & ((1u << DFT_LO_BITS) - 1)] * hi[j >> DFT_LO_BITS]).from_mont();
}

// dft_load_thread sets x[rev(i)] = in[i] for i < n_in, the point at infinity for n_in ≤ i.
CUZK_HD void dft_load_thread(const g1_affine_t* in, uint64_t n_in, g1_xyzz_t* x, uint32_t log_n, uint64_t i) {
  x[dft_rev(i, log_n)] = i < n_in ? g1_xyzz_t::from_affine(in[i]) : g1_xyzz_t::inf();
}

// dft_butterfly_thread is butterfly t < n/2 of the stage whose pairs are 2^h apart, the
// butterflies ordered by twiddle so that a warp's threads share theirs (where the stage has 32
// groups or more: all but the last five stages), which keeps double-and-add's branches uniform:
// with g = 2^(log_n−1−h) groups, k = t / g, i = (t mod g)·2^(h+1) + k, w = ω_(2^(h+1))^k =
// tw[k·g], and (x_i, x_{i+2^h}) ← (x_i + w·x_{i+2^h}, x_i − w·x_{i+2^h}).
CUZK_HD void dft_butterfly_thread(g1_xyzz_t* x, const fr_t* tw, uint32_t log_n, uint32_t h, uint64_t t) {
  const uint32_t gb = log_n - 1 - h;
  const uint64_t k = t >> gb, half = 1ull << h;
  const uint64_t i = ((t & ((1ull << gb) - 1)) << (h + 1)) | k;
  g1_xyzz_t u = x[i], v = x[i + half];
  if (k != 0) dft_mul(v, tw[k << gb]);
  g1_xyzz_t sum = u;
  sum.add(v);
  v.y = v.y.neg();
  u.add(v);
  x[i] = sum;
  x[i + half] = u;
}

#if defined(__CUDACC__)
__global__ void __launch_bounds__(FB_THREADS) dft_twiddles(const fr_t* lo, const fr_t* hi, fr_t* tw, uint64_t n) {
  const uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (j < n) dft_twiddle_thread(lo, hi, tw, j);
}

__global__ void __launch_bounds__(FB_THREADS)
    dft_load(const g1_affine_t* in, uint64_t n_in, g1_xyzz_t* x, uint32_t log_n) {
  const uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i < (1ull << log_n)) dft_load_thread(in, n_in, x, log_n, i);
}

__global__ void __launch_bounds__(FB_THREADS) dft_stage(g1_xyzz_t* x, const fr_t* tw, uint32_t log_n, uint32_t h) {
  const uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (b < (1ull << (log_n - 1))) dft_butterfly_thread(x, tw, log_n, h, b);
}

__global__ void __launch_bounds__(FB_THREADS) dft_scale(g1_xyzz_t* x, uint64_t n, fr_t s) {
  const uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i < n) dft_mul(x[i], s);
}
#endif

}  // namespace cuzk
