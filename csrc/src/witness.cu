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
#include "witness.cuh"

namespace cuzk {

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
  read_back(&first_bad, bad.p, 1, s);
  if (first_bad != ~0ull) {
    const uint64_t i = first_bad / 4;
    if (first_bad % 4 == BAD_CLASS) throw error(CUZK_ERR_INVALID, "element " + std::to_string(i) + " has class 3");
    const uint64_t b = i / CUZK_WITNESS_BLOCK;
    throw error(CUZK_ERR_INVALID, "block " + std::to_string(b) + " has another number of others than its count " +
                                      std::to_string(block_others[b + 1] - block_others[b]));
  }
}

}  // namespace cuzk
