// Multi-scalar multiplication Σ s_i·P_i on G1 and G2 (Pippenger).
//
// Steps, all on the device except the final window combination:
//  1. classify every scalar as 0, 1 (Montgomery one) or other;
//  2. the points with scalar 1 are compacted and summed (XYZZ, mixed adds,
//     then a tree of XYZZ additions) — Filecoin witnesses are mostly bits;
//  3. the other scalars are converted out of Montgomery form and cut into
//     signed c-bit digits d ∈ [−2^(c−1), 2^(c−1)]; each nonzero digit gives a
//     (key = window·2^(c−1) + |d|−1, value = point index | sign<<31) pair;
//  4. pairs are radix-sorted by key (CUB), runs of equal keys are summed
//     into buckets by fixed-length chunks (load-balanced whatever the
//     distribution), partial sums reduced again until runs are short, then
//     each run is summed whole into its bucket;
//  5. each window's Σ_b (b+1)·B_b is computed by segments (running sums) and a
//     tree, and the host combines windows by Horner's rule and adds step 2.
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "common.cuh"

namespace cuzk {

constexpr uint32_t SENTINEL = 0xffffffffu;

// Point kernels run 128-thread blocks; msm_blocks<F> is the number of blocks
// per SM each must fit, which caps its registers at 65536 / (128·blocks).
// G1 fits 4 at its natural ≈ 122 registers; G2 (≈ 220 natural) is held to
// CUZK_G2_BLOCKS, trading spills for occupancy.
#ifndef CUZK_G2_BLOCKS
#define CUZK_G2_BLOCKS 2
#endif
constexpr int MSM_THREADS = 128;
template <class F>
struct msm_blocks {
  static constexpr int value = 4;
};
template <>
struct msm_blocks<fp2_t> {
  static constexpr int value = CUZK_G2_BLOCKS;
};
#define MSM_BOUNDS(F) __launch_bounds__(MSM_THREADS, msm_blocks<F>::value)

// ---- loading points ------------------------------------------------------
template <class F>
__device__ __forceinline__ affine_t<F> load_affine(const affine_t<F>* p, uint32_t v) {
  affine_t<F> a = p[v & 0x7fffffffu];
  if (v >> 31) a.y = a.y.neg();
  return a;
}

// ---- classification and the 0/1 path --------------------------------------
__global__ void msm_classify(const fr_t* __restrict__ s, uint8_t* __restrict__ flags, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t x = s[i];
  uint8_t f = 2;
  if (x.is_zero())
    f = 0;
  else if (x == fr_t::one())
    f = 1;
  flags[i] = f;
}

struct flag_is {
  const uint8_t* flags;
  uint8_t want;
  __host__ __device__ bool operator()(const uint32_t& i) const { return flags[i] == want; }
};

// msm_sum_idx: out[t] = Σ P[idx[j]] for j in [tL, tL+L) ∩ [0, m).
template <class F>
__global__ void MSM_BOUNDS(F) msm_sum_idx(const affine_t<F>* __restrict__ P, const uint32_t* __restrict__ idx, uint64_t m,
                            uint32_t L, xyzz_t<F>* __restrict__ out, uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  xyzz_t<F> acc = xyzz_t<F>::inf();
  uint64_t end = min(m, (t + 1) * L);
  for (uint64_t j = t * L; j < end; j++) acc.add_affine(P[idx[j]]);
  out[t] = acc;
}

// msm_sum_xyzz: out[t] = Σ in[j] for j in [tL, tL+L) ∩ [0, m).
template <class F>
__global__ void MSM_BOUNDS(F) msm_sum_xyzz(const xyzz_t<F>* __restrict__ in, uint64_t m, uint32_t L, xyzz_t<F>* __restrict__ out,
                             uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  xyzz_t<F> acc = xyzz_t<F>::inf();
  uint64_t end = min(m, (t + 1) * L);
  for (uint64_t j = t * L; j < end; j++) acc.add(in[j]);
  out[t] = acc;
}

// ---- digits ----------------------------------------------------------------
// msm_digits writes, for windows [w0, w1) and compacted scalar j, the pair at
// (w − w0)·m + j.
__global__ void msm_digits(const fr_t* __restrict__ s, const uint32_t* __restrict__ idx, uint64_t m, uint32_t c,
                           uint32_t w0, uint32_t w1, uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
  uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  uint32_t i = idx[j];
  fr_t x = s[i].from_mont();
  const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1;
  uint32_t carry = 0;
  for (uint32_t w = 0; w < w1; w++) {
    uint32_t bit = w * c, lo = bit >> 5, sh = bit & 31;
    uint32_t v = 0;
    if (lo < 8) {
      v = x.l[lo] >> sh;
      if (sh && lo + 1 < 8) v |= x.l[lo + 1] << (32 - sh);
    }
    v = (v & mask) + carry;
    uint32_t neg = 0, mag = v;
    if (v > half) {
      mag = (1u << c) - v;
      neg = 1;
      carry = 1;
    } else {
      carry = 0;
    }
    if (w >= w0) {
      uint64_t o = (uint64_t)(w - w0) * m + j;
      if (mag == 0) {
        keys[o] = SENTINEL;
        vals[o] = 0;
      } else {
        keys[o] = (w << (c - 1)) | (mag - 1);
        vals[o] = i | (neg << 31);
      }
    }
  }
}

// msm_count_valid finds the number of non-sentinel keys in a sorted array.
__global__ void msm_count_valid(const uint32_t* __restrict__ keys, uint64_t M, unsigned long long* out) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M) return;
  bool here = keys[i] != SENTINEL;
  bool next = i + 1 < M && keys[i + 1] != SENTINEL;
  if (here && !next) *out = i + 1;
}

