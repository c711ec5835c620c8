// Montgomery products in Fp on the FP64 pipe.
//
// The integer product (field.cuh) runs on the multiplier (fmaheavy) pipe, which the MSM keeps
// ≈ 83 % busy while the FP64 pipe idles. fp_f64_t computes the same Montgomery product with
// double-precision fused multiply-adds (after Emmart, Zheng and Weems, "Faster modular
// exponentiation using double precision floating point arithmetic on the GPU", ARITH 2018),
// so that a kernel can split its products between the two pipes.
//
// Representation. An element is eight signed digits d_k held exactly in doubles,
// value Σ d_k·2^(48k), in Montgomery form with R = 2^384, the same R as fp_t (12 limbs of 32
// bits), so a product of two converted fp_t elements is their fp_t product. Digits from
// from_mont lie in [0, 2^48); the product returns balanced digits, |d_k| ≤ 2^47 for k < 7, and
// a value in (−0.61p, 0.61p): products chain without conversion, and to_mont maps the value
// back to [0, p).
//
// Exactness. A double holds every integer of magnitude ≤ 2^53. For |x·y| ≤ 2^99,
//   h  = fma(x, y, 3·2^99)   lands in [2^100, 2^101), where doubles are spaced 2^48 apart, so
//   hi = h − 3·2^99          is x·y rounded to a multiple of 2^48 (exact subtraction), and
//   lo = fma(x, y, −hi)      is the remainder, |lo| ≤ 2^47, exact;
// x·y = hi + lo with no rounding anywhere. Each column of the product sums its lo parts (at most
// 16 of ≤ 2^47, plus a carry) and its hi parts (multiples of 2^48 whose quotients sum to less
// than 2^52) in two exact accumulators; the hi sum moves to the next column scaled by 2^−48.
// The Montgomery reduction is word-by-word with 48-bit words (product scanning): at column k < 8
// the settled column value T is cut into T = hiT + t, |t| ≤ 2^47 (the same rounding trick),
// q_k = t·m' mod 2^48 is the lo part of t·m' (balanced, |q_k| ≤ 2^47, m' = −p⁻¹ mod 2^48), and
// q_k·p is added so that column k becomes a multiple of 2^48 that carries into column k + 1.
// The result (a·b + Q·p)/R with |Q| < R/2 and p/R < 0.102 is below 0.61p in magnitude for
// |a|, |b| < p. Each 48×48-bit product costs five FP64 instructions (two fma, three adds).
#pragma once
#include <cstdint>
#include <cstring>
#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "field.cuh"

namespace cuzk {

namespace f64 {
// Exact IEEE operations, rounded to nearest; on the device through the intrinsics, which the
// compiler never contracts or reassociates.
CUZK_HD double fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
CUZK_HD double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
CUZK_HD double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
CUZK_HD uint64_t bits(double x) {
#if defined(__CUDA_ARCH__)
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
#endif
}
CUZK_HD double from_bits(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)u);
#else
  double x;
  memcpy(&x, &u, 8);
  return x;
#endif
}

constexpr double kSplit = 0x1.8p+100;  // 3·2^99: doubles near it are 2^48 apart
constexpr double kInvRadix = 0x1p-48;  // 2^−48
constexpr double kTwo52 = 0x1p+52;     // doubles in [2^52, 2^53) are the integers
constexpr double kInt = 0x1.8p+52;     // 3·2^51: d + kInt keeps |d| < 2^51 in [2^52, 2^53)

// split sets hi + lo = x·y exactly: hi a multiple of 2^48, |lo| ≤ 2^47. Needs |x·y| ≤ 2^99.
CUZK_HD void split(double x, double y, double& hi, double& lo) {
  hi = sub(fma(x, y, kSplit), kSplit);
  lo = fma(x, y, -hi);
}

// cut sets hi + lo = x exactly: hi a multiple of 2^48, |lo| ≤ 2^47. Needs |x| ≤ 2^99.
CUZK_HD void cut(double x, double& hi, double& lo) {
  hi = sub(add(x, kSplit), kSplit);
  lo = sub(x, hi);
}

// to_int returns the integer d (|d| < 2^51) as an int64: d + 3·2^51 has a fixed exponent, so
// its bit pattern minus that of 3·2^51 is d.
CUZK_HD int64_t to_int(double d) { return (int64_t)(bits(add(d, kInt)) - bits(kInt)); }

// from_u48 returns the double equal to v < 2^48: the bit pattern of 2^52 + v, minus 2^52.
CUZK_HD double from_u48(uint64_t v) { return sub(from_bits(bits(kTwo52) | v), kTwo52); }
}  // namespace f64

// fp_f64_t is an element of Fp as eight signed 48-bit digits in doubles (see the top of the file).
struct fp_f64_t {
  static constexpr int D = 8;
  double d[D];

