// conv.grouped's TMA kernel: the direct kernel's implicit GEMMs (conv_grouped_mma.cuh) with the
// data moved by the Tensor Memory Accelerator, for 1D and 2D layers whose block holds 64 output
// channels (ResNeXt's and RegNet's groups of 8, 16 or 32 channels with K >= 64). The cp.async
// kernel spent its issue slots moving data: per tile every thread computed each of its input
// points' place and bounds (and 64-bit addresses) and each output pixel's, with divisions (ncu on
// the public ResNeXt line: 0.56 warp instructions issued per scheduler per cycle, DRAM 19% busy;
// bench/results/2026-11-27-conv-grouped-ncu-h100.txt). Here one thread issues a tile's input as
// one box and its output as one box:
//   - the input box is x_row channels (the block's, padded to an odd number of 16-byte units with
//     the next channels, which no step multiplies) x iw x ih points, unswizzled: the rows the
//     mma's ldmatrix reads are the cp.async kernel's, bank-conflict free; points outside the
//     image (the padding) arrive as zeros; rows of stride 2 in two boxes, their even points and
//     their odd ones (GroupedPlan::phases), so that adjacent pixels' taps stay adjacent rows;
//   - the output tile is 128 bytes a pixel, 128-byte swizzled (the epilogue's 4-byte stores fall
//     in distinct banks), stored as one box (pixels past the image are not written);
//   - 2 or 3 input stages (GroupedTmaPlan), each with a full mbarrier: tile j + stages - 1 is
//     issued while tile j is multiplied; two output tiles, so that a tile's store reads one while
//     the next is written, or one where that lets two blocks share an SM (the next tile's
//     epilogue then waits for the store's read, after its mmas: a second barrier a tile).
// One block barrier per tile (two with one output tile). Sums run in the cp.async kernel's
// order (an odd last chunk in a k8 mma here, beside a zero chunk there).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "conv_grouped_mma.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace boo_kernels {

// BOO_NVCC_FLAGS=-DBOO_GROUPED_TMA_HOIST_B=0 loads the filter fragments every tile on every layer
// (for measuring the fragments kept in registers, kGroupedTmaHoistedSteps).
#ifndef BOO_GROUPED_TMA_HOIST_B
#define BOO_GROUPED_TMA_HOIST_B 1
#endif
// -DBOO_GROUPED_TMA_TAIL_K8=0: an odd last chunk multiplies in k16 mmas beside a zero chunk.
#ifndef BOO_GROUPED_TMA_TAIL_K8
#define BOO_GROUPED_TMA_TAIL_K8 1
#endif
// A warp of one n-tile (K/G = 8) whose reduction takes at most this many k16 steps (C/G = 8 with a
// 3x3 filter: 9 chunks, 5 steps) keeps its filter fragments in registers for all its tiles (2 a
// step): they are the same every tile, and the load of the step's B fragment just before its first
// mma was the step loop's longest wait (ncu source counters, H200; 2026-11-28-conv-latency).
constexpr int kGroupedTmaHoistedSteps = 5;

// x in boxes of x_row channels x iw x ih x images, unswizzled; y in boxes of 64 channels x tw x
// th x images, 128-byte swizzled (1D and 2D layers: a plane an image). False where the driver
// refuses either.
inline bool grouped_tma_maps(const BooConvArgs& a, const GroupedPlan& p, const GroupedTmaPlan& t,
                             CUtensorMap* x_map, CUtensorMap* y_map) {
  return tma_map_channels_last(x_map, a.x, a.n, a.in, a.c, p.iw, p.ih, t.images, p.x_row,
                               CU_TENSOR_MAP_SWIZZLE_NONE, p.phases) &&
         tma_map_channels_last(y_map, a.y, a.n, a.out, a.k, p.tw, p.th, t.images,
                               kGroupedTmaChannels);
}

// A warp's share of the TMA kernel's tiles: every n-tile (8 output channels) of one group, so
// that each A fragment it loads feeds kN mmas (the cp.async kernel's warps take one n-tile each,
// and a group's A was loaded once per n-tile), over m-tiles first_m, + kN, ... (kMT / kN of
// them; kMT: a tile's m-tiles, at most, 4 or 8). kN = K/G / 8 warps share a group; 64 output
// channels a block make 8 warps.
template <int kN, int kMT>
struct GroupedTmaWarp {
  static constexpr int kM = kMT / kN;
  int first_m;
  uint32_t a_at[kM];  // as GroupedWarp's, in stage 0
  uint32_t b_at;      // n-tile 0's filter row (n-tile j: 8 j rows further)
  uint32_t zero_at;
  int out0;  // the group's first output channel within the block
};