// msm_run_bounds records the first and last position of each key's run.
__global__ void msm_run_bounds(const uint32_t* __restrict__ keys, uint64_t M, uint32_t* __restrict__ first,
                               uint32_t* __restrict__ last) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M) return;
  uint32_t k = keys[i];
  if (i == 0 || keys[i - 1] != k) first[k] = (uint32_t)i;
  if (i + 1 == M || keys[i + 1] != k) last[k] = (uint32_t)i;
}

__global__ void msm_run_len(const uint32_t* __restrict__ first, const uint32_t* __restrict__ last, uint64_t nb,
                            unsigned int* __restrict__ maxlen) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nb) return;
  if (last[i] != SENTINEL && first[i] != SENTINEL) atomicMax(maxlen, last[i] - first[i] + 1);
}

// ---- bucket accumulation ---------------------------------------------------
// Inputs are sorted keys with either (point index|sign) values (affine) or
// XYZZ partial sums at the same positions.
template <class F, bool AFF>
struct src_t {
  const affine_t<F>* P;
  const uint32_t* vals;
  const xyzz_t<F>* part;
  __device__ __forceinline__ void add_to(xyzz_t<F>& acc, uint64_t i) const {
    if (AFF)
      acc.add_affine(load_affine(P, vals[i]));
    else
      acc.add(part[i]);
  }
};

__global__ void msm_split_count(const uint32_t* __restrict__ keys, uint64_t M, uint32_t L, uint32_t* __restrict__ cnt,
                                uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t > nt) return;
  if (t == nt) {
    cnt[t] = 0;
    return;
  }
  uint64_t b = t * L, e = min(M, b + L);
  uint32_t c = 1;
  for (uint64_t i = b + 1; i < e; i++) c += keys[i] != keys[i - 1];
  cnt[t] = c;
}

template <class F, bool AFF>
__global__ void MSM_BOUNDS(F) msm_split_emit(const uint32_t* __restrict__ keys, src_t<F, AFF> src, uint64_t M, uint32_t L,
                               const uint32_t* __restrict__ off, uint32_t* __restrict__ okeys,
                               xyzz_t<F>* __restrict__ opart, uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  uint64_t b = t * L, e = min(M, b + L);
  uint32_t o = off[t];
  uint32_t cur = keys[b];
  xyzz_t<F> acc = xyzz_t<F>::inf();
  for (uint64_t i = b; i < e; i++) {
    uint32_t k = keys[i];
    if (k != cur) {
      okeys[o] = cur;
      opart[o] = acc;
      o++;
      acc = xyzz_t<F>::inf();
      cur = k;
    }
    src.add_to(acc, i);
  }
  okeys[o] = cur;
  opart[o] = acc;
}