  // Digits of p = 0x1a0111ea…ffffaaab (fp_params::mod), 48 bits each, low first.
  static CUZK_HD constexpr double mod(int k) {
    constexpr double m[D] = {(double)0xffffffffaaabull, (double)0xb153ffffb9feull, (double)0xf6241eabfffeull,
                             (double)0x6730d2a0f6b0ull, (double)0x4b84f38512bfull, (double)0x434bacd76477ull,
                             (double)0xe69a4b1ba7b6ull, (double)0x1a0111ea397full};
    return m[k];
  }
  // m' = −p⁻¹ mod 2^48.
  static constexpr double kNegInv = (double)0xfffcfffcfffdull;

  // from_mont converts an fp_t (12 limbs of 32 bits, < p) to digits in [0, 2^48).
  static CUZK_HD fp_f64_t from_mont(const mont_t<fp_params>& a) {
    fp_f64_t r;
#pragma unroll
    for (int j = 0; j < D / 2; j++) {
      const uint32_t w0 = a.l[3 * j], w1 = a.l[3 * j + 1], w2 = a.l[3 * j + 2];
      r.d[2 * j] = f64::from_u48((uint64_t)w0 | (uint64_t)(w1 & 0xffff) << 32);
      r.d[2 * j + 1] = f64::from_u48((uint64_t)(w1 >> 16) | (uint64_t)w2 << 16);
    }
    return r;
  }

  // to_mont converts to an fp_t in [0, p). Needs |value| < p and |d_k| < 2^50.
  CUZK_HD mont_t<fp_params> to_mont() const {
    int64_t e[D];
#pragma unroll
    for (int k = 0; k < D; k++) e[k] = f64::to_int(d[k]);
    // Carry so that e_0..e_6 lie in [0, 2^48); e_7 keeps the sign of the value.
#pragma unroll
    for (int k = 0; k < D - 1; k++) {
      const int64_t c = e[k] >> 48;  // arithmetic shift: floor(e_k / 2^48)
      e[k] -= c * (int64_t(1) << 48);
      e[k + 1] += c;
    }
    mont_t<fp_params> r;
#pragma unroll
    for (int j = 0; j < D / 2; j++) {
      const uint64_t lo = (uint64_t)e[2 * j], hi = (uint64_t)e[2 * j + 1];
      r.l[3 * j] = (uint32_t)lo;
      r.l[3 * j + 1] = (uint32_t)(lo >> 32) | (uint32_t)(hi << 16);
      r.l[3 * j + 2] = (uint32_t)(hi >> 16);
    }
    // A negative value is its two's complement mod 2^384 here; adding p brings it to (0, p).
    const uint32_t mask = e[D - 1] < 0 ? 0xffffffffu : 0u;
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < fp_params::N; i++) {
      c = (uint64_t)r.l[i] + (fp_params::mod(i) & mask) + (c >> 32);
      r.l[i] = (uint32_t)c;
    }
    return r;
  }

  // operator* is the Montgomery product a·b·2^−384 mod p, as a value in (−0.61p, 0.61p), for
  // |a|, |b| < p with digits of magnitude ≤ 2^48.
  friend CUZK_HD fp_f64_t operator*(const fp_f64_t& a, const fp_f64_t& b) {
    double q[D];
    fp_f64_t r;
    double carry = 0, s_prev = 0;  // into column k: a carry, and the hi sum of column k − 1
#pragma unroll
    for (int k = 0; k < 2 * D - 1; k++) {
      double lo_sum = carry, hi_sum = 0, hi, lo;
#pragma unroll
      for (int i = 0; i < D; i++) {
        if (k - i < 0 || k - i >= D) continue;
        f64::split(a.d[i], b.d[k - i], hi, lo);
        hi_sum = f64::add(hi_sum, hi);
        lo_sum = f64::add(lo_sum, lo);
      }
#pragma unroll
      for (int i = 0; i < D; i++) {  // q_i·p_(k−i) for the rounds already taken
        if (i >= k || k - i >= D) continue;
        f64::split(q[i], mod(k - i), hi, lo);
        hi_sum = f64::add(hi_sum, hi);
        lo_sum = f64::add(lo_sum, lo);
      }
      const double T = f64::fma(s_prev, f64::kInvRadix, lo_sum);  // column k, settled but for q_k
      double top, t;
      f64::cut(T, top, t);
      if (k < D) {
        double unused;
        f64::split(t, kNegInv, unused, q[k]);  // q_k ≡ t·m' (mod 2^48)
        f64::split(q[k], mod(0), hi, lo);      // t + lo ≡ 0 (mod 2^48)
        hi_sum = f64::add(hi_sum, hi);
        carry = f64::add(top, f64::add(t, lo)) * f64::kInvRadix;
      } else {
        r.d[k - D] = t;
        carry = top * f64::kInvRadix;
      }
      s_prev = hi_sum;
    }
    r.d[D - 1] = f64::fma(s_prev, f64::kInvRadix, carry);
    return r;
  }
};

}  // namespace cuzk
