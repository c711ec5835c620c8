// The NTT entry point (ntt_run) and the twiddle tables it uses, built per
// device on first use and kept for the life of the process, but for the full
// diagonal table, which a caller builds and frees (ntt_full_table).
#include <memory>
#include <mutex>
#include <vector>

#include "ntt.cuh"
#include "ops.cuh"

namespace cuzk {

static_assert(NTT_ROOT_LOG == NTT_MAX_LOG, "the twiddle tables must cover the largest transform");

// scaled_by_t is an inverse's table that carries scale·n⁻¹ (ntt_extra's inv_scale ≠ 1).
struct scaled_by_t {
  ntt_scale_table kind;
  uint32_t log_n;
  fr_t scale;
  const fr_t* table;
};

// device_tables are one device's twiddles of ω = ω_{2^28} and ω⁻¹ and the
// coset powers of the shifts used so far. mu is held while a transform is
// planned and enqueued, so that the full table is freed only after every
// transform that reads it has been enqueued (and has run: ntt_full_table
// synchronises the device first).
struct device_tables {
  std::mutex mu;
  bool ready = false;
  ntt_twiddles omega{}, omega_inv{};
  fr_t* full = nullptr;  // ntt_twiddles.full, 2^full_log elements, or none
  uint32_t full_log = 0;
  const fr_t* omega_inv_scaled[NTT_ROOT_LOG + 1] = {};       // n⁻¹·ω^(−i), i < 2^14, per log_n (built on first use)
  const fr_t* omega_inv_diag_scaled[NTT_ROOT_LOG + 1] = {};  // n⁻¹·ω_{2^DIAG_BITS}^(−x), per log_n (likewise)
  const fr_t* omega_inv_diag2_scaled[NTT_ROOT_LOG + 1] = {};  // n⁻¹·ω_{2^(DIAG_BITS+1)}^(−x), per log_n (likewise)
  const fr_t* psi_inv_scaled[NTT_ROOT_LOG + 1] = {};         // n⁻¹·ω_{2^14}^(−i), i < 2^14, per log_n (likewise)
  std::vector<scaled_by_t> scaled_by;                        // the first two kinds' tables times another scale
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
  }
  return *g_tables[dev];
}

// ntt_fill_diag writes a diagonal table, out[x] = ω_{2^log_order}^x for x <
// 2^log_count, from the power table T of ω_{2^28}: ntt_twiddles.diag
// (log_order = log_count = DIAG_BITS), diag2 (both DIAG_BITS + 1) or full
// (log_order = full_log + 1, log_count = full_log).
__global__ void ntt_fill_diag(fr_t* __restrict__ out, pow_table T, uint32_t log_order, uint32_t log_count) {
  uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < (1u << log_count)) fr_t::store(out + x, pow_lookup(T, x << (NTT_ROOT_LOG - log_order)));
}

static unsigned elementwise_blocks(uint32_t log_count) {
  return (unsigned)(((1ull << log_count) + ELEMENTWISE_THREADS - 1) / ELEMENTWISE_THREADS);
}

static void* upload_table(device_tables& c, const std::vector<fr_t>& h) {
  void* p = device_malloc(h.size() * sizeof(fr_t));
  CUZK_CUDA(cudaMemcpy(p, h.data(), h.size() * sizeof(fr_t), cudaMemcpyHostToDevice));
  c.allocations.push_back(p);
  return p;
}

static pow_table make_pow_table(device_tables& c, const fr_t& x) {
  std::vector<fr_t> lo, hi;
  pow_table_host(x, lo, hi);
  pow_table t;
  t.lo = (const fr_t*)upload_table(c, lo);
  t.hi = (const fr_t*)upload_table(c, hi);
  return t;
}

