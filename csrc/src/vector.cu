// Element-wise operations on scalar buffers, the Groth16 prover's steps that are
// neither NTT nor MSM: zeroing a range, the two element-wise steps of the
// quotient h = (a·b − c)/Z (the product of a and b on the coset, and h's
// coefficients from those of the product's and c's, in the order the
// transforms leave them: the quotient by steps), the whole quotient on one
// stream (groth16_h, whose element-wise steps ride on its transforms' passes),
// and compaction of the assignment by a density bitmap (the A and B queries'
// scalars).
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "ntt.cuh"
#include "ops.cuh"

namespace cuzk {

// VECTOR_THREADS is the block size of the kernels here: one element (or one
// mask word) per thread.
constexpr unsigned VECTOR_THREADS = 256;

// VECTOR_MAX_BLOCKS caps the grid of mul_pointwise, a grid-stride loop: 2^20
// blocks of 256 threads are 2^28 threads, one element each up to the largest
// NTT domain (2^28), and the grid stays below CUDA's 2^31 − 1 blocks for any n.
constexpr uint64_t VECTOR_MAX_BLOCKS = 1u << 20;

// COMPACT_MAX_N bounds fr_compact's n to below 2^32: the per-word start
// offsets of the output are 32-bit.
constexpr uint64_t COMPACT_MAX_N = 1ull << 32;

// mul_pointwise sets a[i] = a[i]·b[i] for i < n.
__global__ void mul_pointwise(fr_t* __restrict__ a, const fr_t* __restrict__ b, uint64_t n) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (uint64_t)gridDim.x * blockDim.x) {
    fr_t::store(a + i, fr_t::load(a + i) * fr_t::load(b + i));
  }
}

// h_from_coefficients is the bit reversal's source (ntt.cuh) that turns the
// coefficients t of the product's interpolation on the coset and those of c,
// both in bit-reversed order, into h's: (t_i − c_i)·z_inv.
struct h_from_coefficients {
  const fr_t* t;
  const fr_t* c;
  fr_t z_inv;
  __device__ fr_t operator()(uint64_t i) const {
    return (fr_t::load(t + i) - fr_t::load(c + i)) * z_inv;
  }
};

// check_buf refuses a NULL buffer or one of fewer than n elements.
static void check_buf(const cuzk_fr_buf_t* b, uint64_t n, const char* name) {
  require(b != nullptr, std::string(name) + " is NULL");
  require(n <= b->n, std::string(name) + ": " + std::to_string(n) + " elements exceed the buffer of " +
                         std::to_string(b->n));
}

// fr_zero sets buf[off : off+n] to 0.
void fr_zero(cuzk_fr_buf_t* buf, uint64_t off, uint64_t n) {
  check_range(buf, off, n);
  set_device(buf->dev);
  stream_t s;
  CUZK_CUDA(cudaMemsetAsync(buf->p + off, 0, n * sizeof(fr_t), s));
  s.sync();
}

// compact_gather writes src[i] to dst[starts[i/64] + rank of bit i within its word] for the
// marked i < n.
__global__ void compact_gather(const fr_t* __restrict__ src, const uint64_t* __restrict__ mask,
                               const uint32_t* __restrict__ starts, uint64_t n, fr_t* __restrict__ dst) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t word = mask[i >> 6];
  uint32_t bit = i & 63;
  if (!((word >> bit) & 1)) return;
  fr_t::store(dst + starts[i >> 6] + __popcll(word & ((1ull << bit) - 1)), fr_t::load(src + i));
}

// mask_popcounts sets counts[w] to the number of bits set in mask word w.
__global__ void mask_popcounts(const uint64_t* __restrict__ mask, uint64_t words, uint32_t* __restrict__ counts) {
  uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (w < words) counts[w] = __popcll(mask[w]);
}

