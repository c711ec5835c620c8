/*
 * cuzk.h — C ABI of libcuzk.so: BLS12-381 NTT over Fr and MSM on G1/G2 on
 * CUDA devices.
 *
 * Conventions
 *  - Every function except cuzk_abi_version and cuzk_error_free returns a
 *    cuzk_error_t by value; code 0 means success. A non-NULL msg is a
 *    malloc'd NUL-terminated string that the caller releases with
 *    cuzk_error_free. No C++ exception crosses this boundary.
 *  - Scalars are gnark-crypto v0.22.0 fr.Element values: 4 little-endian
 *    uint64 limbs, Montgomery form with R = 2^256 mod r (32 bytes each).
 *  - G1 affine points are gnark G1Affine {X, Y fp.Element} (96 bytes,
 *    fp.Element = 6 little-endian uint64, Montgomery R = 2^384 mod p);
 *    G2 affine points are G2Affine {X, Y E2}, E2 = {A0, A1} (192 bytes).
 *    The point at infinity is X = Y = 0.
 *  - MSM results are written in gnark's Jacobian layout {X, Y, Z}
 *    (x = X/Z², y = Y/Z³; infinity has Z = 0): 144 bytes for G1, 288 for G2.
 *  - Host pointers are only read or written during the call; the library
 *    keeps none of them after it returns.
 *  - Every call selects its device itself; calls on different buffers may
 *    run concurrently from several threads (each call uses its own stream).
 *  - Every function declared here is exported by every build, except
 *    cuzk_debug_field, which only the test build (make TEST_KERNELS=1)
 *    exports.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

#define CUZK_ABI_VERSION 19

/* Error codes. */
enum {
  CUZK_OK = 0,
  CUZK_ERR_INVALID = 1,   /* bad argument (size, index, NULL) */
  CUZK_ERR_NO_DEVICE = 2, /* no CUDA device or driver */
  CUZK_ERR_CUDA = 3,      /* a CUDA runtime call failed */
  CUZK_ERR_OOM = 4,       /* device or host allocation failed */
  CUZK_ERR_INTERNAL = 5   /* anything else (a C++ exception) */
};

typedef struct {
  int code;
  char *msg;
} cuzk_error_t;

typedef struct {
  char name[256];
  uint64_t total_mem;   /* bytes of device memory */
  uint64_t free_mem;    /* bytes free at the time of the call, counting what the library's
                           memory pool holds unused (its allocations take it back) */
  uint64_t l2_bytes;    /* L2 cache size */
  int32_t major, minor; /* compute capability */
  int32_t sm_count;     /* multiprocessors */
  int32_t clock_khz;    /* SM clock */
  int32_t mem_clock_khz;
  int32_t mem_bus_bits;
  uint64_t pool_free_mem; /* of free_mem, the bytes the memory pool holds unused: the largest
                             scratch its MSMs and transforms have taken at once, less what they
                             hold now */
} cuzk_device_props_t;

/* NTT options. The transform is A_k = Σ_j a_j·ω^(jk) with ω = gnark's
 * fft.Generator(n); inverse uses ω⁻¹ and scales by n⁻¹. coset multiplies
 * a_j by shift^j before a forward transform and the output of an inverse
 * transform by shift^(−j); shift all-zero means gnark's default 7. The shift
 * ω_{2n} = fft.Generator(2n) (log_n ≤ 27) costs one product an element less
 * than any other: its factor merges into the twiddles.
 * in_bitrev/out_bitrev select bit-reversed index order of input/output:
 * (0,1) is gnark's DIF, (1,0) gnark's DIT. */
typedef struct {
  int32_t inverse;
  int32_t coset;
  int32_t in_bitrev;
  int32_t out_bitrev;
  uint64_t shift[4]; /* fr.Element, Montgomery form */
} cuzk_ntt_cfg_t;

typedef struct cuzk_fr_buf cuzk_fr_buf_t; /* device array of Fr elements */
typedef struct cuzk_bases cuzk_bases_t;   /* resident G1 or G2 bases */

