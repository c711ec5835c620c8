// cuda_emu.h — a host emulation of the CUDA features that the kernels of src/spmv.cuh and
// src/witness.cuh use, so that their source runs (slowly) on a machine without a GPU: one
// std::thread per CUDA thread, the blocks of a grid one after another, the 32 lanes of a warp
// meeting at a barrier at each warp intrinsic (shuffles, ballot) and the threads of a block at
// __syncthreads. Field arithmetic takes field.cuh's host path. Only for tests (gpu/emu_test.go).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
struct uint4 { unsigned x, y, z, w; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }
struct dim3 { unsigned x = 1, y = 1, z = 1; };
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
template <class T> inline T __ldg(const T* p) { return *p; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline std::mutex g_atomic;
inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
  std::lock_guard<std::mutex> g(g_atomic); auto o = *p; if (v < o) *p = v; return o;
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  std::lock_guard<std::mutex> g(g_atomic); auto o = *p; *p = o + v; return o;
}
// barrier_t blocks the threads that call arrive_and_wait until n of them have (C++17 has no
// barrier of its own).
struct barrier_t {
  explicit barrier_t(unsigned count) : n(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lk(mu);
    const unsigned gen = generation;
    if (++arrived == n) {
      arrived = 0;
      generation++;
      cv.notify_all();
      return;
    }
    cv.wait(lk, [&] { return generation != gen; });
  }
  const unsigned n;
  unsigned arrived = 0, generation = 0;
  std::mutex mu;
  std::condition_variable cv;
};
struct warp_t { barrier_t bar{32}; uint64_t slot[32]; };
inline std::vector<std::unique_ptr<warp_t>> g_warps;
inline std::unique_ptr<barrier_t> g_block_bar;
inline warp_t& mywarp() { return *g_warps[threadIdx.x / 32]; }
inline void __syncthreads() { g_block_bar->arrive_and_wait(); }
template <class T> inline uint64_t to64(T v) { uint64_t r = 0; memcpy(&r, &v, sizeof v); return r; }
template <class T> inline T from64(uint64_t v) { T r; memcpy(&r, &v, sizeof r); return r; }
template <class T> inline T exch(T v, int src, bool take) {
  auto& w = mywarp(); unsigned lane = threadIdx.x % 32;
  w.slot[lane] = to64(v); w.bar.arrive_and_wait();
  T r = take ? from64<T>(w.slot[src]) : v; w.bar.arrive_and_wait(); return r;
}
template <class T> inline T __shfl_up_sync(unsigned, T v, unsigned d) { unsigned l = threadIdx.x % 32; return exch(v, (int)l - (int)d, l >= d); }
template <class T> inline T __shfl_down_sync(unsigned, T v, unsigned d) { unsigned l = threadIdx.x % 32; return exch(v, l + d, l + d < 32); }
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return exch(v, src, true); }
inline unsigned __ballot_sync(unsigned, bool p) {
  auto& w = mywarp(); unsigned lane = threadIdx.x % 32;
  w.slot[lane] = p; w.bar.arrive_and_wait();
  unsigned m = 0; for (int i = 0; i < 32; i++) if (w.slot[i]) m |= 1u << i;
  w.bar.arrive_and_wait(); return m;
}
// launch runs fn for every thread of every block, one block at a time.
template <class F> void launch(unsigned grid, unsigned block, F fn) {
  blockDim.x = block; gridDim.x = grid;
  for (unsigned b = 0; b < grid; b++) {
    g_warps.clear();
    for (unsigned i = 0; i < (block + 31) / 32; i++) g_warps.push_back(std::make_unique<warp_t>());
    g_block_bar = std::make_unique<barrier_t>(block);
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; t++) ts.emplace_back([=] { threadIdx.x = t; blockIdx.x = b; fn(); });
    for (auto& t : ts) t.join();
  }
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