template <int kN, int kMT, class T>
__device__ __forceinline__ GroupedTmaWarp<kN, kMT> grouped_tma_warp(const BooConvArgs& a,
                                                                    const GroupedPlan& p,
                                                                    uint32_t x_at, const T* zero,
                                                                    const T* filter, int images) {
  const int cg = static_cast<int>(a.c / a.groups);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int group = warp / kN;
  const int plane = p.th * p.tw, pixels = images * plane;
  GroupedTmaWarp<kN, kMT> wp;
  wp.first_m = warp % kN;
  wp.out0 = group * 8 * kN;
#pragma unroll
  for (int i = 0; i < GroupedTmaWarp<kN, kMT>::kM; ++i) {
    wp.a_at[i] = grouped_a_row(a, p, x_at, wp.first_m + i * kN, pixels, plane, group * cg);
  }
  wp.zero_at = shared_address(zero);
  wp.b_at = shared_address(filter + (wp.out0 + lane % 8) * p.w_row);
  return wp;
}

// The lane's B fragment of n-tile j in k16 step s (chunks 2 s and 2 s + 1; `tail`: the second is
// past the filter and reads the zero row).
template <int kN, int kMT>
__device__ __forceinline__ void grouped_tma_b(const GroupedPlan& p,
                                              const GroupedTmaWarp<kN, kMT>& wp, int s, int j,
                                              bool tail, uint32_t (&bf)[2]) {
  const int b_half = threadIdx.x / 8 % 2;
  const uint32_t b_step = 16u * static_cast<uint32_t>(p.w_row);  // bytes per n-tile: 8 rows
  ldmatrix_x2(bf, tail && b_half == 1 ? wp.zero_at : wp.b_at + j * b_step + (2 * s + b_half) * 16);
}

// The warp's mmas over the tile in the stage `buffer` bytes past stage 0 (`pixels` pixels,
// m_tiles of 16): per reduction step its kN B fragments, its m-tiles' A fragments, then every
// product; m-tiles past the tile are skipped (predicated). The last step of an odd count of
// reduction chunks multiplies its one chunk (k8 mmas on half fragments: the k16 form loaded and
// multiplied a zero chunk beside it). Then the bias (`bj`: the lane's two output channels of each
// n-tile) and activation, each pair of adjacent output channels stored to the output tile at
// `out_at` (128 bytes a pixel, 128-byte swizzled: pixel P's 16-byte unit u at unit u ^ P % 8).
// kSteps > 0: the reduction takes at most kSteps k16 steps (p.q <= 2 kSteps) and `bh` holds
// every step's B fragments (loaded once a block); else they load each step and `bh` is unused.
// before_epilogue() runs (in every thread) between the mmas and the stores.
template <class T, int kAct, int kN, int kMT, int kSteps, class BeforeEpilogue>
__device__ __forceinline__ void grouped_tma_tile(
    const GroupedPlan& p, const GroupedTmaWarp<kN, kMT>& wp, const int* chunk_at,
    const float2 (&bj)[kN], const uint32_t (&bh)[kSteps > 0 ? kSteps : 1][kN][2], uint32_t buffer,
    int pixels, uint32_t out_at, const BeforeEpilogue& before_epilogue) {
  constexpr int kM = GroupedTmaWarp<kN, kMT>::kM;
  const int lane = threadIdx.x % 32;
  const int a_half = lane / 16, g = lane / 4, t = lane % 4;
  const int m_tiles = (pixels + 15) / 16;
  float acc[kM][kN][4];
#pragma unroll
  for (int i = 0; i < kM; ++i) {
#pragma unroll
    for (int j = 0; j < kN; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
  }
  // One k16 step: chunks 2 s and 2 s + 1 (A's at `shift` past the lane's rows); `tail`: the
  // second is past the filter.
  const auto step = [&](int s, uint32_t shift, auto tail) {
    constexpr bool kTail = decltype(tail)::value;
    uint32_t bf[kN][2];
#pragma unroll
    for (int j = 0; j < kN; ++j) {
      if constexpr (kSteps > 0) {
        bf[j][0] = bh[s][j][0];  // s is a constant: the loop below is unrolled
        bf[j][1] = bh[s][j][1];
      } else {
        grouped_tma_b(p, wp, s, j, kTail, bf[j]);
      }
    }
    // The tail: chunk 2 s alone, lanes 0-15 giving A's rows, bf[j][0] B's.
    if constexpr (kTail && BOO_GROUPED_TMA_TAIL_K8) {
      uint32_t ah[kM][2];
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        if (wp.first_m + i * kN < m_tiles) ldmatrix_x2(ah[i], wp.a_at[i] + shift);
      }
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        if (wp.first_m + i * kN < m_tiles) {
#pragma unroll
          for (int j = 0; j < kN; ++j) mma_1688<T>(acc[i][j], ah[i], bf[j][0]);
        }
      }
    } else {
      uint32_t af[kM][4];
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        if (wp.first_m + i * kN < m_tiles) {
          ldmatrix_x4(af[i], kTail && a_half == 1 ? wp.zero_at : wp.a_at[i] + shift);
        }
      }
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        if (wp.first_m + i * kN < m_tiles) {
#pragma unroll
          for (int j = 0; j < kN; ++j) mma_16816<T>(acc[i][j], af[i], bf[j]);
        }
      }
    }
  };
  // Each step's chunk offset loads a step ahead (the shared-memory load before the A fragments'
  // addresses was the step's longest wait: ncu source counters, H200).
  const int full = p.q / 2;
  int next = chunk_at[a_half];
  const auto full_step = [&](int s) {  // step s < full, the next step's offset loaded first
    const uint32_t shift = buffer + 2 * next;
    if (s + 1 < full || p.q % 2 != 0) next = chunk_at[2 * s + 2 + a_half];  // (q + 1 entries)
    step(s, shift, std::false_type{});
  };
  if constexpr (kSteps > 0) {  // s a constant in every step (bh's index)
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      if (s < full) {
        full_step(s);
      } else if (s == full && p.q % 2 != 0) {
        step(s, buffer + 2 * next, std::true_type{});
      }
    }
  } else {
    for (int s = 0; s < full; ++s) full_step(s);
    if (p.q % 2 != 0) step(full, buffer + 2 * next, std::true_type{});
  }
  before_epilogue();
  // acc[i][j]: pixels 16 mt + g and + 8 (mt = first_m + i kN), output channels out0 + 8 j + 2t
  // and + 1. Both pixels are g modulo 8, so the swizzled unit of n-tile j is (out0 / 8 + j) ^ g
  // for all of the lane's pixels, and each store is the lane's address of its n-tile plus a
  // constant; stores past the tile's pixels are predicated off (no branches).
  uint32_t unit_at[kN];
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    unit_at[j] = out_at + 128u * static_cast<uint32_t>(16 * wp.first_m + g) + 4u * t +
                 (static_cast<uint32_t>((wp.out0 / 8 + j) ^ g) << 4);
  }
  const int first_pixel = 16 * wp.first_m + g;