CUZK_API int cuzk_abi_version(void);
CUZK_API void cuzk_error_free(char *msg);

CUZK_API cuzk_error_t cuzk_device_count(int32_t *out);
CUZK_API cuzk_error_t cuzk_device_props(int32_t dev, cuzk_device_props_t *out);

/* Device scalar buffers of n elements. */
CUZK_API cuzk_error_t cuzk_fr_alloc(int32_t dev, uint64_t n, cuzk_fr_buf_t **out);
CUZK_API cuzk_error_t cuzk_fr_free(cuzk_fr_buf_t *buf);
CUZK_API cuzk_error_t cuzk_fr_upload(cuzk_fr_buf_t *buf, uint64_t off, const void *src, uint64_t n);
CUZK_API cuzk_error_t cuzk_fr_download(cuzk_fr_buf_t *buf, uint64_t off, void *dst, uint64_t n);

/* Zero buf[off : off+n]. */
CUZK_API cuzk_error_t cuzk_fr_zero(cuzk_fr_buf_t *buf, uint64_t off, uint64_t n);
/* a[i] = a[i]·b[i] for i < n; a and b are distinct buffers on one device. Groth16's quotient
 * h = (a·b − c)/Z multiplies a and b's values on a coset with it. */
CUZK_API cuzk_error_t cuzk_fr_mul(cuzk_fr_buf_t *a, const cuzk_fr_buf_t *b, uint64_t n);
/* a[i] = (a[j] − c[j])·z_inv for i < 2^log_n (1 ≤ log_n ≤ 28), j the reversal of i's log_n bits;
 * a and c are distinct buffers on one device, z_inv one fr.Element (Montgomery form) in host
 * memory. Groth16's quotient: with a the inverse coset transform of a·b's values on a coset where
 * Z is the constant 1/z_inv and c the inverse transform of c's values, both in bit-reversed
 * order, it leaves h's coefficients in natural order. */
CUZK_API cuzk_error_t cuzk_fr_quotient(cuzk_fr_buf_t *a, const cuzk_fr_buf_t *c, uint32_t log_n, const void *z_inv);
/* Groth16's whole quotient h = (a·b − c)/Z, Z = X^n − 1, n = 2^log_n (1 ≤ log_n ≤ 28), from a, b
 * and c's values over the domain (natural order), on one stream and waited for once: the inverse
 * transforms of a, b and c (to bit-reversed order; b's and c's scaled by 1/(g^n − 1) with n⁻¹),
 * the coset transforms of b and a (to natural order, a's last pass multiplying each value by b's:
 * a ← a·b), the inverse coset transform of a (to bit-reversed order, its last pass subtracting
 * c's coefficients). a, b and c are distinct buffers on one device of at least n elements; on
 * return a holds h's coefficients in BIT-REVERSED order (h_i at a[rev(i)], rev the reversal of
 * log_n bits) as PLAIN integers below r, not in Montgomery form (an MSM reads them with
 * cuzk_msm_job_t's scalars_bitrev and scalars_plain, and needs no conversion), and b and c are
 * overwritten. shift is the coset shift g (one fr.Element, Montgomery form, in host
 * memory), nonzero with g^n ≠ 1; for a, b, c that satisfy the R1CS (Z divides a·b − c) h does
 * not depend on it. g = ω_{2n} = fft.Generator(2n) (log_n ≤ 27) is the fastest: its coset factor
 * merges into the transforms' twiddles, and the subtraction rides on the last pass's store
 * (docs/gpu-kernels.md). c may be NULL, for folded parameters (prover.FoldC: C folded into L,
 * H's points on the coset): then a receives â·b̂, the product of a's and b's values on the coset,
 * in NATURAL order, as plain integers below r, with c's transform, a's inverse coset transform
 * and the scaling by 1/(g^n − 1) left out (four transforms). *device_ns receives the device time
 * in nanoseconds.
 * One call instead of eight, so that no step waits for the host between two others. */