// fr_compact copies the src elements marked in mask to dst in order and returns their count
// (cuzk_fr_compact).
uint64_t fr_compact(cuzk_fr_buf_t* dst, uint64_t dst_off, const cuzk_fr_buf_t* src, uint64_t src_off, uint64_t n,
                    const uint64_t* mask) {
  require(dst != nullptr && src != nullptr, "dst or src is NULL");
  require(dst != src, "dst and src must be distinct buffers");
  require(dst->dev == src->dev, "dst and src must be on one device");
  require(mask != nullptr || n == 0, "mask is NULL");
  require(n < COMPACT_MAX_N, "compact: n must be below 2^32, got " + std::to_string(n));
  check_range(src, src_off, n);
  const uint64_t words = (n + 63) / 64;
  std::vector<uint64_t> m(mask, mask + words);
  if (n % 64) m[words - 1] &= (1ull << (n % 64)) - 1;  // bits ≥ n are not part of the mask
  uint64_t count = 0;
  for (uint64_t w : m) count += __builtin_popcountll(w);
  check_range(dst, dst_off, count);
  if (count == 0) return 0;
  set_device(dst->dev);
  stream_t s;
  dbuf_t<uint64_t> dmask(words, s);
  dbuf_t<uint32_t> counts(words, s), starts(words, s);
  CUZK_CUDA(cudaMemcpyAsync(dmask.p, m.data(), words * sizeof(uint64_t), cudaMemcpyHostToDevice, s));
  const unsigned block = VECTOR_THREADS;
  mask_popcounts<<<(unsigned)((words + block - 1) / block), block, 0, s>>>(dmask.p, words, counts.p);
  CUZK_LAUNCHED();
  size_t temp_bytes = 0;
  CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts.p, starts.p, (int)words, s));
  dbuf_t<uint8_t> temp(std::max<size_t>(temp_bytes, 1), s);  // a null pointer would only query the size
  CUZK_CUDA(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, counts.p, starts.p, (int)words, s));
  compact_gather<<<(unsigned)((n + block - 1) / block), block, 0, s>>>(src->p + src_off, dmask.p, starts.p, n,
                                                                      dst->p + dst_off);
  CUZK_LAUNCHED();
  s.sync();
  return count;
}

// mul_enqueue enqueues a[i] = a[i]·b[i] for i < n on s.
static void mul_enqueue(fr_t* a, const fr_t* b, uint64_t n, cudaStream_t s) {
  const unsigned block = VECTOR_THREADS;
  const uint64_t blocks = (n + block - 1) / block;
  if (n) mul_pointwise<<<(unsigned)std::min<uint64_t>(blocks, VECTOR_MAX_BLOCKS), block, 0, s>>>(a, b, n);
  CUZK_LAUNCHED();
}

// quotient_enqueue enqueues a[i] = (a[j] − c[j])·z_inv, j the reversal of i's log_n bits, on s.
static void quotient_enqueue(fr_t* a, const fr_t* c, uint32_t log_n, const fr_t& z_inv, cudaStream_t s) {
  bitrev_enqueue(a, log_n, h_from_coefficients{a, c, z_inv}, s);
  CUZK_LAUNCHED();
}

// check_pair refuses x and y unless they are distinct buffers of one device, each of at least n
// elements.
static void check_pair(const cuzk_fr_buf_t* x, const char* xn, const cuzk_fr_buf_t* y, const char* yn,
                       uint64_t n) {
  check_buf(x, n, xn);
  check_buf(y, n, yn);
  require(x != y, std::string(xn) + " and " + yn + " must be distinct buffers");
  require(x->dev == y->dev, std::string(xn) + " and " + yn + " must be on one device");
}

// fr_mul sets a[i] = a[i]·b[i] for i < n (cuzk_fr_mul).
void fr_mul(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* b, uint64_t n) {
  check_pair(a, "a", b, "b", n);
  set_device(a->dev);
  stream_t s;
  mul_enqueue(a->p, b->p, n, s);
  s.sync();
}

// fr_quotient sets a[i] = (a[j] − c[j])·z_inv, j the reversal of i's log_n
// bits, for i < 2^log_n (cuzk_fr_quotient).
void fr_quotient(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* c, uint32_t log_n, const void* z_inv) {
  check_log_n(log_n);
  check_pair(a, "a", c, "c", 1ull << log_n);
  require(z_inv != nullptr, "z_inv is NULL");
  set_device(a->dev);
  fr_t z;
  memcpy(&z, z_inv, sizeof z);
  stream_t s;
  quotient_enqueue(a->p, c->p, log_n, z, s);
  s.sync();
}

// event_t owns a CUDA event that records time.
struct event_t {
  cudaEvent_t e = nullptr;
  event_t() { CUZK_CUDA(cudaEventCreate(&e)); }
  ~event_t() {
    if (e) cudaEventDestroy(e);
  }
  event_t(const event_t&) = delete;
  event_t& operator=(const event_t&) = delete;
};

