// f64_check runs field_f64.cuh's Fp product on the FP64 pipe (fp_f64_t) on the host, where
// std::fma and IEEE double addition give the same bits as the device's __fma_rn and __dadd_rn,
// for gpu/field_emu_test.go, which compares the outputs with gnark-crypto.
// Build: g++ -std=c++17 -O1 -ffp-contract=off -o f64_check f64_check.cpp
//
//   f64_check IN OUT   IN: n (uint64), then n elements a and n elements b (Fp, 48 bytes each,
//                      gnark's limb layout, Montgomery form, each < p)
//
// OUT is "OK  ", the n products a·b (converted to digits, multiplied, converted back), the n
// values a·b^16 (sixteen products chained in digit form), then the largest magnitude of a
// low digit (d_0..d_6) of any product's result (uint64; the bound says ≤ 2^47).
#define __device__
#define __host__
#define __forceinline__ inline
#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "../src/field_f64.cuh"

using namespace cuzk;

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  std::vector<fp_t> a(n), b(n), pr(n), chain(n);
  in.read(reinterpret_cast<char*>(a.data()), n * sizeof(fp_t));
  in.read(reinterpret_cast<char*>(b.data()), n * sizeof(fp_t));
  if (!in) return 3;
  double largest = 0;
  auto note = [&](const fp_f64_t& x) {
    for (int k = 0; k < fp_f64_t::D - 1; k++) largest = std::fmax(largest, std::fabs(x.d[k]));
  };
  for (uint64_t i = 0; i < n; i++) {
    const fp_f64_t x = fp_f64_t::from_mont(a[i]), y = fp_f64_t::from_mont(b[i]);
    fp_f64_t p = x * y;
    note(p);
    pr[i] = p.to_mont();
    for (int j = 1; j < 16; j++) {
      p = p * y;
      note(p);
    }
    chain[i] = p.to_mont();
  }
  const uint64_t big = (uint64_t)largest;
  std::ofstream out(argv[2], std::ios::binary);
  out.write("OK  ", 4);
  out.write(reinterpret_cast<const char*>(pr.data()), n * sizeof(fp_t));
  out.write(reinterpret_cast<const char*>(chain.data()), n * sizeof(fp_t));
  out.write(reinterpret_cast<const char*>(&big), 8);
  return out ? 0 : 4;
}
