// Number-theoretic transform over Fr, bit-exact with gnark-crypto v0.22.0's
// fft.Domain.FFT / FFTInverse (with and without fft.OnCoset()).
//
// Algorithm: an n = 2^log_n transform is split into passes of at most
// PASS_BITS radix-2 stages. Each pass treats the current sub-problem (size M,
// contiguous) as K × (M/K): K-point DFTs over the top bits (stride M/K) in
// shared memory, followed by the twiddle diagonal ω_M^(i0·k1) (decimation in
// frequency, natural input, bit-reversed output). The transposed pass
// (twiddle first, stages reversed, Cooley–Tukey butterflies) run in reverse
// pass order is the decimation-in-time transform from bit-reversed input to
// natural output.
//
// Inside a pass the K-point DFT runs as steps of RADIX_BITS stages on 2^RADIX_BITS
// elements in registers (radix 4 or 8; a first step of fewer stages when
// RADIX_BITS does not divide k), a barrier between steps. The pass's first
// step reads its elements from global memory and its last step writes them
// back, so the shared-memory round trips and barriers are one fewer than the
// steps. The element-wise factors ride on those two steps: the twiddle
// diagonal on a store (in DIF that of its own pass, in DIT that of the pass
// launched next), the coset shift g^j on the load of the transform's first
// pass and n⁻¹ (times g^(−j) on a coset) on the store of its last pass — or,
// without coset and on the coset ω_{2n}, in the table of a twiddle diagonal
// (the ω_{2n} coset's own factor then inside one pass's butterflies,
// ntt_ring); a pass never needs two
// of them on the same side. The diagonal of the whole array takes two lookups
// and a product, or one lookup where the device keeps a table of its own
// (ntt_twiddles.full). A bit reversal, when the requested order asks for one,
// follows as a kernel of its own (ntt_bitrev_tiles).
//
// This header holds the twiddle tables' layout, the kernels and the plan of a
// transform, and includes only field.cuh, so that csrc/emu runs the kernels on
// the host; ntt.cu builds the tables per device and launches the plan.
#pragma once
#include <cstdint>
#include <vector>

#include "field.cuh"

// CUZK_NTT_BLOCKS is the number of 256-thread groups of pass threads each SM
// must fit (blocks of PASS_THREADS threads, at least one), which caps
// ntt_pass at 65536 / (256·blocks) registers: 3 (85 registers) was measured
// fastest on the H200 against 2 and 4 with radix-4 steps (docs/gpu-kernels.md).
#ifndef CUZK_NTT_BLOCKS
#define CUZK_NTT_BLOCKS 3
#endif
#if CUZK_NTT_BLOCKS < 1 || CUZK_NTT_BLOCKS > 8
#error "CUZK_NTT_BLOCKS must be in [1, 8] (256-thread blocks per SM; an SM holds at most 2048 threads)"
#endif

// CUZK_NTT_PASS_BITS is log2 of the elements one pass block holds in shared
// memory (32 bytes each, 4 per thread): 10 gives 32 KiB and 256 threads, 11
// gives 64 KiB and 512 threads (fewer blocks fit an SM; CUZK_NTT_BLOCKS is
// counted in 256-thread blocks either way).
#ifndef CUZK_NTT_PASS_BITS
#define CUZK_NTT_PASS_BITS 10
#endif
#if CUZK_NTT_PASS_BITS < 2 || CUZK_NTT_PASS_BITS > 11
#error "CUZK_NTT_PASS_BITS must be in [2, 11] (a block of 2^bits/4 threads and 2^bits·48 bytes of shared memory; below 8 only to test many passes at small sizes)"
#endif

// CUZK_NTT_RADIX_BITS is the number of radix-2 stages a thread runs in
// registers between two barriers: 2 (radix 4: four elements, two products at
// a time) or 3 (radix 8: eight elements, four products at a time, a third
// fewer barriers and shared-memory round trips, about 30 more registers).
#ifndef CUZK_NTT_RADIX_BITS
#define CUZK_NTT_RADIX_BITS 2
#endif
#if CUZK_NTT_RADIX_BITS < 2 || CUZK_NTT_RADIX_BITS > 3
#error "CUZK_NTT_RADIX_BITS must be 2 or 3 (radix-4 or radix-8 steps)"
#endif

// CUZK_NTT_DIAG_BITS: twiddle diagonals of sub-transforms up to 2^DIAG_BITS
// take one lookup in a table of 2^DIAG_BITS elements (18: 8 MiB, which stays
// in L2), larger ones two lookups and a product. Below 18 only for tests.
#ifndef CUZK_NTT_DIAG_BITS
#define CUZK_NTT_DIAG_BITS 18
#endif
#if CUZK_NTT_DIAG_BITS < 2 || CUZK_NTT_DIAG_BITS > 20
#error "CUZK_NTT_DIAG_BITS must be in [2, 20] (a table of 2^bits elements, 32 bytes each)"
#endif

