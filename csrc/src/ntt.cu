// The NTT entry point (ntt_run) and the twiddle tables it uses, built per
// device on first use and kept for the life of the process.
#include <memory>
#include <mutex>
#include <vector>

#include "ntt.cuh"

namespace cuzk {

// ω_{2^32}: gnark-crypto fr/generator.go rootOfUnity (Montgomery form).
static const uint32_t ROOT32[8] = {0x5f0e466a, 0xb9b58d8c, 0x1819d7ec, 0x5b1b4c80,
                                   0x52a31e64, 0x0af53ae3, 0x19e9b27b, 0x5bf3adda};
// 7 = fft.GeneratorFullMultiplicativeGroup() (Montgomery form).
static const uint32_t SEVEN[8] = {0xfffffff1, 0x0000000e, 0x00189c0f, 0x17e363d3,
                                  0x6f8457b0, 0xff9c5787, 0x8fc5a8c4, 0x35133220};

static fr_t from_words(const uint32_t* w) {
  fr_t r;
  for (int i = 0; i < 8; i++) r.l[i] = w[i];
  return r;
}

// device_tables are one device's twiddles of ω = ω_{2^28} and ω⁻¹ and the
// coset powers of the shifts used so far.
struct device_tables {
  std::mutex mu;
  bool ready = false;
  ntt_twiddles omega{}, omega_inv{};
  std::vector<coset_tables> cosets;
  std::vector<void*> allocations;  // owned device tables, freed never (process lifetime)
};

static std::mutex g_tables_mu;
static std::unique_ptr<device_tables> g_tables[MAX_DEVICES];

// tables_for returns dev's tables (empty at first); dev was checked by set_device.
static device_tables& tables_for(int dev) {
  std::lock_guard<std::mutex> g(g_tables_mu);
  if (!g_tables[dev]) {
    g_tables[dev].reset(new device_tables());
    keep_freed_allocations(dev);
  }
  return *g_tables[dev];
}

static void* upload_table(device_tables& c, const std::vector<fr_t>& h) {
  void* p = nullptr;
  CUZK_CUDA(cudaMalloc(&p, h.size() * sizeof(fr_t)));
  CUZK_CUDA(cudaMemcpy(p, h.data(), h.size() * sizeof(fr_t), cudaMemcpyHostToDevice));
  c.allocations.push_back(p);
  return p;
}

static pow_table make_pow_table(device_tables& c, const fr_t& x) {
  const size_t S = 1u << POW_BITS;
  std::vector<fr_t> lo(S), hi(S);
  lo[0] = fr_t::one();
  for (size_t i = 1; i < S; i++) lo[i] = lo[i - 1] * x;
  fr_t step = lo[S - 1] * x;  // x^(2^14)
  hi[0] = fr_t::one();
  for (size_t i = 1; i < S; i++) hi[i] = hi[i - 1] * step;
  pow_table t;
  t.lo = (const fr_t*)upload_table(c, lo);
  t.hi = (const fr_t*)upload_table(c, hi);
  return t;
}

static ntt_twiddles make_twiddles(device_tables& c, const fr_t& w) {
  ntt_twiddles t;
  t.pow = make_pow_table(c, w);
  fr_t* d = nullptr;
  CUZK_CUDA(cudaMalloc(&d, sizeof(fr_t) << DIAG_BITS));
  c.allocations.push_back(d);
  ntt_fill_diag<<<(1u << DIAG_BITS) / ELEMENTWISE_THREADS, ELEMENTWISE_THREADS>>>(d, t.pow);
  CUZK_LAUNCHED();
  CUZK_CUDA(cudaDeviceSynchronize());
  t.diag = d;
  return t;
}

static void ntt_tables(device_tables& c, ntt_twiddles* omega, ntt_twiddles* omega_inv) {
  std::lock_guard<std::mutex> g(c.mu);
  if (!c.ready) {
    fr_t w = from_words(ROOT32);
    for (int i = 0; i < 32 - NTT_MAX_LOG; i++) w = w.sqr();  // ω_{2^28}
    c.omega = make_twiddles(c, w);
    c.omega_inv = make_twiddles(c, w.inverse());
    c.ready = true;
  }
  *omega = c.omega;
  *omega_inv = c.omega_inv;
}

static coset_tables coset_for(device_tables& c, const fr_t& shift) {
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& t : c.cosets)
    if (t.shift == shift) return t;
  coset_tables t;
  t.shift = shift;
  t.fwd = make_pow_table(c, shift);
  t.inv = make_pow_table(c, shift.inverse());
  c.cosets.push_back(t);
  return t;
}

void ntt_run(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t& cfg, cudaStream_t s) {
  require(log_n >= 1 && log_n <= NTT_MAX_LOG, "ntt: log_n must be in [1, 28], got " + std::to_string(log_n));
  device_tables& c = tables_for(dev);
  ntt_twiddles om, omi;
  ntt_tables(c, &om, &omi);
  bool zero_shift = true;
  for (int i = 0; i < 4; i++) zero_shift &= cfg.shift[i] == 0;
  coset_tables ct{};
  if (cfg.coset) {
    fr_t sh;
    if (zero_shift) {
      sh = from_words(SEVEN);
    } else {
      for (int i = 0; i < 4; i++) {
        sh.l[2 * i] = (uint32_t)cfg.shift[i];
        sh.l[2 * i + 1] = (uint32_t)(cfg.shift[i] >> 32);
      }
    }
    ct = coset_for(c, sh);
  }
  const bool inv = cfg.inverse != 0;
  const bool dit = cfg.in_bitrev != 0;  // the passes leave natural order after DIT, bit-reversed after DIF

  ntt_t ntt(d, log_n, s);
  if (!inv && cfg.coset) ntt.coset_shift(ct.fwd, cfg.in_bitrev != 0);
  ntt.passes(inv ? omi : om, dit);
  if (!dit != (cfg.out_bitrev != 0)) ntt.bit_reverse();
  if (inv) ntt.scale_inverse(cfg.out_bitrev != 0, cfg.coset != 0, ct.inv);
}

}  // namespace cuzk
