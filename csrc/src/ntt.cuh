// Number-theoretic transform over Fr, bit-exact with gnark-crypto v0.22.0's
// fft.Domain.FFT / FFTInverse (with and without fft.OnCoset()).
//
// Algorithm: an n = 2^log_n transform is split into passes of at most
// PASS_BITS radix-2 stages. Each pass treats the current sub-problem (size M,
// contiguous) as K × (M/K): K-point DFTs over the top bits (stride M/K) in
// shared memory, followed by the twiddle diagonal ω_M^(i0·k1) (decimation in
// frequency, natural input, bit-reversed output). The transposed pass
// (twiddle first, stages reversed, Cooley–Tukey butterflies) run in reverse
// pass order is the decimation-in-time transform from bit-reversed input to
// natural output.
//
// This header holds the twiddle tables' layout, the kernels and ntt_t, the
// host side of one transform; ntt.cu builds the tables per device and is the
// one translation unit that includes it.
#pragma once
#include "ops.cuh"

// CUZK_NTT_BLOCKS is the number of 256-thread pass blocks each SM must fit,
// which caps ntt_pass at 65536 / (256·blocks) registers: 3 (85 registers) was
// measured fastest on the H200 against 2 and 4 (docs/gpu-kernels.md).
#ifndef CUZK_NTT_BLOCKS
#define CUZK_NTT_BLOCKS 3
#endif
#if CUZK_NTT_BLOCKS < 1 || CUZK_NTT_BLOCKS > 8
#error "CUZK_NTT_BLOCKS must be in [1, 8] (256-thread blocks per SM; an SM holds at most 2048 threads)"
#endif

