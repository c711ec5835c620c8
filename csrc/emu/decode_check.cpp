// decode_check runs decode.cuh's point decoding (the body of the kernel of
// cuzk_bases_write_encoded) on the host, for gpu/decode_emu_test.go, which compares the
// outputs with gnark-crypto and the host decode of package prover.
// Build: g++ -std=c++17 -O1 -pthread -o decode_check decode_check.cpp
//
//   decode_check G IN OUT   G: 1 or 2; IN: n (uint64), then n encodings (96·G bytes each)
//
// OUT is "OK  ", then per point its reason (uint32, decoded alone) and the 96·G bytes
// decode_point left in its place (the affine point when the reason is 0), then the fault key
// of all n decoded as one chunk (uint64: index·8 + reason of the lowest failing point, or ~0).
#include <fstream>
#include <vector>

#include "cuda_emu.h"
#include "../src/decode.cuh"

using namespace cuzk;

template <int G>
static int run(std::ifstream& in, std::ofstream& out) {
  constexpr size_t W = G == 1 ? 24 : 48;  // 32-bit words per point
  uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  std::vector<uint32_t> all(n * W);
  in.read(reinterpret_cast<char*>(all.data()), n * W * 4);
  if (!in) return 3;
  std::vector<uint32_t> chunk = all;
  out.write("OK  ", 4);
  for (uint64_t i = 0; i < n; i++) {
    std::vector<uint32_t> one(all.begin() + i * W, all.begin() + (i + 1) * W);
    unsigned long long fault = ~0ull;
    decode_point<G>(one.data(), 0, &fault);
    uint32_t reason = fault == ~0ull ? 0 : (uint32_t)(fault & 7);
    out.write(reinterpret_cast<const char*>(&reason), 4);
    out.write(reinterpret_cast<const char*>(one.data()), W * 4);
  }
  unsigned long long fault = ~0ull;
  for (uint64_t i = 0; i < n; i++) decode_point<G>(chunk.data(), i, &fault);
  out.write(reinterpret_cast<const char*>(&fault), 8);
  return out ? 0 : 4;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  std::ifstream in(argv[2], std::ios::binary);
  std::ofstream out(argv[3], std::ios::binary);
  if (argv[1][0] == '1') return run<1>(in, out);
  if (argv[1][0] == '2') return run<2>(in, out);
  return 2;
}
