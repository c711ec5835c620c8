// ntt_emu runs the NTT kernels of src/ntt.cuh on the host (cuda_emu.h), for
// gpu/ntt_emu_test.go: the same plan (plan_ntt) and tables as ntt.cu,
// each pass block's threads emulated with a host array as its shared memory.
// Build: g++ -std=c++17 -O1 -pthread [-DCUZK_NTT_PASS_BITS=b -DCUZK_NTT_DIAG_BITS=d -DCUZK_NTT_RADIX_BITS=r]
//        -o ntt_emu ntt_main.cpp
//
//   ntt_emu IN OUT [FULL_LOG]
//                    IN: cases (uint64), then per case log_n and steps (1..NTT_CHAIN_MAX)
//                    (uint64), per step inverse, coset, in_bitrev, out_bitrev, times (the
//                    step's output multiplied by an array), minus (an array subtracted from
//                    it: the chain's last step) (uint64 each), the shift (4 uint64, zero for
//                    gnark's 7) and an inverse's scale besides n⁻¹ (4 uint64, zero for one:
//                    ntt_extra), then 2^log_n elements, then per step with times its 2^log_n
//                    elements, then per step with minus its 2^log_n elements; the steps run as
//                    ntt.cu's ntt_run_chain runs them, the subtraction on the last store where
//                    ntt_set_minus allows and after the passes otherwise; FULL_LOG (1..20):
//                    with a full diagonal table of 2^FULL_LOG elements (ntt_twiddles.full,
//                    ntt.cu's ntt_full_table)
//
// OUT is "OK  " then every case's transformed elements, one case after another.
#include "cuda_emu.h"

#include <array>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "../src/ntt.cuh"

using namespace cuzk;

// scaled_key is a scaled table's: the size and the scale besides n⁻¹ (its limbs).
using scaled_key = std::pair<uint32_t, std::array<uint32_t, 8>>;

static scaled_key key_of(uint32_t log_n, const fr_t& scale) {
  scaled_key k{log_n, {}};
  for (int i = 0; i < 8; i++) k.second[i] = scale.l[i];
  return k;
}

// scaled_table returns scale·n⁻¹·t for n = 2^log_n, built on first use and kept in m.
static const fr_t* scaled_table(std::map<scaled_key, std::vector<fr_t>>& m, const std::vector<fr_t>& t,
                                uint32_t log_n, const fr_t& scale = fr_t::one()) {
  auto& v = m[key_of(log_n, scale)];
  if (v.empty()) {
    v = t;
    const fr_t f = ntt_size_inverse(log_n) * scale;
    for (auto& x : v) x = x * f;
  }
  return v.data();
}

// host_twiddles owns the tables of one root (ntt.cu's make_twiddles) and its
// low, high and diagonal tables scaled by n⁻¹ (ntt.cu's inverse_scaled and psi_inverse_scaled).
struct host_twiddles {
  std::vector<fr_t> lo, hi, diag, diag2;
  std::map<scaled_key, std::vector<fr_t>> lo_scaled, hi_scaled, diag_scaled, diag2_scaled;
  ntt_twiddles T{};
  const fr_t* hi_scaled_for(uint32_t log_n) { return scaled_table(hi_scaled, hi, log_n); }
  const fr_t* scaled(ntt_scale_table kind, uint32_t log_n, const fr_t& scale) {
    if (kind == SCALE_DIAG) return scaled_table(diag_scaled, diag, log_n, scale);
    if (kind == SCALE_DIAG2) return scaled_table(diag2_scaled, diag2, log_n, scale);
    return scaled_table(lo_scaled, lo, log_n, scale);
  }
  explicit host_twiddles(const fr_t& w) {
    pow_table_host(w, lo, hi);
    diag.resize(size_t(1) << DIAG_BITS);
    diag2.resize(size_t(2) << DIAG_BITS);
    T.pow = pow_table{lo.data(), hi.data()};
    for (uint32_t x = 0; x < diag.size(); x++) diag[x] = pow_lookup(T.pow, x << (NTT_ROOT_LOG - DIAG_BITS));
    for (uint32_t x = 0; x < diag2.size(); x++) diag2[x] = pow_lookup(T.pow, x << (NTT_ROOT_LOG - DIAG_BITS - 1));
    T.diag = diag.data();
    T.diag2 = diag2.data();
  }
};

// host_coset owns the tables of one shift (ntt.cu's coset_for).
struct host_coset {
  std::vector<fr_t> flo, fhi, ilo, ihi;
  std::map<scaled_key, std::vector<fr_t>> scaled;
  explicit host_coset(const fr_t& g) {
    pow_table_host(g, flo, fhi);
    pow_table_host(g.inverse(), ilo, ihi);
  }
  const fr_t* inv_scaled(uint32_t log_n) { return scaled_table(scaled, ilo, log_n); }
};

