//go:build cgo

package gpu

/*
#cgo CFLAGS: -I${SRCDIR}/../csrc/include
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "cuzk.h"

// cuzk_table holds every entry point of libcuzk.so, resolved all at once.
typedef struct {
	void *handle;
	int (*abi_version)(void);
	void (*error_free)(char *);
	cuzk_error_t (*device_count)(int32_t *);
	cuzk_error_t (*device_props)(int32_t, cuzk_device_props_t *);
	cuzk_error_t (*fr_alloc)(int32_t, uint64_t, cuzk_fr_buf_t **);
	cuzk_error_t (*fr_free)(cuzk_fr_buf_t *);
	cuzk_error_t (*fr_upload)(cuzk_fr_buf_t *, uint64_t, const void *, uint64_t);
	cuzk_error_t (*fr_download)(cuzk_fr_buf_t *, uint64_t, void *, uint64_t);
	cuzk_error_t (*fr_zero)(cuzk_fr_buf_t *, uint64_t, uint64_t);
	cuzk_error_t (*fr_mul)(cuzk_fr_buf_t *, const cuzk_fr_buf_t *, uint64_t);
	cuzk_error_t (*fr_quotient)(cuzk_fr_buf_t *, const cuzk_fr_buf_t *, uint32_t, const void *);
	cuzk_error_t (*groth16_h)(cuzk_fr_buf_t *, cuzk_fr_buf_t *, cuzk_fr_buf_t *, uint32_t, const void *, uint64_t *);
	cuzk_error_t (*fr_compact)(cuzk_fr_buf_t *, uint64_t, const cuzk_fr_buf_t *, uint64_t, uint64_t, const uint64_t *, uint64_t *);
	cuzk_error_t (*ntt_device)(cuzk_fr_buf_t *, uint64_t, uint32_t, const cuzk_ntt_cfg_t *);
	cuzk_error_t (*ntt_host)(int32_t, void *, uint32_t, const cuzk_ntt_cfg_t *);
	cuzk_error_t (*ntt_table)(int32_t, uint32_t);
	cuzk_error_t (*bases_upload)(int32_t, int32_t, const void *, uint64_t, cuzk_bases_t **);
	cuzk_error_t (*bases_free)(cuzk_bases_t *);
	cuzk_error_t (*bases_alloc)(int32_t, int32_t, uint64_t, cuzk_bases_t **);
	cuzk_error_t (*bases_write)(cuzk_bases_t *, uint64_t, const void *, uint64_t);
	cuzk_error_t (*bases_write_encoded)(cuzk_bases_t *, uint64_t, const void *, uint64_t, uint64_t *, uint32_t *);
	cuzk_error_t (*bases_shift)(cuzk_bases_t *);
	cuzk_error_t (*bases_unshift)(cuzk_bases_t *);
	cuzk_error_t (*bases_pair)(cuzk_bases_t *);
	cuzk_error_t (*bases_unpair)(cuzk_bases_t *);
	cuzk_error_t (*msm_host)(cuzk_bases_t *, const void *, uint64_t, void *);
	cuzk_error_t (*msm_device)(cuzk_bases_t *, cuzk_fr_buf_t *, uint64_t, uint64_t, void *);
	cuzk_error_t (*msm_batch)(cuzk_msm_job_t *, uint32_t, void *);
	// debug_field is NULL when the library was built without test kernels.
	cuzk_error_t (*debug_field)(int32_t, int32_t, int32_t, const void *, const void *, void *, uint64_t);
	// Resident matrices and compact witnesses.
	cuzk_error_t (*matrix_upload)(int32_t, const cuzk_matrix_desc_t *, const void *, uint64_t, cuzk_matrix_t **);
	cuzk_error_t (*matrix_free)(cuzk_matrix_t *);
	cuzk_error_t (*matrix_mulvec)(const cuzk_matrix_t *const *, cuzk_fr_buf_t *const *, uint32_t, const cuzk_fr_buf_t *, uint64_t);
	cuzk_error_t (*witness_decode)(cuzk_fr_buf_t *, uint64_t, uint64_t, const uint64_t *, const void *, uint64_t, const uint32_t *);
	cuzk_error_t (*fr_copy)(cuzk_fr_buf_t *, uint64_t, const cuzk_fr_buf_t *, uint64_t, uint64_t);
	// Fixed-base scalar multiplication.
	cuzk_error_t (*fixedbase_new)(int32_t, int32_t, const void *, cuzk_fixedbase_t **);
	cuzk_error_t (*fixedbase_free)(cuzk_fixedbase_t *);
	cuzk_error_t (*fixedbase_mul)(cuzk_fixedbase_t *, const void *, uint64_t, void *);
	cuzk_error_t (*g1_dft)(int32_t, const void *, uint64_t, uint32_t, const void *, const void *, const void *, void *,
		uint64_t *, const int32_t *);
} cuzk_table;

// cuzk_open loads path and resolves every symbol; on failure it returns NULL
// and a malloc'd message in *err.
static cuzk_table *cuzk_open(const char *path, char **err) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		*err = strdup(e ? e : "dlopen failed");
		return NULL;
	}
	cuzk_table *t = (cuzk_table *)calloc(1, sizeof(cuzk_table));
	t->handle = h;
#define SYM(field, name)                                   \
	do {                                                   \
		*(void **)(&t->field) = dlsym(h, name);            \
		if (!t->field) {                                   \
			const char *e = dlerror();                     \
			*err = strdup(e ? e : "dlsym failed: " name);  \
			dlclose(h);                                    \
			free(t);                                       \
			return NULL;                                   \
		}                                                  \
	} while (0)
	SYM(abi_version, "cuzk_abi_version");
	SYM(error_free, "cuzk_error_free");
	SYM(device_count, "cuzk_device_count");
	SYM(device_props, "cuzk_device_props");
	SYM(fr_alloc, "cuzk_fr_alloc");
	SYM(fr_free, "cuzk_fr_free");
	SYM(fr_upload, "cuzk_fr_upload");
	SYM(fr_download, "cuzk_fr_download");
	SYM(fr_zero, "cuzk_fr_zero");
	SYM(fr_mul, "cuzk_fr_mul");
	SYM(fr_quotient, "cuzk_fr_quotient");
	SYM(groth16_h, "cuzk_groth16_h");
	SYM(fr_compact, "cuzk_fr_compact");
	SYM(ntt_device, "cuzk_ntt_device");
	SYM(ntt_host, "cuzk_ntt_host");
	SYM(ntt_table, "cuzk_ntt_table");
	// Resident matrices and compact witnesses.
	SYM(matrix_upload, "cuzk_matrix_upload");
	SYM(matrix_free, "cuzk_matrix_free");
	SYM(matrix_mulvec, "cuzk_matrix_mulvec");
	SYM(witness_decode, "cuzk_witness_decode");
	SYM(fr_copy, "cuzk_fr_copy");
	SYM(bases_upload, "cuzk_bases_upload");
	SYM(bases_free, "cuzk_bases_free");
	SYM(bases_alloc, "cuzk_bases_alloc");
	SYM(bases_write, "cuzk_bases_write");
	SYM(bases_write_encoded, "cuzk_bases_write_encoded");
	SYM(bases_shift, "cuzk_bases_shift");
	SYM(bases_unshift, "cuzk_bases_unshift");
	SYM(bases_pair, "cuzk_bases_pair");
	SYM(bases_unpair, "cuzk_bases_unpair");
	SYM(msm_host, "cuzk_msm_host");
	SYM(msm_device, "cuzk_msm_device");
	SYM(msm_batch, "cuzk_msm_batch");
	// Fixed-base scalar multiplication.
	SYM(fixedbase_new, "cuzk_fixedbase_new");
	SYM(fixedbase_free, "cuzk_fixedbase_free");
	SYM(fixedbase_mul, "cuzk_fixedbase_mul");
	SYM(g1_dft, "cuzk_g1_dft");
#undef SYM
	// Optional: only a test build of the library (make TEST_KERNELS=1) has the field-op checker.
	*(void **)(&t->debug_field) = dlsym(h, "cuzk_debug_field");
	dlerror();
	return t;
}

static int t_abi_version(cuzk_table *t) { return t->abi_version(); }
static void t_error_free(cuzk_table *t, char *m) { t->error_free(m); }
static cuzk_error_t t_device_count(cuzk_table *t, int32_t *o) { return t->device_count(o); }
static cuzk_error_t t_device_props(cuzk_table *t, int32_t d, cuzk_device_props_t *o) { return t->device_props(d, o); }
static cuzk_error_t t_fr_alloc(cuzk_table *t, int32_t d, uint64_t n, uintptr_t *o) {
	cuzk_fr_buf_t *b = NULL;
	cuzk_error_t e = t->fr_alloc(d, n, &b);
	*o = (uintptr_t)b;
	return e;
}
static cuzk_error_t t_fr_free(cuzk_table *t, uintptr_t b) { return t->fr_free((cuzk_fr_buf_t *)b); }
static cuzk_error_t t_fr_upload(cuzk_table *t, uintptr_t b, uint64_t off, const void *src, uint64_t n) {
	return t->fr_upload((cuzk_fr_buf_t *)b, off, src, n);
}
static cuzk_error_t t_fr_download(cuzk_table *t, uintptr_t b, uint64_t off, void *dst, uint64_t n) {
	return t->fr_download((cuzk_fr_buf_t *)b, off, dst, n);
}
static cuzk_error_t t_fr_zero(cuzk_table *t, uintptr_t b, uint64_t off, uint64_t n) {
	return t->fr_zero((cuzk_fr_buf_t *)b, off, n);
}
static cuzk_error_t t_fr_mul(cuzk_table *t, uintptr_t a, uintptr_t b, uint64_t n) {
	return t->fr_mul((cuzk_fr_buf_t *)a, (const cuzk_fr_buf_t *)b, n);
}
static cuzk_error_t t_fr_quotient(cuzk_table *t, uintptr_t a, uintptr_t c, uint32_t log_n, const void *z) {
	return t->fr_quotient((cuzk_fr_buf_t *)a, (const cuzk_fr_buf_t *)c, log_n, z);
}
static cuzk_error_t t_groth16_h(cuzk_table *t, uintptr_t a, uintptr_t b, uintptr_t c, uint32_t log_n, const void *shift,
		uint64_t *ns) {
	return t->groth16_h((cuzk_fr_buf_t *)a, (cuzk_fr_buf_t *)b, (cuzk_fr_buf_t *)c, log_n, shift, ns);
}
static cuzk_error_t t_fr_compact(cuzk_table *t, uintptr_t dst, uint64_t doff, uintptr_t src, uint64_t soff, uint64_t n,
		const uint64_t *mask, uint64_t *selected) {
	return t->fr_compact((cuzk_fr_buf_t *)dst, doff, (const cuzk_fr_buf_t *)src, soff, n, mask, selected);
}
static cuzk_error_t t_ntt_device(cuzk_table *t, uintptr_t b, uint64_t off, uint32_t logn, const cuzk_ntt_cfg_t *c) {
	return t->ntt_device((cuzk_fr_buf_t *)b, off, logn, c);
}
static cuzk_error_t t_ntt_table(cuzk_table *t, int32_t d, uint32_t logn) { return t->ntt_table(d, logn); }
static cuzk_error_t t_ntt_host(cuzk_table *t, int32_t d, void *data, uint32_t logn, const cuzk_ntt_cfg_t *c) {
	return t->ntt_host(d, data, logn, c);
}
static cuzk_error_t t_bases_upload(cuzk_table *t, int32_t d, int32_t g, const void *p, uint64_t n, uintptr_t *o) {
	cuzk_bases_t *b = NULL;
	cuzk_error_t e = t->bases_upload(d, g, p, n, &b);
	*o = (uintptr_t)b;
	return e;
}
static cuzk_error_t t_bases_free(cuzk_table *t, uintptr_t b) { return t->bases_free((cuzk_bases_t *)b); }
static cuzk_error_t t_bases_alloc(cuzk_table *t, int32_t d, int32_t g, uint64_t n, uintptr_t *o) {
	cuzk_bases_t *b = NULL;
	cuzk_error_t e = t->bases_alloc(d, g, n, &b);
	*o = (uintptr_t)b;
	return e;
}
static cuzk_error_t t_bases_write(cuzk_table *t, uintptr_t b, uint64_t off, const void *p, uint64_t n) {
	return t->bases_write((cuzk_bases_t *)b, off, p, n);
}
static cuzk_error_t t_bases_shift(cuzk_table *t, uintptr_t b) { return t->bases_shift((cuzk_bases_t *)b); }
static cuzk_error_t t_bases_unshift(cuzk_table *t, uintptr_t b) { return t->bases_unshift((cuzk_bases_t *)b); }
static cuzk_error_t t_bases_pair(cuzk_table *t, uintptr_t b) { return t->bases_pair((cuzk_bases_t *)b); }
static cuzk_error_t t_bases_unpair(cuzk_table *t, uintptr_t b) { return t->bases_unpair((cuzk_bases_t *)b); }
static cuzk_error_t t_bases_write_encoded(cuzk_table *t, uintptr_t b, uint64_t off, const void *p, uint64_t n, uint64_t *bad, uint32_t *reason) {
	return t->bases_write_encoded((cuzk_bases_t *)b, off, p, n, bad, reason);
}
static cuzk_error_t t_msm_host(cuzk_table *t, uintptr_t b, const void *s, uint64_t n, void *out) {
	return t->msm_host((cuzk_bases_t *)b, s, n, out);
}
// t_msm_batch builds the job array of cuzk_msm_batch in C memory from the jobs' columns, and
// copies each job's device time back to ns.
static cuzk_error_t t_msm_batch(cuzk_table *t, const uintptr_t *bases, const uintptr_t *scalars, const uint64_t *off,
		const uint64_t *n, const uint32_t *rev, const uint32_t *plain, uint64_t *ns, uint32_t count, void *out) {
	cuzk_msm_job_t *jobs = calloc(count ? count : 1, sizeof(cuzk_msm_job_t));
	if (!jobs) {
		cuzk_error_t e = {CUZK_ERR_OOM, NULL};
		return e;
	}
	for (uint32_t i = 0; i < count; i++) {
		jobs[i].bases = (cuzk_bases_t *)bases[i];
		jobs[i].scalars = (cuzk_fr_buf_t *)scalars[i];
		jobs[i].off = off[i];
		jobs[i].n = n[i];
		jobs[i].scalars_bitrev = rev[i];
		jobs[i].scalars_plain = plain[i];
	}
	cuzk_error_t e = t->msm_batch(jobs, count, out);
	for (uint32_t i = 0; i < count; i++) ns[i] = jobs[i].device_ns;
	free(jobs);
	return e;
}
static cuzk_error_t t_msm_device(cuzk_table *t, uintptr_t b, uintptr_t s, uint64_t off, uint64_t n, void *out) {
	return t->msm_device((cuzk_bases_t *)b, (cuzk_fr_buf_t *)s, off, n, out);
}
static int t_has_debug_field(cuzk_table *t) { return t->debug_field != NULL; }
static cuzk_error_t t_debug_field(cuzk_table *t, int32_t d, int32_t f, int32_t op, const void *a, const void *b, void *o, uint64_t n) {
	return t->debug_field(d, f, op, a, b, o, n);
}

// Fixed-base scalar multiplication.
static cuzk_error_t t_fixedbase_new(cuzk_table *t, int32_t d, int32_t g, const void *base, uintptr_t *o) {
	cuzk_fixedbase_t *fb = NULL;
	cuzk_error_t e = t->fixedbase_new(d, g, base, &fb);
	*o = (uintptr_t)fb;
	return e;
}
static cuzk_error_t t_fixedbase_free(cuzk_table *t, uintptr_t fb) { return t->fixedbase_free((cuzk_fixedbase_t *)fb); }
static cuzk_error_t t_fixedbase_mul(cuzk_table *t, uintptr_t fb, const void *s, uint64_t n, void *out) {
	return t->fixedbase_mul((cuzk_fixedbase_t *)fb, s, n, out);
}
// flags is two words of C memory: the stages done (uint64_t), then the cancel flag (int32_t).
static cuzk_error_t t_g1_dft(cuzk_table *t, int32_t d, const void *pts, uint64_t n, uint32_t log_n, const void *w,
		const void *tw, const void *s, void *out, void *flags) {
	return t->g1_dft(d, pts, n, log_n, w, tw, s, out, (uint64_t *)flags, (const int32_t *)((char *)flags + 8));
}

// Resident matrices and compact witnesses. The descriptor is built here, in C
// memory, so that no Go memory holding Go pointers crosses the boundary.
static cuzk_error_t t_matrix_upload(cuzk_table *t, int32_t d, uint64_t rows, uint64_t cols, uint32_t col_bits,
		const uint8_t *row_len, const uint32_t *block_ptr, uint64_t n_long, const uint32_t *long_rows,
		const uint32_t *long_lens, uint64_t n_words, const uint32_t *words, const void *coeffs, uint64_t n_coeffs,
		uintptr_t *o) {
	cuzk_matrix_desc_t desc = {rows, cols, col_bits, row_len, block_ptr, n_long, long_rows, long_lens, n_words, words};
	cuzk_matrix_t *m = NULL;
	cuzk_error_t e = t->matrix_upload(d, &desc, coeffs, n_coeffs, &m);
	*o = (uintptr_t)m;
	return e;
}
static cuzk_error_t t_matrix_free(cuzk_table *t, uintptr_t m) { return t->matrix_free((cuzk_matrix_t *)m); }
// ms and outs are count handles each (uintptr_t, the size of a pointer).
static cuzk_error_t t_matrix_mulvec(cuzk_table *t, const uintptr_t *ms, const uintptr_t *outs, uint32_t count,
		uintptr_t w, uint64_t off) {
	return t->matrix_mulvec((const cuzk_matrix_t *const *)ms, (cuzk_fr_buf_t *const *)outs, count,
		(const cuzk_fr_buf_t *)w, off);
}
static cuzk_error_t t_witness_decode(cuzk_table *t, uintptr_t dst, uint64_t off, uint64_t n, const uint64_t *classes,
		const void *others, uint64_t n_others, const uint32_t *block_others) {
	return t->witness_decode((cuzk_fr_buf_t *)dst, off, n, classes, others, n_others, block_others);
}
static cuzk_error_t t_fr_copy(cuzk_table *t, uintptr_t dst, uint64_t doff, uintptr_t src, uint64_t soff, uint64_t n) {
	return t->fr_copy((cuzk_fr_buf_t *)dst, doff, (const cuzk_fr_buf_t *)src, soff, n);
}
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// backend is a loaded libcuzk.so.
type backend struct {
	t    *C.cuzk_table
	path string
}

const abiVersion = int(C.CUZK_ABI_VERSION)

func openBackend(path string) (*backend, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	t := C.cuzk_open(cpath, &cerr)
	if t == nil {
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return nil, fmt.Errorf("load %s: %s: %w", path, msg, ErrNotLoaded)
	}
	b := &backend{t: t, path: path}
	if v := int(C.t_abi_version(t)); v != abiVersion {
		return nil, fmt.Errorf("load %s: ABI version %d, want %d: %w", path, v, abiVersion, ErrNotLoaded)
	}
	return b, nil
}

// check converts a cuzk_error_t into a Go error (nil on success), copying
// and freeing the message.
func (b *backend) check(dev int, e C.cuzk_error_t) error {
	if e.code == 0 {
		return nil
	}
	msg := ""
	if e.msg != nil {
		msg = C.GoString(e.msg)
		C.t_error_free(b.t, e.msg)
	}
	return &DeviceError{Device: dev, Code: ErrorCode(e.code), Msg: msg}
}

func (b *backend) deviceCount() (int, error) {
	var n C.int32_t
	if err := b.check(-1, C.t_device_count(b.t, &n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (b *backend) deviceProps(dev int) (Properties, error) {
	var p C.cuzk_device_props_t
	if err := b.check(dev, C.t_device_props(b.t, C.int32_t(dev), &p)); err != nil {
		return Properties{}, err
	}
	return Properties{
		Name:           C.GoString(&p.name[0]),
		TotalMem:       uint64(p.total_mem),
		FreeMem:        uint64(p.free_mem),
		PoolFreeMem:    uint64(p.pool_free_mem),
		L2Bytes:        uint64(p.l2_bytes),
		Major:          int(p.major),
		Minor:          int(p.minor),
		Multiprocessor: int(p.sm_count),
		ClockKHz:       int(p.clock_khz),
		MemoryClockKHz: int(p.mem_clock_khz),
		MemoryBusBits:  int(p.mem_bus_bits),
	}, nil
}

func (b *backend) frAlloc(dev int, n uint64) (uintptr, error) {
	var h C.uintptr_t
	if err := b.check(dev, C.t_fr_alloc(b.t, C.int32_t(dev), C.uint64_t(n), &h)); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

func (b *backend) frFree(dev int, h uintptr) error {
	return b.check(dev, C.t_fr_free(b.t, C.uintptr_t(h)))
}

func (b *backend) frUpload(dev int, h uintptr, off uint64, src unsafe.Pointer, n uint64) error {
	return b.check(dev, C.t_fr_upload(b.t, C.uintptr_t(h), C.uint64_t(off), src, C.uint64_t(n)))
}

func (b *backend) frDownload(dev int, h uintptr, off uint64, dst unsafe.Pointer, n uint64) error {
	return b.check(dev, C.t_fr_download(b.t, C.uintptr_t(h), C.uint64_t(off), dst, C.uint64_t(n)))
}

func (b *backend) frZero(dev int, h uintptr, off, n uint64) error {
	return b.check(dev, C.t_fr_zero(b.t, C.uintptr_t(h), C.uint64_t(off), C.uint64_t(n)))
}

func (b *backend) frMul(dev int, a, bb uintptr, n uint64) error {
	return b.check(dev, C.t_fr_mul(b.t, C.uintptr_t(a), C.uintptr_t(bb), C.uint64_t(n)))
}

func (b *backend) frQuotient(dev int, a, c uintptr, logN int, zInv unsafe.Pointer) error {
	return b.check(dev, C.t_fr_quotient(b.t, C.uintptr_t(a), C.uintptr_t(c), C.uint32_t(logN), zInv))
}

func (b *backend) groth16H(dev int, a, bb, c uintptr, logN int, shift unsafe.Pointer) (time.Duration, error) {
	var ns C.uint64_t
	err := b.check(dev, C.t_groth16_h(b.t, C.uintptr_t(a), C.uintptr_t(bb), C.uintptr_t(c), C.uint32_t(logN), shift, &ns))
	return time.Duration(ns), err
}

func (b *backend) frCompact(dev int, dst uintptr, dstOff uint64, src uintptr, srcOff, n uint64, mask *uint64) (uint64, error) {
	var selected C.uint64_t
	err := b.check(dev, C.t_fr_compact(b.t, C.uintptr_t(dst), C.uint64_t(dstOff), C.uintptr_t(src), C.uint64_t(srcOff),
		C.uint64_t(n), (*C.uint64_t)(unsafe.Pointer(mask)), &selected))
	return uint64(selected), err
}

func cfgToC(cfg *NTTConfig) C.cuzk_ntt_cfg_t {
	var c C.cuzk_ntt_cfg_t
	b2i := func(b bool) C.int32_t {
		if b {
			return 1
		}
		return 0
	}
	c.inverse = b2i(cfg.Inverse)
	c.coset = b2i(cfg.Coset)
	c.in_bitrev = b2i(cfg.InputBitReversed)
	c.out_bitrev = b2i(cfg.OutputBitReversed)
	for i := 0; i < 4; i++ {
		c.shift[i] = C.uint64_t(cfg.Shift[i])
	}
	return c
}

func (b *backend) nttDevice(dev int, h uintptr, off uint64, logN int, cfg *NTTConfig) error {
	c := cfgToC(cfg)
	return b.check(dev, C.t_ntt_device(b.t, C.uintptr_t(h), C.uint64_t(off), C.uint32_t(logN), &c))
}

func (b *backend) nttHost(dev int, data unsafe.Pointer, logN int, cfg *NTTConfig) error {
	c := cfgToC(cfg)
	return b.check(dev, C.t_ntt_host(b.t, C.int32_t(dev), data, C.uint32_t(logN), &c))
}

func (b *backend) nttTable(dev, logN int) error {
	return b.check(dev, C.t_ntt_table(b.t, C.int32_t(dev), C.uint32_t(logN)))
}

func (b *backend) basesUpload(dev, group int, pts unsafe.Pointer, n uint64) (uintptr, error) {
	var h C.uintptr_t
	if err := b.check(dev, C.t_bases_upload(b.t, C.int32_t(dev), C.int32_t(group), pts, C.uint64_t(n), &h)); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

func (b *backend) basesFree(dev int, h uintptr) error {
	return b.check(dev, C.t_bases_free(b.t, C.uintptr_t(h)))
}

func (b *backend) basesAlloc(dev, group int, n uint64) (uintptr, error) {
	var h C.uintptr_t
	if err := b.check(dev, C.t_bases_alloc(b.t, C.int32_t(dev), C.int32_t(group), C.uint64_t(n), &h)); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

func (b *backend) basesWrite(dev int, h uintptr, off uint64, pts unsafe.Pointer, n uint64) error {
	return b.check(dev, C.t_bases_write(b.t, C.uintptr_t(h), C.uint64_t(off), pts, C.uint64_t(n)))
}

func (b *backend) basesShift(dev int, h uintptr) error {
	return b.check(dev, C.t_bases_shift(b.t, C.uintptr_t(h)))
}

func (b *backend) basesUnshift(dev int, h uintptr) error {
	return b.check(dev, C.t_bases_unshift(b.t, C.uintptr_t(h)))
}

func (b *backend) basesPair(dev int, h uintptr) error {
	return b.check(dev, C.t_bases_pair(b.t, C.uintptr_t(h)))
}

func (b *backend) basesUnpair(dev int, h uintptr) error {
	return b.check(dev, C.t_bases_unpair(b.t, C.uintptr_t(h)))
}

func (b *backend) basesWriteEncoded(dev int, h uintptr, off uint64, enc unsafe.Pointer, n uint64) (bad uint64, reason uint32, err error) {
	var cb C.uint64_t
	var cr C.uint32_t
	err = b.check(dev, C.t_bases_write_encoded(b.t, C.uintptr_t(h), C.uint64_t(off), enc, C.uint64_t(n), &cb, &cr))
	return uint64(cb), uint32(cr), err
}

func (b *backend) msmHost(dev int, h uintptr, scalars unsafe.Pointer, n uint64, out unsafe.Pointer) error {
	return b.check(dev, C.t_msm_host(b.t, C.uintptr_t(h), scalars, C.uint64_t(n), out))
}

func (b *backend) msmDevice(dev int, h, s uintptr, off, n uint64, out unsafe.Pointer) error {
	return b.check(dev, C.t_msm_device(b.t, C.uintptr_t(h), C.uintptr_t(s), C.uint64_t(off), C.uint64_t(n), out))
}

// msmBatch runs cuzk_msm_batch on the jobs given as columns (bases and scalars handles, offsets,
// lengths, bit-reversal widths, plain flags); out receives the Jacobian results one after the
// other, ns each job's device time.
func (b *backend) msmBatch(dev int, bases, scalars []uintptr, off, n []uint64, rev, plain []uint32, ns []uint64, out unsafe.Pointer) error {
	k := len(bases)
	if len(scalars) != k || len(off) != k || len(n) != k || len(rev) != k || len(plain) != k || len(ns) != k || k == 0 {
		return fmt.Errorf("msm batch: %d, %d, %d, %d, %d, %d and %d job columns", k, len(scalars), len(off), len(n), len(rev), len(plain), len(ns))
	}
	return b.check(dev, C.t_msm_batch(b.t, (*C.uintptr_t)(unsafe.Pointer(&bases[0])), (*C.uintptr_t)(unsafe.Pointer(&scalars[0])),
		(*C.uint64_t)(unsafe.Pointer(&off[0])), (*C.uint64_t)(unsafe.Pointer(&n[0])), (*C.uint32_t)(unsafe.Pointer(&rev[0])),
		(*C.uint32_t)(unsafe.Pointer(&plain[0])), (*C.uint64_t)(unsafe.Pointer(&ns[0])), C.uint32_t(k), out))
}

func (b *backend) debugField(dev, field, op int, a, bb, out unsafe.Pointer, n uint64) error {
	if C.t_has_debug_field(b.t) == 0 {
		return errNoTestKernels
	}
	return b.check(dev, C.t_debug_field(b.t, C.int32_t(dev), C.int32_t(field), C.int32_t(op), a, bb, out, C.uint64_t(n)))
}

// Fixed-base scalar multiplication.

func (b *backend) fixedbaseNew(dev, group int, base unsafe.Pointer) (uintptr, error) {
	var h C.uintptr_t
	if err := b.check(dev, C.t_fixedbase_new(b.t, C.int32_t(dev), C.int32_t(group), base, &h)); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

func (b *backend) fixedbaseFree(dev int, h uintptr) error {
	return b.check(dev, C.t_fixedbase_free(b.t, C.uintptr_t(h)))
}

// g1DFT runs cuzk_g1_dft; flags is the stages done (a uint64) and the cancel flag (an int32 at
// byte 8), in C memory (newDFTFlags) that other goroutines read and write atomically.
func (b *backend) g1DFT(dev int, points unsafe.Pointer, n uint64, logN int, omega, twist, scale, out unsafe.Pointer,
	flags *dftFlags) error {
	return b.check(dev, C.t_g1_dft(b.t, C.int32_t(dev), points, C.uint64_t(n), C.uint32_t(logN), omega, twist, scale,
		out, unsafe.Pointer(flags)))
}

// dftFlags is what cuzk_g1_dft reports (the stages done) and reads (cancel, nonzero to stop).
type dftFlags struct {
	stagesDone uint64
	cancel     int32
	_          int32
}

// newDFTFlags returns zeroed dftFlags in C memory, which free releases: the library writes
// them during the call while Go goroutines read them, which Go memory passed to C may not be.
func newDFTFlags() (f *dftFlags, free func()) {
	p := C.calloc(1, C.size_t(unsafe.Sizeof(dftFlags{})))
	return (*dftFlags)(p), func() { C.free(p) }
}

func (b *backend) fixedbaseMul(dev int, h uintptr, scalars unsafe.Pointer, n uint64, out unsafe.Pointer) error {
	return b.check(dev, C.t_fixedbase_mul(b.t, C.uintptr_t(h), scalars, C.uint64_t(n), out))
}

// Resident matrices and compact witnesses.

func (b *backend) matrixUpload(dev int, m *matrixArrays) (uintptr, error) {
	var h C.uintptr_t
	err := b.check(dev, C.t_matrix_upload(b.t, C.int32_t(dev), C.uint64_t(m.rows), C.uint64_t(m.cols), C.uint32_t(m.colBits),
		(*C.uint8_t)(m.rowLen), (*C.uint32_t)(m.blockPtr), C.uint64_t(m.nLong), (*C.uint32_t)(m.longRows),
		(*C.uint32_t)(m.longLens), C.uint64_t(m.nWords), (*C.uint32_t)(m.words), m.coeffs, C.uint64_t(m.nCoeffs), &h))
	if err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

func (b *backend) matrixFree(dev int, h uintptr) error {
	return b.check(dev, C.t_matrix_free(b.t, C.uintptr_t(h)))
}

func (b *backend) matrixMulVec(dev int, ms, outs []uintptr, w uintptr, off uint64) error {
	return b.check(dev, C.t_matrix_mulvec(b.t, (*C.uintptr_t)(unsafe.Pointer(&ms[0])), (*C.uintptr_t)(unsafe.Pointer(&outs[0])),
		C.uint32_t(len(ms)), C.uintptr_t(w), C.uint64_t(off)))
}

func (b *backend) witnessDecode(dev int, dst uintptr, off, n uint64, classes *uint64, others unsafe.Pointer, nOthers uint64, blockOthers *uint32) error {
	return b.check(dev, C.t_witness_decode(b.t, C.uintptr_t(dst), C.uint64_t(off), C.uint64_t(n), (*C.uint64_t)(unsafe.Pointer(classes)),
		others, C.uint64_t(nOthers), (*C.uint32_t)(unsafe.Pointer(blockOthers))))
}

func (b *backend) frCopy(dev int, dst uintptr, dstOff uint64, src uintptr, srcOff, n uint64) error {
	return b.check(dev, C.t_fr_copy(b.t, C.uintptr_t(dst), C.uint64_t(dstOff), C.uintptr_t(src), C.uint64_t(srcOff), C.uint64_t(n)))
}