namespace cuzk {

// NTT_ROOT_LOG: the twiddle tables hold the powers of ω_{2^28}, so transforms
// are at most 2^28 long (ntt.cu checks this equals ops.cuh's NTT_MAX_LOG).
constexpr int NTT_ROOT_LOG = 28;

// pow_table gives x^e for e < 2^(2·POW_BITS) = 2^28 as lo[e mod 2^14]·hi[e >> 14]:
// two tables of 2^14 elements (512 KiB each) instead of one of 2^28.
constexpr int POW_BITS = 14;
static_assert(2 * POW_BITS == NTT_ROOT_LOG, "pow_table must cover every exponent below 2^NTT_ROOT_LOG");
struct pow_table {
  const fr_t* lo;
  const fr_t* hi;
};

// ntt_twiddles are the powers of one root of unity (ω_{2^28} or its inverse):
// pow for any exponent (two lookups and a product), diag[x] = ω_{2^DIAG_BITS}^x
// for x < 2^DIAG_BITS (one lookup; 8 MiB, resident in L2), which serves every
// twiddle diagonal of a sub-transform of size ≤ 2^DIAG_BITS, and diag2[x] =
// ω_{2^(DIAG_BITS+1)}^x for x < 2^(DIAG_BITS+1) (16 MiB), which serves the
// diagonals of the ω_{2n} coset (ntt_psi) up to the same size.
//
// full, when a device has one (optional: 32·2^full_log bytes, 4 GiB for
// 2^27), holds full[x] = ω_{2^(full_log+1)}^x for x < 2^full_log, the forward
// root's powers in both directions' twiddles: ω^(x + 2^full_log) = −full[x],
// and the inverse reads ω^(−x) = ω^(2^(full_log+1) − x). It serves the
// twiddle diagonal of the whole array in one lookup instead of two and a
// product (ntt_full_serves).
constexpr int DIAG_BITS = CUZK_NTT_DIAG_BITS;
struct ntt_twiddles {
  pow_table pow;
  const fr_t* diag;
  const fr_t* diag2;
  const fr_t* full;
  uint32_t full_log;
  bool inverse;  // the powers are ω⁻¹'s: full's exponents are negated
};

// coset_tables are the powers of one coset shift g and of its inverse, and
// per transform size the inverse's low table scaled by n⁻¹: inv_scaled[log_n]
// holds n⁻¹·g^(−i), i < 2^14 (built on first use), so that the inverse coset
// transform's final factor n⁻¹·g^(−j) is one table product.
struct coset_tables {
  fr_t shift;
  pow_table fwd, inv;
  const fr_t* inv_scaled[NTT_ROOT_LOG + 1];
};

// ntt_root returns ω_{2^28}: gnark-crypto fr/generator.go rootOfUnity
// (ω_{2^32}, Montgomery form) squared four times.
inline fr_t ntt_root() {
  static const uint32_t root32[8] = {0x5f0e466a, 0xb9b58d8c, 0x1819d7ec, 0x5b1b4c80,
                                     0x52a31e64, 0x0af53ae3, 0x19e9b27b, 0x5bf3adda};
  fr_t w;
  for (int i = 0; i < 8; i++) w.l[i] = root32[i];
  for (int i = 0; i < 32 - NTT_ROOT_LOG; i++) w = w.sqr();
  return w;
}

// ntt_psi returns ψ = ω_{2n} for n = 2^log_n (log_n < NTT_ROOT_LOG): gnark's
// fft.Generator(2n), a coset shift with ψ² = ω_n and ψ^n = −1. On the coset
// ψ·⟨ω_n⟩ the coset factor ψ^j merges into the twiddle diagonals, which are
// powers of ω_{2M} instead of ω_M (plan_ntt), so that the coset costs one
// product an element instead of two.
inline fr_t ntt_psi(uint32_t log_n) {
  fr_t w = ntt_root();
  for (uint32_t i = log_n + 1; i < (uint32_t)NTT_ROOT_LOG; i++) w = w.sqr();
  return w;
}

// ntt_default_shift returns 7 = fft.GeneratorFullMultiplicativeGroup()
// (Montgomery form), gnark's coset shift.
inline fr_t ntt_default_shift() {
  static const uint32_t seven[8] = {0xfffffff1, 0x0000000e, 0x00189c0f, 0x17e363d3,
                                    0x6f8457b0, 0xff9c5787, 0x8fc5a8c4, 0x35133220};
  fr_t r;
  for (int i = 0; i < 8; i++) r.l[i] = seven[i];
  return r;
}

// ntt_shift returns the coset shift of cuzk_ntt_cfg_t's shift words (Montgomery form, 64-bit
// words, low first), or gnark's 7 (ntt_default_shift) when they are all zero.
inline fr_t ntt_shift(const uint64_t w[4]) {
  if ((w[0] | w[1] | w[2] | w[3]) == 0) return ntt_default_shift();
  fr_t g;
  for (int i = 0; i < 4; i++) {
    g.l[2 * i] = (uint32_t)w[i];
    g.l[2 * i + 1] = (uint32_t)(w[i] >> 32);
  }
  return g;
}

// pow_table_host fills lo[i] = x^i and hi[i] = x^(i·2^14), i < 2^14.
inline void pow_table_host(const fr_t& x, std::vector<fr_t>& lo, std::vector<fr_t>& hi) {
  const size_t S = size_t(1) << POW_BITS;
  lo.assign(S, fr_t::one());
  hi.assign(S, fr_t::one());
  for (size_t i = 1; i < S; i++) lo[i] = lo[i - 1] * x;
  const fr_t step = lo[S - 1] * x;  // x^(2^14)
  for (size_t i = 1; i < S; i++) hi[i] = hi[i - 1] * step;
}

__device__ __forceinline__ fr_t pow_lookup(const pow_table& t, uint32_t e) {
  uint32_t lo = e & ((1u << POW_BITS) - 1), hi = e >> POW_BITS;
  if (hi == 0) return t.lo[lo];
  if (lo == 0) return t.hi[hi];
  return t.lo[lo] * t.hi[hi];
}

// ntt_factor is the element-wise factor a pass applies to its elements on
// load or on store: none, a constant c, the element of another array at the
// same position (lo[pos]), or a table entry f(x) = lo[x mod 2^lo_bits]·hi[x >>
// lo_bits] (one product, none when x < 2^lo_bits; with hi null, the full
// table's half: lo[x mod 2^lo_bits] negated when bit lo_bits of x is set, x
// taken mod 2^(lo_bits+1) through hi_mask = 1), where x is
//   - GRID: (i0·mi + ai)·(r·mk + ak) << shift for the element at position pos
//     seen by the pass whose sub-problems have 2^log_m elements and whose
//     K-point DFTs 2^k rows: offset pos mod 2^log_m = i1·2^(log_m−k) + i0
//     (column i0, row i1), r = i1 or with bitrev the DFT's output row k1 (i1's
//     reversal over k bits): that pass's twiddle diagonal i0·k1, on the ω_{2n}
//     coset i0·(2k1+1) or (2i0+1)·k1, or the row alone (mi = 0, ai = 1). The
//     position alone fixes x, so a diagonal may ride on another pass than its
//     own (in DIT, on the store of the pass launched before it);
//   - INDEX: its natural index j: the position, or with bitrev the position's
//     bit reversal over log_n bits.
// FACTOR_ARRAY multiplies element i by lo[i]; FACTOR_MINUS_ARRAY is no factor but the
// subtraction of lo[i] (the store of a transform's last pass: ntt_set_minus).
enum ntt_factor_kind : uint32_t { FACTOR_NONE, FACTOR_CONST, FACTOR_ARRAY, FACTOR_GRID, FACTOR_INDEX, FACTOR_MINUS_ARRAY };

// factor_reads_array says whether a factor of kind k reads another array: the kernels built
// with ARRAY = k apply it (ntt_pass).
CUZK_HD bool factor_reads_array(uint32_t k) { return k == FACTOR_ARRAY || k == FACTOR_MINUS_ARRAY; }
struct ntt_factor {
  uint32_t kind, shift, lo_bits;
  uint32_t hi_mask = ~0u;
  uint32_t mi, ai, mk, ak;  // GRID's exponent
  uint32_t log_m, k;        // GRID's pass: sub-problems of 2^log_m elements, DFTs of 2^k rows
  bool bitrev;
  const fr_t* lo;
  const fr_t* hi;
  fr_t c;
};

// ntt_diag_odd says which index of a twiddle diagonal's exponent is made odd
// on the ω_{2n} coset: none (i0·k1), k1 (i0·(2k1+1)) or i0 ((2i0+1)·k1).
enum ntt_diag_odd : uint32_t { ODD_NONE, ODD_K1, ODD_I0 };

// diag_factor is the twiddle diagonal ω_M^(i0·k1) of a pass of k stages on
// sub-transforms of size M = 2^log_m, from T: one lookup in T.diag for M ≤
// 2^DIAG_BITS, one in T.full with full (ntt_full_serves), else two lookups in
// the power table and a product. With odd it is the diagonal on the ω_{2n}
// coset, ω_{2M}^(i0·(2k1+1)) (ODD_K1) or ω_{2M}^((2i0+1)·k1) (ODD_I0), an
// exponent below 2M: one lookup in T.diag2 for M ≤ 2^DIAG_BITS, likewise
// otherwise (log_m < NTT_ROOT_LOG).
inline ntt_factor diag_factor(const ntt_twiddles& T, uint32_t log_m, uint32_t k, uint32_t odd, bool full) {
  ntt_factor f{};
  f.kind = FACTOR_GRID;
  f.log_m = log_m;
  f.k = k;
  f.bitrev = true;
  f.mi = odd == ODD_I0 ? 2 : 1;
  f.ai = odd == ODD_I0 ? 1 : 0;
  f.mk = odd == ODD_K1 ? 2 : 1;
  f.ak = odd == ODD_K1 ? 1 : 0;
  const uint32_t log_order = odd == ODD_NONE ? log_m : log_m + 1;  // the root's: ω_M or ω_{2M}
  if (full && log_m > DIAG_BITS) {
    // The inverse's exponent −x: (i0·mi + ai) negated mod 2^32 negates the product, and
    // hi_mask takes it mod 2^(full_log+1).
    if (T.inverse) {
      f.mi = 0u - f.mi;
      f.ai = 0u - f.ai;
    }
    f.shift = T.full_log + 1 - log_order;
    f.lo_bits = T.full_log;
    f.hi_mask = 1;
    f.lo = T.full;
    f.hi = nullptr;
  } else if (log_m <= DIAG_BITS) {
    f.shift = DIAG_BITS - log_m;
    f.lo_bits = DIAG_BITS + (odd == ODD_NONE ? 0 : 1);
    f.lo = f.hi = odd == ODD_NONE ? T.diag : T.diag2;
  } else {
    f.shift = NTT_ROOT_LOG - log_order;
    f.lo_bits = POW_BITS;
    f.lo = T.pow.lo;
    f.hi = T.pow.hi;
  }
  return f;
}

constexpr int PASS_BITS = CUZK_NTT_PASS_BITS;    // elements per block: 2^PASS_BITS
constexpr int RADIX_BITS = CUZK_NTT_RADIX_BITS;  // stages per step: radix 2^RADIX_BITS
constexpr int PASS_THREADS = (1 << PASS_BITS) >> RADIX_BITS;  // one unit of a full step per thread
static_assert(PASS_BITS <= POW_BITS, "a pass's twiddles ω_K^e are read from pow.hi");
static_assert(PASS_BITS >= RADIX_BITS, "a pass block holds at least one unit");

// butterfly applies one radix-2 stage to (u, v): DIF (Gentleman–Sande)
// u, v ← u+v, (u−v)·w; DIT (Cooley–Tukey) u, v ← u+v·w, u−v·w; w = 1 when
// mul is false.
template <bool DIT>
__device__ __forceinline__ void butterfly(fr_t& u, fr_t& v, const fr_t& w, bool mul) {
  if (DIT) {
    if (mul) v = v * w;
    fr_t s = u + v;
    v = u - v;
    u = s;
  } else {
    fr_t d = u - v;
    u = u + v;
    v = mul ? d * w : d;
  }
}

// ntt_ring is how a pass's K-point DFTs take the ω_{2n} coset's row factor
// ω_{2K}^(i), i the natural index of the DFT's input (RING_TREE) or output
// (RING_ODD) row: none (plain DFTs, the row factor if any on a load or store),
// or inside their butterflies, where the DFT becomes a negacyclic one (every
// stage with products, none on the factor itself):
//   RING_ODD: the stage of half H pairs offset x < H under ω_{4H}^(2x+1) =
//     ω_{2K}^((2x+1)·2^τ) (τ the stage): Cooley–Tukey from bit-reversed input
//     (the DFT of the row-scaled natural input, F·T·B), transposed
//     Gentleman–Sande from natural input (B·T·F, the output scaled);
//   RING_TREE: the stage splits each node ν (the row's top τ bits) of the
//     remainder tree of X^K + 1 by ζ = ω_{2K}^((2·rev_τ(ν)+1)·H): Cooley–Tukey
//     from natural input (B·F·T), transposed Gentleman–Sande from bit-reversed
//     input (T·F·B).
// The twiddles are ω_{2K}^e, e < K (twice the plain table's K/2 entries).
enum ntt_ring : uint32_t { RING_NONE, RING_ODD, RING_TREE };

// ntt_pass_args are one pass's parameters: the pass starts at stage s0 of the
// log_n stages and runs k of them; a block holds G = 2^lg columns of K = 2^k
// elements; tw = pow.hi of ω (ω_K^e = tw[e << (POW_BITS − k)]); on_load and
// on_store are the factors applied when the elements are read and written.
struct ntt_pass_args {
  uint32_t log_n, s0, k, lg;
  const fr_t* tw;
  ntt_factor on_load, on_store;
};

// ntt_block is one block's view of a pass: element e of the block (column
// e mod G, row i1 = e / G of its K-point DFT) lives at a[gpos(e)].
struct ntt_block {
  fr_t* a;
  fr_t* sh;  // GK elements, then the K/2 twiddles ω_K^e
  const ntt_pass_args* p;
  uint32_t K, G, L, CL;  // rows 2^L apart; columns 2^CL apart (1, or K for whole sub-problems)
  uint64_t base, i0base;  // the block's first element, and its first column's index in the sub-problem

