// Montgomery arithmetic over the BLS12-381 scalar field Fr (255 bits) and
// base field Fp (381 bits), and the quadratic extension Fp2 = Fp[u]/(u²+1).
//
// Elements are little-endian arrays of 32-bit limbs in Montgomery form with
// R = 2^(32·N); the byte layout equals gnark-crypto v0.22.0's fr.Element
// ([4]uint64, R = 2^256) and fp.Element ([6]uint64, R = 2^384), so arrays of
// gnark elements are used on the device without conversion.
//
// Constants: moduli and Montgomery forms of 1, the 2^32-th root of unity and
// 7 were printed from gnark-crypto v0.22.0 (fr.Modulus, fp.Modulus,
// Element.SetOne, fr/generator.go rootOfUnity, fft.GeneratorFullMultiplicativeGroup).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#else
#define CUZK_HD inline
#endif

namespace cuzk {

#if defined(__CUDACC__)
// ptx wraps the PTX integer instructions that read or write the carry flag.
// The flag lives from one asm volatile statement to the next; nothing the
// compiler emits between them touches it (the convention NVIDIA's CGBN uses).
namespace ptx {
__device__ __forceinline__ void add_cc(uint32_t& d, uint32_t a, uint32_t b) {
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void addc_cc(uint32_t& d, uint32_t a, uint32_t b) {
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void addc(uint32_t& d, uint32_t a, uint32_t b) {
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void sub_cc(uint32_t& d, uint32_t a, uint32_t b) {
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void subc_cc(uint32_t& d, uint32_t a, uint32_t b) {
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
__device__ __forceinline__ void subc(uint32_t& d, uint32_t a, uint32_t b) {
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
}
// mad*: d = lo or hi half of a·b, plus c (plus the carry flag for madc).
__device__ __forceinline__ void mad_lo_cc(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) {
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
}
__device__ __forceinline__ void madc_lo_cc(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) {
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
}
__device__ __forceinline__ void madc_hi_cc(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) {
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
}
__device__ __forceinline__ void madc_hi(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) {
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
}
}  // namespace ptx
#elif defined(CUZK_PTX_EMU)
// The same instructions emulated on the host, for checking the carry-chain
// arithmetic without a GPU (csrc/emu/field_check.cpp): the carry flag is a
// thread-local word, and every carry that an instruction without .cc would
// drop is counted in dropped_carries (the bounds in mul_device say there
// are none).
namespace ptx {
inline thread_local uint32_t cf = 0;
inline thread_local uint64_t dropped_carries = 0;
inline void keep(uint32_t& d, uint64_t r) { d = (uint32_t)r; cf = (uint32_t)(r >> 32) & 1; }
inline void drop(uint32_t& d, uint64_t r) { d = (uint32_t)r; dropped_carries += (r >> 32) != 0; }
inline uint64_t lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
inline uint64_t hi(uint32_t a, uint32_t b) { return ((uint64_t)a * b) >> 32; }
inline void add_cc(uint32_t& d, uint32_t a, uint32_t b) { keep(d, (uint64_t)a + b); }
inline void addc_cc(uint32_t& d, uint32_t a, uint32_t b) { keep(d, (uint64_t)a + b + cf); }
inline void addc(uint32_t& d, uint32_t a, uint32_t b) { drop(d, (uint64_t)a + b + cf); }
inline void sub_cc(uint32_t& d, uint32_t a, uint32_t b) { keep(d, (uint64_t)a - b); }
inline void subc_cc(uint32_t& d, uint32_t a, uint32_t b) { keep(d, (uint64_t)a - b - cf); }
inline void subc(uint32_t& d, uint32_t a, uint32_t b) { d = (uint32_t)((uint64_t)a - b - cf); }
inline void mad_lo_cc(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) { keep(d, lo(a, b) + c); }
inline void madc_lo_cc(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) { keep(d, lo(a, b) + c + cf); }
inline void madc_hi_cc(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) { keep(d, hi(a, b) + c + cf); }
inline void madc_hi(uint32_t& d, uint32_t a, uint32_t b, uint32_t c) { drop(d, hi(a, b) + c + cf); }
}  // namespace ptx
inline uint32_t __umulhi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
#endif


struct fr_params {
  static constexpr int N = 8;
  static constexpr bool LAZY = false;
  static CUZK_HD constexpr uint32_t mod(int i) {
    constexpr uint32_t m[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                               0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    return m[i];
  }
  static CUZK_HD constexpr uint32_t one(int i) {
    constexpr uint32_t m[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                               0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
    return m[i];
  }
};

struct fp_params {
  static constexpr int N = 12;
  static constexpr bool LAZY = false;
  static CUZK_HD constexpr uint32_t mod(int i) {
    constexpr uint32_t m[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return m[i];
  }
  static CUZK_HD constexpr uint32_t one(int i) {
    constexpr uint32_t m[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
    return m[i];
  }
};

// fp_lazy_params is Fp whose device values are kept in [0, 2p) (mont_t's LAZY form).
struct fp_lazy_params : fp_params {
  static constexpr bool LAZY = true;
};

// neg_inv returns -m⁻¹ mod 2^(bits of W) for odd m (Newton iteration: each step doubles the
// correct low bits, from 1; six reach 64).
template <class W>
CUZK_HD constexpr W neg_inv(W m) {
  W x = 1;
  for (int i = 0; i < 6; i++) x *= W(2) - m * x;
  return W(0) - x;
}

// mont_t is an element of the prime field described by P, in Montgomery form.
//
// P::LAZY selects the redundant form on the device: an element is any representative below 2p.
// Products skip their final subtraction (reduce_wide returns below 2p for any T < p·R, and a
// product of two values below 2p, or the sum of two such products, is below 8p² < p·R since
// 8p < R), sums and differences reduce by 2p instead of p, is_zero and == compare modulo p,
// and store writes the representative below p. Memory therefore only ever holds values below
// p, as the host's portable operations (which LAZY does not change) and the other kernels expect.
template <class P>
struct mont_t {
  static constexpr int N = P::N;
  static constexpr bool LAZY = P::LAZY;
  static constexpr uint32_t M0 = neg_inv<uint32_t>(P::mod(0));
  static_assert(!LAZY || P::mod(N - 1) < (1u << 29), "the redundant form needs 8p < R");
  uint32_t l[N];

  // modulus<TWO_P>(i) is limb i of p, or of 2p when TWO_P (2p < 2^(32N) for both fields).
  template <bool TWO_P>
  static CUZK_HD constexpr uint32_t modulus(int i) {
    if constexpr (TWO_P)
      return (P::mod(i) << 1) | (i > 0 ? P::mod(i - 1) >> 31 : 0);
    else
      return P::mod(i);
  }

  // load reads the element at p with N/4 16-byte loads; p must be 16-byte aligned (device
  // arrays are: cudaMalloc aligns to 256 bytes and an element takes 32 or 48). Dereferencing p
  // instead reads a 32-bit word at a time, one load instruction per limb. Host code copies the
  // element.
  static CUZK_HD mont_t load(const mont_t* p) {
#if defined(__CUDA_ARCH__)
    return load_words<false>(p);
#else
    return *p;
#endif
  }
  // load_ro is load through the read-only data cache (__ldg), for arrays that no thread of the
  // kernel writes.
  static CUZK_HD mont_t load_ro(const mont_t* p) {
#if defined(__CUDA_ARCH__)
    return load_words<true>(p);
#else
    return *p;
#endif
  }
#if defined(__CUDA_ARCH__)
  // load_words reads the element at p as N/4 16-byte words, through the read-only data cache
  // with RO (load, load_ro).
  template <bool RO>
  static __device__ __forceinline__ mont_t load_words(const mont_t* p) {
    static_assert(N % 4 == 0, "whole 16-byte words");
    const uint4* q = reinterpret_cast<const uint4*>(p);
    mont_t r;
#pragma unroll
    for (int i = 0; i < N / 4; i++) {
      const uint4 w = RO ? __ldg(q + i) : q[i];
      r.l[4 * i] = w.x, r.l[4 * i + 1] = w.y, r.l[4 * i + 2] = w.z, r.l[4 * i + 3] = w.w;
    }
    return r;
  }
#endif
  // store writes v at p with N/4 16-byte stores; p must be 16-byte aligned. A LAZY value is
  // written as its representative below p.
  static CUZK_HD void store(mont_t* p, const mont_t& v) {
    mont_t c = v;
#if defined(__CUDA_ARCH__)
    if constexpr (LAZY) reduce_once_device(c.l);
#else
    if constexpr (LAZY) reduce_once(c.l);
#endif
#if defined(__CUDACC__)
    uint4* q = reinterpret_cast<uint4*>(p);
#pragma unroll
    for (int i = 0; i < N / 4; i++) q[i] = make_uint4(c.l[4 * i], c.l[4 * i + 1], c.l[4 * i + 2], c.l[4 * i + 3]);
#else
    *p = c;
#endif
  }

  static CUZK_HD mont_t zero() {
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = 0;
    return r;
  }
  static CUZK_HD mont_t one() {
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = P::one(i);
    return r;
  }
  // raw_one is the integer 1 (not Montgomery); x·raw_one = x/R converts out of Montgomery form.
  static CUZK_HD mont_t raw_one() {
    mont_t r = zero();
    r.l[0] = 1;
    return r;
  }
  // is_zero tests x ≡ 0: x = 0, or, LAZY, x = p.
  CUZK_HD bool is_zero() const {
    uint32_t acc = 0, accp = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= l[i], accp |= l[i] ^ P::mod(i);
    return acc == 0 || (LAZY && accp == 0);
  }
  CUZK_HD bool operator==(const mont_t& b) const {
    if constexpr (LAZY) return (*this - b).is_zero();
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= l[i] ^ b.l[i];
    return acc == 0;
  }
  CUZK_HD bool operator!=(const mont_t& b) const { return !(*this == b); }

  // reduce_once sets x = x − p when x ≥ p (x < 2p on entry).
  static CUZK_HD void reduce_once(uint32_t* x) {
    uint32_t s[N];
    uint64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)x[i] - P::mod(i) - br;
      s[i] = (uint32_t)d;
      br = (d >> 32) & 1;
    }
    if (!br) {
#pragma unroll
      for (int i = 0; i < N; i++) x[i] = s[i];
    }
  }

  // operator+ and operator− are a ± b mod p for a, b < p. On the device they are carry chains
  // (add_device, sub_device); on the host the portable loops below.
  friend CUZK_HD mont_t operator+(const mont_t& a, const mont_t& b) {
#if defined(__CUDA_ARCH__)
    return add_device(a, b);
#else
    mont_t r;
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      c = (uint64_t)a.l[i] + b.l[i] + (c >> 32);
      r.l[i] = (uint32_t)c;
    }
    reduce_once(r.l);  // p < 2^(32N-1): no carry out
    return r;
#endif
  }
  friend CUZK_HD mont_t operator-(const mont_t& a, const mont_t& b) {
#if defined(__CUDA_ARCH__)
    return sub_device(a, b);
#else
    mont_t r;
    uint64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)a.l[i] - b.l[i] - br;
      r.l[i] = (uint32_t)d;
      br = (d >> 32) & 1;
    }
    if (br) {
      uint64_t c = 0;
#pragma unroll
      for (int i = 0; i < N; i++) {
        c = (uint64_t)r.l[i] + P::mod(i) + (c >> 32);
        r.l[i] = (uint32_t)c;
      }
    }
    return r;
#endif
  }
  // neg returns −x: p − x, or on the device for LAZY 2p − x (0 for 0).
  CUZK_HD mont_t neg() const {
#if defined(__CUDA_ARCH__)
    if constexpr (LAZY) return sub_device(zero(), *this);
#endif
    if (is_zero()) return *this;
    mont_t r;
    uint64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)P::mod(i) - l[i] - br;
      r.l[i] = (uint32_t)d;
      br = (d >> 32) & 1;
    }
    return r;
  }
  CUZK_HD mont_t dbl() const { return *this + *this; }

  // operator* is the Montgomery product a·b·R⁻¹ mod p for a, b < p. On the
  // device it is the even/odd carry-chain product (mul_device); on the host the
  // portable CIOS loop (mul_portable). For Fp on the device it is an
  // out-of-line call: inlining every 12-limb product into the point formulas
  // makes code too large to compile or cache.
  friend CUZK_HD mont_t operator*(const mont_t& a, const mont_t& b) {
#if defined(__CUDA_ARCH__)
    if (N > 8) return mul_outlined(a, b);
    return mul_device(a, b);
#else
    return mul_portable(a, b);
#endif
  }
#if defined(__CUDACC__)
  static __device__ __noinline__ mont_t mul_outlined(mont_t a, mont_t b) { return mul_device(a, b); }
#endif

  // mul_sum returns a·b + c·d (Montgomery products, operands < p). On the device, for Fp, the
  // two products are summed before one reduction (mul_sum_device), out of line like operator*.
  static CUZK_HD mont_t mul_sum(const mont_t& a, const mont_t& b, const mont_t& c, const mont_t& d) {
#if defined(__CUDA_ARCH__)
    if constexpr (N >= 12) return mul_sum_outlined(a, b, c, d);
#endif
    return a * b + c * d;
  }
#if defined(__CUDACC__)
  static __device__ __noinline__ mont_t mul_sum_outlined(mont_t a, mont_t b, mont_t c, mont_t d) {
    return mul_sum_device(a, b, c, d);
  }
#endif

  // mul_portable is CIOS over N/2 64-bit limbs (limb pairs) with 128-bit products: a quarter
  // of the multiplications of 32-bit limbs, for the host's few products (an MSM's window
  // combination: ≈ 1,400 of them for G1). For a, b < p the CIOS value is below p + p²/R < 2p,
  // and reduce_once leaves the canonical value.
  static CUZK_HD mont_t mul_portable(const mont_t& a, const mont_t& b) {
    static_assert(N % 2 == 0, "64-bit limbs pair the 32-bit ones");
    constexpr int K = N / 2;
    constexpr uint64_t m0 = neg_inv<uint64_t>(P::mod(0) | (uint64_t)P::mod(1) << 32);
    using u128 = unsigned __int128;
    uint64_t x[K], y[K], pm[K], t[K + 2];
#pragma unroll
    for (int j = 0; j < K; j++) {
      x[j] = a.l[2 * j] | (uint64_t)a.l[2 * j + 1] << 32;
      y[j] = b.l[2 * j] | (uint64_t)b.l[2 * j + 1] << 32;
      pm[j] = P::mod(2 * j) | (uint64_t)P::mod(2 * j + 1) << 32;
    }
#pragma unroll
    for (int j = 0; j < K + 2; j++) t[j] = 0;
#pragma unroll
    for (int i = 0; i < K; i++) {
      u128 c = 0;
#pragma unroll
      for (int j = 0; j < K; j++) {
        c = (u128)x[j] * y[i] + t[j] + (uint64_t)(c >> 64);
        t[j] = (uint64_t)c;
      }
      u128 top = (u128)t[K] + (uint64_t)(c >> 64);
      t[K] = (uint64_t)top;
      t[K + 1] = (uint64_t)(top >> 64);
      const uint64_t m = t[0] * m0;
      c = (u128)m * pm[0] + t[0];
#pragma unroll
      for (int j = 1; j < K; j++) {
        c = (u128)m * pm[j] + t[j] + (uint64_t)(c >> 64);
        t[j - 1] = (uint64_t)c;
      }
      top = (u128)t[K] + (uint64_t)(c >> 64);
      t[K - 1] = (uint64_t)top;
      t[K] = t[K + 1] + (uint64_t)(top >> 64);
    }
    mont_t r;
#pragma unroll
    for (int j = 0; j < K; j++) {
      r.l[2 * j] = (uint32_t)t[j];
      r.l[2 * j + 1] = (uint32_t)(t[j] >> 32);
    }
    reduce_once(r.l);
    return r;
  }

#if defined(__CUDACC__) || defined(CUZK_PTX_EMU)
  // add_device is a + b as one carry chain of N additions, then reduce_once_device (a chain of
  // N subtractions of p, or 2p when LAZY, the final borrow as a mask, N selects): ≈ 3N + 1
  // instructions, where the portable loop, whose carries the compiler moves through registers,
  // takes ≈ 6N.
  static __device__ __forceinline__ mont_t add_device(const mont_t& a, const mont_t& b) {
    mont_t s = sum_device(a, b);
    reduce_once_device<LAZY>(s.l);
    return s;
  }

  // sum_device is a + b as one carry chain, not reduced: below 2p, or 4p when LAZY, both below
  // 2^(32N) (no carry out).
  static __device__ __forceinline__ mont_t sum_device(const mont_t& a, const mont_t& b) {
    mont_t s;
    ptx::add_cc(s.l[0], a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) ptx::addc_cc(s.l[i], a.l[i], b.l[i]);
    ptx::addc(s.l[N - 1], a.l[N - 1], b.l[N - 1]);
    return s;
  }

  // add_mod_masked adds p's limbs (2p's when TWO_P) masked by mask (0 or all ones) to the N
  // words at x as one carry chain; the carry out is dropped (it cancels the borrow that set mask).
  template <bool TWO_P = false>
  static __device__ __forceinline__ void add_mod_masked(uint32_t* x, uint32_t mask) {
    ptx::add_cc(x[0], x[0], modulus<TWO_P>(0) & mask);
#pragma unroll
    for (int i = 1; i < N; i++) ptx::addc_cc(x[i], x[i], modulus<TWO_P>(i) & mask);
  }

  // sub_device is a − b, plus p (2p when LAZY) when that borrows: a chain of N subtractions, the
  // borrow as a mask, a chain of N additions of the modulus's limbs masked (≈ 3N + 1 instructions).
  static __device__ __forceinline__ mont_t sub_device(const mont_t& a, const mont_t& b) {
    mont_t d;
    ptx::sub_cc(d.l[0], a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < N; i++) ptx::subc_cc(d.l[i], a.l[i], b.l[i]);
    uint32_t borrow;
    ptx::subc(borrow, 0, 0);  // all ones when a < b
    add_mod_masked<LAZY>(d.l, borrow);
    return d;
  }

  // mul_device is the device product: for Fp (N = 12) a Karatsuba product and a separate
  // reduction (wide_product, reduce_wide: fewer multiplies, and the separate reduction lets
  // mul_sum share one), for Fr the interleaved rows (mul_interleaved), whose reduction rows need
  // no multiplier for Fr's two low limbs.
  static __device__ __forceinline__ mont_t mul_device(const mont_t& a, const mont_t& b) {
    if constexpr (N >= 12) {
      uint32_t T[2 * N];
      wide_product(a, b, T);
      return reduce_wide(T);
    } else {
      return mul_interleaved(a, b);
    }
  }

  // mul_interleaved is CIOS with the limb products split by the parity of a's
  // limb index (the even/odd scheme of Emmart, Luo and Weems, "Optimizing
  // modular multiplication for NVIDIA's Maxwell GPUs", ARITH 2016), so that
  // every row is two carry chains of alternating mad.lo/mad.hi whose halves
  // never land on the same word: ≈ 4N² + O(N) instructions instead of ≈ 7N².
  //
  // The running value is V = Σ E[k]·2^(32k) + Σ O[k]·2^(32(k+1)), k < N: E holds
  // the products of even limbs (positions 0..N−1), O those of odd limbs
  // (positions 1..N). With a, b < p and 2p < 2^(32N), V < 2p·2^32 throughout,
  // so no chain carries out of position N. The division by 2^32 after each
  // reduction is a renaming: the new E is O plus the old E[1] (added into
  // position 0, its carry entering the next odd chain), the new O is the old
  // E shifted down two words as the odd products are added into it (row_next).
  // Verified against Python big integers op by op before use.
  static __device__ __forceinline__ mont_t mul_interleaved(const mont_t& a, const mont_t& b) {
    uint32_t x[N], y[N];
    row_first(x, y, a.l, b.l[0]);
    row_reduce(x, y);
#pragma unroll
    for (int i = 1; i < N; i += 2) {  // N is even: rows alternate (E, O) = (x, y), (y, x)
      row_next(x, y, a.l, b.l[i]);
      row_reduce(y, x);
      if (i + 1 < N) {
        row_next(y, x, a.l, b.l[i + 1]);
        row_reduce(x, y);
      }
    }
    // After the last (odd) row E = y, O = x: the result is O + E/2^32 < 2p.
    mont_t r;
    rows_value(r.l, x, y);
    reduce_once_device(r.l);
    return r;
  }

  // rows_value sets r = O + E/2^32 (N words): the value of the rows' (E, O) form once
  // position 0 is cleared.
  static __device__ __forceinline__ void rows_value(uint32_t* r, const uint32_t* O, const uint32_t* E) {
    ptx::add_cc(r[0], O[0], E[1]);
#pragma unroll
    for (int k = 1; k < N - 1; k++) ptx::addc_cc(r[k], O[k], E[k + 1]);
    ptx::addc(r[N - 1], O[N - 1], 0);
  }

  // ---- Karatsuba product, then a separate reduction (Fp) ----
  //
  // The interleaved product spends N² limb products on a·b and N² on the reduction. Here a·b
  // takes one level of Karatsuba on halves of H = N/2 limbs, three H×H products instead of four
  // (3N²/4), the cost moved to additions, which run on another pipe than the multiplies; the
  // reduction stays word by word (N² products). For Fp (N = 12): 108 + 144 limb-product pairs
  // instead of 144 + 144.
  static constexpr int H = N / 2;
  static_assert(N % 4 == 0, "halves of an even number of limbs");

  // half_product sets z = a·b for H-limb a, b (z: 2H words): mul_interleaved's rows without the
  // reduction. After each row the value's position 0 is complete: it is emitted instead of
  // cleared, and row_next's division by 2^32 drops it. The running value stays below a·2^32 <
  // 2^(32(H+1)), so no chain carries out of position H.
  static __device__ __forceinline__ void half_product(const uint32_t* a, const uint32_t* b, uint32_t* z) {
    uint32_t x[H], y[H];
    row_first<H>(x, y, a, b[0]);
    z[0] = x[0];
#pragma unroll
    for (int i = 1; i < H; i += 2) {  // H is even: rows alternate (E, O) = (x, y), (y, x)
      row_next<H>(x, y, a, b[i]);
      z[i] = y[0];
      if (i + 1 < H) {
        row_next<H>(y, x, a, b[i + 1]);
        z[i + 1] = x[0];
      }
    }
    // After the last (odd) row E = y, O = x: positions 1 … H are y[k] + x[k − 1].
    ptx::add_cc(z[H], y[1], x[0]);
#pragma unroll
    for (int k = 2; k < H; k++) ptx::addc_cc(z[H + k - 1], y[k], x[k - 1]);
    ptx::addc(z[2 * H - 1], x[H - 1], 0);
  }

  // wide_product sets T = a·b (2N words) by Karatsuba on halves: with X = 2^(32H),
  // a = a0 + a1·X, b = b0 + b1·X, sa = a0 + a1 = sa' + ca·X (ca the carry bit, likewise sb):
  // T = z0 + (zm − z0 − z2)·X + z2·X², z0 = a0·b0, z2 = a1·b1,
  // zm = sa·sb = sa'·sb' + (ca·sb' + cb·sa')·X + ca·cb·X² (2H + 1 words; zm − z0 − z2 =
  // a0·b1 + a1·b0 ≥ 0).
  static __device__ __forceinline__ void wide_product(const mont_t& a, const mont_t& b, uint32_t* T) {
    uint32_t sa[H], sb[H], ca, cb, zm[2 * H + 1];
    ptx::add_cc(sa[0], a.l[0], a.l[H]);
#pragma unroll
    for (int k = 1; k < H; k++) ptx::addc_cc(sa[k], a.l[k], a.l[H + k]);
    ptx::addc(ca, 0, 0);
    ptx::add_cc(sb[0], b.l[0], b.l[H]);
#pragma unroll
    for (int k = 1; k < H; k++) ptx::addc_cc(sb[k], b.l[k], b.l[H + k]);
    ptx::addc(cb, 0, 0);
    half_product(a.l, b.l, T);                  // z0
    half_product(a.l + H, b.l + H, T + 2 * H);  // z2
    half_product(sa, sb, zm);                   // sa'·sb'
    const uint32_t mb = 0u - ca, ma = 0u - cb;  // all ones when the carry bit is set
    ptx::add_cc(zm[H], zm[H], sb[0] & mb);
#pragma unroll
    for (int k = 1; k < H; k++) ptx::addc_cc(zm[H + k], zm[H + k], sb[k] & mb);
    ptx::addc(zm[2 * H], 0, 0);
    ptx::add_cc(zm[H], zm[H], sa[0] & ma);
#pragma unroll
    for (int k = 1; k < H; k++) ptx::addc_cc(zm[H + k], zm[H + k], sa[k] & ma);
    ptx::addc(zm[2 * H], zm[2 * H], ca & cb);
    ptx::sub_cc(zm[0], zm[0], T[0]);  // − z0
#pragma unroll
    for (int k = 1; k < 2 * H; k++) ptx::subc_cc(zm[k], zm[k], T[k]);
    ptx::subc(zm[2 * H], zm[2 * H], 0);
    ptx::sub_cc(zm[0], zm[0], T[2 * H]);  // − z2
#pragma unroll
    for (int k = 1; k < 2 * H; k++) ptx::subc_cc(zm[k], zm[k], T[2 * H + k]);
    ptx::subc(zm[2 * H], zm[2 * H], 0);
    ptx::add_cc(T[H], T[H], zm[0]);  // + (zm − z0 − z2)·X
#pragma unroll
    for (int k = 1; k <= 2 * H; k++) ptx::addc_cc(T[H + k], T[H + k], zm[k]);
#pragma unroll
    for (int k = 3 * H + 1; k < 4 * H - 1; k++) ptx::addc_cc(T[k], T[k], 0);
    ptx::addc(T[4 * H - 1], T[4 * H - 1], 0);
  }

  // mul_sum_device returns (a·b + c·d)·R⁻¹ mod p: the wide products' sum is below 2p² < p·R,
  // which reduce_wide accepts, so one reduction serves both.
  static __device__ __forceinline__ mont_t mul_sum_device(const mont_t& a, const mont_t& b, const mont_t& c,
                                                          const mont_t& d) {
    uint32_t T[2 * N], U[2 * N];
    wide_product(a, b, T);
    wide_product(c, d, U);
    ptx::add_cc(T[0], T[0], U[0]);
#pragma unroll
    for (int k = 1; k < 2 * N - 1; k++) ptx::addc_cc(T[k], T[k], U[k]);
    ptx::addc(T[2 * N - 1], T[2 * N - 1], U[2 * N - 1]);
    return reduce_wide(T);
  }

  // reduce_wide returns T·R⁻¹ mod p for T < p·R (2N words; a product of two elements, or the
  // sum of two). m = T·(−p⁻¹) mod R depends only on T mod R, so the rows reduce V = T mod R
  // alone: U = (V + m·p)/R ≤ p, then U + ⌊T/R⌋ < 2p (⌊T/R⌋ < p), reduced once unless LAZY,
  // whose values may stay below 2p. The rows are
  // row_reduce's chains on V in the (E, O) form; the division by 2^32 between rows renames the
  // arrays (new E = O, new O = E two words down) and adds E[1] into position 0, whose carry
  // enters the next row's odd chain (row_reduce<true>).
  static __device__ __forceinline__ mont_t reduce_wide(const uint32_t* T) {
    uint32_t E[N], O[N];
#pragma unroll
    for (int k = 0; k < N; k++) E[k] = T[k], O[k] = 0;
    row_reduce(E, O);
#pragma unroll
    for (int i = 1; i < N; i++) {
      uint32_t e[N], o[N];
      ptx::add_cc(e[0], O[0], E[1]);
#pragma unroll
      for (int k = 1; k < N; k++) e[k] = O[k];
#pragma unroll
      for (int k = 0; k < N - 2; k++) o[k] = E[k + 2];
      o[N - 2] = o[N - 1] = 0;
      row_reduce<true>(e, o);
#pragma unroll
      for (int k = 0; k < N; k++) E[k] = e[k], O[k] = o[k];
    }
    mont_t r;  // O + E/2^32 + ⌊T/R⌋
    rows_value(r.l, O, E);
    ptx::add_cc(r.l[0], r.l[0], T[N]);
#pragma unroll
    for (int k = 1; k < N - 1; k++) ptx::addc_cc(r.l[k], r.l[k], T[N + k]);
    ptx::addc(r.l[N - 1], r.l[N - 1], T[2 * N - 1]);
    if constexpr (!LAZY) reduce_once_device(r.l);
    return r;
  }

  // row_first sets E = a_even·b0 and O = a_odd·b0 (L limbs): products that do not overlap.
  template <int L = N>
  static __device__ __forceinline__ void row_first(uint32_t* E, uint32_t* O, const uint32_t* a, uint32_t b0) {
#pragma unroll
    for (int j = 0; j < L; j += 2) {
      E[j] = a[j] * b0;
      E[j + 1] = __umulhi(a[j], b0);
      O[j] = a[j + 1] * b0;
      O[j + 1] = __umulhi(a[j + 1], b0);
    }
  }

  // row_next divides V by 2^32 and adds a·bi (L limbs). On return the roles swap: the
  // array passed as O is the new E, the array passed as E the new O.
  template <int L = N>
  static __device__ __forceinline__ void row_next(uint32_t* E, uint32_t* O, const uint32_t* a, uint32_t bi) {
    ptx::add_cc(O[0], O[0], E[1]);  // new position 0; carry to position 1
#pragma unroll
    for (int j = 0; j < L - 2; j += 2) {  // new O[j] = a_(j+1)·bi + old E[j+2]
      ptx::madc_lo_cc(E[j], a[j + 1], bi, E[j + 2]);
      ptx::madc_hi_cc(E[j + 1], a[j + 1], bi, E[j + 3]);
    }
    ptx::madc_lo_cc(E[L - 2], a[L - 1], bi, 0);
    ptx::madc_hi(E[L - 1], a[L - 1], bi, 0);
    ptx::mad_lo_cc(O[0], a[0], bi, O[0]);  // new E += a_even·bi
    ptx::madc_hi_cc(O[1], a[0], bi, O[1]);
#pragma unroll
    for (int j = 2; j < L; j += 2) {
      ptx::madc_lo_cc(O[j], a[j], bi, O[j]);
      ptx::madc_hi_cc(O[j + 1], a[j], bi, O[j + 1]);
    }
    ptx::addc(E[L - 1], E[L - 1], 0);  // carry into position L (new O's top)
  }

  // row_reduce adds m·p with m = E[0]·(−p⁻¹) mod 2^32, which clears position 0.
  //
  // A modulus whose two low limbs are 1 and 2^32 − 1 (Fr's: p ≡ 1 − 2^32 mod 2^64) has
  // −p⁻¹ ≡ −1, so m = −e for e = E[0], and its two low products need no multiplier:
  // m·1 = m (lo m, hi 0), and m·(2^32 − 1) = (m − 1)·2^32 + (2^32 − m), i.e. lo e and hi
  // m − 1 when e ≠ 0, both 0 when e = 0. Four of the row's 2N multiply-adds and the product
  // for m become six additions, which leave the multiplier pipe (the NTT's bottleneck) to the
  // other products.
  //
  // CARRY_IN: the odd chain also adds the carry pending at position 1 (from reduce_wide's
  // renaming step); such rows take the generic path.
  template <bool CARRY_IN = false>
  static __device__ __forceinline__ void row_reduce(uint32_t* E, uint32_t* O) {
    if constexpr (!CARRY_IN && P::mod(0) == 1 && P::mod(1) == 0xffffffffu) {
      const uint32_t e = E[0];
      uint32_t m, h;
      ptx::sub_cc(m, 0, e);         // m = −e, borrow (e ≠ 0)
      ptx::subc(h, m, 0);           // h = m − (e ≠ 0) = hi(m·p1)
      ptx::add_cc(O[0], O[0], e);   // position 1: lo(m·p1)
      ptx::addc_cc(O[1], O[1], h);  // position 2: hi(m·p1)
      row_reduce_odd(O, m);
      ptx::add_cc(E[0], e, m);      // position 0: e + m = 0, carry (e ≠ 0)
      ptx::addc_cc(E[1], E[1], 0);  // position 1: hi(m·p0) = 0
      row_reduce_even(E, O, m);
    } else {
      const uint32_t m = E[0] * M0;
      if constexpr (CARRY_IN)
        ptx::madc_lo_cc(O[0], m, P::mod(1), O[0]);
      else
        ptx::mad_lo_cc(O[0], m, P::mod(1), O[0]);
      ptx::madc_hi_cc(O[1], m, P::mod(1), O[1]);
      row_reduce_odd(O, m);
      ptx::mad_lo_cc(E[0], m, P::mod(0), E[0]);
      ptx::madc_hi_cc(E[1], m, P::mod(0), E[1]);
      row_reduce_even(E, O, m);
    }
  }

  // row_reduce_odd continues the odd chain of row_reduce after limb p1: m·p_j, j = 3, 5, …
  static __device__ __forceinline__ void row_reduce_odd(uint32_t* O, uint32_t m) {
#pragma unroll
    for (int j = 2; j < N - 2; j += 2) {
      ptx::madc_lo_cc(O[j], m, P::mod(j + 1), O[j]);
      ptx::madc_hi_cc(O[j + 1], m, P::mod(j + 1), O[j + 1]);
    }
    ptx::madc_lo_cc(O[N - 2], m, P::mod(N - 1), O[N - 2]);
    ptx::madc_hi(O[N - 1], m, P::mod(N - 1), O[N - 1]);
  }

  // row_reduce_even continues the even chain of row_reduce after limb p0: m·p_j, j = 2, 4, …,
  // and carries it into position N.
  static __device__ __forceinline__ void row_reduce_even(uint32_t* E, uint32_t* O, uint32_t m) {
#pragma unroll
    for (int j = 2; j < N; j += 2) {
      ptx::madc_lo_cc(E[j], m, P::mod(j), E[j]);
      ptx::madc_hi_cc(E[j + 1], m, P::mod(j), E[j + 1]);
    }
    ptx::addc(O[N - 1], O[N - 1], 0);
  }

  // reduce_once_device is reduce_once with one borrow chain and selects; with TWO_P it subtracts
  // 2p when x ≥ 2p (x < 4p on entry).
  template <bool TWO_P = false>
  static __device__ __forceinline__ void reduce_once_device(uint32_t* x) {
    uint32_t s[N], borrow;
    ptx::sub_cc(s[0], x[0], modulus<TWO_P>(0));
#pragma unroll
    for (int i = 1; i < N; i++) ptx::subc_cc(s[i], x[i], modulus<TWO_P>(i));
    ptx::subc(borrow, 0, 0);  // 0 or 0xffffffff
#pragma unroll
    for (int i = 0; i < N; i++) x[i] = borrow ? x[i] : s[i];
  }
#endif
  CUZK_HD mont_t sqr() const { return *this * *this; }
  CUZK_HD mont_t from_mont() const { return *this * raw_one(); }

  // pow returns x^e for a little-endian exponent of nwords 32-bit words.
  CUZK_HD mont_t pow(const uint32_t* e, int nwords) const {
    mont_t r = one();
    for (int i = nwords * 32 - 1; i >= 0; i--) {
      r = r.sqr();
      if ((e[i / 32] >> (i % 32)) & 1) r = r * *this;
    }
    return r;
  }
  CUZK_HD mont_t pow_u64(uint64_t e) const {
    uint32_t w[2] = {(uint32_t)e, (uint32_t)(e >> 32)};
    return pow(w, 2);
  }
  // inverse returns x^(p−2) (0 for 0).
  CUZK_HD mont_t inverse() const {
    uint32_t e[N];
    uint64_t br = 2;
#pragma unroll
    for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)P::mod(i) - br;
      e[i] = (uint32_t)d;
      br = (d >> 32) & 1;
    }
    return pow(e, N);
  }
};

using fr_t = mont_t<fr_params>;
using fp_t = mont_t<fp_params>;
using fp_lazy_t = mont_t<fp_lazy_params>;  // the G1 MSM's points: values below 2p on the device

// fp2_t is c0 + c1·u with u² = −1; layout equals gnark's E2 {A0, A1}.
struct fp2_t {
  fp_t c0, c1;
  static CUZK_HD fp2_t load(const fp2_t* p) { return {fp_t::load(&p->c0), fp_t::load(&p->c1)}; }
  static CUZK_HD void store(fp2_t* p, const fp2_t& v) { fp_t::store(&p->c0, v.c0), fp_t::store(&p->c1, v.c1); }
  static CUZK_HD fp2_t zero() { return {fp_t::zero(), fp_t::zero()}; }
  static CUZK_HD fp2_t one() { return {fp_t::one(), fp_t::zero()}; }
  CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD bool operator==(const fp2_t& b) const { return c0 == b.c0 && c1 == b.c1; }
  CUZK_HD bool operator!=(const fp2_t& b) const { return !(*this == b); }
  friend CUZK_HD fp2_t operator+(const fp2_t& a, const fp2_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend CUZK_HD fp2_t operator-(const fp2_t& a, const fp2_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  CUZK_HD fp2_t neg() const { return {c0.neg(), c1.neg()}; }
  CUZK_HD fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
  // operator* uses Karatsuba: 3 Fp products, on the device 3 wide products and 2 reductions
  // (mul_device), out of line.
  friend CUZK_HD fp2_t operator*(const fp2_t& a, const fp2_t& b) {
#if defined(__CUDA_ARCH__)
    return mul_outlined(a, b);
#else
    fp_t v0 = a.c0 * b.c0;
    fp_t v1 = a.c1 * b.c1;
    fp_t s = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {v0 - v1, s - v0 - v1};
#endif
  }
  // mul_sum returns a·b + c·d: two products (mul_device each on the device). One function that
  // shares the reductions of both (6 wide products, 2 reductions) was measured slower on the
  // H200: the G2 accumulation took 5 % longer, where two calls to the product took 2.5 % less.
  static CUZK_HD fp2_t mul_sum(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) { return a * b + c * d; }
#if defined(__CUDACC__)
  static __device__ __noinline__ fp2_t mul_outlined(fp2_t a, fp2_t b) { return mul_device(a, b); }
#endif

#if defined(__CUDACC__) || defined(CUZK_PTX_EMU)
  // ---- products with the reductions shared (device) ----
  //
  // With v0 = a0·b0, v1 = a1·b1 and s = (a0 + a1)·(b0 + b1) as wide (2·12-word) integers, a·b =
  // (v0 − v1) + (s − v0 − v1)·u, and each coordinate is one Montgomery reduction of a wide value
  // below p·R (fp_t::reduce_wide), R = 2^384 > 8p: s − v0 − v1 = a0·b1 + a1·b0 < 2p² exactly
  // (the sums a0 + a1 < 2p are not reduced), and v0 − v1 ∈ (−p², p²) becomes non-negative by
  // adding p·R, a multiple of p, where it borrows. Per product 3 wide products and 2 reductions
  // instead of 3 of each: 324 + 288 limb-product pairs instead of 3·(108 + 144) = 756.
  static constexpr int WN = 2 * fp_t::N;  // words of a wide value

  // wide_sub sets x −= y; the caller's bounds keep x ≥ y.
  static __device__ __forceinline__ void wide_sub(uint32_t* x, const uint32_t* y) {
    ptx::sub_cc(x[0], x[0], y[0]);
#pragma unroll
    for (int k = 1; k < WN - 1; k++) ptx::subc_cc(x[k], x[k], y[k]);
    ptx::subc(x[WN - 1], x[WN - 1], y[WN - 1]);
  }
  // wide_sub_mod sets x = x − y, plus p·R where that borrows: for |x − y| < p·R the result
  // lies in [0, p·R) and equals x − y mod p.
  static __device__ __forceinline__ void wide_sub_mod(uint32_t* x, const uint32_t* y) {
    ptx::sub_cc(x[0], x[0], y[0]);
#pragma unroll
    for (int k = 1; k < WN; k++) ptx::subc_cc(x[k], x[k], y[k]);
    uint32_t borrow;
    ptx::subc(borrow, 0, 0);  // all ones when x < y
    fp_t::add_mod_masked(x + fp_t::N, borrow);  // p·R
  }

  // wide_t is a wide value as one object, so that wide_out returns it in registers.
  struct wide_t {
    uint32_t w[WN];
  };
  // wide_out returns a·b as a wide value; on the device out of line, so that mul_device calls one
  // copy of the wide product three times instead of holding three inline copies. The G2
  // accumulation runs two warps a scheduler, which waited about a cycle an issue for
  // instructions with the 21 KB inline Fp2 product; out of line, the product and its calls take
  // 705 + 249 instructions of code instead of 1,332 (nvcc 11.8), for ≈ 120 more executed (the
  // calls' operand moves), and G2 MSMs measured 2–3 % faster.
#if defined(__CUDACC__)
  static __device__ __noinline__ wide_t wide_out(fp_t a, fp_t b) {
#else
  static inline wide_t wide_out(fp_t a, fp_t b) {
#endif
    wide_t t;
    fp_t::wide_product(a, b, t.w);
    return t;
  }

  // mul_device returns a·b (operands < p); its order keeps at most three 12-word or wide values
  // live besides a product's own.
  static __device__ __forceinline__ fp2_t mul_device(const fp2_t& a, const fp2_t& b) {
    const fp_t sa = fp_t::sum_device(a.c0, a.c1), sb = fp_t::sum_device(b.c0, b.c1);  // < 2p, not reduced
    wide_t V0 = wide_out(a.c0, b.c0), V1 = wide_out(a.c1, b.c1);
    wide_t S = wide_out(sa, sb);  // < 4p²
    uint32_t *v0 = V0.w, *v1 = V1.w, *s = S.w;
    wide_sub(s, v0);
    wide_sub(s, v1);       // a0·b1 + a1·b0 < 2p²
    wide_sub_mod(v0, v1);  // a0·b0 − a1·b1 (+ p·R)
    return {fp_t::reduce_wide(v0), fp_t::reduce_wide(s)};
  }
#endif
  // sqr: (a0+a1)(a0−a1) + 2a0a1·u, 2 Fp products.
  CUZK_HD fp2_t sqr() const {
    fp_t p = (c0 + c1) * (c0 - c1);
    fp_t q = c0 * c1;
    return {p, q.dbl()};
  }
};

}  // namespace cuzk
