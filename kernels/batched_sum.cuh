// Deterministic sums of fp32 partials that a kernel just wrote (split-K slices, backward-weight
// slices), shared by gemm_split_parallel.cuh's and conv_wgrad_direct.cuh's reductions.
#pragma once

namespace boo_kernels {

// add(load(s)) for s = first, first + step, ... below end, in that order; the loads of kBatch of
// them are issued before any of their additions, so a thread waits for the L2 once a batch rather
// than once a slice. The order of the additions does not depend on kBatch.
template <int kBatch, class Load, class Add>
__device__ __forceinline__ void add_in_batches(int first, int end, int step, const Load& load,
                                               const Add& add) {
  for (int s0 = first; s0 < end; s0 += kBatch * step) {
    decltype(load(s0)) v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (s0 + j * step < end) v[j] = load(s0 + j * step);
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (s0 + j * step < end) add(v[j]);
    }
  }
}

}  // namespace boo_kernels
