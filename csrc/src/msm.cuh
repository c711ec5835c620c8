// Multi-scalar multiplication Σ s_i·P_i on G1 and G2 (Pippenger).
//
// msm_t<F> runs G1 with F = fp_lazy_t (coordinates below 2p in registers, below p in
// memory: field.cuh) and G2 with F = fp2_t. msm_t<F>::run runs these steps, one method
// each, all on the device except the final window combination (msm_t<F>::collect):
//  1. classify: every scalar is classified as 0, 1 (Montgomery one) or other;
//  2. sum_ones: the points with scalar 1 are compacted and summed (XYZZ, mixed
//     adds, then a tree of XYZZ additions) — Filecoin witnesses are mostly bits;
//     bases with a pair table (cuzk_bases.pairs: S_k = P_2k + P_2k+1) add S_k
//     once where scalars 2k and 2k+1 are both 1;
//  3. digits: the other scalars are converted out of Montgomery form and cut
//     into signed c-bit digits d ∈ [−2^(c−1), 2^(c−1)]; each nonzero digit gives
//     a (key = window·2^(c−1) + |d|−1, value = point index | sign<<31) pair.
//     Bases with a shift table (cuzk_bases.shifted: Q_i = 2^128·P_i, G1 only)
//     cut each scalar s = s_lo + 2^128·s_hi in two: s_lo's digits pair with P_i,
//     s_hi's with Q_i (value bit 30), so that each window holds 2m pairs and
//     ⌈129/c⌉ windows replace ⌈256/c⌉ (at c = 22 for 2^27 scalars: 12m pairs
//     instead of 13m, in 6 windows of 2^21 buckets instead of 13 of 2^19);
//  4. sort, accumulate: pairs are radix-sorted by key (CUB), runs of equal keys
//     are summed by fixed-length chunks (load-balanced whatever the
//     distribution), a run inside a chunk straight into its bucket, a run
//     across a chunk's bounds into partial sums, which are reduced again until
//     runs are short, then each run is summed whole into its bucket;
//  5. reduce, collect: each window's Σ_b (b+1)·B_b is computed by segments
//     (running sums) and a tree, and the host combines windows by Horner's rule
//     and adds step 2.
// Steps 3 and 4 run once per batch of windows whose pairs fit in
// 2^CUZK_MSM_BATCH_LOG2.
//
// This header holds the tunables, the kernels and msm_t; msm.cu is the one
// translation unit that includes it.
#pragma once
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "curve.cuh"
#include "ops.cuh"

// CUZK_MSM_THREADS is the block size of the point kernels (those that add
// points). At 128 a block stays within an SM's 65536 registers even at the
// 255-register maximum per thread, and the blocks-per-SM targets below set
// the register cap in steps of 128 threads.
#ifndef CUZK_MSM_THREADS
#define CUZK_MSM_THREADS 128
#endif
#if CUZK_MSM_THREADS < 32 || CUZK_MSM_THREADS > 1024 || CUZK_MSM_THREADS % 32 != 0
#error "CUZK_MSM_THREADS must be a multiple of 32 in [32, 1024]"
#endif

// CUZK_G1_BLOCKS and CUZK_G2_BLOCKS are the blocks per SM each point kernel
// must fit, which caps its registers at 65536 / (CUZK_MSM_THREADS·blocks).
// G1 fits 4 at its natural ≈ 122 registers; G2 (≈ 220 natural) at 2 was
// measured faster than 3 or 4, whose spills cost more than the extra warps
// bring (docs/gpu-kernels.md).
#ifndef CUZK_G1_BLOCKS
#define CUZK_G1_BLOCKS 4
#endif
#if CUZK_G1_BLOCKS < 1 || CUZK_G1_BLOCKS * CUZK_MSM_THREADS > 2048
#error "CUZK_G1_BLOCKS must be at least 1 and CUZK_G1_BLOCKS·CUZK_MSM_THREADS at most 2048 (threads per SM)"
#endif
#ifndef CUZK_G2_BLOCKS
#define CUZK_G2_BLOCKS 2
#endif
#if CUZK_G2_BLOCKS < 1 || CUZK_G2_BLOCKS * CUZK_MSM_THREADS > 2048
#error "CUZK_G2_BLOCKS must be at least 1 and CUZK_G2_BLOCKS·CUZK_MSM_THREADS at most 2048 (threads per SM)"
#endif

// CUZK_MSM_BATCH_LOG2 bounds the (key, value) pairs of one batch of windows
// (steps 3 and 4) to 2^CUZK_MSM_BATCH_LOG2: 16 bytes a pair with the sort's
// double buffers, 16 GiB at the default 30. The windows are cut into the fewest
// batches the bound allows, as even as can be (H's 6 windows of 2^28 pairs at a
// PoRep partition: 3 + 3, 12 GiB). A batch holds at least one window,
// so a window of more nonzero digits than the bound is still one batch; CUB
// counts pairs in an int, which MAX_BASES < 2^31 keeps in range.
#ifndef CUZK_MSM_BATCH_LOG2
#define CUZK_MSM_BATCH_LOG2 30
#endif
#if CUZK_MSM_BATCH_LOG2 < 16 || CUZK_MSM_BATCH_LOG2 > 30
#error "CUZK_MSM_BATCH_LOG2 must be in [16, 30]"
#endif

// CUZK_MSM_MAX_C is the widest window the cost model may choose (bits): the
// buckets take W·2^(c−1) XYZZ points (at c = 20: 13·2^19, 1.2 GiB for G1) and
// keys (c − 1) + ⌈log2(W + 1)⌉ ≤ 32 bits.
#ifndef CUZK_MSM_MAX_C
#define CUZK_MSM_MAX_C 20
#endif
#if CUZK_MSM_MAX_C < 4 || CUZK_MSM_MAX_C > 24
#error "CUZK_MSM_MAX_C must be in [4, 24]"
#endif

// CUZK_MSM_MAX_C_SPLIT is the widest window with a shift table: c = 22 makes
// ⌈129/c⌉ = 6 windows (2^21 buckets each, 2.25 GiB of G1 buckets), against 7
// at 19–21 bits.
#ifndef CUZK_MSM_MAX_C_SPLIT
#define CUZK_MSM_MAX_C_SPLIT 22
#endif
#if CUZK_MSM_MAX_C_SPLIT < 4 || CUZK_MSM_MAX_C_SPLIT > 24
#error "CUZK_MSM_MAX_C_SPLIT must be in [4, 24]"
#endif

