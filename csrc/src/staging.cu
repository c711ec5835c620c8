// Host-to-device copies of pageable (Go) memory through pinned staging chunks.
//
// cudaMemcpy from pageable memory stages through the driver's own pinned
// buffers with one CPU thread: ≈ 7–8 GB/s measured on the H200 hosts
// (docs/gpu-kernels.md). Here several CPU threads fill one pinned chunk while
// the copy engine moves the previous one, so the rate is bounded by the host's
// memory bandwidth and the link instead.
#include <algorithm>
#include <thread>
#include <vector>

#include "common.cuh"

namespace cuzk {

constexpr size_t STAGE_CHUNK = 64ull << 20;      // bytes per pinned chunk
constexpr size_t STAGE_MIN = 16ull << 20;        // smaller copies take the driver's path
constexpr size_t STAGE_THREAD_MIN = 4ull << 20;  // bytes per filling thread, at least

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
    const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency() / 4));
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