  __device__ __forceinline__ uint64_t gpos(uint32_t e) const {
    return base + ((uint64_t)(e >> p->lg) << L) + ((uint64_t)(e & (G - 1)) << CL);
  }
  // twiddle returns ω_K^x (x < K/2): from shared memory, or before the
  // shared copy is complete (the first step) from the global table.
  __device__ __forceinline__ fr_t twiddle(uint32_t x, bool global) const {
    return global ? fr_t::load(p->tw + (x << (POW_BITS - p->k))) : sh[K * G + x];
  }
  // ring_twiddle returns ω_{2K}^e (e < K), likewise: the shared table of a ring pass holds K.
  __device__ __forceinline__ fr_t ring_twiddle(uint32_t e, bool global) const {
    return global ? fr_t::load(p->tw + (e << (POW_BITS - 1 - p->k))) : sh[K * G + e];
  }
  // apply returns x·F(e) for element e at position pos (x − F.lo[pos] for FACTOR_MINUS_ARRAY);
  // an array factor only in the kernels built with ARRAY its kind (the others keep its code out
  // of their body). A GRID factor takes its column and
  // row from the position in DIT, where the diagonals ride on the pass before their own, and from
  // the block's geometry in DIF, where every factor is its own pass's (the DIF kernel measured
  // 1.5 % slower with the position's arithmetic).
  template <bool DIT, uint32_t ARRAY>
  __device__ __forceinline__ fr_t apply(const ntt_factor& F, fr_t x, uint32_t e, uint64_t pos) const {
    if (F.kind == FACTOR_NONE) return x;
    if (ARRAY == FACTOR_MINUS_ARRAY && F.kind == FACTOR_MINUS_ARRAY) return x - fr_t::load(F.lo + pos);
    fr_t f = F.c;
    if (ARRAY == FACTOR_ARRAY && F.kind == FACTOR_ARRAY) {
      f = fr_t::load(F.lo + pos);
    } else if (F.kind != FACTOR_CONST) {
      uint32_t ex;
      if (F.kind == FACTOR_GRID) {
        uint32_t i1, i0, k;
        if (DIT) {
          const uint32_t lc = F.log_m - F.k;  // log2 of the columns
          const uint32_t off = (uint32_t)pos & ((1u << F.log_m) - 1);
          i1 = off >> lc;
          i0 = off & ((1u << lc) - 1);
          k = F.k;
        } else {
          i1 = e >> p->lg;
          i0 = (uint32_t)(i0base + (e & (G - 1)));
          k = p->k;
        }
        const uint32_t r = F.bitrev ? __brev(i1) >> (32 - k) : i1;
        ex = ((i0 * F.mi + F.ai) * (r * F.mk + F.ak)) << F.shift;  // < M, or < 2M on the ω_{2n} coset
      } else {
        ex = F.bitrev ? (__brev((uint32_t)pos) >> (32 - p->log_n)) : (uint32_t)pos;
      }
      const uint32_t hi = (ex >> F.lo_bits) & F.hi_mask;
      f = fr_t::load(F.lo + (ex & ((1u << F.lo_bits) - 1)));
      if (hi != 0) f = F.hi ? f * fr_t::load(F.hi + hi) : f.neg();
    }
    return x * f;
  }
  template <bool DIT>
  __device__ __forceinline__ fr_t load(uint32_t e) const {
    const uint64_t pos = gpos(e);
    return apply<DIT, FACTOR_NONE>(p->on_load, fr_t::load(a + pos), e, pos);
  }
  template <bool DIT, uint32_t ARRAY>
  __device__ __forceinline__ void store(uint32_t e, fr_t x) const {
    const uint64_t pos = gpos(e);
    fr_t::store(a + pos, apply<DIT, ARRAY>(p->on_store, x, e, pos));
  }
};

// radix_step runs R consecutive stages t … t+R−1 of the K-point DFTs on
// units of 2^R elements in registers: stage t has half H = 2^(k−1−t), the
// unit's elements are rows i1 + m·S (m < 2^R, spacing S = H / 2^(R−1)), and
// stage t+r pairs m with m + 2^(R−1−r) under the twiddle ω_K^(x·2^(t+r)),
// x = (m mod 2^(R−1−r))·S + j the pair's offset in its half (j = i1 mod S).
// No product is spent on a stage of half 1 (t+r = k−1) nor, when S = 1, on
// offset x = 0. DIF runs the stages up, DIT down with Cooley–Tukey
// butterflies. first: the elements come from global memory (load), last:
// they go back there (store, which takes the array factor of kind ARRAY). A
// ring pass (RING ≠ RING_NONE) takes every pair's twiddle from ntt_ring's
// rule and skips none; RING_TREE swaps the butterflies (Cooley–Tukey up,
// Gentleman–Sande down).
template <bool DIT, int R, uint32_t ARRAY, uint32_t RING>
__device__ __forceinline__ void radix_step(const ntt_block& B, uint32_t t, bool first, bool last, uint32_t tid,
                                           uint32_t nt) {
  constexpr uint32_t U = 1u << R;
  constexpr bool CT = DIT != (RING == RING_TREE);  // Cooley–Tukey butterflies
  const uint32_t lg = B.p->lg, lh = B.p->k - 1 - t;  // log2 of stage t's half, ≥ R − 1
  const uint32_t ls = lh + 1 - R, S = 1u << ls;
  for (uint32_t b = tid; b < B.K * B.G / U; b += nt) {
    const uint32_t g = b & (B.G - 1), q = b >> lg;
    const uint32_t j = q & (S - 1);
    const uint32_t i1 = ((q >> ls) << (ls + R)) + j;
    const uint32_t e0 = (i1 << lg) + g, step = S << lg;
    fr_t x[U];
#pragma unroll
    for (uint32_t m = 0; m < U; m++)
      x[m] = first ? B.template load<DIT>(e0 + m * step) : B.sh[e0 + m * step];
#pragma unroll
    for (int rr = 0; rr < R; rr++) {
      const int r = DIT ? R - 1 - rr : rr;
      const uint32_t hm = (U >> 1) >> r;  // the pair's distance in m
      const bool mul = lh > (uint32_t)r;  // the stage's half 2^(lh−r) is > 1
      // Each pair reads its twiddle just before its butterfly, so that at most one twiddle is
      // live beside the unit's elements (with all of a stage's read first, the pass kernel
      // spilled at its register cap). With S = 1 (j = 0) the pairs of offset 0 have the
      // twiddle ω^0 = 1.
#pragma unroll
      for (uint32_t m = 0; m < U; m++) {
        if (m & hm) continue;
        const uint32_t c = m & (hm - 1);
        if (RING == RING_ODD) {
          const uint32_t off = (c << ls) + j;  // the pair's offset in its half
          butterfly<CT>(x[m], x[m + hm], B.ring_twiddle(((off << 1) | 1) << (t + r), first), true);
        } else if (RING == RING_TREE) {
          // The node's reversal is the low t + r bits of the row's reversal over k bits.
          const uint32_t node_rev = (__brev(i1 + m * S) >> (32 - B.p->k)) & ((1u << (t + r)) - 1);
          butterfly<CT>(x[m], x[m + hm], B.ring_twiddle(((node_rev << 1) | 1) << (lh - r), first), true);
        } else if (mul && (ls > 0 || c != 0)) {
          butterfly<DIT>(x[m], x[m + hm], B.twiddle(((c << ls) + j) << (t + r), first), true);
        } else {
          butterfly<DIT>(x[m], x[m + hm], fr_t::one(), false);
        }
      }
    }
#pragma unroll
    for (uint32_t m = 0; m < U; m++) {
      if (last)
        B.template store<DIT, ARRAY>(e0 + m * step, x[m]);
      else
        B.sh[e0 + m * step] = x[m];
    }
  }
}

// ntt_pass_block is the body of one block of ntt_pass (sh: its dynamic shared
// memory, (G·K + K/2) elements). The K-point DFTs run as steps of RADIX_BITS
// stages: stages 0, 1, … in DIF, the same steps in reverse order in DIT; a
// barrier between consecutive steps. When RADIX_BITS does not divide k, the
// step of fewer stages is the one that holds stage 0, so that the step of
// the last stages keeps spacing S = 1, where the twiddles of 1 are the same
// for every thread and cost no product (k = 9 in radix 4: 3.75 products an
// element instead of 4 with the short step last). ARRAY: the kind of array factor
// the last store may apply (FACTOR_NONE, FACTOR_ARRAY or FACTOR_MINUS_ARRAY). RING: the DFTs' ntt_ring
// (shared memory then (G·K + K) elements).
template <bool DIT, uint32_t ARRAY = FACTOR_NONE, uint32_t RING = RING_NONE>
__device__ __forceinline__ void ntt_pass_block(fr_t* sh, fr_t* a, const ntt_pass_args& p, uint64_t bid,
                                               uint32_t tid, uint32_t nt) {
  ntt_block B;
  B.a = a;
  B.sh = sh;
  B.p = &p;
  B.K = 1u << p.k;
  B.G = 1u << p.lg;
  const uint32_t log_m = p.log_n - p.s0;  // this pass's sub-problems have size M = 2^log_m
  B.L = log_m - p.k;
  if (B.L == 0) {  // the last DIF (first DIT) pass: the block's G columns are whole sub-problems
    B.CL = p.k;
    B.i0base = 0;
    B.base = bid << (p.k + p.lg);
  } else {
    const uint64_t gpb = (1ull << B.L) >> p.lg;  // blocks per sub-problem
    B.CL = 0;
    B.i0base = (bid % gpb) << p.lg;
    B.base = ((bid / gpb) << log_m) + B.i0base;
  }

  const uint32_t steps = (p.k + RADIX_BITS - 1) / RADIX_BITS;
  const uint32_t lead = p.k - (steps - 1) * RADIX_BITS;  // stages of the step that holds stage 0
  // The shared twiddles are first read by the second step, after the first barrier.
  if (steps > 1 && RING != RING_NONE)
    for (uint32_t e = tid; e < B.K; e += nt) sh[B.K * B.G + e] = fr_t::load(p.tw + (e << (POW_BITS - 1 - p.k)));
  else if (steps > 1)
    for (uint32_t e = tid; e < B.K / 2; e += nt) sh[B.K * B.G + e] = fr_t::load(p.tw + (e << (POW_BITS - p.k)));
  for (uint32_t s = 0; s < steps; s++) {
    if (s > 0) __syncthreads();
    const uint32_t c = DIT ? steps - 1 - s : s;  // the step's index in DIF order
    const uint32_t t = c == 0 ? 0 : lead + (c - 1) * RADIX_BITS;
    const uint32_t R = c == 0 ? lead : RADIX_BITS;
    const bool first = s == 0, last = s + 1 == steps;
    if (R == 1)
      radix_step<DIT, 1, ARRAY, RING>(B, t, first, last, tid, nt);
    else if (R == 2 || RADIX_BITS == 2)
      radix_step<DIT, 2, ARRAY, RING>(B, t, first, last, tid, nt);
    else
      radix_step<DIT, (RADIX_BITS > 2 ? 3 : 2), ARRAY, RING>(B, t, first, last, tid, nt);
  }
}

// PASS_MIN_BLOCKS is CUZK_NTT_BLOCKS in pass blocks (at least 1).
constexpr int PASS_MIN_BLOCKS = CUZK_NTT_BLOCKS * 256 / PASS_THREADS > 0 ? CUZK_NTT_BLOCKS * 256 / PASS_THREADS : 1;

#if defined(__CUDACC__)  // csrc/emu calls ntt_pass_block with a host array as the shared memory
template <bool DIT, uint32_t ARRAY = FACTOR_NONE, uint32_t RING = RING_NONE>
__global__ void __launch_bounds__(PASS_THREADS, PASS_MIN_BLOCKS)
    ntt_pass(fr_t* __restrict__ a, ntt_pass_args p) {
  extern __shared__ fr_t ntt_sh[];
  ntt_pass_block<DIT, ARRAY, RING>(ntt_sh, a, p, blockIdx.x, threadIdx.x, blockDim.x);
}
#endif

// bitrev_copy is the source of a plain bit reversal: the array itself.
struct bitrev_copy {
  const fr_t* a;
  CUZK_HD fr_t operator()(uint64_t i) const { return fr_t::load(a + i); }
};

// The bit reversal kernels set a_i = src(bitrev(i)) for every i < 2^log_n, in
// place: src may read a (at the indices it is asked for, which the kernel
// reads before it writes them) and other arrays, so that an element-wise step
// rides on the reversal's memory traffic (bitrev_copy for none).

// ntt_bitrev does one element per thread: transforms shorter than a pair of
// tiles (log_n < 2·BITREV_TILE_BITS).
template <class Src>
__global__ void ntt_bitrev(fr_t* a, uint32_t log_n, Src src) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >> log_n) return;
  uint32_t j = __brev((uint32_t)i) >> (32 - log_n);
  if (i < j) {
    fr_t x = src(i), y = src(j);
    fr_t::store(a + i, y);
    fr_t::store(a + j, x);
  } else if (i == j) {
    fr_t::store(a + i, src(i));
  }
}