namespace cuzk {

// pow_table gives x^e for e < 2^(2·POW_BITS) = 2^28 as lo[e mod 2^14]·hi[e >> 14]:
// two tables of 2^14 elements (512 KiB each) instead of one of 2^28.
constexpr int POW_BITS = 14;
static_assert(2 * POW_BITS == NTT_MAX_LOG, "pow_table must cover every exponent below 2^NTT_MAX_LOG");
struct pow_table {
  const fr_t* lo;
  const fr_t* hi;
};

// ntt_twiddles are the powers of one root of unity (ω_{2^28} or its inverse):
// pow for any exponent (two lookups and a product), and diag[x] = ω_{2^DIAG_BITS}^x
// for x < 2^DIAG_BITS (one lookup; 8 MiB, resident in L2), which serves every
// twiddle diagonal of a sub-transform of size ≤ 2^DIAG_BITS.
constexpr int DIAG_BITS = 18;
struct ntt_twiddles {
  pow_table pow;
  const fr_t* diag;
};

// coset_tables are the powers of one coset shift and of its inverse.
struct coset_tables {
  fr_t shift;
  pow_table fwd, inv;
};

__device__ __forceinline__ fr_t pow_lookup(const pow_table& t, uint32_t e) {
  uint32_t lo = e & ((1u << POW_BITS) - 1), hi = e >> POW_BITS;
  if (hi == 0) return t.lo[lo];
  if (lo == 0) return t.hi[hi];
  return t.lo[lo] * t.hi[hi];
}

// diag_twiddle returns ω_M^e for M = 2^log_m and e < M.
__device__ __forceinline__ fr_t diag_twiddle(const ntt_twiddles& T, uint32_t e, uint32_t log_m) {
  if (log_m <= DIAG_BITS) return T.diag[e << (DIAG_BITS - log_m)];
  return pow_lookup(T.pow, e << (NTT_MAX_LOG - log_m));
}

constexpr int PASS_BITS = 10;                       // elements per block: 2^PASS_BITS
constexpr int PASS_THREADS = (1 << PASS_BITS) / 4;  // one radix-4 unit per thread

// butterfly applies one radix-2 stage to (u, v): DIF (Gentleman–Sande)
// u, v ← u+v, (u−v)·w; DIT (Cooley–Tukey) u, v ← u+v·w, u−v·w. w == nullptr
// stands for w = 1.
template <bool DIT>
__device__ __forceinline__ void butterfly(fr_t& u, fr_t& v, const fr_t* w) {
  if (DIT) {
    if (w) v = v * *w;
    fr_t s = u + v;
    v = u - v;
    u = s;
  } else {
    fr_t d = u - v;
    u = u + v;
    v = w ? d * *w : d;
  }
}

// radix2_step is the twiddle-free last DIF stage (first DIT stage) of a
// pass's K-point DFTs: pairs (2i, 2i+1) of i1, followed by a barrier.
template <bool DIT>
__device__ __forceinline__ void radix2_step(fr_t* sh, uint32_t GK, uint32_t lg, uint32_t tid, uint32_t nt) {
  const uint32_t G = 1u << lg;
  for (uint32_t b = tid; b < GK / 2; b += nt) {
    uint32_t g = b & (G - 1), i1 = (b >> lg) << 1;
    uint32_t p0 = (i1 << lg) + g;
    fr_t u = sh[p0], v = sh[p0 + G];
    butterfly<DIT>(u, v, nullptr);
    sh[p0] = u;
    sh[p0 + G] = v;
  }
  __syncthreads();
}

template <bool DIT>
__global__ void __launch_bounds__(PASS_THREADS, CUZK_NTT_BLOCKS)
    ntt_pass(fr_t* __restrict__ a, uint32_t log_n, uint32_t s0, uint32_t k, uint32_t lg, ntt_twiddles T) {
  extern __shared__ fr_t sh[];
  const uint32_t K = 1u << k, G = 1u << lg;
  const uint32_t L = log_n - s0 - k;
  const uint32_t GK = G * K;
  fr_t* tws = sh + GK;
  const uint64_t gpb = (1ull << L) >> lg;  // blocks per sub-problem
  const uint64_t bid = blockIdx.x;
  const uint64_t h = bid / gpb;
  const uint64_t i0base = (bid % gpb) << lg;
  const uint64_t base = (h << (log_n - s0)) + i0base;
  const uint32_t tid = threadIdx.x, nt = blockDim.x;

  for (uint32_t e = tid; e < K / 2; e += nt) tws[e] = T.pow.hi[e << (POW_BITS - k)];
  for (uint32_t e = tid; e < GK; e += nt) sh[e] = a[base + ((uint64_t)(e >> lg) << L) + (e & (G - 1))];
  __syncthreads();

  const uint32_t log_m = log_n - s0;  // this pass's sub-problems have size M = 2^log_m
  if (DIT && L > 0) {
    for (uint32_t e = tid; e < GK; e += nt) {
      uint32_t i1 = e >> lg;
      uint32_t k1 = __brev(i1) >> (32 - k);
      uint32_t i0 = (uint32_t)(i0base + (e & (G - 1)));
      sh[e] = sh[e] * diag_twiddle(T, i0 * k1, log_m);  // i0·k1 < M
    }
    __syncthreads();
  }

  // The K-point DFTs over i1 (stride G in shared memory): stage t has half
  // 2^(k−1−t) and twiddles ω_K^(j·2^t). Two consecutive stages run as one
  // radix-4 unit in registers (4 elements, 4 products, one barrier); an odd
  // k leaves the twiddle-free stage t = k−1 as a radix-2 step, done last in
  // DIF and first in DIT.
  const bool odd = k & 1;
  if (DIT && odd) radix2_step<DIT>(sh, GK, lg, tid, nt);
  const uint32_t pairs = k / 2;
  for (uint32_t pi = 0; pi < pairs; pi++) {
    const uint32_t t = DIT ? 2 * (pairs - 1 - pi) : 2 * pi;  // stages t and t+1
    const uint32_t lh = k - 1 - t;                           // log2 of stage t's half, ≥ 1
    const uint32_t H = 1u << lh, Q = H >> 1;
    for (uint32_t b = tid; b < GK / 4; b += nt) {
      uint32_t g = b & (G - 1), q = b >> lg;
      uint32_t j = q & (Q - 1);
      uint32_t i1 = ((q >> (lh - 1)) << (lh + 1)) + j;
      uint32_t p0 = (i1 << lg) + g, step = Q << lg;
      fr_t x0 = sh[p0], x1 = sh[p0 + step], x2 = sh[p0 + 2 * step], x3 = sh[p0 + 3 * step];
      const fr_t* w0 = &tws[j << t];        // stage t, pair (x0, x2)
      const fr_t* w1 = &tws[(j + Q) << t];  // stage t, pair (x1, x3)
      const fr_t* w2 = lh > 1 ? &tws[j << (t + 1)] : nullptr;  // stage t+1; 1 when its half is 1
      if (DIT) {
        butterfly<true>(x0, x1, w2);
        butterfly<true>(x2, x3, w2);
        butterfly<true>(x0, x2, w0);
        butterfly<true>(x1, x3, w1);
      } else {
        butterfly<false>(x0, x2, w0);
        butterfly<false>(x1, x3, w1);
        butterfly<false>(x0, x1, w2);
        butterfly<false>(x2, x3, w2);
      }
      sh[p0] = x0;
      sh[p0 + step] = x1;
      sh[p0 + 2 * step] = x2;
      sh[p0 + 3 * step] = x3;
    }
    __syncthreads();
  }
  if (!DIT && odd) radix2_step<DIT>(sh, GK, lg, tid, nt);

  if (!DIT && L > 0) {
    for (uint32_t e = tid; e < GK; e += nt) {
      uint32_t i1 = e >> lg;
      uint32_t k1 = __brev(i1) >> (32 - k);
      uint32_t i0 = (uint32_t)(i0base + (e & (G - 1)));
      sh[e] = sh[e] * diag_twiddle(T, i0 * k1, log_m);  // i0·k1 < M
    }
    __syncthreads();
  }
  for (uint32_t e = tid; e < GK; e += nt) a[base + ((uint64_t)(e >> lg) << L) + (e & (G - 1))] = sh[e];
}

// ntt_scale sets a[i] *= c·T(idx) where idx is i or bitrev(i); T optional.
__global__ void ntt_scale(fr_t* __restrict__ a, uint32_t log_n, bool bitrev, bool use_table, pow_table T,
                          bool use_c, fr_t c) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >> log_n) return;
  fr_t f;
  if (use_table) {
    uint32_t idx = bitrev ? (__brev((uint32_t)i) >> (32 - log_n)) : (uint32_t)i;
    f = pow_lookup(T, idx);
    if (use_c) f = f * c;
  } else {
    f = c;
  }
  a[i] = a[i] * f;
}