static ntt_twiddles make_twiddles(device_tables& c, const fr_t& w) {
  ntt_twiddles t;
  t.pow = make_pow_table(c, w);
  fr_t* d[2];
  for (uint32_t i = 0; i < 2; i++) {
    const uint32_t log_order = DIAG_BITS + i;
    d[i] = (fr_t*)device_malloc(sizeof(fr_t) << log_order);
    c.allocations.push_back(d[i]);
    ntt_fill_diag<<<elementwise_blocks(log_order), ELEMENTWISE_THREADS>>>(d[i], t.pow, log_order, log_order);
    CUZK_LAUNCHED();
  }
  CUZK_CUDA(cudaDeviceSynchronize());
  t.diag = d[0];
  t.diag2 = d[1];
  t.full = nullptr;
  t.full_log = 0;
  t.inverse = false;
  return t;
}

// ntt_tables builds dev's twiddles on first use; c.mu is held.
static void ntt_tables(device_tables& c) {
  if (!c.ready) {
    const fr_t w = ntt_root();
    c.omega = make_twiddles(c, w);
    c.omega_inv = make_twiddles(c, w.inverse());
    c.omega_inv.inverse = true;
    // A pass block of 2^11 elements needs more than the default 48 KiB, and so does a ring
    // pass's (twice the twiddles) of 2^10.
    const int smem = (int)(((1u << PASS_BITS) + (1u << PASS_BITS) / 2) * sizeof(fr_t));
    const int ring_smem = (int)((2u << PASS_BITS) * sizeof(fr_t));
    const auto attr = cudaFuncAttributeMaxDynamicSharedMemorySize;
    ntt_each_kernel([&](auto k) {
      using K = decltype(k);
      CUZK_CUDA(cudaFuncSetAttribute(ntt_pass<K::dit, K::array, K::ring>, attr, K::ring == RING_NONE ? smem : ring_smem));
    });
    c.ready = true;
  }
}

void ntt_full_table(int dev, uint32_t log_n) {
  require(log_n <= NTT_MAX_LOG, "ntt table: log_n must be at most 28, got " + std::to_string(log_n));
  const uint32_t want = log_n < (uint32_t)NTT_ROOT_LOG ? log_n : NTT_ROOT_LOG - 1;  // ω_{2^(want+1)} ≤ ω_{2^28}
  device_tables& c = tables_for(dev);
  std::lock_guard<std::mutex> g(c.mu);
  if (log_n != 0 && c.full && c.full_log >= want) return;
  if (c.full) {
    fr_t* old = c.full;
    c.full = nullptr;
    c.full_log = 0;
    CUZK_CUDA(cudaDeviceSynchronize());  // the transforms enqueued with it have run
    CUZK_CUDA(cudaFree(old));
  }
  if (log_n == 0) return;
  ntt_tables(c);
  fr_t* t = (fr_t*)device_malloc(sizeof(fr_t) << want);
  ntt_fill_diag<<<elementwise_blocks(want), ELEMENTWISE_THREADS>>>(t, c.omega.pow, want + 1, want);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    cudaFree(t);
    throw_cuda(e, "ntt_fill_diag", __FILE__, __LINE__);
  }
  c.full = t;
  c.full_log = want;
}

// scaled_table fills slot, once, with f times the low (x^i) or, with high, the high (x^(i·2^14))
// power table of x, i < 2^14, and returns it; c.mu is held.
static const fr_t* scaled_table(device_tables& c, const fr_t*& slot, const fr_t& x, bool high, const fr_t& f) {
  if (!slot) {
    std::vector<fr_t> lo, hi;
    pow_table_host(x, lo, hi);
    std::vector<fr_t>& t = high ? hi : lo;
    for (auto& y : t) y = y * f;
    slot = (const fr_t*)upload_table(c, t);
  }
  return slot;
}