// BITREV_TILE_BITS = b: ntt_bitrev_tiles moves tiles of 2^b × 2^b elements,
// whose rows are runs of 2^b elements (512 bytes at b = 4).
constexpr uint32_t BITREV_TILE_BITS = 4;
constexpr unsigned BITREV_THREADS = 1u << (2 * BITREV_TILE_BITS);

// ntt_bitrev_tiles is the reversal for log_n ≥ 2b. An index is i = (h, m, l),
// h and l of b bits and m of log_n − 2b, and its image is (rev l, rev m,
// rev h). Block m, one for each pair m ≤ m' = rev m, reads tiles m and m'
// (rows h, columns l) and writes each transposed into the other's place, so
// that reads and writes are both runs of 2^b elements instead of single
// scattered elements.
template <class Src>
__global__ void __launch_bounds__(BITREV_THREADS) ntt_bitrev_tiles(fr_t* a, uint32_t log_n, Src src) {
  constexpr uint32_t b = BITREV_TILE_BITS, T = 1u << b;
  __shared__ fr_t A[T][T + 1], B[T][T + 1];  // padded rows: the transposed reads spread over banks
  const uint32_t mb = log_n - 2 * b;
  const uint32_t m = blockIdx.x;
  const uint32_t mr = mb ? __brev(m) >> (32 - mb) : 0;
  if (m > mr) return;  // the pair is block mr's
  const uint32_t y = threadIdx.x >> b, x = threadIdx.x & (T - 1);
  const uint32_t ry = __brev(y) >> (32 - b), rx = __brev(x) >> (32 - b);
  const uint64_t row = (uint64_t)y << (mb + b);
  A[y][x] = src(row | ((uint64_t)m << b) | x);
  if (m != mr) B[y][x] = src(row | ((uint64_t)mr << b) | x);
  __syncthreads();
  // Position (y, mr, x) receives (h, m, l) with rev l = y, rev h = x.
  fr_t::store(a + (row | ((uint64_t)mr << b) | x), A[rx][ry]);
  if (m != mr) fr_t::store(a + (row | ((uint64_t)m << b) | x), B[rx][ry]);
}

