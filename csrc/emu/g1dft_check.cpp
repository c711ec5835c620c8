// g1dft_check runs g1dft.cuh's thread bodies (the kernels of cuzk_g1_dft) and fixedbase.cuh's
// affine conversion on the host, one loop per kernel, for gpu/g1dft_emu_test.go, which compares
// the output with the transform's definition computed with gnark-crypto.
// Build: g++ -std=c++17 -O1 -pthread -o g1dft_check g1dft_check.cpp
//
//   g1dft_check IN OUT   IN: log_n (uint32), n (uint64), ω, t and s (32 bytes each, fr.Element),
//                        then n G1 points (96 bytes each, gnark's G1Affine, Montgomery form)
//
// OUT is "OK  ", then the 2^log_n affine points Σ_i ω^(ij)·(s·t^i)·x_i (infinity as (0, 0)).
#include <fstream>
#include <vector>

#include "cuda_emu.h"
#include "../src/g1dft.cuh"

using namespace cuzk;

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  uint32_t log_n = 0;
  uint64_t n_in = 0;
  fr_t w, t, s;
  in.read(reinterpret_cast<char*>(&log_n), 4);
  in.read(reinterpret_cast<char*>(&n_in), 8);
  in.read(reinterpret_cast<char*>(&w), sizeof w);
  in.read(reinterpret_cast<char*>(&t), sizeof t);
  in.read(reinterpret_cast<char*>(&s), sizeof s);
  if (!in || log_n < 1 || log_n > 27 || n_in > (1ull << log_n)) return 3;
  const uint64_t n = 1ull << log_n, half = n / 2;
  std::vector<g1_affine_t> pts(n_in), out(n);
  in.read(reinterpret_cast<char*>(pts.data()), n_in * sizeof(g1_affine_t));
  if (!in) return 3;
  const std::vector<dft_glv_t> tw = dft_twiddle_table(w, half, fr_t::one());
  const std::vector<dft_glv_t> sc = dft_twiddle_table(t, n_in, s);
  std::vector<g1_xyzz_t> x(n);
  for (uint64_t i = 0; i < n; i++) dft_load_thread(pts.data(), sc.data(), n_in, x.data(), log_n, i);
  for (uint32_t h = 0; h < log_n; h++)
    for (uint64_t b = 0; b < half; b++) dft_butterfly_thread(x.data(), tw.data(), log_n, h, b);
  const uint64_t threads = (n + FB_BATCH - 1) / FB_BATCH;
  for (uint64_t k = 0; k < threads; k++) fb_to_affine_thread(x.data(), out.data(), n, threads, k);
  std::ofstream o(argv[2], std::ios::binary);
  o.write("OK  ", 4);
  o.write(reinterpret_cast<const char*>(out.data()), n * sizeof(g1_affine_t));
  return o ? 0 : 4;
}
