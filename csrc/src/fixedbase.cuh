// Batch fixed-base scalar multiplication: out[i] = s[i]·P for one base P of
// G1 or G2 and many scalars, the points of a Groth16 setup.
//
// Algorithm (c = FB_C bits per window, W = ⌈256/c⌉ windows, H = 2^(c−1)):
//  1. Window bases (host, once per base): B_w = 2^(c·w)·P for w < W, affine.
//  2. Table (device, once per base, fb_table): T[w][m−1] = m·B_w for
//     1 ≤ m ≤ H, one thread per entry (double-and-add in XYZZ, then a Fermat
//     inversion), W·H affine points.
//  3. Accumulate (device, fb_accumulate), one thread per scalar: s from
//     Montgomery to canonical, recoded into signed digits d_w ∈ [−H+1, H]
//     (d = bits + carry; d > H becomes d − 2^c with a carry into the next
//     window), then Σ_w sign(d_w)·T[w][|d_w|−1] by W mixed XYZZ additions.
//     A scalar < r < 2^255 leaves no carry out of the top window, whose digit
//     stays ≤ H because W·c ≥ 256. A scalar ≥ r (not a valid fr.Element)
//     yields infinity and its index is recorded; the call then fails.
//  4. Affine (device, fb_to_affine): T threads, thread t converts the points
//     t, t+T, t+2T, … (coalesced across a warp) with Montgomery's trick: one
//     Fermat inversion of the product of the ZZ·ZZZ of its FB_BATCH points,
//     then 1/(ZZ·ZZZ) per point by the prefix products, x = X·ZZZ/(ZZ·ZZZ),
//     y = Y·ZZ/(ZZ·ZZZ). The prefix products live in the output's x fields
//     until overwritten, so the step needs no buffer of its own.
//
// Cost per point, in Fp products (an Fp2 product is 3, a square 2): step 3
// is W − 1 mixed additions of 8M + 2S; step 4 is 9 products plus 1/FB_BATCH
// of an inversion (≈ 570 products by Fermat: 381 squarings, ≈ 190 products).
// With c = 16: G1 ≈ 15·10 + 9 + 18 = 177 products, G2 ≈ 15·28 + 27 + 18 =
// 465. A per-thread Fermat inversion instead of step 4's batch would cost
// ≈ 575 products per point, more than step 3; a block-wide batch would save
// little over FB_BATCH = 32 (18 → 1 product) at the price of shared memory.
#pragma once
#include "curve.cuh"

// CUZK_FB_C is the window width c in bits. The table holds ⌈256/c⌉·2^(c−1)
// affine points: c = 16 is 16 windows × 32768 points = 48 MiB for G1, 96 MiB
// for G2 (partly L2-resident; a G1 point reads 16 entries, 1.5 KiB, against
// ≈ 1e5 IMAD of arithmetic), c = 13 is 20 windows in 7.5/15 MiB.
#ifndef CUZK_FB_C
#define CUZK_FB_C 16
#endif
#if CUZK_FB_C < 4 || CUZK_FB_C > 16
#error "CUZK_FB_C must be in [4, 16]"
#endif

// CUZK_FB_THREADS is the block size of the fixed-base kernels.
#ifndef CUZK_FB_THREADS
#define CUZK_FB_THREADS 128
#endif
#if CUZK_FB_THREADS < 32 || CUZK_FB_THREADS > 1024 || CUZK_FB_THREADS % 32 != 0
#error "CUZK_FB_THREADS must be a multiple of 32 in [32, 1024]"
#endif

// CUZK_FB_BATCH is the number of points that share one inversion in the
// affine conversion.
#ifndef CUZK_FB_BATCH
#define CUZK_FB_BATCH 32
#endif
#if CUZK_FB_BATCH < 1 || CUZK_FB_BATCH > 1024
#error "CUZK_FB_BATCH must be in [1, 1024]"
#endif

// CUZK_FB_CHUNK_LOG2 is log2 of the points computed per device pass: each of
// a call's two lanes holds a chunk's scalars (32 B each), XYZZ points
// (192/384 B) and affine points (96/192 B): 1.25/2.4 GiB at 2^22.
#ifndef CUZK_FB_CHUNK_LOG2
#define CUZK_FB_CHUNK_LOG2 22
#endif
#if CUZK_FB_CHUNK_LOG2 < 10 || CUZK_FB_CHUNK_LOG2 > 26
#error "CUZK_FB_CHUNK_LOG2 must be in [10, 26]"
#endif

