// conv.split_wgrad's fp32 1x1 kernel (on by default; BOO_NVCC_FLAGS=-DBOO_WGRAD_1X1=0 leaves
// fp32 1x1 layers to the direct kernel's 3x3 plan, for measuring): backward weight of a 1x1,
// stride-1, unpadded fp32 convolution in tf32, dw(k, c) = sum over the pixels of
// dy(pixel, k) x(pixel, c), both packed channels-last.
//
// Why: conv.gemm_1x1 runs it as a GEMM whose operands are both MN-major (the pixels are its K),
// which warpgroup MMA takes in tf32 only after transposed copies of dy and x (four times the
// tensors' bytes), and the direct kernel's 3x3 plan leaves two of its three tap groups idle on a
// single tap and reads dy once per 64 channels of x: n32 c256 56x56 k64 measured 194 and 164 us
// against cuDNN's 40 (H200, bench/results/2026-11-29-forced-lines-h200.md). Here a block's tile is
// one contiguous run of pixels of dy (kb channels) and of x (cb channels, up to 256), copied by
// cp.async into two stages, rounded to tf32 in place, and multiplied on m16n8k8 tf32 mma.sync
// with the direct kernel's fragment order (wgrad_tf32_steps: 64-bit shared loads of channel
// pairs). Measured (same results file): 56.4 us on that line (cuDNN 40.0), 1.2-3.0x faster than
// the 3x3 plan on 12 of 13 lines, 24.2 us on n64 c16 56x56 k16 (cuDNN 26.9) once its one-warp
// blocks came 13 an SM. A review counted about 570 KB of shared traffic a 64-pixel tile on the
// big line (every warp reloads all kb rows of dy; then the rounding pass and the copies): warps
// of 32 rows by 32 channels would halve the dy reloads, the next step there.
//
// The plan: conv_wgrad_1x1_plan.cuh. The slices' fp32 dw are summed by conv_wgrad_reduce_kernel
// (conv_wgrad_direct.cuh, which includes this file and launches both).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

// conv_wgrad_wgmma.cuh: wgrad_walk_tiles.
#include "conv_wgrad_1x1_plan.cuh"
#include "conv_wgrad_wgmma.cuh"
#include "mma_sync.cuh"

#ifndef BOO_WGRAD_1X1
#define BOO_WGRAD_1X1 1
#endif

