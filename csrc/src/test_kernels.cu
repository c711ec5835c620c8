// Test kernels: element-wise field operations on the device, compared by the
// gpu package's tests with gnark-crypto. Built only with `make TEST_KERNELS=1`
// (which defines CUZK_TEST_KERNELS); the production library does not contain
// them.
#ifndef CUZK_TEST_KERNELS
#error "test_kernels.cu is built only with make TEST_KERNELS=1 (-DCUZK_TEST_KERNELS)"
#endif
#include <type_traits>

#include "field_f64.cuh"
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

// debug_f64_kernel: op 0 out = a·b, op 1 out = a·b^16 (sixteen products chained in digit form),
// Fp on the FP64 pipe (fp_f64_t), converted from and to fp_t.
__global__ void debug_f64_kernel(int op, const fp_t* a, const fp_t* b, fp_t* out, uint64_t n) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fp_f64_t y = fp_f64_t::from_mont(b[i]);
  fp_f64_t x = fp_f64_t::from_mont(a[i]) * y;
  for (int k = 1; op == 1 && k < 16; k++) x = x * y;
  out[i] = x.to_mont();
}

// debug_field_run copies n elements a and b in, runs op and copies the n results out. F is the
// field of the op; fp_f64_t's inputs and outputs are fp_t.
template <class F>
static void debug_field_run(int op, const void* a, const void* b, void* out, uint64_t n, cudaStream_t s) {
  using E = typename std::conditional<std::is_same<F, fp_f64_t>::value, fp_t, F>::type;
  dbuf_t<E> da(n, s), db(n, s), dout(n, s);
  CUZK_CUDA(cudaMemcpyAsync(da.p, a, n * sizeof(E), cudaMemcpyHostToDevice, s));
  CUZK_CUDA(cudaMemcpyAsync(db.p, b, n * sizeof(E), cudaMemcpyHostToDevice, s));
  unsigned bs = 128, g = (unsigned)((n + bs - 1) / bs);
  if constexpr (std::is_same<F, fp_f64_t>::value) {
    require(op <= 1, "op must be 0 (a·b) or 1 (a·b^16) for Fp on the FP64 pipe");
    debug_f64_kernel<<<g, bs, 0, s>>>(op, da, db, dout, n);
  } else if (op == 5) {
    if constexpr (std::is_same<F, fr_t>::value) debug_inv_fr<<<g, bs, 0, s>>>(da, dout, n);
    else if constexpr (std::is_same<F, fp_t>::value) debug_inv_fp<<<g, bs, 0, s>>>(da, dout, n);
    else throw error(CUZK_ERR_INVALID, "inverse not available for Fp2");
  } else {
    debug_field_kernel<F><<<g, bs, 0, s>>>(op, da, db, dout, n);
  }
  CUZK_LAUNCHED();
  CUZK_CUDA(cudaMemcpyAsync(out, dout.p, n * sizeof(E), cudaMemcpyDeviceToHost, s));
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
    case 3: debug_field_run<fp_f64_t>(op, a, b, out, n, s); break;
    default: throw error(CUZK_ERR_INVALID, "field must be 0 (Fr), 1 (Fp), 2 (Fp2) or 3 (Fp on the FP64 pipe)");
  }
}

