// The MSM entry points: msm_t (msm.cuh) for G1 or G2 by the bases' group, one MSM or a batch.
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "fixedbase.cuh"
#include "msm.cuh"

namespace cuzk {

// msm_device runs the device steps of Σ scalars[i]·b[point_of(i, rev_bits)], i < n (scalars
// plain or in Montgomery form), on s and waits for them, then hands then() the host's remaining
// step: a callable that writes the result to out (Jacobian, host memory) from the window sums.
template <class Then>
static void msm_device(const cuzk_bases* b, const fr_t* scalars, uint64_t n, uint32_t rev_bits, bool plain, void* out,
                       cudaStream_t s, Then then) {
  if (b->group == 1) {
    using M = msm_t<fp_lazy_t>;
    using A = affine_t<fp_lazy_t>;
    auto r = M((const A*)b->p, (const A*)b->shifted, (const A*)b->pairs, scalars, n, rev_bits, plain, s).run();
    then([r = std::move(r), out] { M::collect(r, (fp_lazy_t*)out); });
  } else {
    using M = msm_t<fp2_t>;
    auto r = M((const g2_affine_t*)b->p, nullptr, (const g2_affine_t*)b->pairs, scalars, n, rev_bits, plain, s).run();
    then([r = std::move(r), out] { M::collect(r, (fp2_t*)out); });
  }
}

void msm_run(const cuzk_bases* b, const fr_t* d_scalars, uint64_t n, void* out, cudaStream_t s) {
  msm_device(b, d_scalars, n, 0, false, out, s, [](auto collect) { collect(); });
}

// SHIFT_BITS is the shift of a shift table, Q_i = 2^SHIFT_BITS·P_i: half of a scalar's 256 bits.
constexpr uint32_t SHIFT_BITS = 128;
// TABLE_CHUNK is the number of points a table of derived points (shift, pairs) computes and
// converts at once (their XYZZ form is 192 bytes each for G1, 384 for G2: 768 MiB or 1.5 GiB).
constexpr uint64_t TABLE_CHUNK = 1ull << 22;

// msm_shift_dbl sets out[t] = 2^SHIFT_BITS·P[t] (XYZZ) for t < n by SHIFT_BITS doublings.
__global__ void __launch_bounds__(FB_THREADS) msm_shift_dbl(const g1_affine_t* P, uint64_t n, xyzz_t<fp_t>* out) {
  const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (t >= n) return;
  xyzz_t<fp_t> acc = xyzz_t<fp_t>::from_affine(P[t]);
  for (uint32_t i = 0; i < SHIFT_BITS; i++) acc.dbl();
  out[t] = acc;
}

// msm_pair_sum sets out[t] = P[2t] + P[2t+1] (XYZZ) for t < n.
template <class F>
__global__ void __launch_bounds__(FB_THREADS) msm_pair_sum(const affine_t<F>* P, uint64_t n, xyzz_t<F>* out) {
  const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (t >= n) return;
  xyzz_t<F> acc = xyzz_t<F>::from_affine(affine_t<F>::load(P + 2 * t));
  acc.add_affine(affine_t<F>::load(P + 2 * t + 1));
  out[t] = acc;
}

// derived_table allocates and fills a table of count affine points, TABLE_CHUNK at a time:
// make(off, m, xyzz, s) enqueues the XYZZ points [off, off+m) to xyzz on s, then the affine
// conversion of fixed-base multiplication writes them (a batch inversion for every FB_BATCH
// points; the point at infinity becomes (0, 0), which the MSMs skip). It returns the table, or
// frees it and throws.
template <class F, class Make>
static void* derived_table(uint64_t count, Make make) {
  void* q = device_malloc(count * sizeof(affine_t<F>));
  try {
    stream_t s;
    dbuf_t<xyzz_t<F>> tmp(std::min(count, TABLE_CHUNK), s);
    for (uint64_t off = 0; off < count; off += TABLE_CHUNK) {
      const uint64_t m = std::min(TABLE_CHUNK, count - off);
      make(off, m, tmp.p, s);
      CUZK_LAUNCHED();
      fb_to_affine_enqueue(tmp.p, (affine_t<F>*)q + off, m, s);
      CUZK_LAUNCHED();
    }
    tmp.reset();
    CUZK_CUDA(cudaStreamSynchronize(s));
  } catch (...) {
    cudaFree(q);
    throw;
  }
  return q;
}

// bases_shift computes the shift table: SHIFT_BITS doublings a point in XYZZ, ≈ 6 s for 2^27
// points on an H200.
void bases_shift(cuzk_bases* b) {
  require(b->group == 1, "a shift table is for G1 bases");
  require(b->n <= MAX_SHIFTED_BASES, std::to_string(b->n) + " bases: a shift table takes at most 2^30");
  if (b->shifted) return;
  const g1_affine_t* P = (const g1_affine_t*)b->p;
  b->shifted = derived_table<fp_t>(b->n, [&](uint64_t off, uint64_t m, xyzz_t<fp_t>* x, cudaStream_t s) {
    msm_shift_dbl<<<fb_blocks(m), FB_THREADS, 0, s>>>(P + off, m, x);
  });
}

// pair_table is the pair table of half pairs of the points P: one XYZZ addition a pair.
template <class F>
static void* pair_table(const affine_t<F>* P, uint64_t half) {
  return derived_table<F>(half, [&](uint64_t off, uint64_t m, xyzz_t<F>* x, cudaStream_t s) {
    msm_pair_sum<F><<<fb_blocks(m), FB_THREADS, 0, s>>>(P + 2 * off, m, x);
  });
}

void bases_pair(cuzk_bases* b) {
  require(b->n >= 2, std::to_string(b->n) + " base: a pair table needs two or more");
  if (b->pairs) return;
  b->pairs = b->group == 1 ? pair_table((const g1_affine_t*)b->p, b->n / 2)
                           : pair_table((const g2_affine_t*)b->p, b->n / 2);
}

void msm_batch(cuzk_msm_job_t* jobs, uint32_t count, void* out) {
  require(jobs != nullptr || count == 0, "jobs is NULL");
  require(out != nullptr || count == 0, "out is NULL");
  for (uint32_t i = 0; i < count; i++) {
    const cuzk_msm_job_t& j = jobs[i];
    try {
      require(j.bases != nullptr, "bases is NULL");
      check_msm(j.bases, j.scalars, j.off, j.n);
      const uint32_t rb = j.scalars_bitrev;
      require(rb <= 30 && (rb == 0 || j.n == (1ull << rb) || j.n == (1ull << rb) - 1),
              "scalars_bitrev = " + std::to_string(rb) + " needs n = 2^" + std::to_string(rb) + " or 2^" +
                  std::to_string(rb) + " − 1, got n = " + std::to_string(j.n));
      require(j.bases->dev == jobs[0].bases->dev, "the jobs' bases live on different devices");
    } catch (const error& e) {
      throw error(e.code, "job " + std::to_string(i) + ": " + e.what());
    }
  }
  if (count == 0) return;
  set_device(jobs[0].bases->dev);
  stream_t s;
  char* o = (char*)out;
  // Each job's window sums are combined on a host thread of their own while the device runs the
  // next job (the combination, ≈ 0.1–0.3 ms for G1 and 0.8 for G2, left the device idle); a
  // future's destructor waits for its thread, also when a later job throws.
  std::vector<std::future<void>> collects;
  for (uint32_t i = 0; i < count; i++) {
    cuzk_msm_job_t& j = jobs[i];
    const auto start = std::chrono::steady_clock::now();
    msm_device(j.bases, j.scalars->p + j.off, j.n, j.scalars_bitrev, j.scalars_plain != 0, o, s,
               [&](auto collect) { collects.push_back(std::async(std::launch::async, std::move(collect))); });
    j.device_ns = (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                                  start)
                      .count();
    o += 3 * (j.bases->group == 1 ? sizeof(fp_t) : sizeof(fp2_t));  // X, Y, Z
  }
  for (auto& f : collects) f.get();
}

}  // namespace cuzk