CUZK_API cuzk_error_t cuzk_groth16_h(cuzk_fr_buf_t *a, cuzk_fr_buf_t *b, cuzk_fr_buf_t *c, uint32_t log_n,
                                     const void *shift, uint64_t *device_ns);
/* Compaction by a bitmap: dst[dst_off + r] = src[src_off + i] for the r-th i < n whose bit is
 * set in mask (bit i%64 of mask[i/64]; (n+63)/64 words in host memory, bits ≥ n ignored), in
 * order. *selected receives the count. dst and src are distinct buffers on one device. */
CUZK_API cuzk_error_t cuzk_fr_compact(cuzk_fr_buf_t *dst, uint64_t dst_off, const cuzk_fr_buf_t *src,
                                      uint64_t src_off, uint64_t n, const uint64_t *mask, uint64_t *selected);

/* NTT of size 2^log_n (1 ≤ log_n ≤ 28) in place on buf[off : off+2^log_n]. */
CUZK_API cuzk_error_t cuzk_ntt_device(cuzk_fr_buf_t *buf, uint64_t off, uint32_t log_n, const cuzk_ntt_cfg_t *cfg);
/* NTT of size 2^log_n in place on host memory (copied in and out). */
CUZK_API cuzk_error_t cuzk_ntt_host(int32_t dev, void *data, uint32_t log_n, const cuzk_ntt_cfg_t *cfg);
/* cuzk_ntt_table makes device dev keep a table of the twiddle factors
 * between the first two passes of every transform of 2^21 … 2^log_n
 * (2^min(log_n, 27) elements of 32 bytes: 4 GiB at 2^27), which they then
 * read in one lookup instead of computing each from two lookups and a
 * product. A table that covers log_n already stays; a smaller one is
 * replaced. log_n = 0 frees it, once the transforms enqueued with it have
 * run (the call synchronises the device). */
CUZK_API cuzk_error_t cuzk_ntt_table(int32_t dev, uint32_t log_n);

/* Resident bases: upload n affine points (group 1 or 2). */
CUZK_API cuzk_error_t cuzk_bases_upload(int32_t dev, int32_t group, const void *points, uint64_t n, cuzk_bases_t **out);
CUZK_API cuzk_error_t cuzk_bases_free(cuzk_bases_t *b);
/* Resident bases filled a range at a time, for points decoded in chunks:
 * cuzk_bases_alloc allocates n points of group 1 or 2 on device dev, contents
 * undefined; cuzk_bases_write copies count points (the layout of
 * cuzk_bases_upload) from host memory to bases[off : off+count], through the
 * pinned staging as cuzk_bases_upload does, and returns once they have landed.
 * Writes to disjoint ranges may run concurrently; an MSM must not run before
 * every point it reads is written. */
CUZK_API cuzk_error_t cuzk_bases_alloc(int32_t dev, int32_t group, uint64_t n, cuzk_bases_t **out);
CUZK_API cuzk_error_t cuzk_bases_write(cuzk_bases_t *b, uint64_t off, const void *points, uint64_t count);
/* cuzk_bases_write_encoded is cuzk_bases_write for points in the zcash
 * uncompressed encoding of a bellperson parameters file (96 bytes per G1
 * point: x‖y big-endian; 192 per G2 point: x.c1‖x.c0‖y.c1‖y.c0; flag bits in
 * the top 3 bits of byte 0), decoded on the device into the layout of
 * cuzk_bases_upload (Montgomery form) with the checks of an unchecked host
 * decode: no compression or sort flag, not the point at infinity, coordinates
 * canonical (< p), the point on the curve (no subgroup check). If a point
 * fails, the call still returns CUZK_OK, with *reason the first failing check
 * of the lowest failing point and *bad_index its index among the count
 * points: 1 compression flag, 2 sort flag, 3 infinity flag with other bits
 * set, 4 point at infinity, 5 non-canonical coordinate, 6 not on the curve;
 * bases[off : off+count] are then undefined. *reason = 0 when every point
 * decoded. */
