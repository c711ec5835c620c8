// Device selection and the device-wide memory pool setting.
#include "device.cuh"

#include <cstdint>
#include <mutex>

namespace cuzk {

// keep_freed_allocations makes dev's default memory pool keep the memory of freed
// stream-ordered allocations (dbuf_t) for reuse instead of returning it to the driver at each
// synchronization: an MSM at 2^26 allocates ≈ 15 GB of buffers a call, which otherwise the
// driver maps anew each time (≈ 15–20 ms).
static void keep_freed_allocations(int dev) {
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
    uint64_t threshold = UINT64_MAX;  // bytes the pool may hold past a synchronization: all
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
}

void set_device(int dev) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) throw_cuda(e, "cudaGetDeviceCount", __FILE__, __LINE__);
  if (dev < 0 || dev >= count || dev >= MAX_DEVICES)
    throw error(CUZK_ERR_INVALID, "device index " + std::to_string(dev) + " out of range [0, " +
                                      std::to_string(count) + ")");
  CUZK_CUDA(cudaSetDevice(dev));
  static std::once_flag pool_set[MAX_DEVICES];
  std::call_once(pool_set[dev], keep_freed_allocations, dev);
}

void* device_malloc(size_t bytes) {
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the error before trying again
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
      CUZK_CUDA(cudaMemPoolTrimTo(pool, 0));
    e = cudaMalloc(&p, bytes);
  }
  if (e != cudaSuccess) throw_cuda(e, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

uint64_t pool_unused_bytes(int dev) {
  cudaMemPool_t pool;
  uint64_t reserved = 0, used = 0;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess)
    return 0;
  return reserved > used ? reserved - used : 0;
}

}  // namespace cuzk