// bitrev_launch is the bit reversal of 2^log_n elements: tiled, or one
// element per thread below two tiles.
struct bitrev_launch {
  bool tiled;
  unsigned blocks, threads;
};

inline bitrev_launch plan_bitrev(uint32_t log_n, unsigned elementwise_threads) {
  if (log_n >= 2 * BITREV_TILE_BITS) return {true, 1u << (log_n - 2 * BITREV_TILE_BITS), BITREV_THREADS};
  const uint64_t n = 1ull << log_n;
  const unsigned t = n < elementwise_threads ? (unsigned)n : elementwise_threads;
  return {false, (unsigned)((n + t - 1) / t), t};
}

// ELEMENTWISE_THREADS is the block size of the element-wise kernels
// (ntt_bitrev, ntt_fill_diag): one element per thread.
constexpr unsigned ELEMENTWISE_THREADS = 256;

#if defined(__CUDACC__)
// bitrev_enqueue enqueues a_i = src(bitrev(i)), i < 2^log_n, on s.
template <class Src>
void bitrev_enqueue(fr_t* a, uint32_t log_n, Src src, cudaStream_t s) {
  const bitrev_launch br = plan_bitrev(log_n, ELEMENTWISE_THREADS);
  if (br.tiled)
    ntt_bitrev_tiles<<<br.blocks, br.threads, 0, s>>>(a, log_n, src);
  else
    ntt_bitrev<<<br.blocks, br.threads, 0, s>>>(a, log_n, src);
}
#endif