// msm_own: thread t sums every run that starts in [tL, tL+L) into bucket[key].
template <class F, bool AFF>
__global__ void MSM_BOUNDS(F) msm_own(const uint32_t* __restrict__ keys, src_t<F, AFF> src, uint64_t M, uint32_t L,
                        xyzz_t<F>* __restrict__ buckets, uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  uint64_t i = t * L, e = min(M, i + L);
  if (i > 0)
    while (i < e && keys[i] == keys[i - 1]) i++;
  while (i < e) {
    uint32_t k = keys[i];
    xyzz_t<F> acc = xyzz_t<F>::inf();
    do {
      src.add_to(acc, i);
      i++;
    } while (i < M && keys[i] == k);
    buckets[k] = acc;
  }
}

// ---- bucket reduction ------------------------------------------------------
// msm_window_segments: thread (w, g) handles buckets [g·S, (g+1)·S) of window
// w and writes Σ_b (b+1)·B_b over its segment.
template <class F>
__global__ void MSM_BOUNDS(F) msm_window_segments(const xyzz_t<F>* __restrict__ buckets, uint32_t nb, uint32_t S, uint32_t T,
                                    uint32_t W, xyzz_t<F>* __restrict__ out) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (uint64_t)W * T) return;
  uint32_t w = (uint32_t)(t / T), g = (uint32_t)(t % T);
  const xyzz_t<F>* B = buckets + (uint64_t)w * nb;
  uint32_t lo = g * S, hi = min(nb, lo + S);
  xyzz_t<F> run = xyzz_t<F>::inf(), acc = xyzz_t<F>::inf();
  for (uint32_t b = hi; b > lo; b--) {
    run.add(B[b - 1]);
    acc.add(run);
  }
  if (lo) {
    // acc += lo·run
    xyzz_t<F> m = run;
    xyzz_t<F> r = xyzz_t<F>::inf();
    int top = 31 - __clz(lo);
    for (int i = top; i >= 0; i--) {
      r.dbl();
      if ((lo >> i) & 1) r.add(m);
    }
    acc.add(r);
  }
  out[t] = acc;
}

// ---- host driver -----------------------------------------------------------
static unsigned blocks_for(uint64_t n, unsigned bs) { return (unsigned)((n + bs - 1) / bs); }

template <class T>
static T read_one(const T* d, cudaStream_t s) {
  T h;
  CUZK_CUDA(cudaMemcpyAsync(&h, d, sizeof(T), cudaMemcpyDeviceToHost, s));
  CUZK_CUDA(cudaStreamSynchronize(s));
  return h;
}

// choose_c picks the window width minimizing m·W + 3·W·2^(c−1) point additions.
static uint32_t choose_c(uint64_t m) {
  uint32_t best = 4;
  double bestc = 1e300;
  for (uint32_t c = 4; c <= 20; c++) {
    uint32_t W = (256 + c - 1) / c;
    double cost = (double)m * W + 3.0 * W * (double)(1u << (c - 1));
    if (cost < bestc) {
      bestc = cost;
      best = c;
    }
  }
  return best;
}

// sum_tree reduces in[0..m) in place-ish to one point at *result (device).
template <class F>
static dbuf_t<xyzz_t<F>> sum_tree(dbuf_t<xyzz_t<F>> cur, uint64_t m, cudaStream_t s) {
  const uint32_t L = 16;
  while (m > 1) {
    uint64_t nt = (m + L - 1) / L;
    dbuf_t<xyzz_t<F>> nxt(nt, s);
    msm_sum_xyzz<F><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(cur, m, L, nxt, nt);
    CUZK_LAUNCHED();
    cur = std::move(nxt);
    m = nt;
  }
  return cur;
}

