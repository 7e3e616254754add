// gemm.sm90_unaligned's copies (kernels/gemm_padded.cuh): column-major matrices between the
// caller's operands, aligned only to their element size, and padded workspace buffers. Up to
// kPadMaxJobs element-wise copies run as one launch (pad_copies_kernel: A, B, C and the bias
// before the GEMM), each job on its own range of blocks; a launch can be a programmatic dependent
// of the kernel before it (the copy of D after the GEMM). Dense matrices and long columns take
// the shifted copy (kernels/shifted_copy.cuh) instead, one launch each, where it measured faster.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "entry_points.cuh"
#include "pad_copies_plan.cuh"
#include "shifted_copy.cuh"

// BOO_NVCC_FLAGS=-DBOO_PAD_FUSED=0 launches each element copy on its own (as before the fused
// launch; for measuring).
#ifndef BOO_PAD_FUSED
#define BOO_PAD_FUSED 1
#endif

namespace boo_kernels {

template <class W>
__device__ __forceinline__ void pad_copy_items(const PadCopyJob& j, int64_t item, int64_t step) {
  const W* __restrict__ src = static_cast<const W*>(j.src);
  W* __restrict__ dst = static_cast<W*>(j.dst);
  for (; item < j.items; item += step) {
    const PadCopyPlace at = pad_copy_place(j, item);
    const W* s = src + at.b * j.stride_src;
    W* d = dst + at.b * j.stride_dst;
    PadCopyElement e[kPadPerThread];
    W v[kPadPerThread];
#pragma unroll
    for (int i = 0; i < kPadPerThread; ++i) {
      e[i] = pad_copy_element(j, at, i * kPadThreads + static_cast<int>(threadIdx.x));
      if (e[i].valid) v[i] = s[e[i].c * j.ld_src + e[i].r];
    }
#pragma unroll
    for (int i = 0; i < kPadPerThread; ++i) {
      if (e[i].valid) d[e[i].c * j.ld_dst + e[i].r] = v[i];
    }
  }
}

// Every job of `jobs`, element by element (`jobs` stays in the parameter space: a job is picked by
// block). As a programmatic dependent launch it waits for the kernel before it first (otherwise
// the wait returns at once). Its own dependent (the GEMM after the copies) may launch once every
// block has started: it waits for this grid's completion before its loads.
__global__ void __launch_bounds__(kPadThreads)
    pad_copies_kernel(const __grid_constant__ PadCopyJobs jobs) {
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  const PadCopyShare share = pad_copy_share(jobs, blockIdx.x);
  const PadCopyJob& j = jobs.job[share.job];
  const int64_t item = share.item, step = share.step;
  switch (j.bytes) {
    case 1:
      pad_copy_items<uint8_t>(j, item, step);
      break;
    case 2:
      pad_copy_items<uint16_t>(j, item, step);
      break;
    default:
      pad_copy_items<uint32_t>(j, item, step);
      break;
  }
}

// Launches the jobs (none: nothing), as a programmatic dependent of the kernel before it on
// `stream` where `dependent`.
inline cudaError_t launch_pad_copies(const PadCopyJobs& jobs, bool dependent, cudaStream_t stream) {
  if (jobs.count == 0) return cudaSuccess;
  return launch_maybe_dependent(dependent, pad_copies_kernel, dim3(jobs.blocks), dim3(kPadThreads),
                                stream, jobs);
}

// A copy of kBytes-byte elements: launched now as a shifted copy where that pays
// (shifted_copy_pays; as the kernel before it's programmatic dependent where `dependent`), else
// added to `jobs` (launched now on its own where BOO_PAD_FUSED is 0 or `jobs` is full).
template <int kBytes>
cudaError_t pad_copy(PadCopyJobs* jobs, const void* src, int64_t ld_src, int64_t stride_src,
                     void* dst, int64_t ld_dst, int64_t stride_dst, int64_t rows, int64_t cols,
                     int64_t batch, cudaStream_t stream, bool dependent = false) {
  using W = typename CopyWord<kBytes>::type;
  if (BOO_SHIFTED_COPY &&
      shifted_copy_pays(ld_src, stride_src, ld_dst, stride_dst, rows, cols, batch, kBytes)) {
    return shifted_copy<W>(src, ld_src, stride_src, dst, ld_dst, stride_dst, rows, cols, batch,
                           stream, dependent);
  }
  if (BOO_PAD_FUSED && add_pad_copy(jobs, src, ld_src, stride_src, dst, ld_dst, stride_dst, rows,
                                    cols, batch, kBytes)) {
    return cudaSuccess;
  }
  PadCopyJobs one{};
  add_pad_copy(&one, src, ld_src, stride_src, dst, ld_dst, stride_dst, rows, cols, batch, kBytes);
  return launch_pad_copies(one, false, stream);
}

}  // namespace boo_kernels