// ntt_launch is one pass kernel launch of a plan.
struct ntt_launch {
  bool dit;
  ntt_ring ring;  // the kernel's DFTs (ntt_pass<dit, array, ring>)
  ntt_pass_args args;
  unsigned blocks, threads;
  size_t smem;  // bytes
};

// ntt_plan is a transform of size 2^log_n: its passes, in launch order, and
// whether a bit reversal follows them.
struct ntt_plan {
  uint32_t np = 0;
  ntt_launch pass[(NTT_ROOT_LOG + PASS_BITS - 1) / PASS_BITS];
  bool bitrev_after = false;
};

// index_factor is the factor T(j) = lo[j mod 2^14]·hi[j >> 14] of the
// element of natural index j (bitrev: the elements are in bit-reversed order).
inline ntt_factor index_factor(const pow_table& T, bool bitrev) {
  ntt_factor f{};
  f.kind = FACTOR_INDEX;
  f.lo_bits = POW_BITS;
  f.bitrev = bitrev;
  f.lo = T.lo;
  f.hi = T.hi;
  return f;
}

// const_factor is the factor c of every element.
inline ntt_factor const_factor(const fr_t& c) {
  ntt_factor f{};
  f.kind = FACTOR_CONST;
  f.c = c;
  return f;
}

// ntt_size_inverse returns n⁻¹ = 2^(−log_n) in Fr.
inline fr_t ntt_size_inverse(uint32_t log_n) {
  const fr_t two = fr_t::one() + fr_t::one();
  return two.pow_u64(log_n).inverse();
}

// pass_count is the number of passes of a transform of 2^log_n, and
// pass_bits the stages k_p of pass p (in DIF order): ⌈log_n / PASS_BITS⌉
// passes, the larger first.
inline uint32_t pass_count(uint32_t log_n) { return (log_n + PASS_BITS - 1) / PASS_BITS; }
inline uint32_t pass_bits(uint32_t log_n, uint32_t p) {
  const uint32_t np = pass_count(log_n);
  return log_n / np + (p < log_n % np ? 1 : 0);
}

// ntt_full_serves says whether the twiddle diagonal of the whole array of a
// transform of 2^log_n takes one lookup in T.full: the table is there and
// long enough for the ω_{2n} coset's exponents (log_n ≤ full_log), the
// diagonal is larger than the one-lookup table, and the transform has at
// least three passes, so that an inverse's n⁻¹ has a second diagonal to
// ride on (the full table is not scaled: both directions share it).
inline bool ntt_full_serves(const ntt_twiddles& T, uint32_t log_n) {
  return T.full != nullptr && log_n <= T.full_log && log_n > (uint32_t)DIAG_BITS && pass_count(log_n) >= 3;
}

// row_factor is the factor tab[x << (POW_BITS − 1 − k)] of the element in row
// i1 of a pass of k stages on sub-problems of 2^log_m elements, x = i1 or with
// bitrev its reversal over k bits: with tab = ω.pow.hi (ω_{2^14}^y), ω_{2K}^x
// for K = 2^k ≤ 2^13.
inline ntt_factor row_factor(const fr_t* tab, uint32_t log_m, uint32_t k, bool bitrev) {
  ntt_factor f{};
  f.kind = FACTOR_GRID;
  f.log_m = log_m;
  f.k = k;
  f.mi = 0;
  f.ai = 1;
  f.mk = 1;
  f.ak = 0;
  f.shift = POW_BITS - 1 - k;
  f.lo_bits = POW_BITS;  // x << shift < 2^(POW_BITS−1): one lookup
  f.bitrev = bitrev;
  f.lo = f.hi = tab;
  return f;
}

// The coset ψ·⟨ω_n⟩, ψ = ω_{2n} (ntt_psi), in the passes. Let the DIF passes
// compute F = P_np·D_(np−1)···D_1·P_1, P_p the K_p-point DFTs of pass p and
// D_p its twiddle diagonal ω_M^(i0·k1) (i0 the column, k1 the DFT's output
// row of a sub-problem of size M); the DIT passes compute the transpose with
// the same diagonals. Scaling the input by ψ^j (forward) or the output by
// ψ^(−j) (inverse) splits j into a part each pass carries:
//   PSI_PRE (the scaled index is the first DIF pass's input, j = i1·M/K + i0):
//     ψ^(i0) is constant down a column, commutes with P_1 and joins D_1 as
//     ω_{2n}^(i0·(2k1+1)); ψ^(i1·M/K) = ω_{2K}^(i1) stays on the row, on the
//     first DIF pass's load. Forward DIF, and (transposed) inverse DIT, whose
//     last pass stores the row factor times n⁻¹.
//   PSI_POST (the scaled index is the DIF passes' output, j = k1 + K·j'):
//     ψ^(k1) is constant on the sub-problem of the next passes and joins D_1
//     as ω_{2n}^((2i0+1)·k1); ψ^(K·j') is the same coset of that sub-problem,
//     so every diagonal becomes ω_{2M}^((2i0+1)·k1), and the last pass's DFT
//     output row x keeps ω_{2K}^(x). Inverse DIF (times n⁻¹ on the last store),
//     and (transposed) forward DIT, on its first pass's load.
// The coset then costs one product an element (the row factor) instead of two
// (the two-lookup power g^j and the product by it), or with ntt_ring, where the
// row's pass becomes negacyclic, 0.75 of a product (ntt_psi_ring).
enum ntt_psi_mode : uint32_t { PSI_NONE, PSI_PRE, PSI_POST };