__global__ void ntt_bitrev(fr_t* __restrict__ a, uint32_t log_n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >> log_n) return;
  uint32_t j = __brev((uint32_t)i) >> (32 - log_n);
  if (i < j) {
    fr_t x = a[i];
    a[i] = a[j];
    a[j] = x;
  }
}

// ntt_fill_diag writes ntt_twiddles.diag from the power table T of ω_{2^28}.
__global__ void ntt_fill_diag(fr_t* __restrict__ out, pow_table T) {
  uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < (1u << DIAG_BITS)) out[x] = pow_lookup(T, x << (NTT_MAX_LOG - DIAG_BITS));
}


// ELEMENTWISE_THREADS is the block size of the element-wise kernels (ntt_scale,
// ntt_bitrev, ntt_fill_diag): one element per thread.
constexpr unsigned ELEMENTWISE_THREADS = 256;

// ntt_t is one transform of size 2^log_n in place on the device array d, its
// kernels enqueued on the stream s. ntt_run calls the steps in this order:
// coset_shift (forward coset transforms), passes, bit_reverse (when the
// requested output order is not the one the passes leave), scale_inverse
// (inverse transforms).
class ntt_t {
  fr_t* d;
  uint32_t log_n;
  cudaStream_t s;
  unsigned eg, eb;  // grid and block of the element-wise kernels

 public:
  ntt_t(fr_t* d_, uint32_t log_n_, cudaStream_t s_) : d(d_), log_n(log_n_), s(s_) {
    uint64_t n = 1ull << log_n;
    eb = n < ELEMENTWISE_THREADS ? (unsigned)n : ELEMENTWISE_THREADS;
    eg = (unsigned)((n + eb - 1) / eb);
  }

  // coset_shift sets a_j *= shift^j, where j is a_j's index in natural order
  // (bitrev: the array is in bit-reversed order) and shift_pows the table of
  // the shift's powers.
  void coset_shift(const pow_table& shift_pows, bool bitrev) {
    ntt_scale<<<eg, eb, 0, s>>>(d, log_n, bitrev, true, shift_pows, false, fr_t::one());
    CUZK_LAUNCHED();
  }

  // passes runs the log_n radix-2 stages with the powers T of ω (ω⁻¹ for the
  // inverse): decimation in frequency from natural to bit-reversed order, or
  // with dit decimation in time from bit-reversed to natural order. The plan
  // is ⌈log_n / PASS_BITS⌉ passes of k_p stages each, the larger passes first.
  void passes(const ntt_twiddles& T, bool dit) {
    const uint32_t np = (log_n + PASS_BITS - 1) / PASS_BITS;
    uint32_t ks[(NTT_MAX_LOG + PASS_BITS - 1) / PASS_BITS];
    for (uint32_t p = 0; p < np; p++) ks[p] = log_n / np + (p < log_n % np ? 1 : 0);
    for (uint32_t pi = 0; pi < np; pi++) {
      uint32_t p = dit ? (np - 1 - pi) : pi;
      uint32_t s0 = 0;
      for (uint32_t q = 0; q < p; q++) s0 += ks[q];
      uint32_t k = ks[p];
      uint32_t L = log_n - s0 - k;
      uint32_t lg = PASS_BITS - k < L ? PASS_BITS - k : L;
      uint32_t GK = 1u << (k + lg);
      unsigned threads = GK / 4 < PASS_THREADS ? GK / 4 : PASS_THREADS;
      if (threads == 0) threads = 1;
      unsigned blocks = (unsigned)((1ull << log_n) / GK);
      size_t smem = (GK + (1u << k) / 2) * sizeof(fr_t);
      if (dit)
        ntt_pass<true><<<blocks, threads, smem, s>>>(d, log_n, s0, k, lg, T);
      else
        ntt_pass<false><<<blocks, threads, smem, s>>>(d, log_n, s0, k, lg, T);
      CUZK_LAUNCHED();
    }
  }

  // bit_reverse swaps a_i and a_bitrev(i).
  void bit_reverse() {
    ntt_bitrev<<<eg, eb, 0, s>>>(d, log_n);
    CUZK_LAUNCHED();
  }

  // scale_inverse sets a_j *= n⁻¹, and with coset also by shift^(−j) from the
  // table inv_shift_pows (bitrev: the array is in bit-reversed order).
  void scale_inverse(bool bitrev, bool coset, const pow_table& inv_shift_pows) {
    fr_t two = fr_t::one() + fr_t::one();
    fr_t ninv = two.pow_u64(log_n).inverse();
    ntt_scale<<<eg, eb, 0, s>>>(d, log_n, bitrev, coset, inv_shift_pows, true, ninv);
    CUZK_LAUNCHED();
  }
};

}  // namespace cuzk