CUZK_API cuzk_error_t cuzk_bases_write_encoded(cuzk_bases_t *b, uint64_t off, const void *encoded, uint64_t count,
                                               uint64_t *bad_index, uint32_t *reason);

/* cuzk_bases_shift adds to G1 bases b (at most 2^30 points, every one
 * written) a shift table, 2^128·b[i] for each base: as much device memory
 * again. Every later MSM over b cuts its scalars in two halves of 128 bits
 * and sums about 12 pairs a scalar instead of 13 for 2^27 random scalars
 * (csrc/src/msm.cuh). Building it takes 128 doublings a point (seconds for
 * 2^27 points); on failure b stays as it was. A second call does nothing;
 * cuzk_bases_write and cuzk_bases_write_encoded refuse bases with a table. */
CUZK_API cuzk_error_t cuzk_bases_shift(cuzk_bases_t *b);
/* cuzk_bases_unshift frees the shift table of G1 bases b, if any: later
 * MSMs over b sum whole scalars again. No MSM over b may be in flight. */
CUZK_API cuzk_error_t cuzk_bases_unshift(cuzk_bases_t *b);
/* cuzk_bases_pair adds to G1 or G2 bases b (every one written) a pair
 * table, b[2k] + b[2k+1] for k < n/2: half as much device memory again.
 * Every later MSM over b (but with scalars_bitrev) whose scalars 2k and
 * 2k+1 are both 1 adds their pair's point once instead of the two: for bits
 * that are 1 with probability ρ, 1 − (1 − ρ)² additions a pair instead of 2ρ,
 * a quarter fewer at ρ ≈ 1/2. Building it takes one addition and a share of
 * an inversion a pair. A second call does nothing; cuzk_bases_write and
 * cuzk_bases_write_encoded refuse bases with a table. */
CUZK_API cuzk_error_t cuzk_bases_pair(cuzk_bases_t *b);
/* cuzk_bases_unpair frees the pair table of bases b, if any. No MSM over b
 * may be in flight. */
CUZK_API cuzk_error_t cuzk_bases_unpair(cuzk_bases_t *b);
/* MSM Σ scalars[i]·bases[i] for i < n (n ≤ number of bases), result in
 * Jacobian form to out (144 or 288 bytes). */
CUZK_API cuzk_error_t cuzk_msm_host(cuzk_bases_t *b, const void *scalars, uint64_t n, void *out);
CUZK_API cuzk_error_t cuzk_msm_device(cuzk_bases_t *b, cuzk_fr_buf_t *scalars, uint64_t off, uint64_t n, void *out);

/* One MSM of cuzk_msm_batch: Σ scalars[off+i]·bases[i] for i < n, as cuzk_msm_device, or with
 * scalars_bitrev = b ≥ 1 Σ scalars[off+i]·bases[rev(i)], rev the reversal of b bits, for n = 2^b
 * or 2^b − 1 (rev maps [0, n) onto itself); with scalars_plain ≠ 0 the scalars are plain integers
 * below r, not in Montgomery form. cuzk_groth16_h's h is read with both. device_ns receives the
 * time its device steps took, in nanoseconds (the host combines its window sums while the next
 * job runs). */
typedef struct {
  cuzk_bases_t *bases;
  cuzk_fr_buf_t *scalars;
  uint64_t off;
  uint64_t n;
  uint32_t scalars_bitrev;
  uint32_t scalars_plain;
  uint64_t device_ns;
} cuzk_msm_job_t;

/* The MSMs jobs[0 : count] one after the other, with no return to the caller between them (a
 * caller resumed late would leave the device idle). Every job is checked before the first runs;
 * all jobs' bases and scalars live on one device. out receives the results in job order, each in
 * Jacobian form (144 bytes for G1, 288 for G2), one after the other. */
CUZK_API cuzk_error_t cuzk_msm_batch(cuzk_msm_job_t *jobs, uint32_t count, void *out);

