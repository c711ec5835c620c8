// The twisted discrete Fourier transform of G1 points over Fr: x̂_j = Σ_i ω^(ij)·(s·t^i)·x_i for
// n = 2^log_n points x (the given ones, then the point at infinity up to n), ω of order n, s and
// t constants: the transforms over points that prover.FoldC needs (inverse transforms of H's
// points, scaled, with t = 1 or t the inverse of a coset's shift), a one-time step per circuit.
//
// Radix-2 decimation in time, in XYZZ: each given point x_i multiplied by s·t^i (from a table of
// s·t^i, i < n_in, split for the endomorphism below) and stored in bit-reversed order (dft_load),
// then log_n stages of n/2 butterflies (dft_butterfly: x_i, x_{i+h} ← u + w·v, u − w·v, w a power
// of ω from a table of ω^j, j < n/2, split likewise; a warp's butterflies share w), then
// fixedbase.cuh's batched affine conversion: n_in + n/2·(log_n − 1) multiplications (n_in at the
// load, the rest by twiddles other than 1), ≈ 1.9·10^9 at 2^27.
//
// A multiplication uses the GLV endomorphism of G1: φ(x, y) = (β·x, y) is the multiplication by
// λ = z² − 1 (z = −0xd201000000010000, the curve's parameter; λ² + λ + 1 = r), and a scalar k < r
// is k1 + k2·λ with k2 = ⌊k/λ⌋ < 2^128 and k1 = k mod λ < 2^128 (as r = λ² + λ + 1), so that
// k·P = k1·P + k2·φ(P): 128 doublings and ≈ 96 additions of P, φ(P) or P + φ(P) instead of 255
// doublings and ≈ 128 additions. The split (dft_split) runs on the host, for both tables.
//
// The thread bodies are host-and-device functions, so that a host emulation of the kernels
// (csrc/emu/g1dft_check.cpp) runs the library's own code.
#pragma once
#include <thread>
#include <vector>

#include "curve.cuh"
#include "fixedbase.cuh"