// elapsed_ns returns the device time between two recorded events, in nanoseconds.
static uint64_t elapsed_ns(const event_t& from, const event_t& to) {
  float ms = 0;
  CUZK_CUDA(cudaEventElapsedTime(&ms, from.e, to.e));
  return (uint64_t)((double)ms * 1e6);
}

// groth16_h runs the whole quotient on one stream and waits once (cuzk_groth16_h), on the coset
// g·⟨ω⟩, where Z = X^n − 1 is the constant z = g^n − 1:
//
//	b: iNTT scaled by z⁻¹ (natural → bit-reversed), coset NTT (→ natural, b̂/z); c: iNTT scaled
//	by z⁻¹; a: iNTT, coset NTT with each output multiplied by b̂/z's (a ← â·b̂/z), inverse coset
//	NTT (→ bit-reversed) with c/z subtracted from each output: h = (t − c)/z, t the inverse coset
//	transform of â·b̂, in bit-reversed order.
//
// c may be NULL (folded parameters, prover.FoldC: C folded into L, H on the coset): then c's
// transforms and a's inverse coset transform are left out, and a holds â·b̂ in natural order,
// four transforms; b's factor is then 1 (R⁻¹ below), z⁻¹ being in H's points on the coset.
//
// z⁻¹ rides on the tables that carry b's and c's n⁻¹, and the subtraction on the store of a's
// last pass (ntt_extra), so that no element-wise pass is left. The factor is z⁻¹·R⁻¹ (R the
// Montgomery radix) instead of z⁻¹: every step after it is linear and b's scaled values multiply
// a's, so h (or â·b̂) comes out as h·R⁻¹ in Montgomery form, which is h as a plain integer, and
// H's MSM needs no conversion out of Montgomery form. *ns receives the device time.
void groth16_h(cuzk_fr_buf_t* a, cuzk_fr_buf_t* b, cuzk_fr_buf_t* c, uint32_t log_n, const void* shift,
               uint64_t* ns) {
  check_log_n(log_n);
  const uint64_t n = 1ull << log_n;
  check_pair(a, "a", b, "b", n);
  if (c) {
    check_pair(a, "a", c, "c", n);
    check_pair(b, "b", c, "c", n);
  }
  require(shift != nullptr && ns != nullptr, "shift or ns is NULL");
  fr_t g;
  memcpy(&g, shift, sizeof g);
  require(!g.is_zero(), "groth16 quotient: the coset shift is zero");
  fr_t z = g.pow_u64(n) - fr_t::one();
  require(!z.is_zero(), "groth16 quotient: the coset shift g has g^n = 1, so g·<ω> is the domain itself");
  set_device(a->dev);
  cuzk_ntt_cfg_t to_bitrev{}, coset{}, inv_coset{};
  to_bitrev.inverse = 1;
  to_bitrev.out_bitrev = 1;
  coset.coset = 1;
  coset.in_bitrev = 1;
  inv_coset.inverse = 1;
  inv_coset.coset = 1;
  inv_coset.out_bitrev = 1;
  memcpy(coset.shift, shift, sizeof coset.shift);
  memcpy(inv_coset.shift, shift, sizeof inv_coset.shift);
  ntt_extra over_z;
  over_z.inv_scale = (c ? z.inverse() : fr_t::one()).from_mont();  // z⁻¹·R⁻¹ (R⁻¹): plain results
  ntt_extra a_extra[3];
  a_extra[1].times = b->p;
  if (c) a_extra[2].minus = c->p;
  const ntt_extra b_extra[2] = {over_z, ntt_extra{}};
  stream_t s;
  event_t start, done;
  CUZK_CUDA(cudaEventRecord(start.e, s));
  const cuzk_ntt_cfg_t b_steps[2] = {to_bitrev, coset}, a_steps[3] = {to_bitrev, coset, inv_coset};
  ntt_run_chain(a->dev, b->p, log_n, b_steps, b_extra, 2, s);
  if (c) ntt_run_chain(a->dev, c->p, log_n, &to_bitrev, &over_z, 1, s);
  ntt_run_chain(a->dev, a->p, log_n, a_steps, a_extra, c ? 3 : 2, s);
  CUZK_CUDA(cudaEventRecord(done.e, s));
  s.sync();
  *ns = elapsed_ns(start, done);
}

}  // namespace cuzk
