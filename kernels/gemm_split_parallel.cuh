// gemm.sm90 parallel split-K ("psplitk<N>", space/gemm_sm90.h): K is cut into N equal slices
// that run as the batch of one persistent CUTLASS GEMM (the Inner runner, an fp32 output without
// epilogue) into an fp32 workspace, slice after slice; a reduction kernel then adds the slices of
// each output element in slice order (deterministic) and applies the epilogue:
//   D = act(alpha * scale * sum + beta * C + bias).
// Why: CUTLASS's split-K adds each tile's slices into one workspace tile, each slice waiting for
// the one before, so a few output tiles over a long K (a 1x1 convolution's backward weight,
// 128 x 384 over K = 147456, has 3 tiles of 128x128 for 132 SMs) serialize their reduction.
// Here every slice writes its own partial and the reduction reads them from L2.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "activation.cuh"
#include "batched_sum.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// The reduction's shape: rows of one output column a thread sums (4: a float4 load a slice; 1: a
// scalar one) and slices whose loads it issues at once. Up to kSplitSumFew slices, 4 rows and 8
// slices; more, 1 row and 16 slices. H200 2026-12-01
// (bench/results/2026-12-01-wgrad-splits-h200.md, each line in both shapes): 1 row was 0.2 us
// faster over 16 slices, 0.6-0.9 over 18 and 1.6 over 32, and 0.35 us slower over 2.
// BOO_SPLIT_SUM_FEW is a measuring switch.
#ifndef BOO_SPLIT_SUM_FEW
#define BOO_SPLIT_SUM_FEW 8
#endif
constexpr int kSplitSumFew = BOO_SPLIT_SUM_FEW;

// The epilogue of R consecutive rows m0.. of output column n from their fp32 sums.
template <class TD, class TBias, int kAct, bool kHasC, bool kHasBias, bool kScaled, int R>
__device__ __forceinline__ void split_epilogue(const BooGemmArgs& a, int64_t n, int64_t m0,
                                               const float (&sum)[R]) {
  float alpha = a.alpha;
  if constexpr (kScaled) alpha *= *a.alpha_scale;
  TD* d = static_cast<TD*>(a.d) + n * a.ldd;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int64_t m = m0 + i;
    if (m >= a.m) break;
    float v = alpha * sum[i];
    if constexpr (kHasC) v += a.beta * to_float(static_cast<const TD*>(a.c)[m + n * a.ldc]);
    if constexpr (kHasBias) v += to_float(static_cast<const TBias*>(a.bias)[m]);
    d[m] = from_float<TD>(activate<kAct>(v));
  }
}

// R (1 or 4) fp32 values of one slice.
template <int R>
struct SplitRows {
  float v[R];
};

// R fp32 values from p (aligned to their size).
template <int R>
__device__ __forceinline__ SplitRows<R> load_split_rows(const float* p) {
  SplitRows<R> out;
  if constexpr (R == 4) {
    const float4 u = *reinterpret_cast<const float4*>(p);
    out.v[0] = u.x, out.v[1] = u.y, out.v[2] = u.z, out.v[3] = u.w;
  } else {
    out.v[0] = *p;
  }
  return out;
}

constexpr int kSplitSumThreads = 128;
// At most this many blocks (the grid-stride loop takes the rest): 31 full waves of 16 blocks an
// SM on 132 SMs, more than any reduction needs to fill the GPU.
constexpr int64_t kSplitSumMaxBlocks = 65535;

// One thread per R consecutive rows m0.. of one output column n (grid-stride): it issues the
// loads of kBatch slices at once, then adds them in slice order; no shared memory, no barrier.
// The partials come from the L2 (the GEMM wrote them just before): each batch waits for it once.
// (Under ncu, 128 x 384 over 18 slices: 7.4 us with 4 rows and 8 slices, 5.4 us with 1 row and
// 32; cuBLASLt's reduction of 22 slices, one thread an element, 5.6 us.)
template <class TD, class TBias, int kAct, bool kHasC, bool kHasBias, bool kScaled, int R,
          int kBatch>
__global__ void __launch_bounds__(kSplitSumThreads)
    gemm_split_sum_kernel(const float* __restrict__ ws, int64_t ldw, int64_t slice_stride,
                          int splits, BooGemmArgs a) {
  static_assert(R == 1 || R == 4, "a reduction thread sums 1 or 4 rows");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // A programmatic dependent launch: the blocks start while the GEMM's last CTAs finish, and
  // wait here until the GEMM has completed and its partials are visible.
  cudaGridDependencySynchronize();
#endif
  const int64_t groups = (a.m + R - 1) / R;
  const int64_t total = groups * a.n;
  for (int64_t t = int64_t{blockIdx.x} * kSplitSumThreads + threadIdx.x; t < total;
       t += int64_t{gridDim.x} * kSplitSumThreads) {
    const int64_t n = t / groups, m0 = (t - n * groups) * R;
    // ldw is a multiple of 4 and the workspace 16-byte aligned: a vector's rows past M stay
    // inside the slice (nobody writes them; their sums are never stored).
    const float* col = ws + n * ldw + m0;
    float sum[R] = {};
    add_in_batches<kBatch>(
        0, splits, 1, [&](int s) { return load_split_rows<R>(col + s * slice_stride); },
        [&](const SplitRows<R>& part) {
#pragma unroll
          for (int r = 0; r < R; ++r) sum[r] += part.v[r];
        });
    split_epilogue<TD, TBias, kAct, kHasC, kHasBias, kScaled>(a, n, m0, sum);
  }
}

