// Device plumbing shared by every part of libcuzk: the library's error type,
// checks of CUDA calls, RAII wrappers for streams and stream-ordered device
// allocations, and device selection.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../include/cuzk.h"

// CUZK_MAX_DEVICES is the number of device indices the library accepts: the
// per-device tables are a fixed array of this many entries (one pointer
// each), so no lookup ever needs a lock beyond the table's creation.
#ifndef CUZK_MAX_DEVICES
#define CUZK_MAX_DEVICES 64
#endif
#if CUZK_MAX_DEVICES < 1 || CUZK_MAX_DEVICES > 4096
#error "CUZK_MAX_DEVICES must be in [1, 4096]"
#endif

namespace cuzk {

constexpr int MAX_DEVICES = CUZK_MAX_DEVICES;

// error carries a cuzk error code and message; thrown inside the library and
// turned into cuzk_error_t at the ABI boundary (api.cu).
struct error : std::runtime_error {
  int code;
  error(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  int code = CUZK_ERR_CUDA;
  if (e == cudaErrorMemoryAllocation) code = CUZK_ERR_OOM;
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) code = CUZK_ERR_NO_DEVICE;
  char buf[512];
  snprintf(buf, sizeof buf, "%s: %s (%s at %s:%d)", cudaGetErrorName(e), cudaGetErrorString(e), what, file, line);
  throw error(code, buf);
}

#define CUZK_CUDA(call)                                                  \
  do {                                                                   \
    cudaError_t e_ = (call);                                             \
    if (e_ != cudaSuccess) ::cuzk::throw_cuda(e_, #call, __FILE__, __LINE__); \
  } while (0)

#define CUZK_LAUNCHED() CUZK_CUDA(cudaGetLastError())

inline void require(bool ok, const std::string& msg) {
  if (!ok) throw error(CUZK_ERR_INVALID, msg);
}

// stream_t owns a non-blocking stream.
struct stream_t {
  cudaStream_t s = nullptr;
  stream_t() { CUZK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_t() {
    if (s) cudaStreamDestroy(s);
  }
  stream_t(const stream_t&) = delete;
  stream_t& operator=(const stream_t&) = delete;
  void sync() { CUZK_CUDA(cudaStreamSynchronize(s)); }
  operator cudaStream_t() const { return s; }
};

// read_back copies count values of T from device memory d to host memory h on the stream s and
// waits for the stream: the one round trip a host decision on device results takes.
template <class T>
void read_back(T* h, const T* d, size_t count, cudaStream_t s) {
  CUZK_CUDA(cudaMemcpyAsync(h, d, count * sizeof(T), cudaMemcpyDeviceToHost, s));
  CUZK_CUDA(cudaStreamSynchronize(s));
}

// dbuf_t is a stream-ordered device allocation of n elements of T.
template <class T>
struct dbuf_t {
  T* p = nullptr;
  size_t n = 0;
  cudaStream_t s = nullptr;
  dbuf_t() = default;
  dbuf_t(size_t count, cudaStream_t st) : n(count), s(st) {
    if (n) CUZK_CUDA(cudaMallocAsync((void**)&p, n * sizeof(T), s));
  }
  ~dbuf_t() { reset(); }
  void reset() {
    if (p) cudaFreeAsync(p, s);
    p = nullptr;
    n = 0;
  }
  dbuf_t(const dbuf_t&) = delete;
  dbuf_t& operator=(const dbuf_t&) = delete;
  dbuf_t(dbuf_t&& o) noexcept : p(o.p), n(o.n), s(o.s) { o.p = nullptr; o.n = 0; }
  dbuf_t& operator=(dbuf_t&& o) noexcept {
    reset();
    p = o.p; n = o.n; s = o.s;
    o.p = nullptr; o.n = 0;
    return *this;
  }
  operator T*() const { return p; }
};

// set_device selects dev for the calling thread after checking the index
// against the devices present and MAX_DEVICES. The first time for each device
// it makes the device's default memory pool keep freed stream-ordered
// allocations (dbuf_t) for reuse instead of returning them to the driver at
// each synchronization.
void set_device(int dev);

// device_malloc is cudaMalloc for buffers that outlive a call (bases, scalar
// buffers, matrices, tables) on the current device. When the driver has too
// little memory it first takes back what the device's memory pool holds
// unused (the freed dbuf_t allocations set_device has it keep), then tries
// once more.
void* device_malloc(size_t bytes);

// pool_unused_bytes returns the bytes dev's memory pool holds but no
// allocation uses (0 when the pool cannot be queried): free memory for
// dbuf_t, and for device_malloc after it trims the pool.
uint64_t pool_unused_bytes(int dev);

}  // namespace cuzk
