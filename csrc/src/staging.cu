// Host-to-device copies of pageable (Go) memory through pinned staging chunks.
//
// cudaMemcpy from pageable memory stages through the driver's own pinned
// buffers with one CPU thread: ≈ 7–8 GB/s measured on the H200 hosts
// (docs/gpu-kernels.md). Here several CPU threads fill one pinned chunk while
// the copy engine moves the previous one, so the rate is bounded by the host's
// memory bandwidth and the link instead. The filling threads are the caller
// and the workers of one persistent pool (fill_pool_t).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
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

namespace {

// fill_pool_t copies the parts of fill jobs with worker threads that persist
// from the first job to the pool's destruction, together with each job's
// poster, which copies parts of its own job too, so that a job finishes even
// when every worker is busy or none could be started. The pool grows to
// (threads per job − 1) workers per job running at once, the parallelism of
// one new thread per part. Parts are taken and counted under the pool's lock,
// and a worker touches a job only before counting its part: a job, on its
// poster's stack, is never touched after its poster returns. Idle workers
// block on a condition variable. The destructor, run at library unload or
// process exit, wakes them and joins them once the queue is empty; no job may
// be running then.
class fill_pool_t {
 public:
  // job_t copies src[0 : len) to dst in parts of `part` bytes.
  struct job_t {
    char* dst;
    const char* src;
    size_t len, part;
    unsigned parts;
    unsigned next = 0, done = 0;  // parts taken, parts copied (under mu)
  };

  fill_pool_t() = default;
  fill_pool_t(const fill_pool_t&) = delete;
  fill_pool_t& operator=(const fill_pool_t&) = delete;

  ~fill_pool_t() {
    {
      std::lock_guard<std::mutex> g(mu);
      stop = true;
    }
    work.notify_all();
    for (auto& w : workers) w.join();
  }

  // run copies every part of j (j.parts ≥ 2) and returns when all are copied.
  void run(job_t& j) {
    std::unique_lock<std::mutex> lk(mu);
    grow((running + 1) * (j.parts - 1));
    queue.push_back(&j);  // the last call that may throw (bad_alloc): nothing has changed yet
    running++;
    work.notify_all();
    while (j.next < j.parts) copy_next(lk, j);
    finished.wait(lk, [&] { return j.done == j.parts; });
    running--;
  }

 private:
  std::mutex mu;
  std::condition_variable work;      // a job was queued, or stop
  std::condition_variable finished;  // a job's last part was copied
  std::deque<job_t*> queue;          // jobs with parts not yet taken, oldest first
  std::vector<std::thread> workers;
  unsigned running = 0;  // jobs in run
  bool stop = false;

  // grow starts workers until there are want (under mu); a thread that cannot
  // be started leaves the work to the threads there are.
  void grow(unsigned want) {
    const unsigned cap = std::max(1u, std::thread::hardware_concurrency());
    want = std::min(want, cap);
    while (workers.size() < want) {
      try {
        workers.emplace_back([this] { serve(); });
      } catch (const std::system_error&) {
        return;
      }
    }
  }

  // copy_next takes j's next part (lk held, j.next < j.parts), copies it
  // without the lock and counts it. Nothing here can throw but relocking a
  // mutex, whose failure ends the process.
  void copy_next(std::unique_lock<std::mutex>& lk, job_t& j) noexcept {
    const unsigned i = j.next++;
    if (j.next == j.parts) {
      auto it = std::find(queue.begin(), queue.end(), &j);
      if (it != queue.end()) queue.erase(it);
    }
    const size_t lo = i * j.part, hi = std::min(j.len, lo + j.part);
    char* dst = j.dst;
    const char* src = j.src;
    lk.unlock();
    if (lo < hi) memcpy(dst + lo, src + lo, hi - lo);
    lk.lock();
    if (++j.done == j.parts) finished.notify_all();
  }

  void serve() noexcept {
    std::unique_lock<std::mutex> lk(mu);
    for (;;) {
      work.wait(lk, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and no part left to copy
      copy_next(lk, *queue.front());
    }
  }
};

fill_pool_t g_fill_pool;

}  // namespace

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

// fill copies len bytes with up to `threads` threads: the caller and pool workers.
static void fill(char* dst, const char* src, size_t len, unsigned threads) {
  unsigned t = (unsigned)std::min<size_t>(threads, std::max<size_t>(1, len / STAGE_THREAD_MIN));
  if (t <= 1) {
    memcpy(dst, src, len);
    return;
  }
  fill_pool_t::job_t j{dst, src, len, (len + t - 1) / t, t};
  g_fill_pool.run(j);
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