namespace cuzk {

constexpr uint32_t SENTINEL = 0xffffffffu;  // the key of a zero digit: sorts after every bucket's key

constexpr int MSM_THREADS = CUZK_MSM_THREADS;
template <class F>
struct msm_blocks {
  static constexpr int value = CUZK_G1_BLOCKS;
};
template <>
struct msm_blocks<fp2_t> {
  static constexpr int value = CUZK_G2_BLOCKS;
};
#define MSM_BOUNDS(F) __launch_bounds__(MSM_THREADS, msm_blocks<F>::value)

// ---- loading points ---------------------------------------------------------
// load_affine reads point v & (2^31 − 1), negated when bit 31 of v is set.
template <class F>
__device__ __forceinline__ affine_t<F> load_affine(const affine_t<F>* p, uint32_t v) {
  affine_t<F> a = affine_t<F>::load(p + (v & 0x7fffffffu));
  if (v >> 31) a.y = a.y.neg();
  return a;
}

// SHIFTED marks a pair's value whose point is the shift table's: Q_i = 2^128·P_i.
constexpr uint32_t SHIFTED = 1u << 30;

// load_affine2 is load_affine of the point of P, or of Q when v has SHIFTED.
template <class F>
__device__ __forceinline__ affine_t<F> load_affine2(const affine_t<F>* p, const affine_t<F>* q, uint32_t v) {
  return load_affine(v & SHIFTED ? q : p, v & ~SHIFTED);
}

// ---- steps 1 and 2: classification and the sum of the points with scalar 1 --
// msm_classify sets flags[i] to 0 for the scalar 0, 1 for the scalar 1 (Montgomery one, or the
// integer 1 for plain scalars), 2 otherwise.
__global__ void msm_classify(const fr_t* __restrict__ s, uint8_t* __restrict__ flags, uint64_t n, bool plain) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t x = fr_t::load(s + i);
  uint8_t f = 2;
  if (x.is_zero())
    f = 0;
  else if (x == (plain ? fr_t::raw_one() : fr_t::one()))
    f = 1;
  flags[i] = f;
}

// flag_is selects the indices whose flag is want (a CUB select predicate).
struct flag_is {
  const uint8_t* flags;
  uint8_t want;
  __host__ __device__ bool operator()(const uint32_t& i) const { return flags[i] == want; }
};

// With a pair table (S_k = P_2k + P_2k+1), the scalars 2k and 2k+1 both 1 are flagged PAIR_HEAD
// and PAIR_TAIL by msm_pair_flags, and the head's entry in the list of ones is PAIRED | k, the
// pair's point, in place of the two.
constexpr uint8_t FLAG_ONE = 1, PAIR_HEAD = 3, PAIR_TAIL = 4;
constexpr uint32_t PAIRED = 1u << 31;

// msm_pair_flags turns the flags of scalars 2k and 2k+1 < n that are both 1 into PAIR_HEAD and
// PAIR_TAIL.
__global__ void msm_pair_flags(uint8_t* __restrict__ flags, uint64_t n) {
  const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * k + 1 >= n || flags[2 * k] != FLAG_ONE || flags[2 * k + 1] != FLAG_ONE) return;
  flags[2 * k] = PAIR_HEAD;
  flags[2 * k + 1] = PAIR_TAIL;
}

// one_entry is scalar i's entry in the list of ones, PAIRED | i/2 for a pair's head (a CUB
// select's input, through a transform iterator); one_kept keeps the entries of a pair's head and
// of a 1 alone (its predicate).
struct one_entry {
  const uint8_t* flags;
  __host__ __device__ uint32_t operator()(const uint32_t& i) const {
    return flags[i] == PAIR_HEAD ? PAIRED | (i >> 1) : i;
  }
};
struct one_kept {
  const uint8_t* flags;
  __host__ __device__ bool operator()(const uint32_t& v) const { return (v & PAIRED) || flags[v] == FLAG_ONE; }
};

// point_of is the base that scalar i pairs with: i, or with rev_bits ≥ 1 the reversal of i's
// rev_bits low bits (the scalars of a quotient left in bit-reversed order).
__device__ __forceinline__ uint32_t point_of(uint32_t i, uint32_t rev_bits) {
  return rev_bits ? __brev(i) >> (32 - rev_bits) : i;
}

// msm_sum_idx: out[t] = Σ of the points of entries idx[j] for j in [tL, tL+L) ∩ [0, m): P at
// point_of(idx[j]), or S at k for PAIRED | k (S, P's pair table, where idx has such entries).
template <class F>
__global__ void MSM_BOUNDS(F) msm_sum_idx(const affine_t<F>* __restrict__ P, const affine_t<F>* __restrict__ S,
                            const uint32_t* __restrict__ idx, uint64_t m, uint32_t L, uint32_t rev_bits,
                            xyzz_t<F>* __restrict__ out, uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  xyzz_t<F> acc = xyzz_t<F>::inf();
  uint64_t end = min(m, (t + 1) * L);
  for (uint64_t j = t * L; j < end; j++) {
    const uint32_t v = idx[j];
    acc.add_affine(affine_t<F>::load(v & PAIRED ? S + (v & ~PAIRED) : P + point_of(v, rev_bits)));
  }
  xyzz_t<F>::store(out + t, acc);
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
  xyzz_t<F>::store(out + t, acc);
}

