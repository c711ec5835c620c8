// Device selection and the device-wide memory pool setting.
#include "device.cuh"

#include <cstdint>

namespace cuzk {

void set_device(int dev) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) throw_cuda(e, "cudaGetDeviceCount", __FILE__, __LINE__);
  if (dev < 0 || dev >= count || dev >= MAX_DEVICES)
    throw error(CUZK_ERR_INVALID, "device index " + std::to_string(dev) + " out of range [0, " +
                                      std::to_string(count) + ")");
  CUZK_CUDA(cudaSetDevice(dev));
}

void keep_freed_allocations(int dev) {
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
    uint64_t threshold = UINT64_MAX;  // bytes the pool may hold past a synchronization: all
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
}

}  // namespace cuzk