// inverse_scaled returns the table that carries scale·n⁻¹ for an inverse of n = 2^log_n without
// coset or on the coset ψ with its row factor where psi says (ntt_inverse_scale): the low power
// table scale·n⁻¹·ω^(−i), or the one-lookup diagonal scale·n⁻¹·ω_{2^DIAG_BITS}^(−x) or
// scale·n⁻¹·ω_{2^(DIAG_BITS+1)}^(−x), built on the host; c.mu is held. The tables of scale 1
// have slots of their own, the others are looked up by (kind, log_n, scale).
static const fr_t* inverse_scaled(device_tables& c, const ntt_twiddles& T, uint32_t log_n, ntt_psi_mode psi,
                                  const fr_t& scale) {
  const ntt_scale_table kind = ntt_inverse_scale(T, log_n, psi);
  const fr_t f = ntt_size_inverse(log_n) * scale;
  const fr_t* other = nullptr;
  const bool one = scale == fr_t::one();
  if (!one) {
    for (const scaled_by_t& e : c.scaled_by)
      if (e.kind == kind && e.log_n == log_n && e.scale == scale) return e.table;
  }
  const fr_t*& slot = !one ? other
                      : kind == SCALE_POW_LO ? c.omega_inv_scaled[log_n]
                      : kind == SCALE_DIAG2  ? c.omega_inv_diag2_scaled[log_n]
                                             : c.omega_inv_diag_scaled[log_n];
  if (kind == SCALE_POW_LO) {
    scaled_table(c, slot, ntt_root().inverse(), false, f);
  } else if (!slot) {
    const uint32_t log_order = kind == SCALE_DIAG2 ? DIAG_BITS + 1 : DIAG_BITS;
    std::vector<fr_t> t(size_t(1) << log_order);
    fr_t step = ntt_root().inverse();  // ω_{2^28}^(−1) → ω_{2^log_order}^(−1)
    for (uint32_t i = log_order; i < (uint32_t)NTT_ROOT_LOG; i++) step = step.sqr();
    t[0] = f;
    for (size_t x = 1; x < t.size(); x++) t[x] = t[x - 1] * step;
    slot = (const fr_t*)upload_table(c, t);
  }
  if (!one) c.scaled_by.push_back(scaled_by_t{kind, log_n, scale, slot});
  return slot;
}

// psi_inverse_scaled returns the row table n⁻¹·ω_{2^14}^(−i) of n = 2^log_n (the inverse
// transform on the coset ntt_psi(log_n)); c.mu is held.
static const fr_t* psi_inverse_scaled(device_tables& c, uint32_t log_n) {
  return scaled_table(c, c.psi_inv_scaled[log_n], ntt_root().inverse(), true, ntt_size_inverse(log_n));
}

// coset_for returns the tables of shift, with inv_scaled[log_n] built; c.mu is held.
static coset_tables coset_for(device_tables& c, const fr_t& shift, uint32_t log_n) {
  size_t i = 0;
  while (i < c.cosets.size() && !(c.cosets[i].shift == shift)) i++;
  if (i == c.cosets.size()) {
    coset_tables t{};
    t.shift = shift;
    t.fwd = make_pow_table(c, shift);
    t.inv = make_pow_table(c, shift.inverse());
    c.cosets.push_back(t);
  }
  coset_tables& t = c.cosets[i];
  scaled_table(c, t.inv_scaled[log_n], shift.inverse(), false, ntt_size_inverse(log_n));
  return t;
}

// plan_for plans the transform cfg of 2^log_n with dev's tables c (c.mu held), building the
// tables it reads on first use, with x's times and inv_scale (ntt_extra; minus is the chain's).
static ntt_plan plan_for(device_tables& c, uint32_t log_n, const cuzk_ntt_cfg_t& cfg, const ntt_extra& x) {
  ntt_twiddles om = c.omega, omi = c.omega_inv;
  om.full = omi.full = c.full;
  om.full_log = omi.full_log = c.full_log;
  const bool inv = cfg.inverse != 0, coset = cfg.coset != 0;
  require(x.inv_scale == fr_t::one() || (inv && !coset), "ntt: a scale besides n⁻¹ is for an inverse without coset");
  require(!x.inv_scale.is_zero(), "ntt: the inverse's scale is zero");
  ntt_tables_view v{};
  v.omega = om;
  v.omega_inv = omi;
  v.inv_scale = x.inv_scale;
  if (coset) {
    const fr_t sh = ntt_shift(cfg.shift);
    v.psi = log_n < (uint32_t)NTT_ROOT_LOG && sh == ntt_psi(log_n);
    if (v.psi) {
      if (inv && !ntt_psi_ring(log_n, inv)) v.psi_inv_scaled = psi_inverse_scaled(c, log_n);
    } else {
      const coset_tables ct = coset_for(c, sh, log_n);
      v.coset_fwd = ct.fwd;
      v.coset_inv_scaled = pow_table{ct.inv_scaled[log_n], ct.inv.hi};
    }
  }
  const bool in_br = cfg.in_bitrev != 0, out_br = cfg.out_bitrev != 0;
  if (ntt_diag_scales_inverse(log_n, inv, coset, v.psi))
    v.omega_inv_scaled = inverse_scaled(c, omi, log_n, coset ? ntt_psi_mode_of(inv, in_br) : PSI_NONE, x.inv_scale);
  ntt_plan P = plan_ntt(log_n, inv, coset, in_br, out_br, v);
  require(!x.times || ntt_set_times(P, x.times),
          "ntt: a product by another array needs a transform from bit-reversed to natural order whose "
          "last pass stores its output unscaled");
  return P;
}

