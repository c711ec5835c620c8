// Short Weierstrass points y² = x³ + b (a = 0) over F = fp_t (G1) or fp2_t (G2).
//
// affine_t matches gnark-crypto's G1Affine/G2Affine layout {X, Y}; the point
// at infinity is X = Y = 0. xyzz_t is the extended Jacobian form
// (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ², infinity ZZ = 0;
// formulas from the Explicit-Formulas Database ("madd-2008-s",
// "add-2008-s", "dbl-2008-s-1", "mdbl-2008-s-1").
#pragma once
#include "field.cuh"

#if defined(__CUDACC__)
#define CUZK_EC __host__ __device__ __noinline__
#else
#define CUZK_EC inline
#endif

// CUZK_G1_INLINE_ADD selects how the G1 mixed addition, the one formula of
// the MSM's hot loop, is compiled: 1 inlines it into its kernel with its Fp
// products inline too, so the accumulator, the loaded point and every
// temporary stay in registers; 0 keeps it an out-of-line call like the other
// formulas (its `this` then lives on the stack and each product is a call).
#ifndef CUZK_G1_INLINE_ADD
#define CUZK_G1_INLINE_ADD 1
#endif
#if CUZK_G1_INLINE_ADD != 0 && CUZK_G1_INLINE_ADD != 1
#error "CUZK_G1_INLINE_ADD must be 0 or 1"
#endif

// CUZK_G1_INLINE_XYZZ does the same for the G1 XYZZ addition of the MSM's
// partial sums and bucket reduction (1 inline, 0 an out-of-line call).
#ifndef CUZK_G1_INLINE_XYZZ
#define CUZK_G1_INLINE_XYZZ 0
#endif
#if CUZK_G1_INLINE_XYZZ != 0 && CUZK_G1_INLINE_XYZZ != 1
#error "CUZK_G1_INLINE_XYZZ must be 0 or 1"
#endif

namespace cuzk {

// fmul_hot and fsqr_hot are the product and square of the inlined
// additions: for Fp on the device with CUZK_G1_INLINE_ADD or
// CUZK_G1_INLINE_XYZZ the inline mul_device and sqr_device, otherwise the
// field's own operator* and sqr (out-of-line calls for Fp on the device).
// Either gives the same Montgomery product.
template <class F>
CUZK_HD F fmul_hot(const F& a, const F& b) {
  return a * b;
}
template <class F>
CUZK_HD F fsqr_hot(const F& a) {
  return a.sqr();
}
#if defined(__CUDACC__) && (CUZK_G1_INLINE_ADD || CUZK_G1_INLINE_XYZZ)
template <>
CUZK_HD fp_t fmul_hot<fp_t>(const fp_t& a, const fp_t& b) {
#if defined(__CUDA_ARCH__)
  return fp_t::mul_device(a, b);
#else
  return a * b;
#endif
}
template <>
CUZK_HD fp_t fsqr_hot<fp_t>(const fp_t& a) {
#if defined(__CUDA_ARCH__) && CUZK_FP_SQR
  return fp_t::sqr_device(a);
#elif defined(__CUDA_ARCH__)
  return fp_t::mul_device(a, a);
#else
  return a.sqr();
#endif
}
#endif

// ec_hot_traits says whether the mixed addition (CUZK_G1_INLINE_ADD) and the
// XYZZ addition (CUZK_G1_INLINE_XYZZ) over F are inlined: G1 only, G2's Fp2
// products are three Fp products each, too much code to inline.
template <class F>
struct ec_hot_traits {
  static constexpr bool inline_add = false;
  static constexpr bool inline_xyzz = false;
};
template <>
struct ec_hot_traits<fp_t> {
  static constexpr bool inline_add = CUZK_G1_INLINE_ADD != 0;
  static constexpr bool inline_xyzz = CUZK_G1_INLINE_XYZZ != 0;
};

template <class F>
struct affine_t {
  F x, y;
  CUZK_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  CUZK_HD affine_t neg() const { return {x, y.neg()}; }
};

template <class F>
struct xyzz_t {
  F x, y, zz, zzz;

  static CUZK_HD xyzz_t inf() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  CUZK_HD bool is_inf() const { return zz.is_zero(); }
  static CUZK_HD xyzz_t from_affine(const affine_t<F>& p) {
    if (p.is_inf()) return inf();
    return {p.x, p.y, F::one(), F::one()};
  }

  // dbl sets this = 2·this.
  CUZK_EC void dbl() {
    if (is_inf()) return;
    F u = y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = x * v;
    F x2 = x.sqr();
    F m = x2.dbl() + x2;
    F x3 = m.sqr() - s.dbl();
    y = m * (s - x3) - w * y;
    x = x3;
    zz = v * zz;
    zzz = w * zzz;
  }

  // set_dbl_affine sets this = 2·p for affine p ≠ ∞.
  CUZK_EC void set_dbl_affine(const affine_t<F>& p) {
    F u = p.y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = p.x * v;
    F x2 = p.x.sqr();
    F m = x2.dbl() + x2;
    x = m.sqr() - s.dbl();
    y = m * (s - x) - w * p.y;
    zz = v;
    zzz = w;
  }

  // dbl_affine returns 2·p, by value in and out: the inlined mixed addition
  // calls it so that its accumulator, in registers, need not go to memory.
  static CUZK_EC xyzz_t dbl_affine(affine_t<F> p) {
    xyzz_t r;
    r.set_dbl_affine(p);
    return r;
  }

