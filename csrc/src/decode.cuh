// Decoding parameters points on the device: the zcash/bellperson uncompressed
// encoding of a G1 or G2 point (big-endian coordinates, G2 as x.c1‖x.c0‖y.c1‖y.c0,
// three flag bits in the top of byte 0: 0x80 compressed, 0x40 infinity, 0x20
// sort) becomes the affine point the bases hold (gnark-crypto's G1Affine and
// G2Affine: Montgomery form, little-endian limbs), with the checks of the host's
// Unchecked decode (prover/encoding.go decodeG1Uncompressed, pointDecoders):
//
//   1. flags: compression flag → DECODE_COMPRESSED; sort flag → DECODE_SORT;
//      infinity flag with any other bit set → DECODE_INFINITY_BITS, else
//      DECODE_INFINITY (a parameters point is never the point at infinity);
//   2. every coordinate < p (the flags cleared) → else DECODE_NON_CANONICAL;
//   3. (x, y) ≠ (0, 0) and y² = x³ + b (b = 4 on G1, 4(1+u) on G2) → else
//      DECODE_NOT_ON_CURVE.
//
// The first failing check of a point is its reason, as on the host. The
// conversion to Montgomery form is the product x·R² (R = 2^384), one Fp
// product per coordinate; the curve check is 2 products and a square on G1,
// 6 products and 2 squares' worth on G2 (Fp2 Karatsuba).
//
// The point is decoded in place: the encoding and the affine point have the
// same size (96 bytes on G1, 192 on G2), and a thread reads its whole point
// before it writes it.
#pragma once
#include <cstdint>

#include "field.cuh"

namespace cuzk {

// Reasons a point fails to decode, the codes of cuzk_bases_write_encoded.
enum decode_reason_t : uint32_t {
  DECODE_OK = 0,
  DECODE_COMPRESSED = 1,
  DECODE_SORT = 2,
  DECODE_INFINITY_BITS = 3,
  DECODE_INFINITY = 4,
  DECODE_NON_CANONICAL = 5,
  DECODE_NOT_ON_CURVE = 6,
};

// bswap32 reverses the bytes of a word.
CUZK_HD uint32_t bswap32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, 0, 0x0123);
#else
  return __builtin_bswap32(x);
#endif
}

// fp_r2 is R² mod p (R = 2^384), little-endian 32-bit words: x·R²·R⁻¹ = x·R.
CUZK_HD fp_t fp_r2() {
  fp_t r;
  constexpr uint32_t w[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
                              0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
#pragma unroll
  for (int i = 0; i < 12; i++) r.l[i] = w[i];
  return r;
}

// read_fp sets z to the 48 big-endian bytes at w (12 words, each as loaded
// little-endian from memory), the flag bits masked off the first byte, and
// reports whether z < p. z is the integer, not yet in Montgomery form.
CUZK_HD bool read_fp(fp_t& z, const uint32_t* w, bool flagged) {
#pragma unroll
  for (int i = 0; i < 12; i++) z.l[i] = bswap32(w[11 - i]);
  if (flagged) z.l[11] &= 0x1fffffffu;
  // z < p iff z − p borrows.
  uint64_t br = 0;
#pragma unroll
  for (int i = 0; i < 12; i++) br = (((uint64_t)z.l[i] - fp_params::mod(i) - br) >> 32) & 1;
  return br != 0;
}

// flags_reason applies check 1 to the point of nwords words at w.
CUZK_HD uint32_t flags_reason(const uint32_t* w, int nwords) {
  const uint32_t b0 = w[0] & 0xffu;  // byte 0: the low byte of the little-endian first word
  if (b0 & 0x80u) return DECODE_COMPRESSED;
  if (b0 & 0x20u) return DECODE_SORT;
  if (b0 & 0x40u) {
    uint32_t rest = w[0] & ~0xe0u;
    for (int i = 1; i < nwords; i++) rest |= w[i];
    return rest ? DECODE_INFINITY_BITS : DECODE_INFINITY;
  }
  return DECODE_OK;
}

// decode_g1 decodes the 96-byte encoding at w (24 words) into out[0] = x and
// out[1] = y, Montgomery form, and returns DECODE_OK or the reason it fails
// (out is then unspecified).
CUZK_HD uint32_t decode_g1(const uint32_t* w, fp_t* out) {
  uint32_t r = flags_reason(w, 24);
  if (r) return r;
  fp_t x, y;
  if (!read_fp(x, w, true) || !read_fp(y, w + 12, false)) return DECODE_NON_CANONICAL;
  if (x.is_zero() && y.is_zero()) return DECODE_NOT_ON_CURVE;
  const fp_t r2 = fp_r2();
  x = x * r2;
  y = y * r2;
  const fp_t b = fp_t::one().dbl().dbl();  // 4
  if (y.sqr() != x.sqr() * x + b) return DECODE_NOT_ON_CURVE;
  out[0] = x;
  out[1] = y;
  return DECODE_OK;
}

// decode_g2 decodes the 192-byte encoding at w (48 words) into out[0] = x and
// out[1] = y, Montgomery form, and returns DECODE_OK or the reason it fails.
CUZK_HD uint32_t decode_g2(const uint32_t* w, fp2_t* out) {
  uint32_t r = flags_reason(w, 48);
  if (r) return r;
  fp2_t x, y;
  if (!read_fp(x.c1, w, true) || !read_fp(x.c0, w + 12, false) || !read_fp(y.c1, w + 24, false) ||
      !read_fp(y.c0, w + 36, false))
    return DECODE_NON_CANONICAL;
  if (x.is_zero() && y.is_zero()) return DECODE_NOT_ON_CURVE;
  const fp_t r2 = fp_r2();
  x = {x.c0 * r2, x.c1 * r2};
  y = {y.c0 * r2, y.c1 * r2};
  const fp_t four = fp_t::one().dbl().dbl();
  const fp2_t b = {four, four};  // 4(1+u)
  if (y.sqr() != x.sqr() * x + b) return DECODE_NOT_ON_CURVE;
  out[0] = x;
  out[1] = y;
  return DECODE_OK;
}

// decode_fault_key orders faults: the lowest index wins, and its reason rides
// in the low 3 bits. ~0 means none.
CUZK_HD unsigned long long decode_fault_key(uint64_t i, uint32_t reason) { return (i << 3) | reason; }

// decode_point decodes point i of the group-G encodings at buf in place (as
// its affine point) and records a failure in *fault with atomicMin.
template <int G>
__device__ __forceinline__ void decode_point(uint32_t* buf, uint64_t i, unsigned long long* fault) {
  constexpr int W = G == 1 ? 24 : 48;  // words per point
  uint32_t w[W];
  uint32_t* p = buf + i * W;
#pragma unroll
  for (int k = 0; k < W; k++) w[k] = p[k];
  uint32_t r;
  if (G == 1) {
    fp_t out[2];
    r = decode_g1(w, out);
    if (!r) {
#pragma unroll
      for (int k = 0; k < 2; k++) reinterpret_cast<fp_t*>(p)[k] = out[k];
    }
  } else {
    fp2_t out[2];
    r = decode_g2(w, out);
    if (!r) {
#pragma unroll
      for (int k = 0; k < 2; k++) reinterpret_cast<fp2_t*>(p)[k] = out[k];
    }
  }
  if (r) atomicMin(fault, decode_fault_key(i, r));
}

}  // namespace cuzk
