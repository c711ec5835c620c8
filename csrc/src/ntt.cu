// Number-theoretic transform over Fr, bit-exact with gnark-crypto v0.22.0's
// fft.Domain.FFT / FFTInverse (with and without fft.OnCoset()).
//
// Algorithm: an n = 2^log_n transform is split into passes of at most 10
// radix-2 stages. Each pass treats the current sub-problem (size M, contiguous)
// as K × (M/K): K-point DFTs over the top bits (stride M/K) in shared memory,
// followed by the twiddle diagonal ω_M^(i0·k1) (decimation in frequency,
// natural input, bit-reversed output). The transposed pass (twiddle first,
// stages reversed, Cooley–Tukey butterflies) run in reverse pass order is
// the decimation-in-time transform from bit-reversed input to natural output.
#include "common.cuh"

namespace cuzk {

// ω_{2^32}: gnark-crypto fr/generator.go rootOfUnity (Montgomery form).
static const uint32_t ROOT32[8] = {0x5f0e466a, 0xb9b58d8c, 0x1819d7ec, 0x5b1b4c80,
                                   0x52a31e64, 0x0af53ae3, 0x19e9b27b, 0x5bf3adda};
// 7 = fft.GeneratorFullMultiplicativeGroup() (Montgomery form).
static const uint32_t SEVEN[8] = {0xfffffff1, 0x0000000e, 0x00189c0f, 0x17e363d3,
                                  0x6f8457b0, 0xff9c5787, 0x8fc5a8c4, 0x35133220};

static fr_t from_words(const uint32_t* w) {
  fr_t r;
  for (int i = 0; i < 8; i++) r.l[i] = w[i];
  return r;
}

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

constexpr int PASS_BITS = 10;  // elements per block: 2^PASS_BITS
constexpr int PASS_THREADS = (1 << PASS_BITS) / 4;  // one radix-4 unit per thread
#ifndef CUZK_NTT_BLOCKS
#define CUZK_NTT_BLOCKS 3  // blocks per SM: at most 85 registers
#endif

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

static void* upload_table(device_ctx& c, const std::vector<fr_t>& h) {
  void* p = nullptr;
  CUZK_CUDA(cudaMalloc(&p, h.size() * sizeof(fr_t)));
  CUZK_CUDA(cudaMemcpy(p, h.data(), h.size() * sizeof(fr_t), cudaMemcpyHostToDevice));
  c.allocations.push_back(p);
  return p;
}

static pow_table make_pow_table(device_ctx& c, const fr_t& x) {
  const size_t S = 1u << POW_BITS;
  std::vector<fr_t> lo(S), hi(S);
  lo[0] = fr_t::one();
  for (size_t i = 1; i < S; i++) lo[i] = lo[i - 1] * x;
  fr_t step = lo[S - 1] * x;  // x^(2^14)
  hi[0] = fr_t::one();
  for (size_t i = 1; i < S; i++) hi[i] = hi[i - 1] * step;
  pow_table t;
  t.lo = (const fr_t*)upload_table(c, lo);
  t.hi = (const fr_t*)upload_table(c, hi);
  return t;
}

__global__ void ntt_fill_diag(fr_t* __restrict__ out, pow_table T) {
  uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < (1u << DIAG_BITS)) out[x] = pow_lookup(T, x << (NTT_MAX_LOG - DIAG_BITS));
}

static ntt_twiddles make_twiddles(device_ctx& c, const fr_t& w) {
  ntt_twiddles t;
  t.pow = make_pow_table(c, w);
  fr_t* d = nullptr;
  CUZK_CUDA(cudaMalloc(&d, sizeof(fr_t) << DIAG_BITS));
  c.allocations.push_back(d);
  ntt_fill_diag<<<(1u << DIAG_BITS) / 256, 256>>>(d, t.pow);
  CUZK_LAUNCHED();
  CUZK_CUDA(cudaDeviceSynchronize());
  t.diag = d;
  return t;
}

void ntt_tables(device_ctx& c, ntt_twiddles* omega, ntt_twiddles* omega_inv) {
  std::lock_guard<std::mutex> g(c.mu);
  if (!c.ntt_ready) {
    fr_t w = from_words(ROOT32);
    for (int i = 0; i < 32 - NTT_MAX_LOG; i++) w = w.sqr();  // ω_{2^28}
    c.omega = make_twiddles(c, w);
    c.omega_inv = make_twiddles(c, w.inverse());
    c.ntt_ready = true;
  }
  *omega = c.omega;
  *omega_inv = c.omega_inv;
}

coset_tables coset_for(device_ctx& c, const fr_t& shift) {
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& t : c.cosets)
    if (t.shift == shift) return t;
  coset_tables t;
  t.shift = shift;
  t.fwd = make_pow_table(c, shift);
  t.inv = make_pow_table(c, shift.inverse());
  c.cosets.push_back(t);
  return t;
}

static void launch_elementwise(uint32_t log_n, unsigned& grid, unsigned& block) {
  uint64_t n = 1ull << log_n;
  block = n < 256 ? (unsigned)n : 256;
  grid = (unsigned)((n + block - 1) / block);
}

void ntt_run(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t& cfg, cudaStream_t s) {
  require(log_n >= 1 && log_n <= NTT_MAX_LOG, "ntt: log_n must be in [1, 28], got " + std::to_string(log_n));
  device_ctx& c = ctx_for(dev);
  ntt_twiddles om, omi;
  ntt_tables(c, &om, &omi);
  bool zero_shift = true;
  for (int i = 0; i < 4; i++) zero_shift &= cfg.shift[i] == 0;
  coset_tables ct{};
  if (cfg.coset) {
    fr_t sh;
    if (zero_shift) {
      sh = from_words(SEVEN);
    } else {
      for (int i = 0; i < 4; i++) {
        sh.l[2 * i] = (uint32_t)cfg.shift[i];
        sh.l[2 * i + 1] = (uint32_t)(cfg.shift[i] >> 32);
      }
    }
    ct = coset_for(c, sh);
  }
  unsigned eg, eb;
  launch_elementwise(log_n, eg, eb);
  const bool inv = cfg.inverse != 0;

  if (!inv && cfg.coset) {
    ntt_scale<<<eg, eb, 0, s>>>(d, log_n, cfg.in_bitrev != 0, true, ct.fwd, false, fr_t::one());
    CUZK_LAUNCHED();
  }

  // pass plan: np passes of k_p bits, larger passes first.
  const uint32_t np = (log_n + PASS_BITS - 1) / PASS_BITS;
  uint32_t ks[4];
  for (uint32_t p = 0; p < np; p++) ks[p] = log_n / np + (p < log_n % np ? 1 : 0);
  const ntt_twiddles& T = inv ? omi : om;
  const bool dit = cfg.in_bitrev != 0;
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
  bool cur_br = !dit;
  if (cur_br != (cfg.out_bitrev != 0)) {
    ntt_bitrev<<<eg, eb, 0, s>>>(d, log_n);
    CUZK_LAUNCHED();
  }
  if (inv) {
    fr_t ninv = fr_t::one();
    fr_t two = fr_t::one() + fr_t::one();
    ninv = two.pow_u64(log_n).inverse();
    ntt_scale<<<eg, eb, 0, s>>>(d, log_n, cfg.out_bitrev != 0, cfg.coset != 0, ct.inv, true, ninv);
    CUZK_LAUNCHED();
  }
}

}  // namespace cuzk