// ntt_sub_array sets a[i] −= b[i] for i < n (ntt_extra's minus where no pass can take it).
__global__ void ntt_sub_array(fr_t* __restrict__ a, const fr_t* __restrict__ b, uint64_t n) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) fr_t::store(a + i, fr_t::load(a + i) - fr_t::load(b + i));
}

// launch_pass enqueues the pass kernel that runs l (ntt_each_kernel) on d.
static void launch_pass(const ntt_launch& l, fr_t* d, cudaStream_t s) {
  ntt_each_kernel([&](auto k) {
    using K = decltype(k);
    if (K::runs(l)) ntt_pass<K::dit, K::array, K::ring><<<l.blocks, l.threads, l.smem, s>>>(d, l.args);
  });
  CUZK_LAUNCHED();
}

void ntt_run_chain(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t* cfgs, const ntt_extra* extras,
                   uint32_t count, cudaStream_t s) {
  require(log_n >= 1 && log_n <= NTT_MAX_LOG, "ntt: log_n must be in [1, 28], got " + std::to_string(log_n));
  require(count >= 1 && count <= NTT_CHAIN_MAX, "ntt: a chain of 1 to " + std::to_string(NTT_CHAIN_MAX) +
                                                     " transforms, got " + std::to_string(count));
  const ntt_extra none{};
  for (uint32_t t = 0; t + 1 < count && extras; t++)
    require(!extras[t].minus, "ntt: an array subtracted from a transform's output ends its chain");
  device_tables& c = tables_for(dev);
  std::lock_guard<std::mutex> g(c.mu);  // until the passes are enqueued: ntt_full_table
  ntt_tables(c);
  ntt_plan plans[NTT_CHAIN_MAX];
  for (uint32_t t = 0; t < count; t++) plans[t] = plan_for(c, log_n, cfgs[t], extras ? extras[t] : none);
  const fr_t* minus = extras ? extras[count - 1].minus : nullptr;
  const bool minus_after = minus && !ntt_set_minus(plans[count - 1], minus);
  for (uint32_t t = 0; t < count; t++) {
    for (uint32_t i = 0; i < plans[t].np; i++) launch_pass(plans[t].pass[i], d, s);
    if (plans[t].bitrev_after) {
      bitrev_enqueue(d, log_n, bitrev_copy{d}, s);
      CUZK_LAUNCHED();
    }
  }
  if (minus_after) {
    const uint64_t n = 1ull << log_n;
    ntt_sub_array<<<elementwise_blocks(log_n), ELEMENTWISE_THREADS, 0, s>>>(d, minus, n);
    CUZK_LAUNCHED();
  }
}

void ntt_run(int dev, fr_t* d, uint32_t log_n, const cuzk_ntt_cfg_t& cfg, cudaStream_t s, const fr_t* times) {
  ntt_extra x;
  x.times = times;
  ntt_run_chain(dev, d, log_n, &cfg, &x, 1, s);
}

}  // namespace cuzk