// ---- step 3: digits ---------------------------------------------------------
// msm_digits writes, for windows [w0, w1) and compacted scalar j, the pairs of
// its PARTS parts: part p (the scalar's limbs [8p/PARTS, 8(p+1)/PARTS), each
// with its own carry) at ((w − w0)·PARTS + p)·m + j, its value the point index
// (point_of the scalar's) with SHIFTED for part 1. Scalars are converted out of
// Montgomery form unless plain.
template <uint32_t PARTS>
__global__ void msm_digits(const fr_t* __restrict__ s, const uint32_t* __restrict__ idx, uint64_t m, uint32_t c,
                           uint32_t w0, uint32_t w1, uint32_t rev_bits, bool plain, uint32_t* __restrict__ keys,
                           uint32_t* __restrict__ vals) {
  static_assert(PARTS == 1 || PARTS == 2, "a scalar is cut in one or two parts");
  constexpr uint32_t LIMBS = 8 / PARTS;
  uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const uint32_t i = idx[j], pt = point_of(i, rev_bits);
  fr_t x = fr_t::load(s + i);
  if (!plain) x = x.from_mont();
  const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1;
#pragma unroll
  for (uint32_t p = 0; p < PARTS; p++) {
    const uint32_t* l = x.l + p * LIMBS;
    const uint32_t table = p ? SHIFTED : 0;
    uint32_t carry = 0;
    for (uint32_t w = 0; w < w1; w++) {
      uint32_t bit = w * c, lo = bit >> 5, sh = bit & 31;
      uint32_t v = 0;
      if (lo < LIMBS) {
        v = l[lo] >> sh;
        if (sh && lo + 1 < LIMBS) v |= l[lo + 1] << (32 - sh);
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
        uint64_t o = ((uint64_t)(w - w0) * PARTS + p) * m + j;
        if (mag == 0) {
          keys[o] = SENTINEL;
          vals[o] = 0;
        } else {
          keys[o] = (w << (c - 1)) | (mag - 1);
          vals[o] = pt | table | (neg << 31);
        }
      }
    }
  }
}

// ---- step 4: bucket accumulation ---------------------------------------------
// msm_count_valid sets *valid to the number of keys before the first sentinel
// in a sorted array of M keys (a binary search, one thread).
__global__ void msm_count_valid(const uint32_t* __restrict__ keys, uint64_t M, unsigned long long* __restrict__ valid) {
  uint64_t lo = 0, hi = M;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] == SENTINEL)
      hi = mid;
    else
      lo = mid + 1;
  }
  *valid = lo;
}

// msm_run_bounds records the first and last position of each key's run in a
// sorted array of M keys without sentinels.
__global__ void msm_run_bounds(const uint32_t* __restrict__ keys, uint64_t M, uint32_t* __restrict__ first,
                               uint32_t* __restrict__ last) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M) return;
  uint32_t k = keys[i];
  if (i == 0 || keys[i - 1] != k) first[k] = (uint32_t)i;
  if (i + 1 == M || keys[i + 1] != k) last[k] = (uint32_t)i;
}

// msm_run_len sets *maxlen to the length of the longest run (at least its
// value on entry). A warp's lanes first agree on their maximum, so that one
// atomic a warp, not one a bucket, meets the single counter: at c = 20 one
// atomic a bucket (6.8 M on one address) took ≈ 4.5 ms.
__global__ void msm_run_len(const uint32_t* __restrict__ first, const uint32_t* __restrict__ last, uint64_t nb,
                            unsigned long long* __restrict__ maxlen) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t len = 0;
  if (i < nb && last[i] != SENTINEL && first[i] != SENTINEL) len = last[i] - first[i] + 1;
  len = __reduce_max_sync(0xffffffffu, len);
  if (len && threadIdx.x % 32 == 0) atomicMax(maxlen, (unsigned long long)len);
}

// The accumulation proper: its inputs are sorted keys with either (point
// index|sign) values, of one table of bases (pairs_src) or of a table and its
// shift table (split_src), or XYZZ partial sums at the same positions
// (part_src).
template <class F>
struct pairs_src {
  const affine_t<F>* P;
  const uint32_t* vals;
  __device__ __forceinline__ void add_to(xyzz_t<F>& acc, uint64_t i) const { acc.add_affine(load_affine(P, vals[i])); }
};
template <class F>
struct split_src {
  const affine_t<F>* P;
  const affine_t<F>* Q;
  const uint32_t* vals;
  __device__ __forceinline__ void add_to(xyzz_t<F>& acc, uint64_t i) const {
    acc.add_affine(load_affine2(P, Q, vals[i]));
  }
};
template <class F>
struct part_src {
  const xyzz_t<F>* part;
  __device__ __forceinline__ void add_to(xyzz_t<F>& acc, uint64_t i) const { acc.add(part[i]); }
};

// run_chunks cuts M sorted pairs into count chunks: nlong chunks of L pairs,
// then chunks of L2 ≤ L (the last wave's pairs in shorter chunks, so that the
// threads still running at the end of the pass have less left to do).
struct run_chunks {
  uint64_t M, nlong, count;
  uint32_t L, L2;
  CUZK_HD uint64_t begin(uint64_t t) const { return t < nlong ? t * L : nlong * L + (t - nlong) * L2; }
  CUZK_HD uint64_t end(uint64_t t) const {
    const uint64_t e = begin(t) + (t < nlong ? L : L2);
    return e < M ? e : M;
  }
};

// A chunk [begin, end) of the sorted keys meets runs of three kinds: runs inside
// it, whose sums are their buckets; the run across its start, begun in an
// earlier chunk; and the run across its end, which goes on in the next. The
// last two (one run where they are the same) leave partial sums for a later
// pass.

// msm_split_count sets cnt[t] to the number of runs that cross chunk t's
// bounds (0, 1 or 2) and cnt[nt] to 0 (the exclusive scan's total).
__global__ void msm_split_count(const uint32_t* __restrict__ keys, run_chunks C, uint32_t* __restrict__ cnt) {
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, nt = C.count, M = C.M;
  if (t > nt) return;
  if (t == nt) {
    cnt[t] = 0;
    return;
  }
  const uint64_t b = C.begin(t), e = C.end(t);
  bool head = b > 0 && keys[b - 1] == keys[b], tail = e < M && keys[e] == keys[e - 1];
  cnt[t] = (uint32_t)head + (uint32_t)tail - (uint32_t)(head && tail && keys[b] == keys[e - 1]);
}

