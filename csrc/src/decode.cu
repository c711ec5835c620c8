// decode.cu: parameters points uploaded in their file encoding and decoded on
// the device (decode.cuh), for cuzk_bases_write_encoded.
#include <algorithm>

#include "decode.cuh"
#include "ops.cuh"

namespace cuzk {

constexpr unsigned DECODE_THREADS = 256;

// decode_points decodes points 0 … n−1 of buf in place, one per thread
// (a grid-stride loop), and records the lowest failing index in *fault.
template <int G>
__global__ void __launch_bounds__(DECODE_THREADS) decode_points(uint32_t* buf, uint64_t n, unsigned long long* fault) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    decode_point<G>(buf, i, fault);
}

uint64_t bases_write_encoded(cuzk_bases* b, uint64_t off, const void* enc, uint64_t count, uint32_t* reason) {
  const size_t sz = b->group == 1 ? 2 * sizeof(fp_t) : 2 * sizeof(fp2_t);
  stream_t s;
  uint32_t* dst = (uint32_t*)((char*)b->p + off * sz);
  upload_pageable(dst, enc, count * sz, s);
  dbuf_t<unsigned long long> fault(1, s);
  CUZK_CUDA(cudaMemsetAsync(fault.p, 0xff, sizeof(unsigned long long), s));
  const uint64_t blocks = std::min<uint64_t>((count + DECODE_THREADS - 1) / DECODE_THREADS, 1u << 20);
  if (b->group == 1)
    decode_points<1><<<(unsigned)blocks, DECODE_THREADS, 0, s>>>(dst, count, fault.p);
  else
    decode_points<2><<<(unsigned)blocks, DECODE_THREADS, 0, s>>>(dst, count, fault.p);
  CUZK_LAUNCHED();
  unsigned long long key = 0;
  read_back(&key, fault.p, 1, s);
  if (key == ~0ull) {
    *reason = DECODE_OK;
    return 0;
  }
  *reason = (uint32_t)(key & 7);
  return key >> 3;
}

}  // namespace cuzk