// make_ntt_plan plans a transform with the powers T of ω (ω⁻¹ for the
// inverse): ⌈log_n / PASS_BITS⌉ passes of k_p stages each, the larger first,
// decimation in frequency from natural input (its passes leave bit-reversed
// order) or with in_bitrev decimation in time (they leave natural order), then
// a bit reversal when out_bitrev asks for the other order. first_load is
// applied as the first pass reads (the forward coset shift g^j), last_store
// as the last pass writes (n⁻¹, times g^(−j) on a coset); the twiddle
// diagonals ride on the stores of the other passes: DIF pass p's (p < np − 1)
// as pass p writes, and in DIT, where pass p + 1 runs just before pass p, as
// pass p + 1 writes (on the loads of pass p, as before, the DIT transforms
// were 0.4–1.0 ms slower at 2^27). The whole array's diagonal takes one
// lookup in T.full when ntt_full_serves. scaled, when given, replaces the low
// table of the diagonal of the whole array, or of the second DIF pass's when
// T.full serves the first (ntt_inverse_scale says which table that is): a
// table c·ω^i scales every element by c. psi makes the diagonals those of the
// ω_{2n} coset: the first pass's (PSI_PRE) or every pass's (PSI_POST). ring,
// when not RING_NONE, is the DFTs of the first DIF pass (PSI_PRE) or of the
// last (PSI_POST), which then take the coset's row factor (ntt_ring).
inline ntt_plan make_ntt_plan(uint32_t log_n, bool in_bitrev, bool out_bitrev, const ntt_twiddles& T,
                              const ntt_factor& first_load, const ntt_factor& last_store, const fr_t* scaled,
                              ntt_psi_mode psi, ntt_ring ring = RING_NONE) {
  ntt_plan P;
  const bool dit = in_bitrev;
  const uint32_t np = pass_count(log_n);
  uint32_t ks[(NTT_ROOT_LOG + PASS_BITS - 1) / PASS_BITS];
  for (uint32_t p = 0; p < np; p++) ks[p] = pass_bits(log_n, p);
  const ntt_factor none{};
  const bool full = ntt_full_serves(T, log_n);
  // diag[p] is DIF pass p's twiddle diagonal (none for the last, whose sub-problems are its DFTs).
  ntt_factor diag[(NTT_ROOT_LOG + PASS_BITS - 1) / PASS_BITS];
  for (uint32_t p = 0, s0 = 0; p < np; s0 += ks[p], p++) {
    const uint32_t odd = psi == PSI_POST || (psi == PSI_PRE && s0 == 0) ? (psi == PSI_PRE ? ODD_K1 : ODD_I0) : ODD_NONE;
    diag[p] = p + 1 < np ? diag_factor(T, log_n - s0, ks[p], odd, full && s0 == 0) : none;
    if (scaled && p == (full ? 1u : 0u) && p + 1 < np) diag[p].lo = scaled;
  }
  P.np = np;
  for (uint32_t pi = 0; pi < np; pi++) {
    const uint32_t p = dit ? (np - 1 - pi) : pi;
    uint32_t s0 = 0;
    for (uint32_t q = 0; q < p; q++) s0 += ks[q];
    const uint32_t k = ks[p];
    const uint32_t L = log_n - s0 - k;
    // A block holds 2^lg columns: of its sub-problem (L > 0), or whole sub-problems of 2^k
    // contiguous elements (L = 0, of which there are 2^s0), so that the last DIF (first DIT)
    // pass runs blocks of PASS_THREADS threads too.
    const uint32_t cols = L > 0 ? L : s0;
    const uint32_t lg = PASS_BITS - k < cols ? PASS_BITS - k : cols;
    const uint32_t GK = 1u << (k + lg);
    ntt_launch& l = P.pass[pi];
    l.dit = dit;
    l.ring = ring != RING_NONE && p == (psi == PSI_PRE ? 0 : np - 1) ? ring : RING_NONE;
    l.args = ntt_pass_args{log_n, s0, k, lg, T.pow.hi, none, none};
    l.args.on_store = dit ? (p > 0 ? diag[p - 1] : none) : diag[p];
    // The last pass launched (DIF pass np − 1, DIT pass 0) stores no diagonal, so none is replaced here.
    if (pi == 0 && first_load.kind != FACTOR_NONE) l.args.on_load = first_load;
    if (pi + 1 == np && last_store.kind != FACTOR_NONE) l.args.on_store = last_store;
    l.threads = (GK >> RADIX_BITS) < (uint32_t)PASS_THREADS ? (GK >> RADIX_BITS) : PASS_THREADS;
    if (l.threads == 0) l.threads = 1;
    l.blocks = (unsigned)((1ull << log_n) / GK);
    l.smem = (GK + (l.ring != RING_NONE ? (1u << k) : (1u << k) / 2)) * sizeof(fr_t);
  }
  P.bitrev_after = !dit != out_bitrev;
  return P;
}

// ntt_tables_view are the tables one transform of 2^log_n reads (device
// pointers, or host ones in csrc/emu).
struct ntt_tables_view {
  ntt_twiddles omega, omega_inv;
  const fr_t* omega_inv_scaled;  // when ntt_diag_scales_inverse: the table ntt_inverse_scale names
  pow_table coset_fwd;           // g^i (forward coset)
  pow_table coset_inv_scaled;    // low table n⁻¹·g^(−i), high table g^(−i·2^14) (inverse coset)
  bool psi;                      // the coset shift is ntt_psi(log_n)
  const fr_t* psi_inv_scaled;    // n⁻¹·ω_{2^14}^(−i), i < 2^14: the inverse's row factor on the ψ coset
  fr_t inv_scale = fr_t::one();  // an inverse without coset scales by inv_scale·n⁻¹ (omega_inv_scaled's
                                 // table then carries it too): 1 but in the quotient (ntt_extra)
};

// ntt_psi_mode_of is the place of a ψ-coset transform's row factor: the
// first DIF pass's input (forward DIF, inverse DIT) or the last's output.
inline ntt_psi_mode ntt_psi_mode_of(bool inverse, bool in_bitrev) { return inverse == in_bitrev ? PSI_PRE : PSI_POST; }

// ntt_diag_scales_inverse says whether an inverse transform, without coset or
// on the coset ψ, applies n⁻¹ through a twiddle diagonal's table
// (ntt_inverse_scale: no product of its own) instead of a product on the last
// store: when the whole array is a pass's sub-transform with a diagonal larger
// than the one-lookup table.
inline bool ntt_diag_scales_inverse(uint32_t log_n, bool inverse, bool coset, bool psi) {
  return inverse && (!coset || psi) && log_n > (uint32_t)DIAG_BITS && log_n > (uint32_t)PASS_BITS;
}

// ntt_psi_ring says whether a transform of 2^log_n on the coset ψ takes the
// row factor inside a pass's DFTs (ntt_ring): it has two passes or more, and
// an inverse's n⁻¹ rides on a diagonal (the row factor carried it before).
inline bool ntt_psi_ring(uint32_t log_n, bool inverse) {
  return log_n > (uint32_t)PASS_BITS && (!inverse || ntt_diag_scales_inverse(log_n, true, true, true));
}