/* Test entry point: out[i] = a[i] op b[i] on the device for field
 * 0 = Fr, 1 = Fp, 2 = Fp2 and op 0 = mul, 1 = add, 2 = sub, 3 = sqr(a),
 * 4 = neg(a), 5 = inverse(a). Exported only by the test build of the library
 * (make TEST_KERNELS=1); the production build does not define it, so a loader
 * resolves it as optional. */
CUZK_API cuzk_error_t cuzk_debug_field(int32_t dev, int32_t field, int32_t op, const void *a, const void *b, void *out, uint64_t n);


/* ---- Fixed-base scalar multiplication ----
 * out[i] = scalars[i]·base for one base of G1 or G2 and many scalars (the
 * points of a Groth16 setup). A handle holds the base's table of multiples on
 * its device (48 MiB for G1, 96 MiB for G2 at the default window of 16 bits);
 * it is read-only after creation, so calls on one handle may run concurrently. */
typedef struct cuzk_fixedbase cuzk_fixedbase_t;

/* Builds the table of base, a G1Affine (group 1, 96 bytes) or G2Affine
 * (group 2, 192 bytes) in host memory, gnark layout. The base must be on the
 * curve (not checked here); infinity gives infinity for every scalar. */
CUZK_API cuzk_error_t cuzk_fixedbase_new(int32_t dev, int32_t group, const void *base, cuzk_fixedbase_t **out);
CUZK_API cuzk_error_t cuzk_fixedbase_free(cuzk_fixedbase_t *fb);
/* out[i] = scalars[i]·base for i < n: scalars are fr.Element values
 * (Montgomery form) in host memory, out receives n affine points (96 or 192
 * bytes each, gnark layout, Montgomery limbs, infinity X = Y = 0) in host
 * memory. n = 0 does nothing. A scalar whose limbs are ≥ r fails the call
 * with CUZK_ERR_INVALID naming its index; out is then partly written. */
CUZK_API cuzk_error_t cuzk_fixedbase_mul(cuzk_fixedbase_t *fb, const void *scalars, uint64_t n, void *out);

/* The twisted discrete Fourier transform of G1 points: out[j] = Σ_i ω^(ij)·(s·t^i)·x_i for
 * j < 2^log_n (1 ≤ log_n ≤ 27), x the n ≤ 2^log_n points at points (host memory, gnark's affine
 * layout, Montgomery form) followed by the point at infinity, ω = *omega of order 2^log_n,
 * t = *twist and s = *scale (fr.Elements, Montgomery form, host memory; t = 1 gives s times the
 * plain transform); out receives 2^log_n affine points (infinity as (0, 0)) in host memory.
 * Memory taken for the call and freed before it returns: 304·2^log_n + 32·n bytes of device
 * memory, outside the memory pool (at most 336·2^log_n: 42 GiB at 2^27), and 16·2^log_n + 32·n
 * bytes of host memory for the twiddles and the scalars s·t^i (at most 48·2^log_n: 6 GiB at
 * 2^27). A one-time step of prover.FoldC. When stages_done is not NULL the call stores in it
 * (atomically) how many of the log_n butterfly stages have finished, as they do; when cancel is
 * not NULL it reads it (atomically) before each stage and stops with CUZK_ERR_INVALID
 * ("cancelled") once it is nonzero. Both may be written and read by other threads during the
 * call. */
CUZK_API cuzk_error_t cuzk_g1_dft(int32_t dev, const void *points, uint64_t n, uint32_t log_n, const void *omega,
                                  const void *twist, const void *scale, void *out, uint64_t *stages_done,
                                  const int32_t *cancel);


/* ---- Device-resident constraint matrices and compact witnesses ----------
 *
 * A matrix is one of a compiled shape's A, B, C in synth.Matrix's compact
 * row form (docs/shape.md): words[k] = code << col_bits | column, code 0 is
 * the coefficient 1, code 1 is −1, 2 ≤ code < escape = 2^(32−col_bits) − 1
 * is coeffs[code], and code = escape takes coeffs[words[k+1]] (the term is
 * two words). row_len[r] is row r's length in words, or 255 when the row is
 * listed in long_rows (increasing) with its length in long_lens;
 * block_ptr[b] is the first word of row 32·b ((rows+31)/32 + 1 entries, the
 * last = n_words). The arrays are copied during the call. */