// Inner: a GemmSm90Runner with an fp32 output and no epilogue, persistent. kAlignA and kAlignB:
// elements per 16 bytes of A and B (each slice must start 16-byte aligned along K).
template <class Inner, class TD, class TBias, int kAct, bool kHasC, bool kHasBias, bool kScaled,
          int kAlignA, int kAlignB>
struct GemmSplitParallelRunner {
  static constexpr int64_t kAlignK = kAlignA > kAlignB ? kAlignA : kAlignB;
  static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
  // Workspace column stride (rows of M, a whole number of 16-byte vectors) and slice stride.
  static int64_t ldw(const BooGemmArgs& a) { return round_up(a.m, 4); }
  static int64_t slice_stride(const BooGemmArgs& a) { return ldw(a) * a.n; }
  static int64_t slices_bytes(const BooGemmArgs& a) {
    return round_up(a.splits * slice_stride(a) * static_cast<int64_t>(sizeof(float)), 256);
  }

  static const char* reject(const BooGemmArgs& a) {
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) return "empty problem";
    if (a.batch != 1) return "parallel split-K runs unbatched problems only (batch 1)";
    if (a.splits < 2 || a.splits > 256) return "parallel split-K takes 2 to 256 slices";
    if (a.k % a.splits != 0 || (a.k / a.splits) % kAlignK != 0) {
      return "parallel split-K: the slices must cut K exactly into multiples of 16 bytes";
    }
    if (kHasC && a.beta != 0.0f && a.c == nullptr) return "this kernel needs C (beta != 0)";
    if (kHasBias && a.bias == nullptr) return "this kernel needs a bias vector";
    if (kScaled && a.alpha_scale == nullptr) return "this kernel needs the scaleA*scaleB scalar";
    if (!kHasC && a.beta != 0.0f) return "this kernel has no C operand (beta must be 0)";
    return nullptr;
  }

  // The inner batched GEMM: slice s of K is batch entry s, its fp32 result at ws + s * slice.
  static BooGemmArgs inner_args(const BooGemmArgs& a, float* ws) {
    BooGemmArgs in = a;
    const int64_t k = a.k / a.splits;
    in.k = k;
    in.batch = a.splits;
    // K-strides: op(A) column-major (N) steps K by lda, row-major (T) by 1; B the other way.
    in.stride_a = k * (a.trans_a ? 1 : a.lda);
    in.stride_b = k * (a.trans_b ? a.ldb : 1);
    in.c = nullptr;
    in.beta = 0.0f;
    in.alpha = 1.0f;
    in.bias = nullptr;
    in.alpha_scale = nullptr;
    in.alpha_vector = nullptr;
    in.d = ws;
    in.ldd = ldw(a);
    in.stride_d = slice_stride(a);
    in.ldc = in.ldd;
    in.stride_c = in.stride_d;
    in.splits = 1;
    return in;
  }

  static int64_t inner_bytes(const BooGemmArgs& a) {
    const int64_t b = Inner::workspace(inner_args(a, planning_workspace<float>()));
    return b < 0 ? -1 : round_up(b, 256);
  }

  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) return reject_verdict(r, why, len);
    return Inner::supports(inner_args(a, planning_workspace<float>()), why, len);
  }

  static int64_t workspace(const BooGemmArgs& a) {
    if (reject(a) != nullptr) return -1;
    const int64_t inner = inner_bytes(a);
    return inner < 0 ? -1 : slices_bytes(a) + inner;
  }

  // The reduction of R rows a thread and kBatch slices in flight (a dependent launch).
  template <int R, int kBatch>
  static int32_t launch_sum(const BooGemmArgs& a, const float* partials, void* stream, char* why,
                            int32_t len) {
    const int64_t threads = (a.m + R - 1) / R * a.n;
    const int64_t blocks = (threads + kSplitSumThreads - 1) / kSplitSumThreads;
    return cuda_result(
        launch_dependent(
            gemm_split_sum_kernel<TD, TBias, kAct, kHasC, kHasBias, kScaled, R, kBatch>,
            dim3(static_cast<unsigned>(std::min(blocks, kSplitSumMaxBlocks))),
            dim3(kSplitSumThreads), static_cast<cudaStream_t>(stream), partials, ldw(a),
            slice_stride(a), static_cast<int>(a.splits), a),
        why, len);
  }

  static int32_t run(const BooGemmArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    if (const char* r = reject(a)) return reject_verdict(r, why, len);
    const int64_t need = workspace(a);
    if (need < 0 || ws == nullptr || ws_bytes < need ||
        reinterpret_cast<uintptr_t>(ws) % 256 != 0) {
      write_why(why, len, "parallel split-K: workspace missing, too small or misaligned");
      return BOO_ERROR;
    }
    char* base = static_cast<char*>(ws);
    float* slices = reinterpret_cast<float*>(base);
    const int64_t inner = inner_bytes(a);
    const int32_t rc =
        Inner::run(inner_args(a, slices), inner > 0 ? base + slices_bytes(a) : nullptr, inner,
                   stream, why, len);
    if (rc != BOO_OK || a.dry_run) return rc;
    if (a.splits <= kSplitSumFew) return launch_sum<4, 8>(a, slices, stream, why, len);
    return launch_sum<1, 16>(a, slices, stream, why, len);
  }
};

}  // namespace boo_kernels
