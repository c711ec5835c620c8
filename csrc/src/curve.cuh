// Short Weierstrass points y² = x³ + b (a = 0) over F = fp_t or fp_lazy_t (G1; the MSM's
// coordinates in the redundant form below 2p, field.cuh) or fp2_t (G2).
//
// affine_t matches gnark-crypto's G1Affine/G2Affine layout {X, Y}; the point
// at infinity is X = Y = 0. xyzz_t is the extended Jacobian form
// (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ², infinity ZZ = 0;
// formulas from the Explicit-Formulas Database ("madd-2008-s",
// "add-2008-s", "dbl-2008-s-1", "mdbl-2008-s-1"), with Y3 = R·(Q − X3) − Y1·PPP (and its
// doubling analogue) as one F::mul_sum of R·(Q − X3) and (−Y1)·PPP.
#pragma once
#include "field.cuh"

#if defined(__CUDACC__)
#define CUZK_EC __host__ __device__ __noinline__
#else
#define CUZK_EC inline
#endif

namespace cuzk {

template <class F>
struct affine_t {
  F x, y;
  // load reads the point at p (16-byte aligned) with 16-byte loads (F::load).
  static CUZK_HD affine_t load(const affine_t* p) { return {F::load(&p->x), F::load(&p->y)}; }
  CUZK_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  CUZK_HD affine_t neg() const { return {x, y.neg()}; }
};

template <class F>
struct xyzz_t {
  F x, y, zz, zzz;
  // store writes v at p (16-byte aligned) with 16-byte stores (F::store).
  static CUZK_HD void store(xyzz_t* p, const xyzz_t& v) {
    F::store(&p->x, v.x), F::store(&p->y, v.y), F::store(&p->zz, v.zz), F::store(&p->zzz, v.zzz);
  }

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
    y = F::mul_sum(m, s - x3, w.neg(), y);
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
    y = F::mul_sum(m, s - x, w.neg(), p.y);
    zz = v;
    zzz = w;
  }

  // add_affine sets this = this + q (mixed addition).
  CUZK_EC void add_affine(const affine_t<F>& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = from_affine(q);
      return;
    }
    F u2 = q.x * zz;
    F s2 = q.y * zzz;
    F p = u2 - x;
    F r = s2 - y;
    if (p.is_zero()) {
      if (r.is_zero()) {
        set_dbl_affine(q);
      } else {
        *this = inf();
      }
      return;
    }
    F pp = p.sqr();
    F ppp = p * pp;
    F qq = x * pp;
    F x3 = r.sqr() - ppp - qq.dbl();
    y = F::mul_sum(r, qq - x3, y.neg(), ppp);
    x = x3;
    zz = zz * pp;
    zzz = zzz * ppp;
  }

  // add sets this = this + q for q in XYZZ form.
  CUZK_EC void add(const xyzz_t& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    F u1 = x * q.zz;
    F u2 = q.x * zz;
    F s1 = y * q.zzz;
    F s2 = q.y * zzz;
    F p = u2 - u1;
    F r = s2 - s1;
    if (p.is_zero()) {
      if (r.is_zero()) {
        dbl();
      } else {
        *this = inf();
      }
      return;
    }
    F pp = p.sqr();
    F ppp = p * pp;
    F qq = u1 * pp;
    F x3 = r.sqr() - ppp - qq.dbl();
    y = F::mul_sum(r, qq - x3, s1.neg(), ppp);
    x = x3;
    zz = zz * q.zz * pp;
    zzz = zzz * q.zzz * ppp;
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