// fp_rate_kernel runs Fp product chains of `rounds` products each, for comparing the integer
// product (fp_t, on the multiplier pipe) with the FP64-pipe product (fp_f64_t) and their mix in
// one thread. u starts at a, v at b; every product multiplies by y = b. Variants (products a
// thread; out):
//   0  u = u·y integer                                      (rounds;     a·b^rounds)
//   1  u = u·y FP64 in digit form                           (rounds;     a·b^rounds)
//   2  u, v integer, interleaved                            (2·rounds;   u·v = a·b^(2·rounds+1))
//   3  u integer, v FP64 in digit form, interleaved         (2·rounds;   u·v)
//   4  u = u·y FP64, converted to and from fp_t each time   (rounds;     a·b^rounds)
//   5  u integer, v FP64 converted each time, interleaved   (2·rounds;   u·v)
//   6  u, v FP64 in digit form, interleaved                 (2·rounds;   u·v)
//   7  u = u·y alternately integer and FP64 converted       (rounds;     a·b^rounds)
//      (one dependent chain: the pipes mix only across warps)
//   8  w = w·z in Fr, integer (IMAD without .WIDE), and v FP64 in digit form, interleaved
//      (2·rounds;  v + w, w's words read as an Fp element)
//   9  w = w·z in Fr, integer                               (rounds;     w read as an Fp element)
// For 8 and 9, w starts at a's low four words and z is b's, each with its top word cut to 62
// bits so that they are below r.
// The final product u·v of the two-chain variants is an integer product outside the count.
template <int V>
__global__ void __launch_bounds__(128) fp_rate_kernel(const fp_t* a, const fp_t* b, fp_t* out, uint64_t n,
                                                      uint32_t rounds) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fp_t y = fp_t::load(&b[i]);
  fp_t u = fp_t::load(&a[i]), v = y;
  const fp_f64_t yf = fp_f64_t::from_mont(y);
  fp_f64_t uf = fp_f64_t::from_mont(u), vf = yf;
  fr_t w, z;
  for (int j = 0; j < fr_t::N; j++) w.l[j] = u.l[j], z.l[j] = y.l[j];
  w.l[fr_t::N - 1] &= 0x3fffffff, z.l[fr_t::N - 1] &= 0x3fffffff;
  for (uint32_t k = 0; k < rounds; k++) {
    if constexpr (V == 8 || V == 9) w = w * z;
    if constexpr (V == 8) vf = vf * yf;
    if constexpr (V == 0 || V == 2 || V == 3 || V == 5) u = u * y;
    if constexpr (V == 1 || V == 6) uf = uf * yf;
    if constexpr (V == 2) v = v * y;
    if constexpr (V == 3 || V == 6) vf = vf * yf;
    if constexpr (V == 4) u = (fp_f64_t::from_mont(u) * yf).to_mont();
    if constexpr (V == 5) v = (fp_f64_t::from_mont(v) * yf).to_mont();
    if constexpr (V == 7) u = (k & 1) ? (fp_f64_t::from_mont(u) * yf).to_mont() : u * y;
  }
  if constexpr (V == 1) u = uf.to_mont();
  if constexpr (V == 3 || V == 6) v = vf.to_mont();
  if constexpr (V == 6) u = uf.to_mont();
  if constexpr (V == 2 || V == 3 || V == 5 || V == 6) u = u * v;
  if constexpr (V == 8 || V == 9) {
    fp_t e = fp_t::zero();
    for (int j = 0; j < fr_t::N; j++) e.l[j] = w.l[j];
    u = V == 8 ? vf.to_mont() + e : e;
  }
  out[i] = u;
}

float debug_fp_rate(int dev, int variant, const void* a, const void* b, void* out, uint64_t n, uint32_t rounds) {
  require(a && b && out, "NULL argument");
  require(variant >= 0 && variant <= 9, "variant must be in [0, 9]");
  require(n >= 1, "n must be at least 1");
  set_device(dev);
  stream_t s;
  dbuf_t<fp_t> da(n, s), db(n, s), dout(n, s);
  CUZK_CUDA(cudaMemcpyAsync(da.p, a, n * sizeof(fp_t), cudaMemcpyHostToDevice, s));
  CUZK_CUDA(cudaMemcpyAsync(db.p, b, n * sizeof(fp_t), cudaMemcpyHostToDevice, s));
  cudaEvent_t start, stop;
  CUZK_CUDA(cudaEventCreate(&start));
  CUZK_CUDA(cudaEventCreate(&stop));
  const unsigned bs = 128, g = (unsigned)((n + bs - 1) / bs);
  CUZK_CUDA(cudaEventRecord(start, s));
  switch (variant) {
    case 0: fp_rate_kernel<0><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 1: fp_rate_kernel<1><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 2: fp_rate_kernel<2><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 3: fp_rate_kernel<3><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 4: fp_rate_kernel<4><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 5: fp_rate_kernel<5><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 6: fp_rate_kernel<6><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 7: fp_rate_kernel<7><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    case 8: fp_rate_kernel<8><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
    default: fp_rate_kernel<9><<<g, bs, 0, s>>>(da, db, dout, n, rounds); break;
  }
  CUZK_LAUNCHED();
  CUZK_CUDA(cudaEventRecord(stop, s));
  CUZK_CUDA(cudaMemcpyAsync(out, dout.p, n * sizeof(fp_t), cudaMemcpyDeviceToHost, s));
  CUZK_CUDA(cudaStreamSynchronize(s));
  float ms = 0;
  CUZK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

}  // namespace cuzk
