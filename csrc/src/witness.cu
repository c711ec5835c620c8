// Compact witnesses (synth.CompactWitness) decoded on the device: the
// assignment w crosses the link as 2-bit classes (0, 1, other) and the other
// values only, about 0.6–0.7 bytes an element in PoRep instead of 32, and is
// expanded here into a scalar buffer.
//
// One CUDA block of 512 threads decodes one witness block of
// CUZK_WITNESS_BLOCK = 512 elements, one element a thread: the block's 16
// class words are counted (others per word, then their prefix sums in shared
// memory), and an element of class "other" takes the value at
// block_others[block] + (others before it in the block). The block's count
// is checked against block_others before any value is read, so a bad
// encoding never reads outside the others.
#include <algorithm>

#include "ops.cuh"

namespace cuzk {

constexpr unsigned WITNESS_WORDS = CUZK_WITNESS_BLOCK / 32;  // class words per witness block
static_assert(CUZK_WITNESS_BLOCK % 32 == 0 && WITNESS_WORDS <= 32, "a witness block's words fit one warp");

// Reasons witness_check_decode reports, with the element, as element·4 + reason (the smallest wins).
enum : uint32_t {
  BAD_CLASS = 1,  // an element of class 3
  BAD_COUNT = 2,  // a block (reported at its first element) whose others disagree with block_others
};

// others_in returns the bits of class 2 (high bit set, low bit clear) of a class word, one bit
// per element at its high bit.
__device__ __forceinline__ uint64_t others_in(uint64_t word) { return word & ~(word << 1) & 0xAAAAAAAAAAAAAAAAull; }

__global__ void __launch_bounds__(CUZK_WITNESS_BLOCK) witness_check_decode(
    const uint64_t* __restrict__ classes, const fr_t* __restrict__ others, const uint32_t* __restrict__ block_others,
    uint64_t n, fr_t* __restrict__ dst, unsigned long long* bad) {
  __shared__ uint32_t before[WITNESS_WORDS];  // others in the block before each class word
  __shared__ uint32_t total;                  // others in the block
  const uint64_t b = blockIdx.x;
  const uint32_t t = threadIdx.x;
  const uint64_t n_words = (n + 31) / 32;
  if (t < 32) {
    const uint64_t wi = b * WITNESS_WORDS + t;
    const uint32_t c = t < WITNESS_WORDS && wi < n_words ? __popcll(others_in(classes[wi])) : 0;
    uint32_t inc = c;
#pragma unroll
    for (uint32_t d = 1; d < 32; d <<= 1) {
      const uint32_t x = __shfl_up_sync(0xffffffffu, inc, d);
      if (t >= d) inc += x;
    }
    if (t < WITNESS_WORDS) before[t] = inc - c;
    if (t == 31) total = inc;
  }
  __syncthreads();
  const uint32_t k0 = block_others[b];
  if (total != block_others[b + 1] - k0) {  // the whole block
    if (t == 0) atomicMin(bad, (unsigned long long)(b * CUZK_WITNESS_BLOCK * 4 + BAD_COUNT));
    return;
  }
  const uint64_t i = b * CUZK_WITNESS_BLOCK + t;
  if (i >= n) return;
  const uint64_t word = classes[i / 32];
  const uint32_t shift = 2 * (uint32_t)(i % 32);
  fr_t v;
  switch ((word >> shift) & 3) {
    case 0:
      v = fr_t::zero();
      break;
    case 1:
      v = fr_t::one();
      break;
    case 2: {
      const uint32_t rank = before[t / 32] + __popcll(others_in(word) & ((1ull << shift) - 1));
      const uint4* q = reinterpret_cast<const uint4*>(others + k0 + rank);
      const uint4 lo = __ldg(q), hi = __ldg(q + 1);
      v.l[0] = lo.x, v.l[1] = lo.y, v.l[2] = lo.z, v.l[3] = lo.w;
      v.l[4] = hi.x, v.l[5] = hi.y, v.l[6] = hi.z, v.l[7] = hi.w;
      break;
    }
    default:
      atomicMin(bad, (unsigned long long)(i * 4 + BAD_CLASS));
      return;
  }
  uint4* q = reinterpret_cast<uint4*>(dst + i);
  q[0] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
  q[1] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
}

void witness_decode(cuzk_fr_buf_t* dst, uint64_t off, uint64_t n, const uint64_t* classes, const void* others,
                    uint64_t n_others, const uint32_t* block_others) {
  require(n < (1ull << 32), "n must be below 2^32, got " + std::to_string(n));
  check_range(dst, off, n);
  require(block_others != nullptr, "block_others is NULL");
  require(classes != nullptr || n == 0, "classes is NULL");
  require(others != nullptr || n_others == 0, "others is NULL");
  const uint64_t n_words = (n + 31) / 32, n_blocks = (n + CUZK_WITNESS_BLOCK - 1) / CUZK_WITNESS_BLOCK;
  require(block_others[0] == 0, "block_others[0] = " + std::to_string(block_others[0]) + ", want 0");
  for (uint64_t b = 0; b < n_blocks; b++) {
    require(block_others[b + 1] >= block_others[b],
            "block_others[" + std::to_string(b + 1) + "] = " + std::to_string(block_others[b + 1]) + " decreases");
  }
  require(block_others[n_blocks] == n_others, "block_others[" + std::to_string(n_blocks) + "] = " +
                                                  std::to_string(block_others[n_blocks]) + ", want n_others = " +
                                                  std::to_string(n_others));
  require(n % 32 == 0 || classes[n_words - 1] >> (2 * (n % 32)) == 0,
          "classes set beyond element " + std::to_string(n));
  if (n == 0) return;
  set_device(dst->dev);
  stream_t s;
  dbuf_t<uint64_t> d_classes(n_words, s);
  dbuf_t<fr_t> d_others(n_others, s);
  dbuf_t<uint32_t> d_block_others(n_blocks + 1, s);
  dbuf_t<unsigned long long> bad(1, s);
  upload_pageable(d_classes.p, classes, n_words * sizeof(uint64_t), s);
  if (n_others) upload_pageable(d_others.p, others, n_others * sizeof(fr_t), s);
  upload_pageable(d_block_others.p, block_others, (n_blocks + 1) * sizeof(uint32_t), s);
  CUZK_CUDA(cudaMemsetAsync(bad.p, 0xff, sizeof(unsigned long long), s));
  witness_check_decode<<<(unsigned)n_blocks, CUZK_WITNESS_BLOCK, 0, s>>>(d_classes.p, d_others.p, d_block_others.p, n,
                                                                          dst->p + off, bad.p);
  CUZK_LAUNCHED();
  unsigned long long first_bad = 0;
  CUZK_CUDA(cudaMemcpyAsync(&first_bad, bad.p, sizeof first_bad, cudaMemcpyDeviceToHost, s));
  s.sync();
  if (first_bad != ~0ull) {
    const uint64_t i = first_bad / 4;
    if (first_bad % 4 == BAD_CLASS) throw error(CUZK_ERR_INVALID, "element " + std::to_string(i) + " has class 3");
    const uint64_t b = i / CUZK_WITNESS_BLOCK;
    throw error(CUZK_ERR_INVALID, "block " + std::to_string(b) + " has another number of others than its count " +
                                      std::to_string(block_others[b + 1] - block_others[b]));
  }
}

}  // namespace cuzk