namespace cuzk {

// dft_glv_t is a scalar k = k1 + k2·λ, k1 and k2 as two 64-bit limbs each, low first.
struct dft_glv_t {
  uint64_t k1[2], k2[2];
};

// DFT_LAMBDA is λ = z² − 1 (128 bits), DFT_BARRETT ⌊2^256/λ⌋ (129 bits); limbs low first.
constexpr uint64_t DFT_LAMBDA[2] = {0x00000000ffffffffull, 0xac45a4010001a402ull};
constexpr uint64_t DFT_BARRETT[3] = {0x63f6e522f6cfee30ull, 0x7c6becf1e01faaddull, 0x1ull};

// dft_beta returns β, the cube root of unity in Fp for which φ(P) = λ·P on G1, in Montgomery form
// (β = 0x1a0111ea…00aaac; which of the two roots goes with λ was checked on the generator).
CUZK_HD fp_t dft_beta() {
  const uint32_t l[12] = {0x8671f071, 0xcd03c9e4, 0x1fcda5d2, 0x5dab2246, 0xd3851b95, 0x587042af,
                          0x01bacb9e, 0x8eb60ebe, 0x83d050d2, 0x03f97d6e, 0x54638741, 0x18f02065};
  fp_t b;
  for (int i = 0; i < 12; i++) b.l[i] = l[i];
  return b;
}

// dft_mul_limbs sets out (na + nb limbs, zero on entry) to a·b, schoolbook, limbs low first (host).
inline void dft_mul_limbs(const uint64_t* a, int na, const uint64_t* b, int nb, uint64_t* out) {
  using u128 = unsigned __int128;
  for (int i = 0; i < na; i++) {
    u128 carry = 0;
    for (int j = 0; j < nb; j++) {
      const u128 t = (u128)a[i] * b[j] + out[i + j] + carry;
      out[i + j] = (uint64_t)t;
      carry = t >> 64;
    }
    out[i + nb] = (uint64_t)carry;
  }
}

// dft_split returns k = k1 + k2·λ for the plain integer k < r (fr_t limbs, not Montgomery form):
// k2 = ⌊k·⌊2^256/λ⌋ / 2^256⌋, one below ⌊k/λ⌋ at most, then k1 = k − k2·λ, corrected once (host).
inline dft_glv_t dft_split(const fr_t& kp) {
  using u128 = unsigned __int128;
  uint64_t k[4];
  for (int i = 0; i < 4; i++) k[i] = kp.l[2 * i] | (uint64_t)kp.l[2 * i + 1] << 32;
  uint64_t prod[7] = {};
  dft_mul_limbs(k, 4, DFT_BARRETT, 3, prod);
  uint64_t q[2] = {prod[4], prod[5]};  // < 2^128: k < r, so k/λ < λ + 2
  uint64_t ql[4] = {};                 // q·λ
  dft_mul_limbs(q, 2, DFT_LAMBDA, 2, ql);
  uint64_t r[4];
  u128 borrow = 0;
  for (int i = 0; i < 4; i++) {
    const u128 t = (u128)k[i] - ql[i] - borrow;
    r[i] = (uint64_t)t;
    borrow = (t >> 64) & 1;
  }
  // r = k − q·λ < 2λ < 2^129: subtract λ once where r ≥ λ.
  const bool ge = r[2] != 0 || r[1] > DFT_LAMBDA[1] || (r[1] == DFT_LAMBDA[1] && r[0] >= DFT_LAMBDA[0]);
  if (ge) {
    const u128 t0 = (u128)r[0] - DFT_LAMBDA[0];
    const u128 t1 = (u128)r[1] - DFT_LAMBDA[1] - ((t0 >> 64) & 1);
    r[0] = (uint64_t)t0, r[1] = (uint64_t)t1;
    if (++q[0] == 0) q[1]++;
  }
  return {{r[0], r[1]}, {q[0], q[1]}};
}

// dft_twiddle_table returns start·w^j for j < count, split (dft_split), computed on all host
// cores: the twiddles ω^j (start 1) and the load's scalars s·t^i (start s, w = t).
inline std::vector<dft_glv_t> dft_twiddle_table(const fr_t& w, uint64_t count, const fr_t& start) {
  std::vector<dft_glv_t> tw(count);
  const uint64_t parts = std::max<uint64_t>(1, std::min<uint64_t>(std::thread::hardware_concurrency(), count / 4096 + 1));
  std::vector<std::thread> threads;
  for (uint64_t p = 0; p < parts; p++) {
    threads.emplace_back([&, p] {
      const uint64_t lo = count * p / parts, hi = count * (p + 1) / parts;
      fr_t x = start * w.pow_u64(lo);
      for (uint64_t j = lo; j < hi; j++) {
        tw[j] = dft_split(x.from_mont());
        x = x * w;
      }
    });
  }
  for (auto& t : threads) t.join();
  return tw;
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

// dft_mul sets p = (k1 + k2·λ)·p = k1·p + k2·φ(p): joint double-and-add over 128 bits, adding p,
// φ(p) or p + φ(p) by the bits of k1 and k2. The addend is chosen first and added by one call,
// so that a warp whose threads hold different scalars (the load, the last five stages) runs
// one addition a bit, not one for each of the three addends its threads need.
CUZK_HD void dft_mul(g1_xyzz_t& p, const dft_glv_t& k) {
  const g1_xyzz_t a = p;
  g1_xyzz_t b = p;
  b.x = b.x * dft_beta();
  g1_xyzz_t ab = a;
  ab.add(b);
  p = g1_xyzz_t::inf();
  for (int i = 127; i >= 0; i--) {
    p.dbl();
    const bool b1 = (k.k1[i >> 6] >> (i & 63)) & 1, b2 = (k.k2[i >> 6] >> (i & 63)) & 1;
    const g1_xyzz_t& q = b1 ? (b2 ? ab : a) : b;
    if (b1 || b2) p.add(q);
  }
}

// dft_load_thread sets x[rev(i)] = sc[i]·in[i] for i < n_in (sc[i] = s·t^i, split), the point at
// infinity for n_in ≤ i.
CUZK_HD void dft_load_thread(const g1_affine_t* in, const dft_glv_t* sc, uint64_t n_in, g1_xyzz_t* x, uint32_t log_n,
                             uint64_t i) {
  g1_xyzz_t p = g1_xyzz_t::inf();
  if (i < n_in) {
    p = g1_xyzz_t::from_affine(in[i]);
    dft_mul(p, sc[i]);
  }
  x[dft_rev(i, log_n)] = p;
}

// dft_butterfly_thread is butterfly t < n/2 of the stage whose pairs are 2^h apart, the
// butterflies ordered by twiddle so that a warp's threads share theirs (where the stage has 32
// groups or more: all but the last five stages), which keeps the multiplication's branches
// uniform: with g = 2^(log_n−1−h) groups, k = t / g, i = (t mod g)·2^(h+1) + k, w = ω_(2^(h+1))^k =
// tw[k·g], and (x_i, x_{i+2^h}) ← (x_i + w·x_{i+2^h}, x_i − w·x_{i+2^h}).
CUZK_HD void dft_butterfly_thread(g1_xyzz_t* x, const dft_glv_t* tw, uint32_t log_n, uint32_t h, uint64_t t) {
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
__global__ void __launch_bounds__(FB_THREADS)
    dft_load(const g1_affine_t* in, const dft_glv_t* sc, uint64_t n_in, g1_xyzz_t* x, uint32_t log_n) {
  const uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i < (1ull << log_n)) dft_load_thread(in, sc, n_in, x, log_n, i);
}

__global__ void __launch_bounds__(FB_THREADS)
    dft_stage(g1_xyzz_t* x, const dft_glv_t* tw, uint32_t log_n, uint32_t h) {
  const uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (b < (1ull << (log_n - 1))) dft_butterfly_thread(x, tw, log_n, h, b);
}
#endif

}  // namespace cuzk
