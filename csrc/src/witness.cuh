// The kernel that checks and decodes compact witnesses (witness.cu runs it): device code only,
// so that it also builds for the host emulation of csrc/emu.
#pragma once
#include <cstdint>

#include "../include/cuzk.h"
#include "field.cuh"

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
      v = fr_t::load_ro(others + k0 + rank);
      break;
    }
    default:
      atomicMin(bad, (unsigned long long)(i * 4 + BAD_CLASS));
      return;
  }
  fr_t::store(dst + i, v);
}

}  // namespace cuzk