// msm_split_emit sums chunk t per run: a run inside the chunk into its bucket,
// a run across the chunk's bounds into one (key, partial sum) at off[t] onwards.
template <class F, class Src>
__global__ void MSM_BOUNDS(F) msm_split_emit(const uint32_t* __restrict__ keys, Src src, run_chunks C,
                               const uint32_t* __restrict__ off, xyzz_t<F>* __restrict__ buckets,
                               uint32_t* __restrict__ okeys, xyzz_t<F>* __restrict__ opart) {
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, M = C.M;
  if (t >= C.count) return;
  const uint64_t b = C.begin(t), e = C.end(t);
  uint32_t o = off[t];
  bool head = b > 0 && keys[b - 1] == keys[b];  // the current run began before the chunk
  uint32_t cur = keys[b];
  xyzz_t<F> acc = xyzz_t<F>::inf();
  // flush stores the current run's sum: a partial sum where the run crosses the chunk's bounds.
  auto flush = [&](bool crosses) {
    if (crosses) {
      okeys[o] = cur;
      xyzz_t<F>::store(opart + o++, acc);
    } else {
      xyzz_t<F>::store(buckets + cur, acc);
    }
  };
  for (uint64_t i = b; i < e; i++) {
    uint32_t k = keys[i];
    if (k != cur) {
      flush(head);
      head = false;
      acc = xyzz_t<F>::inf();
      cur = k;
    }
    src.add_to(acc, i);
  }
  flush(head || (e < M && keys[e] == cur));
}

// msm_own: thread t sums every run that starts in [tL, tL+L) into bucket[key].
// One loop (PER_RUN false) adds one element an iteration and stores a bucket
// where the key changes, so a warp's threads add together even where their
// runs end at different places, as in msm_split_emit. A loop per run (PER_RUN)
// makes a warp wait at each run's end for its longest run: it was measured
// faster where every run is short, on the partial sums of random scalars (at
// most 16 a run at 2^24: 6.0 → 5.0 ms), and 2.8× slower on the partial sums of
// a PoRep witness, whose repeated values make runs of up to SPLIT_RUNS·L
// (B's G2 MSM: 4.9 → 13.9 ms).
template <class F, class Src, bool PER_RUN>
__global__ void MSM_BOUNDS(F) msm_own(const uint32_t* __restrict__ keys, Src src, uint64_t M, uint32_t L,
                        xyzz_t<F>* __restrict__ buckets, uint64_t nt) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  uint64_t i = t * L, e = min(M, i + L);
  if (i > 0)
    while (i < e && keys[i] == keys[i - 1]) i++;
  if (i == e) return;
  while (e < M && keys[e] == keys[e - 1]) e++;  // the last run is summed whole
  if constexpr (PER_RUN) {
    while (i < e) {
      uint32_t k = keys[i];
      xyzz_t<F> acc = xyzz_t<F>::inf();
      do src.add_to(acc, i++);
      while (i < e && keys[i] == k);
      xyzz_t<F>::store(buckets + k, acc);
    }
    return;
  }
  uint32_t cur = keys[i];
  xyzz_t<F> acc = xyzz_t<F>::inf();
  for (; i < e; i++) {
    uint32_t k = keys[i];
    if (k != cur) {
      xyzz_t<F>::store(buckets + cur, acc);
      acc = xyzz_t<F>::inf();
      cur = k;
    }
    src.add_to(acc, i);
  }
  xyzz_t<F>::store(buckets + cur, acc);
}

// ---- step 5: bucket reduction ------------------------------------------------
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
  xyzz_t<F>::store(out + t, acc);
}

// ---- host side ---------------------------------------------------------------
// msm_timer measures the steps of one MSM on the device when the environment
// variable CUZK_MSM_TIMING is 1: mark(name) records a CUDA event on the
// stream and charges the time since the previous mark to name (a name marked
// once per batch adds up); report waits for the stream and prints one line to
// stderr, "cuzk msm: n=… ones=… others=… c=… W=… | classify.flags 0.07 ms |
// … | total … ms", one name a sub-step (classify.flags, classify.select,
// ones.chunks, ones.tree, alloc, digits, sort, acc.runs, acc.split, acc.own,
// reduce.segments, reduce.tree). Unset or 0, every call returns at once.
class msm_timer {
  struct mark_t {
    const char* name;
    cudaEvent_t ev;
  };
  const cudaStream_t s;
  const bool on;
  std::vector<mark_t> marks;

 public:
  explicit msm_timer(cudaStream_t stream) : s(stream), on(enabled()) { mark("start"); }
  msm_timer(const msm_timer&) = delete;
  msm_timer& operator=(const msm_timer&) = delete;
  ~msm_timer() {
    for (auto& m : marks) cudaEventDestroy(m.ev);
  }
  // enabled reads CUZK_MSM_TIMING: unset or "0" is off, "1" on, anything else an error.
  static bool enabled() {
    const char* v = getenv("CUZK_MSM_TIMING");
    if (!v || !strcmp(v, "0")) return false;
    require(!strcmp(v, "1"), std::string("CUZK_MSM_TIMING=") + v + ": must be 0 or 1");
    return true;
  }
  void mark(const char* name) {
    if (!on) return;
    cudaEvent_t e;
    CUZK_CUDA(cudaEventCreate(&e));
    marks.push_back({name, e});
    CUZK_CUDA(cudaEventRecord(e, s));
  }
  void report(uint64_t n, uint64_t n1, uint64_t m, uint32_t c, uint32_t W) {
    if (!on) return;
    CUZK_CUDA(cudaStreamSynchronize(s));
    std::vector<std::pair<const char*, float>> sums;
    float total = 0;
    for (size_t i = 1; i < marks.size(); i++) {
      float ms = 0;
      CUZK_CUDA(cudaEventElapsedTime(&ms, marks[i - 1].ev, marks[i].ev));
      total += ms;
      size_t k = 0;
      while (k < sums.size() && strcmp(sums[k].first, marks[i].name)) k++;
      if (k == sums.size()) sums.push_back({marks[i].name, 0.f});
      sums[k].second += ms;
    }
    fprintf(stderr, "cuzk msm: n=%llu ones=%llu others=%llu c=%u W=%u", (unsigned long long)n,
            (unsigned long long)n1, (unsigned long long)m, c, W);
    for (auto& p : sums) fprintf(stderr, " | %s %.2f ms", p.first, p.second);
    fprintf(stderr, " | total %.2f ms\n", total);
  }
};