#define CUZK_ROW_BLOCK 32
#define CUZK_LONG_ROW 255

typedef struct {
  uint64_t rows;             /* number of rows (< 2^32) */
  uint64_t cols;             /* length of w the rows index (every column < cols) */
  uint32_t col_bits;         /* 1 ≤ col_bits ≤ 30 */
  const uint8_t *row_len;    /* rows entries */
  const uint32_t *block_ptr; /* (rows+31)/32 + 1 entries */
  uint64_t n_long;
  const uint32_t *long_rows; /* n_long entries */
  const uint32_t *long_lens; /* n_long entries */
  uint64_t n_words;          /* < 2^32 */
  const uint32_t *words;     /* n_words entries */
} cuzk_matrix_desc_t;

typedef struct cuzk_matrix cuzk_matrix_t; /* resident matrix */

/* Upload a matrix and its coefficient table (n_coeffs fr.Element values,
 * Montgomery form, each < r, 2 ≤ n_coeffs < 2^31) to device dev. The
 * encoding is checked in full (block offsets, long rows, columns < cols,
 * codes and escaped indices in the table); a bad one is refused with
 * CUZK_ERR_INVALID naming the row. */
CUZK_API cuzk_error_t cuzk_matrix_upload(int32_t dev, const cuzk_matrix_desc_t *desc, const void *coeffs,
                                         uint64_t n_coeffs, cuzk_matrix_t **out);
CUZK_API cuzk_error_t cuzk_matrix_free(cuzk_matrix_t *m);
/* outs[i][out_off + r] = Σ coeff·w[col] over the terms of row r of ms[i],
 * for every row r < rows of each of the count ≥ 1 matrices (fully reduced
 * Montgomery form). w holds at least every matrix's cols elements; w, the
 * matrices and the outputs are on one device, the outputs distinct from w
 * and from each other. w's elements are classified once for all the
 * matrices (0, 1, other): when most are 0 or 1, only the terms on other
 * values read w. */
CUZK_API cuzk_error_t cuzk_matrix_mulvec(const cuzk_matrix_t *const *ms, cuzk_fr_buf_t *const *outs, uint32_t count,
                                         const cuzk_fr_buf_t *w, uint64_t out_off);

/* Decode a compact witness (synth.CompactWitness) of n < 2^32 elements into
 * dst[off : off+n]: element i has class (classes[i/32] >> 2(i%32)) & 3,
 * 0 → 0, 1 → 1 (Montgomery), 2 → the next of others (fr.Element values),
 * 3 invalid. classes has (n+31)/32 words (bits of elements ≥ n clear);
 * block_others has (n+511)/512 + 1 entries, the number of others before
 * each block of 512 elements, then n_others. Inconsistent input is refused
 * with CUZK_ERR_INVALID naming the element or block; dst is then undefined. */
#define CUZK_WITNESS_BLOCK 512
CUZK_API cuzk_error_t cuzk_witness_decode(cuzk_fr_buf_t *dst, uint64_t off, uint64_t n, const uint64_t *classes,
                                          const void *others, uint64_t n_others, const uint32_t *block_others);
/* dst[dst_off : dst_off+n] = src[src_off : src_off+n] on one device; the two ranges may not
 * overlap. (The evaluations' input rows: a[rows + i] = w[i].) */
CUZK_API cuzk_error_t cuzk_fr_copy(cuzk_fr_buf_t *dst, uint64_t dst_off, const cuzk_fr_buf_t *src, uint64_t src_off,
                                   uint64_t n);
/* ---- end of matrices and compact witnesses ---- */

#ifdef __cplusplus
}
#endif
#endif /* CUZK_H */