static uint64_t read_u64(std::ifstream& f) {
  uint64_t x = 0;
  f.read(reinterpret_cast<char*>(&x), 8);
  return x;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return 2;
  std::ifstream f(argv[1], std::ios::binary);
  std::ofstream o(argv[2], std::ios::binary);
  const fr_t w = ntt_root();
  host_twiddles om(w), omi(w.inverse());
  omi.T.inverse = true;
  std::vector<fr_t> full;  // ntt.cu's ntt_full_table: ω_{2^(full_log+1)}^x, x < 2^full_log
  if (argc == 4) {
    const uint32_t full_log = (uint32_t)std::stoul(argv[3]);
    if (full_log < 1 || full_log > 20) return 2;
    full.resize(size_t(1) << full_log);
    for (uint32_t x = 0; x < full.size(); x++) full[x] = pow_lookup(om.T.pow, x << (NTT_ROOT_LOG - full_log - 1));
    om.T.full = omi.T.full = full.data();
    om.T.full_log = omi.T.full_log = full_log;
  }
  std::vector<std::unique_ptr<host_coset>> cosets;
  std::vector<fr_t> shifts;
  o << "OK  ";
  const uint64_t cases = read_u64(f);
  for (uint64_t ci = 0; ci < cases && f; ci++) {
    const uint32_t log_n = (uint32_t)read_u64(f);
    const uint64_t steps = read_u64(f);
    if (log_n < 1 || log_n > 20 || steps < 1 || steps > NTT_CHAIN_MAX) return 3;
    struct step_t {
      bool inv, coset, dit, out_br, times, minus;
      uint64_t sw[4];
      fr_t scale;
    } st[NTT_CHAIN_MAX];
    for (uint64_t k = 0; k < steps; k++) {
      step_t& x = st[k];
      x.inv = read_u64(f) != 0, x.coset = read_u64(f) != 0, x.dit = read_u64(f) != 0, x.out_br = read_u64(f) != 0;
      x.times = read_u64(f) != 0;
      x.minus = read_u64(f) != 0;
      for (auto& y : x.sw) y = read_u64(f);
      uint64_t sc[4];
      for (auto& y : sc) y = read_u64(f);
      x.scale = fr_t::one();  // all zero words
      if (sc[0] | sc[1] | sc[2] | sc[3]) memcpy(&x.scale, sc, sizeof x.scale);
      if (x.minus && k + 1 != steps) return 5;
    }
    std::vector<fr_t> a(size_t(1) << log_n);
    f.read(reinterpret_cast<char*>(a.data()), a.size() * sizeof(fr_t));
    std::vector<std::vector<fr_t>> times(steps), minus(steps);
    for (uint64_t k = 0; k < steps; k++) {
      if (st[k].times) {
        times[k].resize(a.size());
        f.read(reinterpret_cast<char*>(times[k].data()), a.size() * sizeof(fr_t));
      }
    }
    for (uint64_t k = 0; k < steps; k++) {
      if (st[k].minus) {
        minus[k].resize(a.size());
        f.read(reinterpret_cast<char*>(minus[k].data()), a.size() * sizeof(fr_t));
      }
    }
    ntt_plan plans[NTT_CHAIN_MAX];
    bool minus_after = false;
    for (uint64_t k = 0; k < steps; k++) {
      const step_t& x = st[k];
      if (!(x.scale == fr_t::one()) && (!x.inv || x.coset)) return 6;
      ntt_tables_view v{};
      v.omega = om.T;
      v.omega_inv = omi.T;
      v.inv_scale = x.scale;
      if (x.coset) {
        const fr_t g = ntt_shift(x.sw);
        v.psi = g == ntt_psi(log_n);
        v.psi_inv_scaled = omi.hi_scaled_for(log_n);
        size_t i = 0;
        while (i < shifts.size() && !(shifts[i] == g)) i++;
        if (i == shifts.size()) {
          shifts.push_back(g);
          cosets.emplace_back(new host_coset(g));
        }
        host_coset& c = *cosets[i];
        v.coset_fwd = pow_table{c.flo.data(), c.fhi.data()};
        v.coset_inv_scaled = pow_table{c.inv_scaled(log_n), c.ihi.data()};
      }
      if (ntt_diag_scales_inverse(log_n, x.inv, x.coset, v.psi))
        v.omega_inv_scaled = omi.scaled(
            ntt_inverse_scale(omi.T, log_n, x.coset ? ntt_psi_mode_of(x.inv, x.dit) : PSI_NONE), log_n, x.scale);
      plans[k] = plan_ntt(log_n, x.inv, x.coset, x.dit, x.out_br, v);
      if (x.times && !ntt_set_times(plans[k], times[k].data())) return 4;
      if (x.minus) {
        minus_after = !ntt_set_minus(plans[k], minus[k].data());
        // The quotient's case, the inverse ψ coset transform N→R with its row factor inside the
        // last pass's DFTs, must take the subtraction on that pass's store.
        if (minus_after && x.inv && x.coset && v.psi && !x.dit && x.out_br && ntt_psi_ring(log_n, true)) return 7;
      }
    }
    fr_t* d = a.data();
    for (uint64_t k = 0; k < steps; k++) {
      for (uint32_t i = 0; i < plans[k].np; i++) {
        const ntt_launch& l = plans[k].pass[i];
        std::vector<fr_t> sh(l.smem / sizeof(fr_t));
        launch(l.blocks, l.threads, [&] {
          ntt_each_kernel([&](auto kernel) {
            using K = decltype(kernel);
            if (K::runs(l))
              ntt_pass_block<K::dit, K::array, K::ring>(sh.data(), d, l.args, blockIdx.x, threadIdx.x, blockDim.x);
          });
        });
      }
      if (plans[k].bitrev_after) {
        const bitrev_launch br = plan_bitrev(log_n, ELEMENTWISE_THREADS);
        launch(br.blocks, br.threads, [&] {
          if (br.tiled)
            ntt_bitrev_tiles(d, log_n, bitrev_copy{d});
          else
            ntt_bitrev(d, log_n, bitrev_copy{d});
        });
      }
    }
    if (minus_after)
      for (size_t i = 0; i < a.size(); i++) a[i] = a[i] - minus[steps - 1][i];  // ntt.cu's ntt_sub_array
    o.write(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(fr_t));
  }
  return f && o ? 0 : 1;
}