template <class F>
static void accumulate_buckets(const affine_t<F>* P, uint32_t* keys, uint32_t* vals, uint64_t M, uint32_t maxrun,
                               xyzz_t<F>* buckets, cudaStream_t s) {
  const uint32_t L = 32;
  uint64_t bound = maxrun;
  bool aff = true;
  dbuf_t<uint32_t> pkeys;
  dbuf_t<xyzz_t<F>> ppart;
  const uint32_t* K = keys;
  while (bound > 4 * L) {
    uint64_t nt = (M + L - 1) / L;
    dbuf_t<uint32_t> cnt(nt + 1, s), off(nt + 1, s);
    msm_split_count<<<blocks_for(nt + 1, 256), 256, 0, s>>>(K, M, L, cnt, nt);
    CUZK_LAUNCHED();
    size_t tb = 0;
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tb, cnt.p, off.p, (int)(nt + 1), s));
    dbuf_t<uint8_t> tmp(tb, s);
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(tmp.p, tb, cnt.p, off.p, (int)(nt + 1), s));
    uint64_t total = read_one(off.p + nt, s);
    dbuf_t<uint32_t> nkeys(total, s);
    dbuf_t<xyzz_t<F>> npart(total, s);
    if (aff) {
      src_t<F, true> src{P, vals, nullptr};
      msm_split_emit<F, true><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, off, nkeys, npart, nt);
    } else {
      src_t<F, false> src{nullptr, nullptr, ppart.p};
      msm_split_emit<F, false><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, off, nkeys, npart, nt);
    }
    CUZK_LAUNCHED();
    pkeys = std::move(nkeys);
    ppart = std::move(npart);
    K = pkeys.p;
    M = total;
    aff = false;
    bound = (bound + L - 1) / L + 1;
  }
  uint64_t nt = (M + L - 1) / L;
  if (nt == 0) return;
  if (aff) {
    src_t<F, true> src{P, vals, nullptr};
    msm_own<F, true><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, buckets, nt);
  } else {
    src_t<F, false> src{nullptr, nullptr, ppart.p};
    msm_own<F, false><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, buckets, nt);
  }
  CUZK_LAUNCHED();
}