#pragma unroll
  for (int i = 0; i < kM; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int rows = 16 * kN * i + 8 * h;  // pixels past the lane's first
      const int in_tile = first_pixel + rows < pixels;
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        const uint32_t pair = pack_pair<T>(activate<kAct>(acc[i][j][2 * h] + bj[j].x),
                                           activate<kAct>(acc[i][j][2 * h + 1] + bj[j].y));
        sts32_if(unit_at[j] + 128u * rows, pair, in_tile);
      }
    }
  }
}

// Persistent blocks, as the cp.async kernel's: block b keeps the filters of chunk b % chunks and
// walks tiles b / chunks, + gridDim.x / chunks, ...; thread 0 issues the boxes. kN = K/G / 8;
// kMT: 4 where a tile has at most 4 m-tiles, else 8 (GroupedTmaWarp).
// kSteps: as grouped_tma_tile's (0: B fragments load every step).
template <class T, bool kHasBias, int kAct, int kN, int kMT, int kSteps>
__global__ void __launch_bounds__(kGroupedThreads, kGroupedBlocksPerSm)
    conv_grouped_tma_kernel(BooConvArgs a, GroupedPlan p, GroupedTmaPlan t,
                            const __grid_constant__ CUtensorMap x_map,
                            const __grid_constant__ CUtensorMap y_map) {
  extern __shared__ float4 shared4[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(shared4);
  smem += (1024 - shared_address(smem) % 1024) % 1024;
  const uint32_t ys_at = shared_address(smem);
  const uint32_t stages_at = ys_at + t.out_tiles * t.out_bytes;
  const uint32_t full = stages_at + t.stages * t.stage_bytes;
  float4* at =
      reinterpret_cast<float4*>(smem + t.out_tiles * t.out_bytes + t.stages * t.stage_bytes) +
      (8 * kGroupedTmaMaxStages + 15) / 16;
  T* zero = reinterpret_cast<T*>(at);
  at += 1;
  float* bias = reinterpret_cast<float*>(at);
  at += (kGroupedTmaChannels + 3) / 4;
  int* chunk_at = reinterpret_cast<int*>(at);
  at += (p.q + 1 + 3) / 4;
  T* filter = reinterpret_cast<T*>(at);

  const int cb = p.gb * static_cast<int>(a.c / a.groups);
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int64_t first = blockIdx.x / p.chunks, step = gridDim.x / p.chunks;
  const int64_t tiles = t.tiles;
  const int pixels = p.th * p.tw * t.images;
  const int count = first < tiles ? static_cast<int>((tiles - first + step - 1) / step) : 0;
  const bool leader = threadIdx.x == 0;
  // The block's j-th tile: first image n, first output row oh0 and column ow0.
  const auto place = [&](int j, int* n, int* oh0, int* ow0) {
    const int64_t tile = first + j * step;
    *ow0 = static_cast<int>(tile % p.tiles_w) * p.tw;
    const int64_t rest = tile / p.tiles_w;
    *oh0 = static_cast<int>(rest % p.tiles_h) * p.th;
    *n = static_cast<int>(rest / p.tiles_h) * t.images;
  };
  // Tile j's input box into stage j % stages (the leader).
  const auto load = [&](int j) {
    int n, oh0, ow0;
    place(j, &n, &oh0, &ow0);
    const int s = j % t.stages;
    const uint32_t bar = full + 8 * s;
    mbarrier_expect_bytes(bar, static_cast<uint32_t>(t.box_bytes));
    // A box a phase: phase f from input column ow0 stride - pad + f, every phases-th.
    for (int f = 0; f < p.phases; ++f) {
      tma_load_4d(stages_at + s * t.stage_bytes + 2u * f * p.phase_points * p.x_row, &x_map, bar,
                  chunk * cb, ow0 * static_cast<int>(a.stride[2]) - static_cast<int>(a.pad[2]) + f,
                  oh0 * static_cast<int>(a.stride[1]) - static_cast<int>(a.pad[1]), n);
    }
  };

  grouped_block_setup<T, kHasBias>(a, p, chunk, zero, bias, chunk_at, filter);
  if (leader) {
    for (int s = 0; s < t.stages; ++s) mbarrier_init(full + 8 * s, 1);
    mbarrier_init_fence();
    for (int j = 0; j + 1 < t.stages && j < count; ++j) load(j);
  }
  cp_async_wait<0>();
  __syncthreads();  // the filters, tables and barriers
  const GroupedTmaWarp<kN, kMT> wp =
      grouped_tma_warp<kN, kMT>(a, p, stages_at, zero, filter, t.images);
  float2 bj[kN];  // the lane's bias pairs, once
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    bj[j] = *reinterpret_cast<const float2*>(bias + wp.out0 + 8 * j + 2 * (threadIdx.x % 4));
  }
  uint32_t bh[kSteps > 0 ? kSteps : 1][kN][2] = {};  // every step's B fragments, once
  if constexpr (kSteps > 0) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
#pragma unroll
      for (int jn = 0; jn < kN; ++jn) {
        if (2 * s < p.q) grouped_tma_b(p, wp, s, jn, 2 * s + 1 == p.q, bh[s][jn]);
      }
    }
  }
  for (int j = 0; j < count; ++j) {
    // Stage (j - 1) % stages was read by every warp before the last barrier.
    if (leader && j + t.stages - 1 < count) load(j + t.stages - 1);
    const int s = j % t.stages;
    mbarrier_wait(full + 8 * s, static_cast<uint32_t>(j / t.stages) & 1u);
    const uint32_t out_at = ys_at + (t.out_tiles == 2 ? (j & 1) * t.out_bytes : 0u);
    // One output tile: the last tile's store has read it before this tile's epilogue writes it
    // (after the tile's mma, so that the store's read overlaps them).
    const auto before_epilogue = [&] {
      if (t.out_tiles == 1 && j > 0) {
        if (leader) tma_store_wait_read<0>();
        __syncthreads();
      }
    };
    grouped_tma_tile<T, kAct, kN, kMT, kSteps>(p, wp, chunk_at, bj, bh,
                                               static_cast<uint32_t>(s * t.stage_bytes), pixels,
                                               out_at, before_epilogue);
    fence_proxy_async_shared();  // the output tile is visible to the store
    // Two output tiles: the last tile's store has read the other one, which the next tile writes.
    if (leader && t.out_tiles == 2) tma_store_wait_read<0>();
    __syncthreads();
    if (leader) {
      int n, oh0, ow0;
      place(j, &n, &oh0, &ow0);
      tma_store_4d(&y_map, out_at, chunk * kGroupedTmaChannels, ow0, oh0, n);
    }
  }
  if (leader) tma_store_wait<0>();
}

}  // namespace boo_kernels