// msm_t<F> is one MSM over the affine points P (device) and the scalars S
// (device, Montgomery form), n of each, its work enqueued on the stream s.
// run runs the numbered steps above but the host's combination, collect; the
// members carry what one step hands to the next.
template <class F>
class msm_t {
  using X = xyzz_t<F>;

  // Block sizes and chunk lengths of the host's launches.
  static constexpr unsigned SIMPLE_THREADS = 256;  // one scalar, pair or bucket per thread, no point arithmetic
  static constexpr uint32_t ONES_CHUNK = 32;       // fewest points per thread in step 2's first sum
  static constexpr uint32_t TREE_FANIN = 4;        // points per thread in each level of a sum tree
  static constexpr uint32_t RUN_CHUNK = 32;        // pairs per thread in step 4 (run_chunk)
  static constexpr uint32_t RUN_CHUNK_MAX = 256;   // at most, doubling while that leaves LONG_THREADS threads
  static constexpr uint32_t TAIL_DIV = 4;          // the last wave's pairs of long chunks go in chunks TAIL_DIV× shorter
  static constexpr uint64_t LONG_THREADS = 1u << 21;
  static constexpr uint32_t OWN_RUN_DIV = 4;       // pairs: summed whole only where no run is longer than L/OWN_RUN_DIV
  static constexpr uint32_t PER_RUN_MAX = 16;      // partial sums: a loop per run only where no run is longer than this
  static constexpr uint32_t SPLIT_RUNS = 4;        // partial sums: summed whole where no run is longer than SPLIT_RUNS·L
  static constexpr uint32_t SEGMENT = 16;          // fewest buckets per thread in step 5's running sums
  static constexpr uint64_t SEGMENT_THREADS = 1u << 16;  // segments grow only while they leave this many threads
  static constexpr uint32_t MIN_C = 4;             // narrowest window the cost model considers (bits)
  static constexpr uint32_t MAX_C = CUZK_MSM_MAX_C;
  static constexpr uint32_t MAX_C_SPLIT = CUZK_MSM_MAX_C_SPLIT;
  static constexpr uint64_t BATCH_PAIRS = 1ull << CUZK_MSM_BATCH_LOG2;

  const affine_t<F>* P;
  const affine_t<F>* Q;  // P's shift table, 2^128·P_i, or nullptr
  const affine_t<F>* PS;  // P's pair table, P_2k + P_2k+1, or nullptr (always nullptr with rev_bits ≠ 0)
  const uint32_t parts;  // the parts a scalar is cut into: 2 with Q, else 1
  const fr_t* S;
  const uint64_t n;
  const uint32_t rev_bits;  // scalar i pairs with point_of(i, rev_bits)
  const bool plain;         // scalars are plain integers below r, not in Montgomery form
  const cudaStream_t s;
  const uint64_t wave;      // the point kernels' threads the device runs at once
  mutable msm_timer timer;  // the steps' device times, when CUZK_MSM_TIMING is 1

  dbuf_t<uint32_t> ones, others;  // step 1: indices of the scalars 1 and of the other nonzero scalars
  uint64_t n1 = 0, m = 0;         // step 1: their counts
  uint32_t c = 0, W = 0, nb = 0;  // steps 3–5: window bits, windows, buckets per window
  uint32_t kbits = 0;             // steps 3–4: bits of a key; the sentinel's low kbits are all ones
  dbuf_t<X> buckets;              // steps 4–5: W·nb buckets, bucket (w, |d| − 1) of window w

  // wave_threads is the number of point-kernel threads the current device runs at once.
  static uint64_t wave_threads() {
    int dev = 0, sms = 0;
    CUZK_CUDA(cudaGetDevice(&dev));
    CUZK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return (uint64_t)sms * msm_blocks<F>::value * MSM_THREADS;
  }

  static unsigned blocks_for(uint64_t count, unsigned bs) { return (unsigned)((count + bs - 1) / bs); }

  // env_window reads CUZK_MSM_C, a window width that overrides the cost model
  // (for tuning on the device): 0 when unset, an error outside [MIN_C, 24]
  // (24 keeps keys within 32 bits and G1's buckets within 17 GiB).
  static uint32_t env_window() {
    const char* v = getenv("CUZK_MSM_C");
    if (!v || !*v) return 0;
    char* end = nullptr;
    unsigned long x = strtoul(v, &end, 10);
    require(*end == 0 && x >= MIN_C && x <= 24,
            std::string("CUZK_MSM_C=") + v + ": must be a window width in bits from 4 to 24");
    return (uint32_t)x;
  }

  // digit_bits is the width of a part's signed digits: a scalar below 2^255 needs 256 bits
  // whole; cut in two, its low 128 bits need 129 and the rest (below 2^127) fewer.
  static uint32_t digit_bits(uint32_t parts) { return parts == 2 ? 129 : 256; }

  // choose_c picks the window width c ≤ max_c minimizing count·W + k·W·2^(c−1)
  // point additions for count pairs a window and W = ⌈bits/c⌉ windows, k the
  // cost of a bucket in additions: 3 for whole scalars; 4 for cut ones, whose
  // runs are short where a window has few pairs a bucket (measured at 2^24
  // scalars: c = 19, 7 windows, 103.9 ms against c = 22, 6 windows, 109.1).
  static uint32_t choose_c(uint64_t count, uint32_t bits, uint32_t max_c, double k) {
    uint32_t best = MIN_C;
    double best_cost = 1e300;
    for (uint32_t c = MIN_C; c <= max_c; c++) {
      uint32_t wins = (bits + c - 1) / c;
      double cost = (double)count * wins + k * wins * (double)(1u << (c - 1));
      if (cost < best_cost) {
        best_cost = cost;
        best = c;
      }
    }
    return best;
  }

  // sum_tree reduces cur[0..count) to one point, TREE_FANIN to one per level.
  dbuf_t<X> sum_tree(dbuf_t<X> cur, uint64_t count) const {
    const uint32_t L = TREE_FANIN;
    while (count > 1) {
      uint64_t nt = (count + L - 1) / L;
      dbuf_t<X> nxt(nt, s);
      msm_sum_xyzz<F><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(cur, count, L, nxt, nt);
      CUZK_LAUNCHED();
      cur = std::move(nxt);
      count = nt;
    }
    timer.mark("ones.tree");
    return cur;
  }