template <class F>
static void msm_impl(const affine_t<F>* P, const fr_t* S, uint64_t n, F* out, cudaStream_t s) {
  using X = xyzz_t<F>;
  X total = X::inf();
  if (n == 0) {
    total.to_jacobian(out);
    return;
  }
  // 1. classify
  dbuf_t<uint8_t> flags(n, s);
  msm_classify<<<blocks_for(n, 256), 256, 0, s>>>(S, flags, n);
  CUZK_LAUNCHED();
  dbuf_t<uint32_t> ones(n, s), others(n, s);
  dbuf_t<unsigned long long> cnts(2, s);
  {
    thrust::counting_iterator<uint32_t> it(0);
    size_t tb1 = 0, tb2 = 0;
    flag_is p1{flags.p, 1}, p2{flags.p, 2};
    CUZK_CUDA(cub::DeviceSelect::If(nullptr, tb1, it, ones.p, cnts.p, (int)n, p1, s));
    CUZK_CUDA(cub::DeviceSelect::If(nullptr, tb2, it, others.p, cnts.p + 1, (int)n, p2, s));
    dbuf_t<uint8_t> tmp(tb1 > tb2 ? tb1 : tb2, s);
    CUZK_CUDA(cub::DeviceSelect::If(tmp.p, tb1, it, ones.p, cnts.p, (int)n, p1, s));
    CUZK_CUDA(cub::DeviceSelect::If(tmp.p, tb2, it, others.p, cnts.p + 1, (int)n, p2, s));
  }
  unsigned long long hc[2];
  CUZK_CUDA(cudaMemcpyAsync(hc, cnts.p, sizeof hc, cudaMemcpyDeviceToHost, s));
  CUZK_CUDA(cudaStreamSynchronize(s));
  const uint64_t n1 = hc[0], m = hc[1];

  // 2. sum of points with scalar 1
  dbuf_t<X> ones_sum;
  if (n1) {
    const uint32_t L = 32;
    uint64_t nt = (n1 + L - 1) / L;
    dbuf_t<X> part(nt, s);
    msm_sum_idx<F><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(P, ones, n1, L, part, nt);
    CUZK_LAUNCHED();
    ones_sum = sum_tree<F>(std::move(part), nt, s);
  }
  ones.reset();

  // 3–5. Pippenger over the other scalars
  std::vector<X> wsum;
  uint32_t c = 0, W = 0;
  if (m) {
    c = choose_c(m);
    W = (256 + c - 1) / c;
    const uint32_t nb = 1u << (c - 1);
    uint32_t wbits = 0;
    while ((1u << wbits) <= W) wbits++;
    const uint32_t kbits = (c - 1) + wbits;  // sentinel's low kbits are all ones
    dbuf_t<X> buckets((uint64_t)W * nb, s);
    CUZK_CUDA(cudaMemsetAsync(buckets.p, 0, (uint64_t)W * nb * sizeof(X), s));
    const uint64_t cap = 1ull << 30;
    uint32_t Wg = (uint32_t)(cap / m);
    if (Wg < 1) Wg = 1;
    if (Wg > W) Wg = W;
    for (uint32_t w0 = 0; w0 < W; w0 += Wg) {
      uint32_t w1 = w0 + Wg < W ? w0 + Wg : W;
      uint64_t M = (uint64_t)(w1 - w0) * m;
      dbuf_t<uint32_t> k0(M, s), k1(M, s), v0(M, s), v1(M, s);
      msm_digits<<<blocks_for(m, 256), 256, 0, s>>>(S, others, m, c, w0, w1, k0, v0);
      CUZK_LAUNCHED();
      cub::DoubleBuffer<uint32_t> dk(k0.p, k1.p), dv(v0.p, v1.p);
      size_t tb = 0;
      CUZK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, tb, dk, dv, (int)M, 0, (int)kbits, s));
      {
        dbuf_t<uint8_t> tmp(tb, s);
        CUZK_CUDA(cub::DeviceRadixSort::SortPairs(tmp.p, tb, dk, dv, (int)M, 0, (int)kbits, s));
      }
      uint32_t* K = dk.Current();
      uint32_t* V = dv.Current();
      // number of valid (non-sentinel) pairs and longest run
      dbuf_t<unsigned long long> valid(1, s);
      CUZK_CUDA(cudaMemsetAsync(valid.p, 0, sizeof(unsigned long long), s));
      msm_count_valid<<<blocks_for(M, 256), 256, 0, s>>>(K, M, valid);
      CUZK_LAUNCHED();
      uint64_t Mv = read_one(valid.p, s);
      if (Mv == 0) continue;
      uint64_t nkeys = (uint64_t)W << (c - 1);
      dbuf_t<uint32_t> first(nkeys, s), last(nkeys, s);
      dbuf_t<unsigned int> maxlen(1, s);
      CUZK_CUDA(cudaMemsetAsync(first.p, 0xff, nkeys * 4, s));
      CUZK_CUDA(cudaMemsetAsync(last.p, 0xff, nkeys * 4, s));
      CUZK_CUDA(cudaMemsetAsync(maxlen.p, 0, 4, s));
      msm_run_bounds<<<blocks_for(Mv, 256), 256, 0, s>>>(K, Mv, first, last);
      msm_run_len<<<blocks_for(nkeys, 256), 256, 0, s>>>(first, last, nkeys, maxlen);
      CUZK_LAUNCHED();
      uint32_t maxrun = read_one(maxlen.p, s);
      accumulate_buckets<F>(P, K, V, Mv, maxrun, buckets, s);
    }
    // window sums
    uint32_t S_ = 16;
    if (S_ > nb) S_ = nb;
    uint32_t T = nb / S_;
    dbuf_t<X> seg((uint64_t)W * T, s);
    msm_window_segments<F><<<blocks_for((uint64_t)W * T, MSM_THREADS), MSM_THREADS, 0, s>>>(buckets, nb, S_, T, W, seg);
    CUZK_LAUNCHED();
    // tree per window: T is a power of two
    dbuf_t<X> cur = std::move(seg);
    uint32_t per = T;
    while (per > 1) {
      uint32_t L = per < 16 ? per : 16;
      uint64_t nt = (uint64_t)W * (per / L);
      dbuf_t<X> nxt(nt, s);
      msm_sum_xyzz<F><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(cur, (uint64_t)W * per, L, nxt, nt);
      CUZK_LAUNCHED();
      cur = std::move(nxt);
      per /= L;
    }
    wsum.resize(W);
    CUZK_CUDA(cudaMemcpyAsync(wsum.data(), cur.p, W * sizeof(X), cudaMemcpyDeviceToHost, s));
  }
  X hones = X::inf();
  if (n1) CUZK_CUDA(cudaMemcpyAsync(&hones, ones_sum.p, sizeof(X), cudaMemcpyDeviceToHost, s));
  CUZK_CUDA(cudaStreamSynchronize(s));
  CUZK_LAUNCHED();
  for (int w = (int)W - 1; w >= 0; w--) {
    for (uint32_t i = 0; i < c; i++) total.dbl();
    total.add(wsum[w]);
  }
  total.add(hones);
  total.to_jacobian(out);
}

void msm_run(const cuzk_bases* b, const fr_t* d_scalars, uint64_t n, void* out, cudaStream_t s) {
  if (b->group == 1)
    msm_impl<fp_t>((const g1_affine_t*)b->p, d_scalars, n, (fp_t*)out, s);
  else
    msm_impl<fp2_t>((const g2_affine_t*)b->p, d_scalars, n, (fp2_t*)out, s);
}

}  // namespace cuzk
