// gemm.fallback: the always-correct GEMM. Any type, transpose, leading dimension, stride,
// alignment and epilogue (alpha vector, per-tensor scales, bias, activation), fp32
// accumulation. A 64x64 output tile per 256-thread block, 16-deep K slices staged in shared
// memory, 4x4 outputs per thread: slow next to gemm.sm90, but simple enough to trust.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "activation.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

constexpr int kFallbackTile = 64;
constexpr int kFallbackDepth = 16;

template <class TA, class TB, class TD, class TBias, int kAct, bool kHasC, bool kHasBias,
          bool kAlphaVector>
__global__ void __launch_bounds__(256) gemm_fallback_kernel(BooGemmArgs a) {
  __shared__ float sa[kFallbackDepth][kFallbackTile + 1];
  __shared__ float sb[kFallbackDepth][kFallbackTile + 1];
  const int tx = threadIdx.x % 16;
  const int ty = threadIdx.x / 16;
  const int64_t tiles_m = (a.m + kFallbackTile - 1) / kFallbackTile;
  const int64_t tiles_n = (a.n + kFallbackTile - 1) / kFallbackTile;
  float scale = a.alpha_scale != nullptr ? *a.alpha_scale : 1.0f;
  for (int64_t batch = blockIdx.z; batch < a.batch; batch += gridDim.z) {
    const TA* A = static_cast<const TA*>(a.a) + batch * a.stride_a;
    const TB* B = static_cast<const TB*>(a.b) + batch * a.stride_b;
    for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
      for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
        const int64_t m0 = tm * kFallbackTile;
        const int64_t n0 = tn * kFallbackTile;
        float acc[4][4] = {};
        for (int64_t k0 = 0; k0 < a.k; k0 += kFallbackDepth) {
          // 256 threads load a 16 x 64 slice of op(A) and of op(B), 4 elements each.
          for (int i = threadIdx.x; i < kFallbackDepth * kFallbackTile; i += 256) {
            const int kk = i / kFallbackTile;
            const int mm = i % kFallbackTile;
            const int64_t k = k0 + kk;
            const int64_t m = m0 + mm;
            const int64_t n = n0 + mm;
            float va = 0.0f;
            float vb = 0.0f;
            if (k < a.k && m < a.m) va = to_float(A[a.trans_a ? k + m * a.lda : m + k * a.lda]);
            if (k < a.k && n < a.n) vb = to_float(B[a.trans_b ? n + k * a.ldb : k + n * a.ldb]);
            sa[kk][mm] = va;
            sb[kk][mm] = vb;
          }
          __syncthreads();
#pragma unroll
          for (int kk = 0; kk < kFallbackDepth; ++kk) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
#pragma unroll
              for (int j = 0; j < 4; ++j) acc[i][j] += sa[kk][ty + 16 * i] * sb[kk][tx + 16 * j];
            }
          }
          __syncthreads();
        }
        TD* D = static_cast<TD*>(a.d) + batch * a.stride_d;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int64_t m = m0 + ty + 16 * i;
          if (m >= a.m) continue;
          float alpha = a.alpha * scale;
          if constexpr (kAlphaVector) alpha *= a.alpha_vector[m];
          float bias = 0.0f;
          if constexpr (kHasBias) bias = to_float(static_cast<const TBias*>(a.bias)[m]);
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const int64_t n = n0 + tx + 16 * j;
            if (n >= a.n) continue;
            float v = alpha * acc[i][j];
            if constexpr (kHasC) {
              v += a.beta *
                   to_float(static_cast<const TD*>(a.c)[batch * a.stride_c + m + n * a.ldc]);
            }
            D[m + n * a.ldd] = from_float<TD>(activate<kAct>(v + bias));
          }
        }
      }
    }
  }
}

template <class TA, class TB, class TD, class TBias, int kAct, bool kHasC, bool kHasBias,
          bool kAlphaVector>
struct GemmFallbackRunner {
  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) {
      write_why(why, len, "empty problem");
      return BOO_UNSUPPORTED;
    }
    if ((kHasBias && a.bias == nullptr) || (kHasC && a.c == nullptr && a.beta != 0.0f) ||
        (kAlphaVector && a.alpha_vector == nullptr)) {
      write_why(why, len, "a bias, C or alpha vector pointer is missing");
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }
  static int64_t workspace(const BooGemmArgs&) { return 0; }
  static int32_t run(const BooGemmArgs& a, void*, int64_t, void* stream, char* why, int32_t len) {
    if (supports(a, why, len) != BOO_OK) return BOO_UNSUPPORTED;
    const int64_t tiles_m = (a.m + kFallbackTile - 1) / kFallbackTile;
    const int64_t tiles_n = (a.n + kFallbackTile - 1) / kFallbackTile;
    if (a.dry_run) return BOO_OK;
    const dim3 grid(static_cast<unsigned>(tiles_n < 65535 ? tiles_n : 65535),
                    static_cast<unsigned>(tiles_m < 65535 ? tiles_m : 65535),
                    static_cast<unsigned>(a.batch < 65535 ? a.batch : 65535));
    gemm_fallback_kernel<TA, TB, TD, TBias, kAct, kHasC, kHasBias, kAlphaVector>
        <<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(a);
    return cuda_result(cudaGetLastError(), why, len);
  }
};

}  // namespace boo_kernels
