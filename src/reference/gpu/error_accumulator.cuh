// Device side of the output comparisons (gpu_kernels.cu for GEMMs, conv_ref_kernels.cu for
// convolutions): per-thread sums of the error, folded per warp and added to one ErrOut.
#pragma once

#include <cuda_runtime.h>

#include "gpu_kernels.h"

namespace boo::reference::gpu::detail {

__device__ inline void atomic_max_double(double* addr, double v) {
  unsigned long long* a = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *a;
  while (__longlong_as_double(old) < v) {
    const unsigned long long assumed = old;
    old = atomicCAS(a, assumed, __double_as_longlong(v));
    if (old == assumed) break;
  }
}

struct ErrorAccumulator {
  double diff2 = 0.0;
  double ref2 = 0.0;
  double max_abs = 0.0;
  unsigned long long nonfinite = 0;

  // One output element: a non-finite value counts apart and adds no error.
  __device__ void add(double got, double ref) {
    if (!isfinite(got)) {
      ++nonfinite;
      return;
    }
    const double e = got - ref;
    diff2 += e * e;
    ref2 += ref * ref;
    max_abs = fmax(max_abs, fabs(e));
  }

  // Folds the warp's sums and adds them to `out`. Every thread of the warp must call it.
  __device__ void flush(ErrOut* out) {
    for (int off = 16; off > 0; off /= 2) {
      diff2 += __shfl_down_sync(0xffffffffu, diff2, off);
      ref2 += __shfl_down_sync(0xffffffffu, ref2, off);
      nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, off);
      max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, off));
    }
    if ((threadIdx.x & 31) == 0) {
      atomicAdd(&out->diff2, diff2);
      atomicAdd(&out->ref2, ref2);
      atomicAdd(&out->nonfinite, nonfinite);
      atomic_max_double(&out->max_abs, max_abs);
    }
  }
};

}  // namespace boo::reference::gpu::detail