  // add_affine sets this = this + q (mixed addition), an out-of-line call.
  CUZK_EC void add_affine(const affine_t<F>& q) { add_affine_body<false>(q); }

  // add_affine_hot is add_affine for the MSM's accumulation loops: with
  // ec_hot_traits<F>::inline_add the formula is inlined into the caller, so
  // the accumulator stays in registers; otherwise it is add_affine.
  CUZK_HD void add_affine_hot(const affine_t<F>& q) {
    if constexpr (ec_hot_traits<F>::inline_add)
      add_affine_body<true>(q);
    else
      add_affine(q);
  }

  // add_affine_body is madd-2008-s: 8 products and 2 squarings, through
  // fmul_hot/fsqr_hot when HOT (the inlined addition), operator*/sqr otherwise; the
  // rare doubling branch (q = this) is an out-of-line call either way.
  template <bool HOT>
  CUZK_HD void add_affine_body(const affine_t<F>& q) {
    auto mul = [](const F& a, const F& b) -> F {
      if constexpr (HOT)
        return fmul_hot(a, b);
      else
        return a * b;
    };
    auto sq = [](const F& a) -> F {
      if constexpr (HOT)
        return fsqr_hot(a);
      else
        return a.sqr();
    };
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = from_affine(q);
      return;
    }
    F u2 = mul(q.x, zz);
    F s2 = mul(q.y, zzz);
    F p = u2 - x;
    F r = s2 - y;
    if (p.is_zero()) {
      if (r.is_zero()) {
        if constexpr (HOT)
          *this = dbl_affine(q);
        else
          set_dbl_affine(q);
      } else {
        *this = inf();
      }
      return;
    }
    F pp = sq(p);
    F ppp = mul(p, pp);
    F qq = mul(x, pp);
    F x3 = sq(r) - ppp - qq.dbl();
    y = mul(r, qq - x3) - mul(y, ppp);
    x = x3;
    zz = mul(zz, pp);
    zzz = mul(zzz, ppp);
  }

  // add sets this = this + q for q in XYZZ form (add-2008-s), an
  // out-of-line call.
  CUZK_EC void add(const xyzz_t& q) { add_body<false>(q); }

  // add_hot is add for the MSM's partial sums and bucket reduction: with
  // ec_hot_traits<F>::inline_xyzz the formula is inlined into the caller;
  // otherwise it is add.
  CUZK_HD void add_hot(const xyzz_t& q) {
    if constexpr (ec_hot_traits<F>::inline_xyzz)
      add_body<true>(q);
    else
      add(q);
  }

  // dbl_of returns 2·p, by value in and out (the doubling branch of the
  // inlined addition).
  static CUZK_EC xyzz_t dbl_of(xyzz_t p) {
    p.dbl();
    return p;
  }

  // add_body is add-2008-s: 12 products and 2 squarings, through
  // fmul_hot/fsqr_hot when HOT, operator*/sqr otherwise; the doubling branch (q = this) is an
  // out-of-line call either way.
  template <bool HOT>
  CUZK_HD void add_body(const xyzz_t& q) {
    auto mul = [](const F& a, const F& b) -> F {
      if constexpr (HOT)
        return fmul_hot(a, b);
      else
        return a * b;
    };
    auto sq = [](const F& a) -> F {
      if constexpr (HOT)
        return fsqr_hot(a);
      else
        return a.sqr();
    };
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    F u1 = mul(x, q.zz);
    F u2 = mul(q.x, zz);
    F s1 = mul(y, q.zzz);
    F s2 = mul(q.y, zzz);
    F p = u2 - u1;
    F r = s2 - s1;
    if (p.is_zero()) {
      if (r.is_zero()) {
        if constexpr (HOT)
          *this = dbl_of(*this);
        else
          dbl();
      } else {
        *this = inf();
      }
      return;
    }
    F pp = sq(p);
    F ppp = mul(p, pp);
    F qq = mul(u1, pp);
    F x3 = sq(r) - ppp - qq.dbl();
    y = mul(r, qq - x3) - mul(s1, ppp);
    x = x3;
    zz = mul(mul(zz, q.zz), pp);
    zzz = mul(mul(zzz, q.zzz), ppp);
  }

  // mul_small sets this = k·this for a small unsigned k (double-and-add).
  CUZK_EC void mul_small(uint32_t k) {
    xyzz_t base = *this;
    *this = inf();
    for (int i = 31; i >= 0; i--) {
      dbl();
      if ((k >> i) & 1) add(base);
    }
  }

  // to_jacobian writes (X', Y', Z') with x = X'/Z'², y = Y'/Z'³:
  // Z' = ZZ·ZZZ, X' = X·ZZ·ZZZ², Y' = Y·ZZ³·ZZZ². Infinity becomes (1, 1, 0).
  CUZK_EC void to_jacobian(F* out) const {
    if (is_inf()) {
      out[0] = F::one();
      out[1] = F::one();
      out[2] = F::zero();
      return;
    }
    F zzz2 = zzz.sqr();
    F zz3 = zz.sqr() * zz;
    out[0] = x * zz * zzz2;
    out[1] = y * zz3 * zzz2;
    out[2] = zz * zzz;
  }
};

using g1_affine_t = affine_t<fp_t>;
using g2_affine_t = affine_t<fp2_t>;
using g1_xyzz_t = xyzz_t<fp_t>;
using g2_xyzz_t = xyzz_t<fp2_t>;

}  // namespace cuzk
