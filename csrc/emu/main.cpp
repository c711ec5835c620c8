// kernels_emu runs the kernels of src/spmv.cuh and src/witness.cuh on the host (cuda_emu.h), for
// gpu/emu_test.go. Build: g++ -std=c++17 -O1 -pthread -o kernels_emu main.cpp
//
//   kernels_emu spmv IN OUT      IN: rows, cols, col_bits, n_long, n_words, n_coeffs, n_w (uint64),
//                                row_len, block_ptr, long_rows, long_lens, words, coeffs, w
//   kernels_emu witness IN OUT   IN: n, n_others (uint64), classes, others, block_others
//
// OUT is "OK  " then the outputs with one poisoned element (0xdeadbeef words) before and after,
// or "BAD <row or element> <reason>" for the first problem the kernels' checks report. spmv's
// outputs are the product without and with w's classes, then the number of others (uint64) and
// the class words with one poisoned word after them.
// Little-endian arrays as in include/cuzk.h.
#include "cuda_emu.h"

#include <fstream>
#include <string>

#include "../src/spmv.cuh"
#include "../src/witness.cuh"

using namespace cuzk;

template <class T>
static std::vector<T> read_array(std::ifstream& f, uint64_t n) {
  std::vector<T> v(n);
  f.read(reinterpret_cast<char*>(v.data()), n * sizeof(T));
  return v;
}

static uint64_t read_u64(std::ifstream& f) {
  uint64_t x = 0;
  f.read(reinterpret_cast<char*>(&x), 8);
  return x;
}

static std::vector<fr_t> poisoned(uint64_t n) {
  std::vector<fr_t> out(n + 2);
  for (auto& x : out)
    for (auto& l : x.l) l = 0xdeadbeef;
  return out;
}

static void write_ok(std::ofstream& o, const std::vector<fr_t>& out) {
  o << "OK  ";
  o.write(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(fr_t));
}

static void spmv(std::ifstream& f, std::ofstream& o) {
  const uint64_t rows = read_u64(f), cols = read_u64(f), col_bits = read_u64(f), n_long = read_u64(f),
                 n_words = read_u64(f), n_coeffs = read_u64(f), n_w = read_u64(f);
  const uint64_t nb = (rows + CUZK_ROW_BLOCK - 1) / CUZK_ROW_BLOCK;
  const auto row_len = read_array<uint8_t>(f, rows);
  const auto block_ptr = read_array<uint32_t>(f, nb + 1);
  const auto long_rows = read_array<uint32_t>(f, n_long), long_lens = read_array<uint32_t>(f, n_long);
  const auto words = read_array<uint32_t>(f, n_words);
  const auto coeffs = read_array<fr_t>(f, n_coeffs), w = read_array<fr_t>(f, n_w);
  const matrix_view_t v{row_len.data(), block_ptr.data(), long_rows.data(), long_lens.data(), words.data(),
                        coeffs.data(),  rows,             (uint32_t)n_long, (uint32_t)col_bits};
  const unsigned blocks = (unsigned)((nb * CUZK_ROW_BLOCK + SPMV_THREADS - 1) / SPMV_THREADS);
  std::vector<uint32_t> count(nb + 1, 0), offset(nb + 1, 0);
  unsigned long long bad = ~0ull;
  launch(blocks, SPMV_THREADS, [&] { spmv_check(v, cols, (uint32_t)n_coeffs, CUZK_SPMV_HEAVY, count.data(), &bad); });
  if (bad != ~0ull) {
    o << "BAD " << bad / 16 << " " << bad % 16;
    return;
  }
  for (uint64_t b = 0; b < nb; b++) offset[b + 1] = offset[b] + count[b];
  std::vector<uint4> heavy(offset[nb]);
  launch(blocks, SPMV_THREADS, [&] { spmv_list_heavy(v, CUZK_SPMV_HEAVY, offset.data(), heavy.data()); });
  // w's classes, by a grid of 3 blocks so that the warps' grid-stride loop takes several steps.
  std::vector<uint64_t> classes((n_w + 31) / 32 + 1, 0xdeadbeefdeadbeefull);
  unsigned long long n_others = 0;
  launch(3, SPMV_THREADS, [&] { witness_classify(w.data(), n_w, classes.data(), &n_others); });
  auto plain = poisoned(rows), classed = poisoned(rows);
  launch(blocks, SPMV_THREADS, [&] { spmv_light<false>(v, w.data(), nullptr, plain.data() + 1, CUZK_SPMV_HEAVY); });
  launch(blocks, SPMV_THREADS,
         [&] { spmv_light<true>(v, w.data(), classes.data(), classed.data() + 1, CUZK_SPMV_HEAVY); });
  if (!heavy.empty()) {
    const unsigned hblocks = (unsigned)((heavy.size() * 32 + SPMV_THREADS - 1) / SPMV_THREADS);
    launch(hblocks, SPMV_THREADS,
           [&] { spmv_heavy<false>(v, heavy.data(), heavy.size(), w.data(), nullptr, plain.data() + 1); });
    launch(hblocks, SPMV_THREADS,
           [&] { spmv_heavy<true>(v, heavy.data(), heavy.size(), w.data(), classes.data(), classed.data() + 1); });
  }
  write_ok(o, plain);
  o.write(reinterpret_cast<const char*>(classed.data()), classed.size() * sizeof(fr_t));
  o.write(reinterpret_cast<const char*>(&n_others), sizeof n_others);
  o.write(reinterpret_cast<const char*>(classes.data()), classes.size() * sizeof(uint64_t));
}

static void witness(std::ifstream& f, std::ofstream& o) {
  const uint64_t n = read_u64(f), n_others = read_u64(f);
  const uint64_t n_words = (n + 31) / 32, n_blocks = (n + CUZK_WITNESS_BLOCK - 1) / CUZK_WITNESS_BLOCK;
  const auto classes = read_array<uint64_t>(f, n_words);
  const auto others = read_array<fr_t>(f, n_others);
  const auto block_others = read_array<uint32_t>(f, n_blocks + 1);
  auto out = poisoned(n);
  unsigned long long bad = ~0ull;
  launch((unsigned)n_blocks, CUZK_WITNESS_BLOCK, [&] {
    witness_check_decode(classes.data(), others.data(), block_others.data(), n, out.data() + 1, &bad);
  });
  if (bad != ~0ull) {
    o << "BAD " << bad / 4 << " " << bad % 4;
    return;
  }
  write_ok(o, out);
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  std::ifstream f(argv[2], std::ios::binary);
  std::ofstream o(argv[3], std::ios::binary);
  const std::string mode = argv[1];
  if (mode == "spmv") {
    spmv(f, o);
  } else if (mode == "witness") {
    witness(f, o);
  } else {
    return 2;
  }
  return f && o ? 0 : 1;
}