namespace boo_kernels {

// Whether the 1x1 kernel's geometry holds: a 1x1x1 filter, stride 1, no padding and the output
// the input's size (so that output pixel i reads input pixel i).
inline bool onebyone_wgrad_geometry(const BooConvArgs& a) {
  for (int i = 0; i < 3; ++i) {
    if (a.filter[i] != 1 || a.stride[i] != 1 || a.pad[i] != 0 || a.in[i] != a.out[i]) {
      return false;
    }
  }
  return true;
}

// kMTiles: kb / 16 (2 or 4). Warp w takes x's channels 16 w to 16 w + 15 of the block's and all
// of its kb output channels: acc[m][n] is m-tile m (rows g and g + 8: output channels 16 m + 2g
// and + 1) by n-tile n (column j: x's channel 16 w + 2j + n).
template <int kMTiles>
__global__ void __launch_bounds__(2 * kOneByOneMaxChannels, 1)
    conv_wgrad_1x1_tf32_kernel(BooConvArgs a, OneByOneWgradPlan p, float* __restrict__ ws) {
  extern __shared__ float4 shared4[];
  float* xs0 = reinterpret_cast<float*>(shared4);
  const int x_elements = p.tile * p.x_row, y_elements = p.tile * p.y_row;
  float* ys0 = xs0 + 2 * x_elements;
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int slice = static_cast<int>(blockIdx.x / static_cast<unsigned>(p.chunks));
  const int k0 = chunk % p.k_chunks * p.kb, c0 = chunk / p.k_chunks * p.cb;
  const float* __restrict__ x = static_cast<const float*>(a.x);
  const float* __restrict__ dy = static_cast<const float*>(a.y);
  const int threads = 32 * p.warps, lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  // A tile's copies: this thread copies vector x_v (4 channels) of pixels x_first, + x_step, ...
  // and vector y_v of pixels y_first, + y_step, ...; past the pixels and the channels, zeros.
  const int x_vectors = p.cb / 4, x_v = threadIdx.x % x_vectors;
  const int x_first = threadIdx.x / x_vectors, x_step = threads / x_vectors;
  const int y_vectors = p.kb / 4, y_v = threadIdx.x % y_vectors;
  const int y_first = threadIdx.x / y_vectors, y_step = threads / y_vectors;
  const bool x_channels = c0 + 4 * x_v < a.c, y_channels = k0 + 4 * y_v < a.k;
  const auto fetch = [&](int64_t tile, int buffer) {
    const int64_t p0 = tile * p.tile;
    for (int i = x_first; i < p.tile; i += x_step) {
      const bool inside = x_channels && p0 + i < p.pixels;
      cp_async_16(xs0 + buffer * x_elements + i * p.x_row + 4 * x_v,
                  inside ? x + (p0 + i) * a.c + c0 + 4 * x_v : x, inside ? 16 : 0);
    }
    for (int i = y_first; i < p.tile; i += y_step) {
      const bool inside = y_channels && p0 + i < p.pixels;
      cp_async_16(ys0 + buffer * y_elements + i * p.y_row + 4 * y_v,
                  inside ? dy + (p0 + i) * a.k + k0 + 4 * y_v : dy, inside ? 16 : 0);
    }
    cp_async_commit();
  };
  // Rounded to tf32 (nearest) in place once the thread's own copies have landed (as the direct
  // kernel's BOO_WGRAD_TF32_ROUND, which cuDNN's error needs).
  const auto settle = [&](int buffer) {
    round_tf32_vectors(shared_address(xs0 + buffer * x_elements + 4 * x_v), 4 * p.x_row, x_first,
                       p.tile, x_step);
    round_tf32_vectors(shared_address(ys0 + buffer * y_elements + 4 * y_v), 4 * p.y_row, y_first,
                       p.tile, y_step);
  };

  float acc[kMTiles][2][4];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int n = 0; n < 2; ++n) acc[m][n][0] = acc[m][n][1] = acc[m][n][2] = acc[m][n][3] = 0.0f;
  }
  const int g = lane / 4, t = lane % 4;
  wgrad_walk_tiles<false>(slice, p.slices, p.tiles, fetch, settle, [&](int64_t, int k) {
    const uint32_t yb = shared_address(ys0 + (k & 1) * y_elements) + 4 * (2 * g);
    const uint32_t xb = shared_address(xs0 + (k & 1) * x_elements) + 4 * (16 * warp + 2 * g);
    // Per 8 pixels (one k-step; lane (g, t) loads pixels t and t + 4): A = dy^T, rows 2g and
    // 2g + 1 of each m-tile as a[0], a[1] (a[2], a[3] for pixel t + 4); B = x, channels 2g and
    // 2g + 1 of the warp's 16 as n-tiles 0 and 1.
    for (int s = 0; s < p.tile / 8; ++s) {
      uint32_t af[kMTiles][4], bf[2][2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int pixel = 8 * s + t + 4 * r;
#pragma unroll
        for (int m = 0; m < kMTiles; ++m) {
          lds64(af[m][2 * r], af[m][2 * r + 1], yb + 4 * pixel * p.y_row + 64 * m);
        }
        lds64(bf[r][0], bf[r][1], xb + 4 * pixel * p.x_row);
      }
      const uint32_t b0[2] = {bf[0][0], bf[1][0]}, b1[2] = {bf[0][1], bf[1][1]};
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_1688_tf32(acc[m][0], af[m], b0);
        mma_1688_tf32(acc[m][1], af[m], b1);
      }
    }
  });

  cudaTriggerProgrammaticLaunchCompletion();  // the reduction may launch
  // The slice's dw: rows 2g (h = 0) and 2g + 1 (h = 1) of m-tile m; a row's c[0], c[1] of both
  // n-tiles are x's channels 16 w + 4t to + 3.
  float* out = ws + static_cast<int64_t>(slice) * p.total;
  const int c = c0 + 16 * warp + 4 * t;
  if (c >= a.c) return;
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t kk = k0 + 16 * m + 2 * g + h;
      if (kk >= a.k) continue;
      *reinterpret_cast<float4*>(out + kk * a.c + c) = make_float4(
          acc[m][0][2 * h], acc[m][1][2 * h], acc[m][0][2 * h + 1], acc[m][1][2 * h + 1]);
    }
  }
}

}  // namespace boo_kernels
