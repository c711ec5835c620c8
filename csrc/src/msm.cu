// The MSM entry points: msm_t (msm.cuh) for G1 or G2 by the bases' group, one MSM or a batch.
#include <chrono>
#include <string>

#include "msm.cuh"

namespace cuzk {

void msm_run(const cuzk_bases* b, const fr_t* d_scalars, uint64_t n, void* out, cudaStream_t s) {
  if (b->group == 1)
    msm_t<fp_lazy_t>((const affine_t<fp_lazy_t>*)b->p, d_scalars, n, s).invoke((fp_lazy_t*)out);
  else
    msm_t<fp2_t>((const g2_affine_t*)b->p, d_scalars, n, s).invoke((fp2_t*)out);
}

void msm_batch(cuzk_msm_job_t* jobs, uint32_t count, void* out) {
  require(jobs != nullptr || count == 0, "jobs is NULL");
  require(out != nullptr || count == 0, "out is NULL");
  for (uint32_t i = 0; i < count; i++) {
    const cuzk_msm_job_t& j = jobs[i];
    try {
      require(j.bases != nullptr, "bases is NULL");
      check_msm(j.bases, j.scalars, j.off, j.n);
      require(j.bases->dev == jobs[0].bases->dev, "the jobs' bases live on different devices");
    } catch (const error& e) {
      throw error(e.code, "job " + std::to_string(i) + ": " + e.what());
    }
  }
  if (count == 0) return;
  set_device(jobs[0].bases->dev);
  stream_t s;
  char* o = (char*)out;
  for (uint32_t i = 0; i < count; i++) {
    cuzk_msm_job_t& j = jobs[i];
    const auto start = std::chrono::steady_clock::now();
    msm_run(j.bases, j.scalars->p + j.off, j.n, o, s);  // waits for s
    j.device_ns = (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                                  start)
                      .count();
    o += 3 * (j.bases->group == 1 ? sizeof(fp_t) : sizeof(fp2_t));  // X, Y, Z
  }
}

}  // namespace cuzk
