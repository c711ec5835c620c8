// field_check runs field.cuh's device carry-chain product (mul_device) for Fp, Fr or Fp2 on the
// host, the PTX carry instructions emulated (CUZK_PTX_EMU), for gpu/field_emu_test.go, which
// compares the outputs with gnark-crypto.
// Build: g++ -std=c++17 -O1 -o field_check field_check.cpp
//
//   field_check FIELD IN OUT   FIELD: fp, fplazy, fr or fp2; IN: n (uint64), then n elements a
//                              and n elements b (48 bytes each for Fp, 32 for Fr, 96 for Fp2,
//                              gnark's limb layout, Montgomery form, each coordinate < p, or
//                              < 2p for fplazy, the redundant form of the G1 MSM, whose outputs
//                              are < 2p and equal to the results modulo p)
//
// OUT is "OK  ", the n squares mul_device(a, a) (the device's sqr), the n products
// mul_device(a, b), the n sums mul_sum_device(a, b, a, a) = a·b + a² (two wide products, one
// reduction), the n sums add_device(a, b), the n differences sub_device(a, b), then the number
// of carries the emulation saw dropped (uint64; the bounds say 0). For Fp2, whose device code
// is the product alone, the square, sum and difference are its host operations and the sum of
// two products is two device products. Last before the count comes the n host products a·b
// (operator* without the device: mul_portable, 64-bit limbs), the one result not of the device.
#define __device__
#define __host__
#define __forceinline__ inline
#define CUZK_PTX_EMU 1
#include <cstring>
#include <fstream>
#include <vector>

#include "../src/field.cuh"

using namespace cuzk;

// device_ops are the operations field_check runs for F: the device's own where it has them.
template <class F>
struct device_ops {
  static F sqr(const F& a) { return F::mul_device(a, a); }
  static F mul_sum(const F& a, const F& b, const F& c, const F& d) { return F::mul_sum_device(a, b, c, d); }
  static F add(const F& a, const F& b) { return F::add_device(a, b); }
  static F sub(const F& a, const F& b) { return F::sub_device(a, b); }
};
template <>
struct device_ops<fp2_t> {
  static fp2_t sqr(const fp2_t& a) { return a.sqr(); }
  static fp2_t mul_sum(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) {
    return fp2_t::mul_device(a, b) + fp2_t::mul_device(c, d);
  }
  static fp2_t add(const fp2_t& a, const fp2_t& b) { return a + b; }
  static fp2_t sub(const fp2_t& a, const fp2_t& b) { return a - b; }
};

template <class F>
int run(const char* in_path, const char* out_path) {
  std::ifstream in(in_path, std::ios::binary);
  uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  std::vector<F> a(n), b(n), sq(n), pr(n), sum(n), add(n), diff(n), host(n);
  in.read(reinterpret_cast<char*>(a.data()), n * sizeof(F));
  in.read(reinterpret_cast<char*>(b.data()), n * sizeof(F));
  if (!in) return 3;
  for (uint64_t i = 0; i < n; i++) {
    sq[i] = device_ops<F>::sqr(a[i]);
    pr[i] = F::mul_device(a[i], b[i]);
    sum[i] = device_ops<F>::mul_sum(a[i], b[i], a[i], a[i]);
    add[i] = device_ops<F>::add(a[i], b[i]);
    diff[i] = device_ops<F>::sub(a[i], b[i]);
    host[i] = a[i] * b[i];
  }
  uint64_t dropped = ptx::dropped_carries;
  std::ofstream out(out_path, std::ios::binary);
  out.write("OK  ", 4);
  out.write(reinterpret_cast<const char*>(sq.data()), n * sizeof(F));
  out.write(reinterpret_cast<const char*>(pr.data()), n * sizeof(F));
  out.write(reinterpret_cast<const char*>(sum.data()), n * sizeof(F));
  out.write(reinterpret_cast<const char*>(add.data()), n * sizeof(F));
  out.write(reinterpret_cast<const char*>(diff.data()), n * sizeof(F));
  out.write(reinterpret_cast<const char*>(host.data()), n * sizeof(F));
  out.write(reinterpret_cast<const char*>(&dropped), 8);
  return out ? 0 : 4;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  if (!strcmp(argv[1], "fp")) return run<fp_t>(argv[2], argv[3]);
  if (!strcmp(argv[1], "fplazy")) return run<fp_lazy_t>(argv[2], argv[3]);
  if (!strcmp(argv[1], "fr")) return run<fr_t>(argv[2], argv[3]);
  if (!strcmp(argv[1], "fp2")) return run<fp2_t>(argv[2], argv[3]);
  return 2;
}