  // Step 1: ones and others receive the indices of the scalars 1 and of the
  // other nonzero scalars, n1 and m their counts; with a pair table, ones has
  // one entry PAIRED | k for scalars 2k and 2k+1 that are both 1.
  void classify() {
    dbuf_t<uint8_t> flags(n, s);
    msm_classify<<<blocks_for(n, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(S, flags, n, plain);
    CUZK_LAUNCHED();
    if (PS) {
      msm_pair_flags<<<blocks_for(n / 2 + 1, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(flags, n);
      CUZK_LAUNCHED();
    }
    timer.mark("classify.flags");
    ones = dbuf_t<uint32_t>(n, s);
    others = dbuf_t<uint32_t>(n, s);
    dbuf_t<unsigned long long> cnts(2, s);
    {
      thrust::counting_iterator<uint32_t> it(0);
      auto entries = thrust::make_transform_iterator(it, one_entry{flags.p});
      size_t tb1 = 0, tb2 = 0;
      flag_is p1{flags.p, FLAG_ONE}, p2{flags.p, 2};
      one_kept kept{flags.p};
      auto select_ones = [&](void* tmp, size_t& tb) {
        if (PS)
          CUZK_CUDA(cub::DeviceSelect::If(tmp, tb, entries, ones.p, cnts.p, (int)n, kept, s));
        else
          CUZK_CUDA(cub::DeviceSelect::If(tmp, tb, it, ones.p, cnts.p, (int)n, p1, s));
      };
      select_ones(nullptr, tb1);
      CUZK_CUDA(cub::DeviceSelect::If(nullptr, tb2, it, others.p, cnts.p + 1, (int)n, p2, s));
      dbuf_t<uint8_t> tmp(tb1 > tb2 ? tb1 : tb2, s);
      select_ones(tmp.p, tb1);
      CUZK_CUDA(cub::DeviceSelect::If(tmp.p, tb2, it, others.p, cnts.p + 1, (int)n, p2, s));
    }
    unsigned long long hc[2];
    read_back(hc, cnts.p, 2, s);
    n1 = hc[0];
    m = hc[1];
    timer.mark("classify.select");
  }

  // Step 2: the sum of the n1 ≥ 1 points with scalar 1, one point on the device.
  // The first sum gives each thread an equal chunk of at least ONES_CHUNK
  // points, with at most one wave of threads (as many as the device holds at
  // once), so that the tree that follows starts small: its levels are short
  // serial chains of TREE_FANIN additions, each level's time one thread's
  // latency, not the device's throughput.
  dbuf_t<X> sum_ones() const {
    const uint64_t chunks = std::min<uint64_t>((n1 + ONES_CHUNK - 1) / ONES_CHUNK, wave);
    const uint32_t L = (uint32_t)((n1 + chunks - 1) / chunks);
    uint64_t nt = (n1 + L - 1) / L;
    dbuf_t<X> part(nt, s);
    msm_sum_idx<F><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(P, PS, ones, n1, L, rev_bits, part, nt);
    CUZK_LAUNCHED();
    timer.mark("ones.chunks");
    return sum_tree(std::move(part), nt);
  }

  // windows sets the window geometry for the m ≥ 1 other scalars, each cut
  // into parts, and zeroes the buckets.
  void windows() {
    c = env_window();
    if (c == 0)
      c = parts == 2 ? choose_c(2 * m, digit_bits(2), MAX_C_SPLIT, 4.0) : choose_c(m, digit_bits(1), MAX_C, 3.0);
    W = (digit_bits(parts) + c - 1) / c;
    nb = 1u << (c - 1);
    uint32_t wbits = 0;
    while ((1u << wbits) <= W) wbits++;
    kbits = (c - 1) + wbits;
    buckets = dbuf_t<X>((uint64_t)W * nb, s);
    CUZK_CUDA(cudaMemsetAsync(buckets.p, 0, (uint64_t)W * nb * sizeof(X), s));
  }

  // Step 3: the pairs of windows [w0, w1) to keys and vals, (w1 − w0)·parts·m of each.
  void digits(uint32_t w0, uint32_t w1, uint32_t* keys, uint32_t* vals) const {
    if (parts == 2)
      msm_digits<2><<<blocks_for(m, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(S, others, m, c, w0, w1, rev_bits, plain, keys, vals);
    else
      msm_digits<1><<<blocks_for(m, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(S, others, m, c, w0, w1, rev_bits, plain, keys, vals);
    CUZK_LAUNCHED();
  }

  // Step 4, first half: the M pairs sorted by the low kbits of their keys.
  void sort(cub::DoubleBuffer<uint32_t>& keys, cub::DoubleBuffer<uint32_t>& vals, uint64_t M) const {
    size_t tb = 0;
    CUZK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, tb, keys, vals, (int)M, 0, (int)kbits, s));
    dbuf_t<uint8_t> tmp(tb, s);
    CUZK_CUDA(cub::DeviceRadixSort::SortPairs(tmp.p, tb, keys, vals, (int)M, 0, (int)kbits, s));
  }

  // Step 4, second half: the M sorted pairs (K, V) summed into their buckets.
  // Zero digits (sentinel keys) sort last and are dropped; long runs are first
  // summed by chunks (accumulate_runs).
  void accumulate(const uint32_t* K, const uint32_t* V, uint64_t M) const {
    dbuf_t<unsigned long long> valid(1, s);
    msm_count_valid<<<1, 1, 0, s>>>(K, M, valid);
    CUZK_LAUNCHED();
    unsigned long long h = 0;
    read_back(&h, valid.p, 1, s);
    timer.mark("acc.runs");
    if (h == 0) return;
    accumulate_runs(K, V, h);
  }

  // longest_run returns the length of the longest run among the M sorted keys
  // K (no sentinels), or limit + 1 without looking where M > limit·(W·nb): one
  // of the W·nb keys then has more than limit pairs.
  uint64_t longest_run(const uint32_t* K, uint64_t M, uint64_t limit) const {
    const uint64_t nkeys = (uint64_t)W << (c - 1);
    if (M > limit * nkeys) return limit + 1;
    dbuf_t<uint32_t> first(nkeys, s), last(nkeys, s);
    dbuf_t<unsigned long long> maxlen(1, s);
    CUZK_CUDA(cudaMemsetAsync(first.p, 0xff, nkeys * 4, s));
    CUZK_CUDA(cudaMemsetAsync(last.p, 0xff, nkeys * 4, s));
    CUZK_CUDA(cudaMemsetAsync(maxlen.p, 0, sizeof(unsigned long long), s));
    msm_run_bounds<<<blocks_for(M, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(K, M, first, last);
    msm_run_len<<<blocks_for(nkeys, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(first, last, nkeys, maxlen);
    CUZK_LAUNCHED();
    unsigned long long h = 0;
    read_back(&h, maxlen.p, 1, s);
    timer.mark("acc.runs");
    return h;
  }

  // with_pairs calls launch with the source of the sorted pairs' points: the
  // bases alone, or the bases and their shift table.
  template <class Launch>
  void with_pairs(const uint32_t* vals, Launch launch) const {
    if (Q)
      launch(split_src<F>{P, Q, vals});
    else
      launch(pairs_src<F>{P, vals});
  }

  // run_chunk is the number of pairs a thread sums in a step-4 pass over M pairs. Each chunk
  // leaves up to two partial sums (the runs across its bounds), each an XYZZ addition later,
  // so long chunks save work: at 2^26 random scalars and bases with a shift table (runs of ≈ 64)
  // 128 pairs a thread instead of 64 took the partial sums' pass from 12.1 to 5.0 ms. Longer
  // chunks need enough threads to fill the GPU evenly: 256 pairs a thread at 2^24 (0.85 M
  // threads) cost 45 %, so the length doubles from RUN_CHUNK up to RUN_CHUNK_MAX only while it
  // leaves LONG_THREADS threads. Such long chunks are then shortened a little so that the
  // threads fill whole waves (wave threads at once): every thread costs the same L additions,
  // and a last wave half full would leave SMs idle for half a chunk's time.
  uint32_t run_chunk(uint64_t M) const {
    uint32_t L = RUN_CHUNK;
    while (2 * L <= RUN_CHUNK_MAX && M / (2 * L) >= LONG_THREADS) L *= 2;
    if (L == RUN_CHUNK) return L;
    const uint64_t waves = (M + (uint64_t)L * wave - 1) / ((uint64_t)L * wave);
    return (uint32_t)((M + waves * wave - 1) / (waves * wave));
  }

  // split_chunks cuts M pairs into the chunks of a split pass: chunks of L = run_chunk(M)
  // pairs, and where those are long (whole waves of them) the last wave's pairs in chunks of
  // L/TAIL_DIV instead, TAIL_DIV waves of threads that each take a quarter of a long chunk's
  // time: a pass's threads do not finish together (their runs and their loads differ), and
  // the SMs left idle at its end wait for a quarter as long.
  run_chunks split_chunks(uint64_t M) const {
    run_chunks C{M, 0, 0, run_chunk(M), 0};
    C.L2 = C.L;
    const uint64_t tail = wave * C.L;
    if (C.L > RUN_CHUNK) {
      C.L2 = (C.L + TAIL_DIV - 1) / TAIL_DIV;
      C.nlong = M > tail ? (M - tail) / C.L : 0;
    }
    C.count = C.nlong + (M - C.nlong * C.L + C.L2 - 1) / C.L2;
    return C;
  }

  // accumulate_runs sums the M valid pairs (keys, vals) into the buckets:
  // while runs may be long, every chunk of L = run_chunk(M) pairs is summed
  // per run (msm_split_emit), a run inside the chunk into its bucket, a run
  // across the chunk's bounds into a (key, partial sum) pair, which shortens
  // runs L-fold; then each thread sums the runs that start in its chunk whole.
  // A chunk's pass costs every thread exactly L additions; the whole-run pass
  // costs a thread from nothing to L + the longest run. On the pairs, the bulk
  // of the work, runs are summed whole only where none is longer than
  // L/OWN_RUN_DIV: at 2^20 random scalars (runs of ≈ 32) the whole-run pass
  // took 2.3–2.4× the chunked pass's time a pair. On the partial sums, 1/16 to
  // 1/32 as many, another chunked pass costs more than the imbalance, so they
  // are summed whole once no run is longer than SPLIT_RUNS·L, with a loop per
  // run where none is longer than PER_RUN_MAX (msm_own).
  void accumulate_runs(const uint32_t* keys, const uint32_t* vals, uint64_t M) const {
    uint32_t L = run_chunk(M);
    bool aff = true;
    dbuf_t<uint32_t> pkeys;
    dbuf_t<X> ppart;
    const uint32_t* K = keys;
    uint64_t maxrun;
    for (;;) {
      uint64_t limit = aff ? L / OWN_RUN_DIV : (uint64_t)SPLIT_RUNS * L;
      maxrun = longest_run(K, M, limit);
      if (maxrun <= limit) break;
      const run_chunks C = split_chunks(M);
      const uint64_t nt = C.count;
      dbuf_t<uint32_t> cnt(nt + 1, s), off(nt + 1, s);
      msm_split_count<<<blocks_for(nt + 1, SIMPLE_THREADS), SIMPLE_THREADS, 0, s>>>(K, C, cnt);
      CUZK_LAUNCHED();
      size_t tb = 0;
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tb, cnt.p, off.p, (int)(nt + 1), s));
      dbuf_t<uint8_t> tmp(tb, s);
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(tmp.p, tb, cnt.p, off.p, (int)(nt + 1), s));
      uint32_t total = 0;
      read_back(&total, off.p + nt, 1, s);
      dbuf_t<uint32_t> nkeys(total, s);
      dbuf_t<X> npart(total, s);
      auto emit = [&](auto src) {
        msm_split_emit<F, decltype(src)>
            <<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, C, off, buckets, nkeys, npart);
      };
      if (aff)
        with_pairs(vals, emit);
      else
        emit(part_src<F>{ppart.p});
      CUZK_LAUNCHED();
      timer.mark("acc.split");
      pkeys = std::move(nkeys);
      ppart = std::move(npart);
      K = pkeys.p;
      M = total;
      aff = false;
      if (M == 0) return;
      L = run_chunk(M);
    }
    uint64_t nt = (M + L - 1) / L;
    if (aff) {
      with_pairs(vals, [&](auto src) {
        msm_own<F, decltype(src), false><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, buckets, nt);
      });
    } else {
      part_src<F> src{ppart.p};
      if (maxrun <= PER_RUN_MAX)
        msm_own<F, part_src<F>, true><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, buckets, nt);
      else
        msm_own<F, part_src<F>, false><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(K, src, M, L, buckets, nt);
    }
    CUZK_LAUNCHED();
    timer.mark("acc.own");
  }

  // Step 5, on the device: W window sums Σ_b (b+1)·B_b, one point per window,
  // from running sums over segments of len buckets and a tree per window
  // (the segments per window are a power of two). A thread costs 2·len
  // additions plus ≈ 1.5·log2(nb) for its offset's multiple, so segments grow
  // from SEGMENT while W·nb/len stays at least SEGMENT_THREADS (about one wave
  // of G1 threads): at c = 20 that is 64 buckets, 2.4 operations a bucket
  // instead of 3.8 (measured: 0.9 ms under 32 buckets, as fast as 128). The
  // buckets are released.
  dbuf_t<X> reduce() {
    uint32_t len = SEGMENT;
    while (len < nb && (uint64_t)W * nb / (2 * len) >= SEGMENT_THREADS) len *= 2;
    if (len > nb) len = nb;
    uint32_t T = nb / len;
    dbuf_t<X> seg((uint64_t)W * T, s);
    msm_window_segments<F><<<blocks_for((uint64_t)W * T, MSM_THREADS), MSM_THREADS, 0, s>>>(buckets, nb, len, T, W, seg);
    CUZK_LAUNCHED();
    timer.mark("reduce.segments");
    dbuf_t<X> cur = std::move(seg);
    uint32_t per = T;
    while (per > 1) {
      uint32_t L = per < TREE_FANIN ? per : TREE_FANIN;
      uint64_t nt = (uint64_t)W * (per / L);
      dbuf_t<X> nxt(nt, s);
      msm_sum_xyzz<F><<<blocks_for(nt, MSM_THREADS), MSM_THREADS, 0, s>>>(cur, (uint64_t)W * per, L, nxt, nt);
      CUZK_LAUNCHED();
      cur = std::move(nxt);
      per /= L;
    }
    buckets.reset();
    timer.mark("reduce.tree");
    return cur;
  }

  // The window sums are step 5's; the host combines them (collect).

 public:
  // shift is points' shift table (2^128·points[i] at shift[i]) or nullptr, pairs their pair
  // table (points[2k] + points[2k+1] at pairs[k]) or nullptr; scalar i pairs with
  // points[point_of(i, rev_bits)] (checked by the caller: in range for every i < count), and the
  // pair table serves only rev_bits = 0; plain scalars are integers below r, not in Montgomery
  // form.
  msm_t(const affine_t<F>* points, const affine_t<F>* shift, const affine_t<F>* pairs, const fr_t* scalars,
        uint64_t count, uint32_t rev_bits, bool plain, cudaStream_t stream)
      : P(points), Q(shift), PS(rev_bits ? nullptr : pairs), parts(shift ? 2 : 1), S(scalars), n(count),
        rev_bits(rev_bits), plain(plain), s(stream), wave(wave_threads()), timer(stream) {}

  // sums_t is what an MSM's device steps leave for the host: the window sums (W of them, window
  // w of weight 2^(c·w)) and the sum of the points with scalar 1.
  struct sums_t {
    std::vector<X> wsum;
    X ones = X::inf();
    uint32_t c = 0;
  };

  // Step 5, on the host: Σ_w 2^(c·w)·wsum[w] by Horner's rule, plus the sum of the points with
  // scalar 1, to out in Jacobian form. It reads no device state, so that a batch combines one
  // MSM's sums while the device runs the next (msm_batch).
  static void collect(const sums_t& r, F* out) {
    X total = X::inf();
    for (size_t w = r.wsum.size(); w-- > 0;) {
      for (uint32_t i = 0; i < r.c; i++) total.dbl();
      total.add(r.wsum[w]);
    }
    total.add(r.ones);
    total.to_jacobian(out);
  }

  // run enqueues steps 1–5 on the stream and waits for them: the sums collect combines.
  sums_t run() {
    sums_t r;
    if (n == 0) return r;
    classify();
    dbuf_t<X> ones_sum;
    if (n1) ones_sum = sum_ones();
    ones.reset();

    if (m) {
      windows();
      uint32_t Wg = (uint32_t)(BATCH_PAIRS / (parts * m));  // windows per batch
      if (Wg < 1) Wg = 1;
      if (Wg > W) Wg = W;
      const uint32_t batches = (W + Wg - 1) / Wg;
      Wg = (W + batches - 1) / batches;  // as many batches, of as even a size as can be: the largest sets the memory
      for (uint32_t w0 = 0; w0 < W; w0 += Wg) {
        uint32_t w1 = w0 + Wg < W ? w0 + Wg : W;
        uint64_t M = (uint64_t)(w1 - w0) * parts * m;
        dbuf_t<uint32_t> k0(M, s), k1(M, s), v0(M, s), v1(M, s);
        timer.mark("alloc");
        digits(w0, w1, k0, v0);
        timer.mark("digits");
        cub::DoubleBuffer<uint32_t> dk(k0.p, k1.p), dv(v0.p, v1.p);
        sort(dk, dv, M);
        timer.mark("sort");
        accumulate(dk.Current(), dv.Current(), M);
      }
      dbuf_t<X> sums = reduce();
      r.wsum.resize(W);
      r.c = c;
      CUZK_CUDA(cudaMemcpyAsync(r.wsum.data(), sums.p, W * sizeof(X), cudaMemcpyDeviceToHost, s));
    }
    if (n1) CUZK_CUDA(cudaMemcpyAsync(&r.ones, ones_sum.p, sizeof(X), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    CUZK_LAUNCHED();
    timer.report(n, n1, m, c, W);
    return r;
  }

};

}  // namespace cuzk
