// Host-to-device copies of pageable (Go) memory through pinned staging chunks.
//
// cudaMemcpy from pageable memory stages through the driver's own pinned
// buffers with one CPU thread: ≈ 7–8 GB/s measured on the H200 hosts
// (docs/gpu-kernels.md). Here several CPU threads fill one pinned chunk while
// the copy engine moves the previous one, so the rate is bounded by the host's
// memory bandwidth and the link instead.
#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "ops.cuh"

// CUZK_STAGE_CHUNK_MIB is the size of one pinned chunk in MiB. An upload holds
// two, one filled while the copy engine drains the other; 64 MiB is ≈ 3 ms of
// the link, long enough to hide a chunk's synchronization and short enough
// that the first chunk's fill, which nothing overlaps, stays small.
#ifndef CUZK_STAGE_CHUNK_MIB
#define CUZK_STAGE_CHUNK_MIB 64
#endif
#if CUZK_STAGE_CHUNK_MIB < 1 || CUZK_STAGE_CHUNK_MIB > 1024
#error "CUZK_STAGE_CHUNK_MIB must be in [1, 1024]"
#endif

// CUZK_STAGE_THREADS is the most threads (the caller included) that fill one
// chunk: 8 reached 31 GB/s on a 32-core host, about the link's rate.
#ifndef CUZK_STAGE_THREADS
#define CUZK_STAGE_THREADS 8
#endif
#if CUZK_STAGE_THREADS < 1 || CUZK_STAGE_THREADS > 64
#error "CUZK_STAGE_THREADS must be in [1, 64]"
#endif

namespace cuzk {

constexpr size_t STAGE_CHUNK = (size_t)CUZK_STAGE_CHUNK_MIB << 20;  // bytes per pinned chunk
constexpr size_t STAGE_MIN = 16ull << 20;        // bytes: smaller copies take the driver's path
constexpr size_t STAGE_THREAD_MIN = 4ull << 20;  // bytes per filling thread, at least: less is not worth a hand-off
// STAGE_CORES_PER_THREAD: one filling thread per this many host cores, so
// that an upload leaves most cores to the caller's other work (synthesis).
constexpr unsigned STAGE_CORES_PER_THREAD = 4;

// stage_threads is the number of threads that fill one chunk on this host.
static unsigned stage_threads() {
  static const unsigned t =
      std::max(1u, std::min((unsigned)CUZK_STAGE_THREADS, std::thread::hardware_concurrency() / STAGE_CORES_PER_THREAD));
  return t;
}

// The pool keeps freed chunks for the next upload: two per upload in flight.
static std::mutex g_stage_mu;
static std::vector<void*> g_stage_free;

static void* take_chunk() {
  {
    std::lock_guard<std::mutex> g(g_stage_mu);
    if (!g_stage_free.empty()) {
      void* p = g_stage_free.back();
      g_stage_free.pop_back();
      return p;
    }
  }
  void* p = nullptr;
  if (cudaHostAlloc(&p, STAGE_CHUNK, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();  // clear the error: the caller falls back to the driver's path
    return nullptr;
  }
  return p;
}

static void give_chunk(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> g(g_stage_mu);
  g_stage_free.push_back(p);
}

// fill copies len bytes with up to `threads` threads.
static void fill(char* dst, const char* src, size_t len, unsigned threads) {
  unsigned t = (unsigned)std::min<size_t>(threads, std::max<size_t>(1, len / STAGE_THREAD_MIN));
  if (t <= 1) {
    memcpy(dst, src, len);
    return;
  }
  std::vector<std::thread> ts;
  size_t part = (len + t - 1) / t;
  for (unsigned i = 1; i < t; i++) {
    size_t lo = i * part, hi = std::min(len, lo + part);
    if (lo >= hi) continue;
    try {
      ts.emplace_back([=] { memcpy(dst + lo, src + lo, hi - lo); });
    } catch (...) {  // no thread to be had: copy this part here
      memcpy(dst + lo, src + lo, hi - lo);
    }
  }
  memcpy(dst, src, std::min(len, part));
  for (auto& th : ts) th.join();
}

void upload_pageable(void* dst, const void* src, size_t bytes, cudaStream_t s) {
  void* chunk[2] = {nullptr, nullptr};
  if (bytes >= STAGE_MIN) {
    chunk[0] = take_chunk();
    chunk[1] = chunk[0] ? take_chunk() : nullptr;
  }
  if (!chunk[1]) {
    give_chunk(chunk[0]);
    CUZK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    CUZK_CUDA(cudaStreamSynchronize(s));
    return;
  }
  cudaEvent_t done[2] = {nullptr, nullptr};
  auto release = [&] {
    for (int b = 0; b < 2; b++) {
      if (done[b]) cudaEventDestroy(done[b]);
      give_chunk(chunk[b]);
    }
  };
  try {
    for (int b = 0; b < 2; b++) CUZK_CUDA(cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming));
    const unsigned threads = stage_threads();
    bool used[2] = {false, false};
    size_t i = 0;
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK, i++) {
      const int b = i & 1;
      const size_t len = std::min(STAGE_CHUNK, bytes - off);
      if (used[b]) CUZK_CUDA(cudaEventSynchronize(done[b]));  // chunk b's previous copy has landed
      fill((char*)chunk[b], (const char*)src + off, len, threads);
      CUZK_CUDA(cudaMemcpyAsync((char*)dst + off, chunk[b], len, cudaMemcpyHostToDevice, s));
      CUZK_CUDA(cudaEventRecord(done[b], s));
      used[b] = true;
    }
    CUZK_CUDA(cudaStreamSynchronize(s));
  } catch (...) {
    cudaStreamSynchronize(s);  // no copy may still read a chunk handed back to the pool
    release();
    throw;
  }
  release();
}

}  // namespace cuzk
