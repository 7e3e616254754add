// gemm.skinny's GEMV main loop (kernels/gemm_skinny.cuh has the whole picture): decode layouts
// (16-bit inputs of one type, R and S contiguous in K, see GemmSkinnyRunner::pipelined_layout)
// with at most kGemvCols columns of S, no tensor cores and no K split across blocks. `per_row`
// warps of one block (a power of two, at most kGemvWarps) read one row of R, each a contiguous
// share of K, the warp's 32 lanes 512 contiguous bytes per load (kGemvUnroll loads in flight per
// lane); S comes through L1, read by every warp. Lanes add in a fixed butterfly, the warps of a
// row in warp order: deterministic. `wide`: R and S 16-byte aligned (else every vector is
// gathered element by element).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gemm_skinny_kernel.cuh"

namespace boo_kernels {

// At most this many columns of S, warps per block, 16-byte loads in flight per lane, and the
// warps per SM it wants in flight (with fewer than a quarter of them and a deep K, K splits over
// blocks run instead).
// For measuring: BOO_GEMV_UNROLL (loads in flight per lane), BOO_GEMV_STEPS (unrolled steps of K
// a warp streams, at least, where K allows), BOO_GEMV_PIPE=1 (the next step's loads issued before
// this step's products), BOO_GEMV_MIN_BLOCKS (blocks an SM, at least, for the register budget).
#ifndef BOO_GEMV_UNROLL
#define BOO_GEMV_UNROLL 4
#endif
#ifndef BOO_GEMV_STEPS
#define BOO_GEMV_STEPS 1
#endif
#ifndef BOO_GEMV_PIPE
#define BOO_GEMV_PIPE 0
#endif
#ifndef BOO_GEMV_MIN_BLOCKS
#define BOO_GEMV_MIN_BLOCKS 1
#endif
constexpr int kGemvCols = 4;
constexpr int kGemvWarps = 8;
constexpr int kGemvUnroll = BOO_GEMV_UNROLL;
constexpr int kGemvSteps = BOO_GEMV_STEPS;
constexpr bool kGemvPipe = BOO_GEMV_PIPE != 0;
constexpr int kGemvWarpsPerSm = 48;

template <class Kernel>
struct SkinnyGemv {
  using MT = typename Kernel::MT;
  static constexpr int kVec = Kernel::kVec;

  // 16 bytes that are read once: past L1.
  static __device__ __forceinline__ uint4 stream_line(const MT* p) {
    uint4 r;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
    return r;
  }

  static __device__ __forceinline__ void dot(float& acc, uint4 x, uint4 y) {
    MT xv[kVec], yv[kVec];
    memcpy(xv, &x, 16);
    memcpy(yv, &y, 16);
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc += to_float(xv[e]) * to_float(yv[e]);
  }

  static __device__ __forceinline__ float alpha_of(const BooGemmArgs& a) {
    return a.alpha * (a.alpha_scale != nullptr ? *a.alpha_scale : 1.0f);
  }

  static __device__ void run_rows(const SkinnyView& v, const BooGemmArgs& a, int per_row,
                                  bool wide) {
    __shared__ float sums[kGemvWarps][kGemvCols];
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int64_t row = static_cast<int64_t>(blockIdx.x) * (kGemvWarps / per_row) + warp / per_row;
    const int part = warp % per_row;
    const int64_t b = blockIdx.z;
    const MT* R = static_cast<const MT*>(v.r) + b * v.r_bs +
                  (row < v.rows ? row : v.rows - 1) * v.r_rs;  // (rows past the end: not stored)
    const MT* S = static_cast<const MT*>(v.s) + b * v.s_bs;
    const int64_t share = ((v.k + per_row - 1) / per_row + kVec - 1) / kVec * kVec;
    const int64_t k1 = (part + 1) * share < v.k ? (part + 1) * share : v.k;
    constexpr int64_t kStep = 32 * kVec;
    float acc[kGemvCols] = {};
    int64_t k = part * share + lane * kVec;
    // One unrolled step's products over x (loaded at k).
    const auto products = [&](const uint4(&x)[kGemvUnroll], int64_t at) {
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u) {
#pragma unroll
        for (int c = 0; c < kGemvCols; ++c) {
          if (c < v.cols) {
            dot(acc[c], x[u],
                __ldg(reinterpret_cast<const uint4*>(S + c * v.s_ss + at + u * kStep)));
          }
        }
      }
    };
    const auto whole = [&](int64_t at) { return at + (kGemvUnroll - 1) * kStep + kVec <= k1; };
    if (wide && kGemvPipe && whole(k)) {
      // The next step's loads in flight while this step's products run.
      uint4 x[kGemvUnroll];
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u) x[u] = stream_line(R + k + u * kStep);
      for (;;) {
        const int64_t next = k + kGemvUnroll * kStep;
        const bool more = whole(next);
        uint4 xn[kGemvUnroll];
        if (more) {
#pragma unroll
          for (int u = 0; u < kGemvUnroll; ++u) xn[u] = stream_line(R + next + u * kStep);
        }
        products(x, k);
        k = next;
        if (!more) break;
#pragma unroll
        for (int u = 0; u < kGemvUnroll; ++u) x[u] = xn[u];
      }
    } else if (wide) {
      for (; whole(k); k += kGemvUnroll * kStep) {
        uint4 x[kGemvUnroll];
#pragma unroll
        for (int u = 0; u < kGemvUnroll; ++u) x[u] = stream_line(R + k + u * kStep);
        products(x, k);
      }
    }
    // The rest one vector at a time (the last one may be partial; all of it when not wide).
    for (; k < k1; k += kStep) {
      const bool full = wide && k + kVec <= k1;
      const uint4 x = full ? stream_line(R + k) : Kernel::gather(R + k, 1, k1 - k, false);
#pragma unroll
      for (int c = 0; c < kGemvCols; ++c) {
        if (c < v.cols) {
          const MT* sc = S + c * v.s_ss + k;
          dot(acc[c], x,
              full ? __ldg(reinterpret_cast<const uint4*>(sc))
                   : Kernel::gather(sc, 1, k1 - k, false));
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kGemvCols; ++c) {
#pragma unroll
      for (int off = 16; off > 0; off /= 2) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], off);
    }
    if (lane == 0) {
#pragma unroll
      for (int c = 0; c < kGemvCols; ++c) sums[warp][c] = acc[c];
    }
    __syncthreads();
    if (part != 0 || lane >= v.cols || row >= v.rows) return;
    float total = 0.0f;
    for (int w = 0; w < per_row; ++w) total += sums[warp + w][lane];
    Kernel::store(v, a, b, row, lane, Kernel::load_epilogue(v, a, alpha_of(a), b, row, lane),
                  total);
  }
};

template <class Kernel>
__global__ void __launch_bounds__(kGemvWarps * 32, BOO_GEMV_MIN_BLOCKS)
    gemm_skinny_gemv_kernel(SkinnyView v, BooGemmArgs a, int per_row, int wide) {
  SkinnyGemv<Kernel>::run_rows(v, a, per_row, wide != 0);
}

}  // namespace boo_kernels
