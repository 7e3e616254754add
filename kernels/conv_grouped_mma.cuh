// What conv.grouped's two direct kernels share (kernels/conv_grouped_direct.cuh, cp.async copies;
// kernels/conv_grouped_tma.cuh, TMA boxes): the plan of a block's groups and pixel tiles, the
// block's constant part (filters, bias, the reduction's offsets), each warp's share of a tile and
// its implicit GEMM on mma.sync. An input tile sits in shared memory as rows of x_row elements,
// one per input point (ih x iw points of one plane), the block's C/G x gb channels first; x_row is
// an odd number of 16-byte units, so that the eight rows of an 8 x 8 fragment fall in distinct
// banks. conv.split_wgrad's and conv.padded_channels' direct kernels tile their pixels with the
// same plan (grouped_tile_shape). The plans are plain C++ in conv_grouped_plan.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_grouped_plan.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"

namespace boo_kernels {

constexpr int kGroupedThreads = 256;
constexpr int kGroupedWarps = kGroupedThreads / 32;
// Blocks per SM: 2 (116 registers a thread, no spills) measured faster than 3 (80 registers and
// 84 bytes of spills): 45.2 against 51.5 us on the public ResNeXt line, equal or better on four
// smaller lines (bench/results/2026-11-25-conv-grouped-direct-h100.md). BOO_GROUPED_BLOCKS
// (BOO_NVCC_FLAGS=-DBOO_GROUPED_BLOCKS=3) is for measuring.
#ifndef BOO_GROUPED_BLOCKS
#define BOO_GROUPED_BLOCKS 2
#endif
constexpr int kGroupedBlocksPerSm = BOO_GROUPED_BLOCKS;

// The tile with index `tile` (0 .. n x D_out x tiles_h x tiles_w - 1): its image, output depth
// plane and first output row and column.
struct GroupedTile {
  int64_t n;
  int od, oh0, ow0;
};
// (32-bit divisions: the runner takes fewer than 2^31 tiles.)
__device__ __forceinline__ GroupedTile grouped_tile(unsigned tile, const BooConvArgs& a,
                                                    const GroupedPlan& p) {
  GroupedTile t;
  t.ow0 = static_cast<int>(tile % static_cast<unsigned>(p.tiles_w)) * p.tw;
  tile /= static_cast<unsigned>(p.tiles_w);
  t.oh0 = static_cast<int>(tile % static_cast<unsigned>(p.tiles_h)) * p.th;
  tile /= static_cast<unsigned>(p.tiles_h);
  t.od = static_cast<int>(tile % static_cast<unsigned>(a.out[0]));
  t.n = tile / static_cast<unsigned>(a.out[0]);
  return t;
}

// The block's constant part, set up once: the zero row (16 bytes), the bias of its kb output
// channels (fp32), chunk_at[j] = the offset (elements) of reduction chunk j (tap j / (C/G / 8),
// channels 8 (j % (C/G / 8)) onwards of a group) from a pixel's first input point (where the
// row is staged in phases, from the pixel's point of phase 0), -1 past the end (q + 1 entries), and
// the groups' filters (rows of w_row elements) by cp.async in one commit group, which the caller
// waits for.
template <class T, bool kHasBias>
__device__ __forceinline__ void grouped_block_setup(const BooConvArgs& a, const GroupedPlan& p,
                                                    int chunk, T* zero, float* bias, int* chunk_at,
                                                    T* filter) {
  const int cg = static_cast<int>(a.c / a.groups), kg = static_cast<int>(a.k / a.groups);
  const int kb = p.gb * kg;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const T* w_block = static_cast<const T*>(a.w) + static_cast<int64_t>(chunk) * kb * p.q * 8;
  for (int r = warp; r < kb; r += kGroupedWarps) {
    for (int v = lane; v < p.q; v += 32) {
      cp_async_16(filter + r * p.w_row + v * 8, w_block + (r * p.q + v) * 8, 16);
    }
  }
  cp_async_commit();
  if (threadIdx.x < 8) zero[threadIdx.x] = from_float<T>(0.0f);
  for (int r = threadIdx.x; r < kb; r += kGroupedThreads) {
    bias[r] = kHasBias ? to_float(static_cast<const T*>(a.bias)[chunk * kb + r]) : 0.0f;
  }
  const int per_tap = cg / 8;
  const int fw = static_cast<int>(a.filter[2]), fh = static_cast<int>(a.filter[1]);
  for (int j = threadIdx.x; j <= p.q; j += kGroupedThreads) {
    int off = -1;
    if (j < p.q) {
      const int tap = j / per_tap, fx = tap % fw, fy = tap / fw % fh, fz = tap / (fw * fh);
      // Column fx dil of the tile's input: in phase (fx dil) % phases, point (fx dil) / phases.
      const int col = fx * static_cast<int>(a.dilation[2]);
      off = ((col % p.phases) * p.phase_points +
             (fz * static_cast<int>(a.dilation[0]) * p.ih + fy * static_cast<int>(a.dilation[1])) *
                 p.iw +
             col / p.phases) *
                p.x_row +
            (j % per_tap) * 8;
    }
    chunk_at[j] = off;
  }
}

// The shared address in input buffer 0 (at x_at) of this lane's ldmatrix row of m-tile `m_tile`:
// pixel 16 m_tile + lane % 8 (+ 8 for odd matrices; past the tile's `pixels`: its last, whose
// rows are computed and dropped) of a tile of images of `plane` pixels whose input tiles lie
// ih x iw points apart, from channel `channel` of the block's.
__device__ __forceinline__ uint32_t grouped_a_row(const BooConvArgs& a, const GroupedPlan& p,
                                                  uint32_t x_at, int m_tile, int pixels, int plane,
                                                  int channel) {
  const int lane = threadIdx.x % 32;
  int pixel = m_tile * 16 + lane % 8 + (lane / 8 % 2) * 8;
  pixel = pixel < pixels ? pixel : pixels - 1;
  const int image = pixel / plane, py = pixel % plane / p.tw, px = pixel % p.tw;
  const int point = (image * p.ih + py * static_cast<int>(a.stride[1])) * p.iw + px * p.sw;
  return x_at + 2u * static_cast<uint32_t>(point * p.x_row + channel);
}

// A warp's share of every tile: the (group, 8 output channels) pair (warp / per_item) and m-tiles
// first_m, + per_item, ... of it; its lanes' ldmatrix rows: A's pixel (matrix lane / 8: rows +8
// for odd ones, the second k-half for the upper two) in each of its m-tiles as shared addresses in
// input buffer 0 (past the tile: the last pixel, whose rows are computed and dropped), B's filter
// row, the zero row.
struct GroupedWarp {
  bool computes;
  int first_m, per_item, my_tiles, out0;
  uint32_t a_at[kGroupedMTiles];
  uint32_t b_at, zero_at;
};

template <class T>
__device__ __forceinline__ GroupedWarp grouped_warp(const BooConvArgs& a, const GroupedPlan& p,
                                                    uint32_t x_at, const T* zero, const T* filter) {
  const int cg = static_cast<int>(a.c / a.groups), kg = static_cast<int>(a.k / a.groups);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int items = p.gb * kg / 8;  // (group, 8 output channels) pairs
  const int pixels = p.th * p.tw, m_tiles = (pixels + 15) / 16;
  GroupedWarp wp;
  wp.per_item = kGroupedWarps / items;
  const int item = warp / wp.per_item;
  wp.first_m = warp % wp.per_item;
  wp.my_tiles = wp.first_m < m_tiles ? (m_tiles - wp.first_m + wp.per_item - 1) / wp.per_item : 0;
  wp.computes = item < items && wp.my_tiles > 0;
  const int group = item / (kg / 8);  // within the block
  wp.out0 = item * 8;                 // first output channel (within the block)
#pragma unroll
  for (int m = 0; m < kGroupedMTiles; ++m) {
    wp.a_at[m] =
        grouped_a_row(a, p, x_at, wp.first_m + m * wp.per_item, pixels, pixels, group * cg);
  }
  wp.zero_at = shared_address(zero);
  wp.b_at = shared_address(filter + (wp.out0 + lane % 8) * p.w_row);
  return wp;
}

// The warp's implicit GEMMs over the input tile `buffer` bytes past buffer 0 (`pixels` output
// pixels): per reduction step B's fragment once, then each of its m-tiles' A (ldmatrix straight
// from the pixel's tap: the im2col gather costs nothing) into mma.sync with fp32 accumulators;
// then bias and activation, each pair of adjacent output channels handed to out(pixel, channel
// within the block, packed pair).
template <class T, int kAct, class Out>
__device__ __forceinline__ void grouped_mma_tile(const GroupedPlan& p, const GroupedWarp& wp,
                                                 const int* chunk_at, const float* bias,
                                                 uint32_t buffer, int pixels, Out out) {
  const int lane = threadIdx.x % 32;
  const int a_half = lane / 16, b_half = lane / 8 % 2, g = lane / 4, t = lane % 4;
  float acc[kGroupedMTiles][4];
#pragma unroll
  for (int m = 0; m < kGroupedMTiles; ++m) acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.0f;
  for (int s = 0; s < (p.q + 1) / 2; ++s) {
    const int jb = 2 * s + b_half;
    uint32_t bf[2];
    ldmatrix_x2(bf, jb < p.q ? wp.b_at + jb * 16 : wp.zero_at);
    const int off = chunk_at[2 * s + a_half];
    const uint32_t shift = buffer + 2 * off;
#pragma unroll
    for (int m = 0; m < kGroupedMTiles; ++m) {
      if (m >= wp.my_tiles) break;
      uint32_t af[4];
      ldmatrix_x4(af, off >= 0 ? wp.a_at[m] + shift : wp.zero_at);
      mma_16816<T>(acc[m], af, bf);
    }
  }
  // acc[m]: pixels 16 mt + g and + 8, output channels out0 + 2t and + 1.
#pragma unroll
  for (int m = 0; m < kGroupedMTiles; ++m) {
    if (m >= wp.my_tiles) break;
    const int mt = wp.first_m + m * wp.per_item;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int pixel = mt * 16 + g + 8 * h;
      if (pixel >= pixels) continue;
      const int col = wp.out0 + 2 * t;
      out(pixel, col,
          pack_pair<T>(activate<kAct>(acc[m][2 * h] + bias[col]),
                       activate<kAct>(acc[m][2 * h + 1] + bias[col + 1])));
    }
  }
}

}  // namespace boo_kernels