namespace cuzk {

constexpr int FB_C = CUZK_FB_C;
constexpr int FB_W = (256 + FB_C - 1) / FB_C;  // windows
constexpr uint32_t FB_H = 1u << (FB_C - 1);   // table points per window
constexpr uint64_t FB_TABLE = (uint64_t)FB_W * FB_H;
constexpr int FB_THREADS = CUZK_FB_THREADS;
constexpr uint64_t FB_BATCH = CUZK_FB_BATCH;
constexpr uint64_t FB_CHUNK = 1ull << CUZK_FB_CHUNK_LOG2;
static_assert(FB_W * FB_C >= 256, "the top window must absorb the last carry");

// fb_inverse returns a⁻¹ (0 for 0): Fermat in Fp; in Fp2
// (a0 + a1·u)⁻¹ = (a0 − a1·u)/(a0² + a1²).
CUZK_HD fp_t fb_inverse(const fp_t& a) { return a.inverse(); }
CUZK_HD fp2_t fb_inverse(const fp2_t& a) {
  fp_t n = (a.c0.sqr() + a.c1.sqr()).inverse();
  return {a.c0 * n, (a.c1 * n).neg()};
}

// fb_affine returns p in affine form, infinity as (0, 0), with one inversion.
template <class F>
CUZK_HD affine_t<F> fb_affine(const xyzz_t<F>& p) {
  if (p.is_inf()) return {F::zero(), F::zero()};
  F t = fb_inverse(p.zz * p.zzz);  // 1/(ZZ·ZZZ)
  return {p.x * (t * p.zzz), p.y * (t * p.zz)};
}

// fr_reduced reports whether the limbs of s encode a value < r.
CUZK_HD bool fr_reduced(const fr_t& s) {
#pragma unroll
  for (int i = fr_t::N - 1; i >= 0; i--) {
    if (s.l[i] != fr_params::mod(i)) return s.l[i] < fr_params::mod(i);
  }
  return false;  // s = r
}

// fb_window returns bits [w·FB_C, (w+1)·FB_C) of the 256-bit k (zero above bit 255).
template <int w>
CUZK_HD uint32_t fb_window(const uint32_t* k) {
  constexpr int bit = w * FB_C, limb = bit / 32, off = bit % 32;
  static_assert(limb < 8, "windows start below bit 256");
  uint32_t v = k[limb] >> off;
  if constexpr (off + FB_C > 32 && limb + 1 < 8) v |= k[limb + 1] << (32 - off);
  return v & ((1u << FB_C) - 1);
}

// The thread bodies below are host-and-device functions, so that the library
// and a host emulation of the kernels share them; Table is any type whose
// operator[](uint64_t) gives table point j (a device pointer in the kernels).

// fb_table_entry returns m·wbase[w] for j = w·FB_H + m − 1.
template <class F>
CUZK_HD affine_t<F> fb_table_entry(const affine_t<F>* wbase, uint64_t j) {
  xyzz_t<F> p = xyzz_t<F>::from_affine(wbase[j / FB_H]);
  p.mul_small((uint32_t)(j % FB_H) + 1);
  return fb_affine(p);
}

// fb_digit_add adds sign(d)·T[w][|d|−1] to acc for window w's digit d of k,
// updating the carry.
template <class F, int w, class Table>
CUZK_HD void fb_digit_add(xyzz_t<F>& acc, const Table& table, const uint32_t* k, uint32_t& carry) {
  const uint32_t d = fb_window<w>(k) + carry;  // ≤ 2^c
  const bool neg = d > FB_H;
  carry = neg;
  const uint32_t mag = neg ? (1u << FB_C) - d : d;  // in [0, FB_H]
  if (mag != 0) {
    affine_t<F> q = table[(uint64_t)w * FB_H + mag - 1];
    if (neg) q.y = q.y.neg();
    acc.add_affine(q);
  }
}

// fb_windows<F, w>::run adds the digits of windows w, w+1, …, FB_W−1 (unrolled).
template <class F, int w>
struct fb_windows {
  template <class Table>
  static CUZK_HD void run(xyzz_t<F>& acc, const Table& table, const uint32_t* k, uint32_t& carry) {
    fb_digit_add<F, w>(acc, table, k, carry);
    fb_windows<F, w + 1>::run(acc, table, k, carry);
  }
};
template <class F>
struct fb_windows<F, FB_W> {
  template <class Table>
  static CUZK_HD void run(xyzz_t<F>&, const Table&, const uint32_t*, uint32_t&) {}
};

// fb_scalar_mul sets acc = s·P from P's table and returns true, or returns
// false (acc = ∞) when the limbs of s are ≥ r.
template <class F, class Table>
CUZK_HD bool fb_scalar_mul(xyzz_t<F>& acc, const Table& table, const fr_t& s) {
  acc = xyzz_t<F>::inf();
  if (!fr_reduced(s)) return false;
  const fr_t k = s.from_mont();
  uint32_t carry = 0;
  fb_windows<F, 0>::run(acc, table, k.l, carry);
  return true;
}

// fb_to_affine_thread is thread t of fb_to_affine: it converts in[i] to
// affine out[i] for i = t, t + threads, … < n with one inversion.
template <class F>
CUZK_HD void fb_to_affine_thread(const xyzz_t<F>* in, affine_t<F>* out, uint64_t n, uint64_t threads, uint64_t t) {
  const uint64_t cnt = (n - t + threads - 1) / threads;
  F acc = F::one();
  for (uint64_t j = 0; j < cnt; j++) {
    const uint64_t i = t + j * threads;
    if (!in[i].is_inf()) acc = acc * (in[i].zz * in[i].zzz);
    out[i].x = acc;  // prefix product, read back below before out[i] is written
  }
  F inv = fb_inverse(acc);  // 1/Π(ZZ·ZZZ): ZZ and ZZZ of a finite point are never zero
  for (uint64_t j = cnt; j-- > 0;) {
    const uint64_t i = t + j * threads;
    const xyzz_t<F> p = in[i];
    if (p.is_inf()) {
      out[i] = {F::zero(), F::zero()};
      continue;
    }
    const F di = j > 0 ? inv * out[i - threads].x : inv;  // 1/(ZZ·ZZZ) of point i
    inv = inv * (p.zz * p.zzz);
    out[i] = {p.x * (di * p.zzz), p.y * (di * p.zz)};
  }
}

#if defined(__CUDACC__)
// fb_table sets table[w·FB_H + m − 1] = m·wbase[w] for w < FB_W, 1 ≤ m ≤ FB_H.
template <class F>
__global__ void __launch_bounds__(FB_THREADS) fb_table(const affine_t<F>* wbase, affine_t<F>* table) {
  const uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (j >= FB_TABLE) return;
  table[j] = fb_table_entry(wbase, j);
}

// fb_accumulate sets out[i] = scalars[i]·P (XYZZ) for i < n from P's table.
// A scalar ≥ r gives infinity and lowers *bad to its index.
template <class F>
__global__ void __launch_bounds__(FB_THREADS)
    fb_accumulate(const affine_t<F>* table, const fr_t* scalars, uint64_t n, xyzz_t<F>* out,
                  unsigned long long* bad) {
  const uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  xyzz_t<F> acc;
  if (!fb_scalar_mul(acc, table, scalars[i])) atomicMin(bad, (unsigned long long)i);
  out[i] = acc;
}

// fb_to_affine converts in[0:n) to affine out[0:n) with `threads` threads
// (step 4 of the comment above).
template <class F>
__global__ void __launch_bounds__(FB_THREADS)
    fb_to_affine(const xyzz_t<F>* in, affine_t<F>* out, uint64_t n, uint64_t threads) {
  const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (t >= threads || t >= n) return;
  fb_to_affine_thread(in, out, n, threads, t);
}

// fb_blocks is the number of blocks of FB_THREADS that cover count threads.
inline unsigned fb_blocks(uint64_t count) { return (unsigned)((count + FB_THREADS - 1) / FB_THREADS); }

// fb_to_affine_enqueue enqueues fb_to_affine of in[0:n) to out on s, a thread for every FB_BATCH
// points (one inversion each); the caller checks the launch.
template <class F>
void fb_to_affine_enqueue(const xyzz_t<F>* in, affine_t<F>* out, uint64_t n, cudaStream_t s) {
  const uint64_t threads = (n + FB_BATCH - 1) / FB_BATCH;
  fb_to_affine<F><<<fb_blocks(threads), FB_THREADS, 0, s>>>(in, out, n, threads);
}
#endif

}  // namespace cuzk
