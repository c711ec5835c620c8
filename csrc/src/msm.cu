// The MSM entry point: msm_t (msm.cuh) for G1 or G2 by the bases' group.
#include "msm.cuh"

namespace cuzk {

void msm_run(const cuzk_bases* b, const fr_t* d_scalars, uint64_t n, void* out, cudaStream_t s) {
  if (b->group == 1)
    msm_t<fp_t>((const g1_affine_t*)b->p, d_scalars, n, s).invoke((fp_t*)out);
  else
    msm_t<fp2_t>((const g2_affine_t*)b->p, d_scalars, n, s).invoke((fp2_t*)out);
}

}  // namespace cuzk
