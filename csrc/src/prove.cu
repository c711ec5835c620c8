// Kernels of the Groth16 prover that are not NTT or MSM: zeroing a scalar range and the
// pointwise step of the quotient h = (a·b − c)/Z on the coset.
#include "common.cuh"

namespace cuzk {

// h_pointwise sets a[i] = (a[i]·b[i] − c[i])·z_inv for i < n.
__global__ void h_pointwise(fr_t* __restrict__ a, const fr_t* __restrict__ b, const fr_t* __restrict__ c,
                            uint64_t n, fr_t z_inv) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (uint64_t)gridDim.x * blockDim.x) {
    a[i] = (a[i] * b[i] - c[i]) * z_inv;
  }
}

static void check_buf(const cuzk_fr_buf_t* b, uint64_t n, const char* name) {
  require(b != nullptr, std::string(name) + " is NULL");
  require(n <= b->n, std::string(name) + ": " + std::to_string(n) + " elements exceed the buffer of " +
                         std::to_string(b->n));
}

void fr_zero(cuzk_fr_buf_t* buf, uint64_t off, uint64_t n) {
  require(buf != nullptr, "buffer is NULL");
  require(off <= buf->n && n <= buf->n - off, "range [" + std::to_string(off) + ", " + std::to_string(off + n) +
                                                  ") exceeds buffer of " + std::to_string(buf->n) + " elements");
  set_device(buf->dev);
  stream_t s;
  CUZK_CUDA(cudaMemsetAsync(buf->p + off, 0, n * sizeof(fr_t), s));
  s.sync();
}

void fr_h_pointwise(cuzk_fr_buf_t* a, const cuzk_fr_buf_t* b, const cuzk_fr_buf_t* c, uint64_t n,
                    const void* z_inv) {
  check_buf(a, n, "a");
  check_buf(b, n, "b");
  check_buf(c, n, "c");
  require(z_inv != nullptr, "z_inv is NULL");
  require(a->dev == b->dev && a->dev == c->dev, "a, b and c must be on one device");
  set_device(a->dev);
  fr_t z;
  memcpy(&z, z_inv, sizeof z);
  stream_t s;
  const unsigned block = 256;
  const uint64_t blocks = (n + block - 1) / block;
  h_pointwise<<<(unsigned)std::min<uint64_t>(blocks, 1u << 20), block, 0, s>>>(a->p, b->p, c->p, n, z);
  CUZK_LAUNCHED();
  s.sync();
}

}  // namespace cuzk
