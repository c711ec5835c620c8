// Test kernels: element-wise field operations on the device, compared by the
// gpu package's tests with gnark-crypto. Built only with `make TEST_KERNELS=1`
// (which defines CUZK_TEST_KERNELS); the production library does not contain
// them.
#ifndef CUZK_TEST_KERNELS
#error "test_kernels.cu is built only with make TEST_KERNELS=1 (-DCUZK_TEST_KERNELS)"
#endif
#include <type_traits>

#include "ops.cuh"

namespace cuzk {

// field_op returns a op b for op 0 = mul, 1 = add, 2 = sub, 3 = sqr(a), 4 = neg(a).
template <class F>
__device__ F field_op(int op, const F& a, const F& b) {
  switch (op) {
    case 0: return a * b;
    case 1: return a + b;
    case 2: return a - b;
    case 3: return a.sqr();
    case 4: return a.neg();
    default: return a;
  }
}
template <class F>
__global__ void debug_field_kernel(int op, const F* a, const F* b, F* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = field_op<F>(op, a[i], b[i]);
}
__global__ void debug_inv_fr(const fr_t* a, fr_t* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i].inverse();
}
__global__ void debug_inv_fp(const fp_t* a, fp_t* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i].inverse();
}

template <class F>
static void debug_field_run(int op, const void* a, const void* b, void* out, uint64_t n, cudaStream_t s) {
  dbuf_t<F> da(n, s), db(n, s), dout(n, s);
  CUZK_CUDA(cudaMemcpyAsync(da.p, a, n * sizeof(F), cudaMemcpyHostToDevice, s));
  CUZK_CUDA(cudaMemcpyAsync(db.p, b, n * sizeof(F), cudaMemcpyHostToDevice, s));
  unsigned bs = 128, g = (unsigned)((n + bs - 1) / bs);
  if (op == 5) {
    if constexpr (std::is_same<F, fr_t>::value) debug_inv_fr<<<g, bs, 0, s>>>(da, dout, n);
    else if constexpr (std::is_same<F, fp_t>::value) debug_inv_fp<<<g, bs, 0, s>>>(da, dout, n);
    else throw error(CUZK_ERR_INVALID, "inverse not available for Fp2");
  } else {
    debug_field_kernel<F><<<g, bs, 0, s>>>(op, da, db, dout, n);
  }
  CUZK_LAUNCHED();
  CUZK_CUDA(cudaMemcpyAsync(out, dout.p, n * sizeof(F), cudaMemcpyDeviceToHost, s));
  CUZK_CUDA(cudaStreamSynchronize(s));
}

void debug_field(int dev, int field, int op, const void* a, const void* b, void* out, uint64_t n) {
  require(a && b && out, "NULL argument");
  require(op >= 0 && op <= 5, "op must be in [0, 5]");
  set_device(dev);
  stream_t s;
  if (n == 0) return;
  switch (field) {
    case 0: debug_field_run<fr_t>(op, a, b, out, n, s); break;
    case 1: debug_field_run<fp_t>(op, a, b, out, n, s); break;
    case 2: debug_field_run<fp2_t>(op, a, b, out, n, s); break;
    default: throw error(CUZK_ERR_INVALID, "field must be 0 (Fr), 1 (Fp) or 2 (Fp2)");
  }
}

}  // namespace cuzk