// ntt_scale_table names the table that carries n⁻¹ in an inverse transform
// for which ntt_diag_scales_inverse holds: the low power table n⁻¹·ω^(−i),
// i < 2^14, of a two-lookup diagonal (the whole array's, or the second pass's
// in builds with a small DIAG_BITS), or, when T.full serves the whole array's
// diagonal, the one-lookup table of the second pass's: n⁻¹·ω_{2^DIAG_BITS}^(−x)
// (SCALE_DIAG), or on the coset ψ with the output's row factor (PSI_POST,
// whose diagonals are all ω_{2M}'s) n⁻¹·ω_{2^(DIAG_BITS+1)}^(−x) (SCALE_DIAG2).
enum ntt_scale_table : uint32_t { SCALE_POW_LO, SCALE_DIAG, SCALE_DIAG2 };
inline ntt_scale_table ntt_inverse_scale(const ntt_twiddles& T, uint32_t log_n, ntt_psi_mode psi) {
  if (!ntt_full_serves(T, log_n) || log_n - pass_bits(log_n, 0) > (uint32_t)DIAG_BITS) return SCALE_POW_LO;
  return psi == PSI_POST ? SCALE_DIAG2 : SCALE_DIAG;
}

// psi_row_factor is the row factor of a transform of 2^log_n on the coset ψ
// in the given mode (PSI_PRE: the first DIF pass's row, whose sub-problem is
// the array; PSI_POST: the last DIF pass's output row, whose sub-problem is
// its DFT), from tab (ω_{2^14}'s powers, or the inverse's scaled by n⁻¹).
inline ntt_factor psi_row_factor(const fr_t* tab, uint32_t log_n, ntt_psi_mode psi) {
  const uint32_t k = pass_bits(log_n, psi == PSI_PRE ? 0 : pass_count(log_n) - 1);
  return row_factor(tab, psi == PSI_PRE ? log_n : k, k, psi == PSI_POST);
}

// plan_ntt plans the transform of cuzk_ntt_cfg_t's flags with the tables v.
inline ntt_plan plan_ntt(uint32_t log_n, bool inverse, bool coset, bool in_bitrev, bool out_bitrev,
                         const ntt_tables_view& v) {
  const bool dit = in_bitrev;
  const ntt_twiddles& T = inverse ? v.omega_inv : v.omega;
  const ntt_factor none{};
  if (coset && v.psi) {
    // The row factor is the first DIF pass's (PSI_PRE) or the last's (PSI_POST): inside that
    // pass's DFTs where ntt_psi_ring holds (an inverse's n⁻¹ then on a diagonal's table), else on
    // the first launched pass's load in forward DIF and DIT, on the last launched pass's store
    // in inverse.
    const ntt_psi_mode psi = ntt_psi_mode_of(inverse, dit);
    if (ntt_psi_ring(log_n, inverse))
      return make_ntt_plan(log_n, dit, out_bitrev, T, none, none, inverse ? v.omega_inv_scaled : nullptr, psi,
                           psi == PSI_PRE ? RING_TREE : RING_ODD);
    const ntt_factor row = psi_row_factor(inverse ? v.psi_inv_scaled : T.pow.hi, log_n, psi);
    return make_ntt_plan(log_n, dit, out_bitrev, T, inverse ? none : row, inverse ? row : none, nullptr, psi);
  }
  // j's order: the input's on the first load, the passes' output order
  // (bit-reversed after DIF) on the last store.
  ntt_factor first{}, last{};
  const fr_t* scaled = nullptr;
  if (!inverse && coset) first = index_factor(v.coset_fwd, dit);
  if (inverse && coset)
    last = index_factor(v.coset_inv_scaled, !dit);
  else if (ntt_diag_scales_inverse(log_n, inverse, coset, false))
    scaled = v.omega_inv_scaled;
  else if (inverse)
    last = const_factor(ntt_size_inverse(log_n) * (coset ? fr_t::one() : v.inv_scale));
  return make_ntt_plan(log_n, dit, out_bitrev, T, first, last, scaled, PSI_NONE);
}

// ntt_kernel_t names one pass kernel's template arguments (ntt_pass<DIT, ARRAY, RING>).
template <bool DIT, uint32_t ARRAY, uint32_t RING>
struct ntt_kernel_t {
  static constexpr bool dit = DIT;
  static constexpr uint32_t array = ARRAY;
  static constexpr uint32_t ring = RING;
  // runs says whether this is the kernel that runs l.
  static bool runs(const ntt_launch& l) {
    const uint32_t k = l.args.on_store.kind;
    return dit == l.dit && array == (factor_reads_array(k) ? k : (uint32_t)FACTOR_NONE) && ring == l.ring;
  }
};

// ntt_each_kernel calls f(ntt_kernel_t<…>{}) for every pass kernel a plan may launch, so that the
// kernels are listed once: ntt.cu sets their shared-memory limits and launches the one that
// runs a pass from it, csrc/emu runs that one's block function.
template <class F>
void ntt_each_kernel(F&& f) {
  f(ntt_kernel_t<false, FACTOR_NONE, RING_NONE>{});
  f(ntt_kernel_t<true, FACTOR_NONE, RING_NONE>{});
  f(ntt_kernel_t<true, FACTOR_ARRAY, RING_NONE>{});
  f(ntt_kernel_t<false, FACTOR_NONE, RING_ODD>{});
  f(ntt_kernel_t<false, FACTOR_NONE, RING_TREE>{});
  f(ntt_kernel_t<true, FACTOR_NONE, RING_ODD>{});
  f(ntt_kernel_t<true, FACTOR_NONE, RING_TREE>{});
  f(ntt_kernel_t<false, FACTOR_MINUS_ARRAY, RING_ODD>{});
}

// ntt_set_store_array makes P's last pass apply the array factor kind (FACTOR_ARRAY or
// FACTOR_MINUS_ARRAY) with array arr as it stores each output: where that pass's store has no
// factor of its own, no bit reversal follows and a kernel (ntt_each_kernel) runs such a pass.
// Returns false otherwise.
inline bool ntt_set_store_array(ntt_plan& P, uint32_t kind, const fr_t* arr) {
  ntt_launch& l = P.pass[P.np - 1];
  if (l.args.on_store.kind != FACTOR_NONE || P.bitrev_after) return false;
  ntt_launch with = l;
  with.args.on_store.kind = kind;
  with.args.on_store.lo = arr;
  bool kernel = false;
  ntt_each_kernel([&](auto k) { kernel = kernel || decltype(k)::runs(with); });
  if (kernel) l = with;
  return kernel;
}

// ntt_set_times makes P's last pass multiply each output by times[i] as it stores it
// (FACTOR_ARRAY, ntt_set_store_array): a plain DIT pass (bit-reversed to natural order) is the
// one such kernel.
inline bool ntt_set_times(ntt_plan& P, const fr_t* times) {
  return ntt_set_store_array(P, FACTOR_ARRAY, times);
}

// ntt_set_minus makes P's last pass subtract minus[i] from each output as it stores it
// (FACTOR_MINUS_ARRAY, ntt_set_store_array): the inverse transform on the coset ω_{2n} from
// natural order, whose last pass is a RING_ODD DIF one, is the one such kernel.
inline bool ntt_set_minus(ntt_plan& P, const fr_t* minus) {
  return ntt_set_store_array(P, FACTOR_MINUS_ARRAY, minus);
}

// NTT_CHAIN_MAX is the longest chain ntt_run_chain runs (the quotient's a: three transforms).
constexpr uint32_t NTT_CHAIN_MAX = 3;

}  // namespace cuzk
