// conv.pointwise: forward 1x1 convolutions (stride 1, no padding, groups 1) with few channels,
// C and K at most kPointwiseMaxChannels, which tensor-core GEMM tiles waste (C = 35: a 35-wide K
// loop in 32-wide k-blocks, 35 outputs in a 64-wide tile, and copies to pad both to 8). Each
// output pixel is the product of its C input channels with the K x C filter, so the kernels
// stream pixels through shared memory: 16-bit types as super-rows of one or two pixels on
// mma.sync against a block-diagonal filter (conv_pointwise_mma_kernel, below); fp32 a pixel per
// thread, CUDA-core FMAs with the filter read from shared memory four outputs at a time. Both add
// the bias and apply the activation. The target is the memory floor: x read once, y written once.
//
// ConvPointwiseRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x and
// y arrive packed channels-last with 16-byte aligned pointers, so they are P x C and P x K
// matrices (P = N x spatial). Sums over the channels run in a fixed order: deterministic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_pointwise_plan.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace boo_kernels {

constexpr int kPointwiseBlocksPerSm = 3;

// Copies `count` elements between global and shared memory, both 16-byte aligned (a tile starts
// 256 pixels into a packed tensor with a 16-byte aligned base, and after the 16-byte multiples
// of the filter and bias in shared memory): 16-byte vectors, up to four per thread in flight,
// then the tail element by element. Element-wise copies had one load latency per element per
// thread (C = 35: 35 latencies per tile).
template <class T>
__device__ __forceinline__ void copy_tile(T* __restrict__ dst, const T* __restrict__ src,
                                          int count) {
  constexpr int kPer = 16 / sizeof(T);
  const int vectors = count / kPer;
  const uint4* s4 = reinterpret_cast<const uint4*>(src);
  uint4* d4 = reinterpret_cast<uint4*>(dst);
  int i = threadIdx.x;
  for (; i + 3 * kPointwiseThreads < vectors; i += 4 * kPointwiseThreads) {
    uint4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = s4[i + j * kPointwiseThreads];
#pragma unroll
    for (int j = 0; j < 4; ++j) d4[i + j * kPointwiseThreads] = v[j];
  }
  for (; i < vectors; i += kPointwiseThreads) d4[i] = s4[i];
  for (int e = vectors * kPer + threadIdx.x; e < count; e += kPointwiseThreads) dst[e] = src[e];
}

// dst[i] = value(i) for i < count (at most kPer * kPointwiseThreads): each thread computes all of
// its values, their global loads in flight together, before it stores any. Staging the filter one
// load at a time cost each block a load latency per element (18 at C = K = 64): 5 to 8 us of
// fixed cost on small problems (bench/results/2026-11-25-conv-pointwise-h100.md).
template <int kPer, class D, class F>
__device__ __forceinline__ void fill_in_flight(D* __restrict__ dst, int count, F value) {
  D v[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int i = threadIdx.x + j * kPointwiseThreads;
    if (i < count) v[j] = value(i);
  }
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int i = threadIdx.x + j * kPointwiseThreads;
    if (i < count) dst[i] = v[j];
  }
}

// kK: K rounded up to a multiple of 8 (the accumulators a thread keeps); the filter sits in
// shared memory as fp32 [C][kK] (zero past K), the bias as fp32 [kK], then the pixel tile
// (kPointwiseThreads rows of max(C, K) elements: x's channels, later y's).
template <class T, int kK, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kPointwiseThreads, kPointwiseBlocksPerSm)
    conv_pointwise_kernel(BooConvArgs a, int64_t pixels) {
  extern __shared__ float4 shared4[];
  float* filter = reinterpret_cast<float*>(shared4);
  float* bias = filter + a.c * kK;
  T* tile = reinterpret_cast<T*>(bias + kK);
  const int c_count = static_cast<int>(a.c), k_count = static_cast<int>(a.k);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  fill_in_flight<(kPointwiseMaxChannels * kK + kPointwiseThreads - 1) / kPointwiseThreads>(
      filter, c_count * kK, [&](int i) {
        const int c = i / kK, k = i % kK;
        return k < k_count ? to_float(w[k * a.w_stride[0] + c * a.w_stride[1]]) : 0.0f;
      });
  for (int k = threadIdx.x; k < kK; k += kPointwiseThreads) {
    bias[k] = kHasBias && k < k_count ? to_float(static_cast<const T*>(a.bias)[k]) : 0.0f;
  }
  const float4* filter4 = reinterpret_cast<const float4*>(filter);
  for (int64_t p0 = static_cast<int64_t>(blockIdx.x) * kPointwiseThreads; p0 < pixels;
       p0 += static_cast<int64_t>(gridDim.x) * kPointwiseThreads) {
    const int rows =
        pixels - p0 < kPointwiseThreads ? static_cast<int>(pixels - p0) : kPointwiseThreads;
    // The tile's x: rows x C elements, contiguous in x and in the tile.
    copy_tile(tile, x + p0 * c_count, rows * c_count);
    __syncthreads();  // (the first time also the filter and the bias)
    float acc[kK];
#pragma unroll
    for (int k = 0; k < kK; ++k) acc[k] = bias[k];
    if (threadIdx.x < rows) {
      const T* px = tile + threadIdx.x * c_count;
#pragma unroll 2
      for (int c = 0; c < c_count; ++c) {
        const float v = to_float(px[c]);
#pragma unroll
        for (int k = 0; k < kK; k += 4) {
          const float4 f = filter4[(c * kK + k) / 4];
          acc[k] += v * f.x;
          acc[k + 1] += v * f.y;
          acc[k + 2] += v * f.z;
          acc[k + 3] += v * f.w;
        }
      }
    }
    __syncthreads();  // every thread has read its pixel: the tile takes y's channels
    if (threadIdx.x < rows) {
      T* py = tile + threadIdx.x * k_count;
#pragma unroll
      for (int k = 0; k < kK; ++k) {
        if (k < k_count) py[k] = from_float<T>(activate<kAct>(acc[k]));
      }
    }
    __syncthreads();
    copy_tile(y + p0 * k_count, tile, rows * k_count);
    __syncthreads();  // the tile is free for the next pixels
  }
}

// The tensor-core kernel for 16-bit types (mma.sync m16n8k16, fp32 accumulators) runs on
// super-rows of R pixels: R = 2 where C or K is odd, else 1, so that a super-row's R C input and
// R K output elements are whole 32-bit words. A tile is 128 consecutive super-rows, 128 R C
// elements contiguous in x: cp.async copies it flat into one of kPointwiseStages stage buffers,
// the next tile in flight, and mma.sync's A words load straight from it (no pass that spreads
// rows into padded ones; that pass and scalar stores took the last version's issue slots). The
// reduction of a super-row runs over its R C elements in k16 steps against a block-diagonal
// filter: the outputs of slot a (pixel a of the super-row, K rounded up to 8 columns) take the
// columns of slot a only. Each step's A words are masked to the slot they multiply (a word that
// straddles two pixels keeps its half; the words past R C, the next super-row's, are zero), so a
// non-finite input reaches its own pixel's outputs only, never through a zero weight to its
// neighbour's. Steps without a column of a slot skip that slot's multiplies. Each warp takes 16
// super-rows, whose outputs are again contiguous in y: the warp writes them to its own shared
// buffer and copies that out in 16-byte vectors (32-bit stores straight from the accumulators
// made the L2 take 16-byte pieces: 47.5 against 24 us on the public C = 35 line, H100). Per tile
// a block runs one barrier. The filter tables are built without divisions (a block's set-up is
// a chain of dependent instructions on small problems). The plan: conv_pointwise_plan.cuh.

// Two elements as one word, the first in the low half.
template <class T>
__device__ __forceinline__ uint32_t pack_elements(T lo, T hi) {
  return static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(&lo)) |
         static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(&hi)) << 16;
}

// Does k16 step s meet slot sl's columns [sl C, sl C + C)? (Steps that do not are skipped.)
__device__ __forceinline__ bool pointwise_meets(int s, int sl, int c) {
  return 16 * s < sl * c + c && 16 * s + 16 > sl * c;
}

// A block's set-up, after its first loads are in flight: the filter (K x C; packed, as 1x1
// filters are, one flat copy) into wraw and the bias; a barrier; then the B fragments of the
// block-diagonal filter where a step meets a slot (element (kk, n) of slot sl is w[n][kk - sl C]
// for kk in slot sl's columns, else zero) and the A masks (the halves of a lane's words, columns
// 2t, 2t + 1 and 2t + 8, 2t + 9, in slot sl). The caller's next barrier publishes the tables.
template <class T, int kNs, bool kHasBias>
__device__ __forceinline__ void pointwise_tables(const BooConvArgs& a, const PointwisePlan& p,
                                                 uint2* bfrag, uint2* amask, float* bias, T* wraw) {
  const int c_count = static_cast<int>(a.c), k_count = static_cast<int>(a.k);
  const int slots = p.slots, steps = p.steps;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const T* __restrict__ w = static_cast<const T*>(a.w);
  const T zero = from_float<T>(0.0f);
  const bool packed = a.w_stride[1] == 1 && a.w_stride[0] == c_count;
  fill_in_flight<kPointwiseMaxChannels * kPointwiseMaxChannels / kPointwiseThreads>(
      wraw, k_count * c_count, [&](int i) {
        if (packed) return w[i];
        const int k = i / c_count, c = i - k * c_count;
        return w[k * a.w_stride[0] + c * a.w_stride[1]];
      });
  if (kHasBias && threadIdx.x < kNs * 8) {
    bias[threadIdx.x] = static_cast<int>(threadIdx.x) < k_count
                            ? to_float(static_cast<const T*>(a.bias)[threadIdx.x])
                            : 0.0f;
  }
  __syncthreads();
  // Entry e = 32 (kNs ss + j) + lane: a thread's lane is fixed, so its warp walks (ss, j).
  const int warps = kPointwiseThreads / 32;
  for (int i = warp, j = warp % kNs, ss = warp / kNs; i < steps * slots * kNs;
       i += warps, j += warps % kNs, ss += warps / kNs) {
    if (j >= kNs) j -= kNs, ++ss;
    const int sl = slots == 2 ? ss % 2 : 0, s = slots == 2 ? ss / 2 : ss;
    if (!pointwise_meets(s, sl, c_count)) continue;
    const int kk0 = 16 * s + 2 * t - sl * c_count, n = 8 * j + g;
    const T* wn = wraw + n * c_count;
    const auto at = [&](int c) { return n < k_count && c >= 0 && c < c_count ? wn[c] : zero; };
    bfrag[32 * i + lane] =
        make_uint2(pack_elements(at(kk0), at(kk0 + 1)), pack_elements(at(kk0 + 8), at(kk0 + 9)));
  }
  for (int e = threadIdx.x; e < steps * slots * 32; e += kPointwiseThreads) {
    const int l = e % 32, ss = e / 32;
    const int sl = slots == 2 ? ss % 2 : 0, s = slots == 2 ? ss / 2 : ss;
    const int c0 = 16 * s + 2 * (l % 4) - sl * c_count;
    const auto half = [&](int c, uint32_t bits) { return c >= 0 && c < c_count ? bits : 0u; };
    amask[e] = make_uint2(half(c0, 0xffffu) | half(c0 + 1, 0xffff0000u),
                          half(c0 + 8, 0xffffu) | half(c0 + 9, 0xffff0000u));
  }
}

// The set-up's tables in shared memory, in order (pointwise_shared_bytes): the B fragments (uint2
// per step, slot, n-tile and lane), the A masks (uint2 per step, slot and lane), the bias (fp32,
// 8 kNs), the filter as loaded (K x C, rounded up to 8 elements); `rest`: what a kernel keeps
// after them (16-byte aligned).
template <class T>
struct PointwiseTables {
  uint2* bfrag;
  uint2* amask;
  float* bias;
  T* wraw;
  T* rest;
};
template <class T, int kNs>
__device__ __forceinline__ PointwiseTables<T> pointwise_tables_at(float4* shared,
                                                                  const PointwisePlan& p, int c,
                                                                  int k) {
  PointwiseTables<T> m;
  m.bfrag = reinterpret_cast<uint2*>(shared);
  m.amask = m.bfrag + p.steps * p.slots * kNs * 32;
  m.bias = reinterpret_cast<float*>(m.amask + p.steps * p.slots * 32);
  m.wraw = reinterpret_cast<T*>(m.bias + kNs * 8);
  m.rest = m.wraw + (k * c + 7) / 8 * 8;
  return m;
}

// One warp's 16 super-rows (A rows g and g + 8 at shared addresses a_row and a_row8) times the
// block-diagonal filter, into acc[slot][n-tile].
template <class T, int kNs>
__device__ __forceinline__ void pointwise_multiply(float (&acc)[2][kNs][4], uint32_t a_row,
                                                   uint32_t a_row8, const PointwisePlan& p,
                                                   int c_count, const uint2* bfrag,
                                                   const uint2* amask) {
  const int lane = threadIdx.x % 32, slots = p.slots;
#pragma unroll
  for (int sl = 0; sl < 2; ++sl) {
#pragma unroll
    for (int j = 0; j < kNs; ++j)
      acc[sl][j][0] = acc[sl][j][1] = acc[sl][j][2] = acc[sl][j][3] = 0.0f;
  }
  // Word 8 s + t of rows g and g + 8 (4 bytes a word, 2 row bytes a column).
#pragma unroll 1
  for (int s = 0; s < p.steps; ++s) {
    const uint32_t w0 = lds32(a_row + 32 * s), w1 = lds32(a_row8 + 32 * s);
    const uint32_t w2 = lds32(a_row + 32 * s + 16), w3 = lds32(a_row8 + 32 * s + 16);
#pragma unroll
    for (int sl = 0; sl < 2; ++sl) {
      if (sl >= slots || (slots == 2 && !pointwise_meets(s, sl, c_count))) continue;
      const uint2 m = amask[(s * slots + sl) * 32 + lane];
      const uint32_t af[4] = {w0 & m.x, w1 & m.x, w2 & m.y, w3 & m.y};
      const uint2* bf = bfrag + (s * slots + sl) * kNs * 32 + lane;
#pragma unroll
      for (int j = 0; j < kNs; ++j) {
        const uint2 v = bf[j * 32];
        const uint32_t bv[2] = {v.x, v.y};
        mma_16816<T>(acc[sl][j], af, bv);
      }
    }
  }
}

// acc[sl][j]: super-rows g and g + 8, outputs 8 j + 2 t and + 1 of pixel sl of each, into a
// warp's 16 output super-rows at shared address out_base: (super-row) R K + sl K + n, a word but
// for slot 1 of an odd K (two halves). Only the last n-tile has columns past K (K > 8 (kNs - 1)).
template <class T, int kNs, bool kHasBias, int kAct>
__device__ __forceinline__ void pointwise_stage_outputs(const float (&acc)[2][kNs][4],
                                                        uint32_t out_base, const PointwisePlan& p,
                                                        int k_count, const float* bias) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int sl = 0; sl < 2; ++sl) {
    if (sl >= p.slots) continue;
    const bool words = sl == 0 || k_count % 2 == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t at = out_base + 2 * ((g + 8 * h) * p.out_row + sl * k_count + 2 * t);
#pragma unroll
      for (int j = 0; j < kNs; ++j) {
        const int n = 8 * j + 2 * t;
        float v0 = acc[sl][j][2 * h], v1 = acc[sl][j][2 * h + 1];
        if constexpr (kHasBias) {
          const float2 bn = *reinterpret_cast<const float2*>(bias + n);
          v0 += bn.x;
          v1 += bn.y;
        }
        const uint32_t v = pack_pair<T>(activate<kAct>(v0), activate<kAct>(v1));
        const bool both = j + 1 < kNs || n + 1 < k_count, first = j + 1 < kNs || n < k_count;
        if (words && both) {
          asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at + 16 * j), "r"(v));
        } else {
          if (first)
            asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(at + 16 * j),
                         "h"(static_cast<uint16_t>(v)));
          if (both)
            asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(at + 16 * j + 2),
                         "h"(static_cast<uint16_t>(v >> 16)));
        }
      }
    }
  }
}

// A warp's staged outputs (16 super-rows: y's elements [y0, y0 + 16 R K), 16-byte aligned) out to
// y in 16-byte vectors; past y's end (the last tile) only what is there.
template <class T>
__device__ __forceinline__ void pointwise_copy_out(T* __restrict__ y, int64_t y0,
                                                   int64_t y_elements, const T* outs,
                                                   const PointwisePlan& p) {
  constexpr int kPer = 16 / sizeof(T);
  const int lane = threadIdx.x % 32;
  const int64_t full = pointwise_warp_out_elements(p);
  const int64_t valid = y_elements - y0 < full ? y_elements - y0 : full;
  const int vectors = valid > 0 ? static_cast<int>(valid / kPer) : 0;
  for (int i = lane; i < vectors; i += 32) {
    reinterpret_cast<uint4*>(y + y0)[i] = reinterpret_cast<const uint4*>(outs)[i];
  }
  for (int64_t e = static_cast<int64_t>(vectors) * kPer + lane; e < valid; e += 32) {
    y[y0 + e] = outs[e];
  }
}

// Three blocks an SM (80 registers) up to 7 n-tiles a slot; 8 would spill there, so two.
template <class T, int kNs, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kPointwiseThreads, kNs < 8 ? 3 : 2)
    conv_pointwise_mma_kernel(BooConvArgs a, PointwisePlan p) {
  extern __shared__ float4 shared4[];
  const int c_count = static_cast<int>(a.c), k_count = static_cast<int>(a.k);
  const int row = p.row;
  const PointwiseTables<T> tb = pointwise_tables_at<T, kNs>(shared4, p, c_count, k_count);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t warp_out = pointwise_warp_out_elements(p);
  T* outs = tb.rest + warp * warp_out;
  T* stages = tb.rest + kPointwiseThreads / 32 * warp_out;
  const int64_t stage_elements = pointwise_stage_elements(p);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int64_t elements = p.pixels * c_count;
  const int64_t tiles = (p.rows + kPointwiseTileRows - 1) / kPointwiseTileRows;
  const int64_t step = gridDim.x;
  // Tile q into stage buffer b: 16 row 16-byte chunks, zero-filled past x's end (so that no
  // stale element of an earlier tile is multiplied). One commit group per call, empty or not.
  constexpr int kPer = 16 / sizeof(T);
  const auto fetch = [&](int64_t q, int b) {
    if (q < tiles) {
      const int64_t e0 = q * kPointwiseTileRows * row;
      const T* src = x + e0;
      // The tile's bytes in x (all 256 R C but in the last tile).
      const int64_t in_x = (elements - e0) * static_cast<int64_t>(sizeof(T));
      const int left = in_x < 256 * row ? static_cast<int>(in_x) : 256 * row;
      T* dst = stages + b * stage_elements;
      if (left == 256 * row) {  // a whole tile: no clamps, 32-bit address steps
        uint32_t d = shared_address(dst) + 16 * threadIdx.x;
        const char* sp = reinterpret_cast<const char*>(src) + 16 * threadIdx.x;
        for (int i = threadIdx.x; i < 16 * row; i += kPointwiseThreads) {
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(sp));
          d += 16 * kPointwiseThreads;
          sp += 16 * kPointwiseThreads;
        }
      } else {
        for (int i = threadIdx.x; i < 16 * row; i += kPointwiseThreads) {
          const int n = min(max(left - 16 * i, 0), 16);
          cp_async_16(dst + i * kPer, n > 0 ? src + i * kPer : x, n);
        }
      }
    }
    cp_async_commit();
  };
  // Every stage buffer fills before the set-up (a block of this wave takes one or two tiles on
  // most problems: the second one's load then overlaps the set-up and the first tile).
  int64_t q = blockIdx.x;
#pragma unroll
  for (int i = 0; i < kPointwiseStages; ++i) fetch(q + i * step, i);
  pointwise_tables<T, kNs, kHasBias>(a, p, tb.bfrag, tb.amask, tb.bias, tb.wraw);
  const uint32_t stage_base = shared_address(stages);
  const uint32_t out_base = shared_address(outs);
  const int64_t y_elements = p.pixels * k_count;
  int b = 0;
  for (bool opening = true; q < tiles; q += step, opening = false) {
    // Tile q has landed (the first: its group of kPointwiseStages; later ones: the refills
    // behind it, one a tile); every warp is done with the buffer the refill takes.
    if (opening) {
      cp_async_wait<kPointwiseStages - 1>();
    } else {
      cp_async_wait<kPointwiseStages - 2>();
    }
    __syncthreads();
    if (!opening)
      fetch(q + (kPointwiseStages - 1) * step, (b + kPointwiseStages - 1) % kPointwiseStages);
    float acc[2][kNs][4];
    const uint32_t a_row = stage_base + static_cast<uint32_t>(b * stage_elements * sizeof(T)) +
                           static_cast<uint32_t>(((warp * 16 + g) * row / 2 + t) * 4);
    pointwise_multiply<T, kNs>(acc, a_row, a_row + static_cast<uint32_t>(8 * row * sizeof(T)), p,
                               c_count, tb.bfrag, tb.amask);
    pointwise_stage_outputs<T, kNs, kHasBias, kAct>(acc, out_base, p, k_count, tb.bias);
    __syncwarp();
    pointwise_copy_out(y, (q * kPointwiseTileRows + warp * 16) * p.out_row, y_elements, outs, p);
    __syncwarp();  // the buffer is free for the next tile
    b = (b + 1) % kPointwiseStages;
  }
}

// Where the outputs fit over the inputs (R K <= R C + 1: the public C = K = 35 line's class), the
// warp kernel: every warp an independent pipeline over its own units of 16 super-rows (unit u:
// super-rows [16 u, 16 u + 16), 32 R C contiguous bytes of x), loaded by the warp itself, two
// units in flight, outputs staged over the unit's own slice: no block barrier after the set-up
// (cp.async.wait_group and __syncwarp only). H200
// (bench/results/2026-11-29-pointwise-lean-h200.md): the public C = 35 line 16.8 -> 15.8 us against
// the block kernel; a C = 3, K = 16 line (not in place: a unit is 192 bytes of x against 1 KB of
// y) 12.4 -> 15.0, so the block kernel keeps those. Measured and not kept: a 64-register budget for
// four blocks an SM (BOO_POINTWISE_WARP_BLOCKS=4; spills at 5 n-tiles, 19 us on the public line),
// and both units loaded before the set-up (17.2 us). BOO_POINTWISE_WARP=0: the block kernel
// everywhere.
#ifndef BOO_POINTWISE_WARP
#define BOO_POINTWISE_WARP 1
#endif

template <class T, int kNs, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kPointwiseThreads, kNs < 8 ? BOO_POINTWISE_WARP_BLOCKS : 2)
    conv_pointwise_mma_warp_kernel(BooConvArgs a, PointwisePlan p) {
  extern __shared__ float4 shared4[];
  const int c_count = static_cast<int>(a.c), k_count = static_cast<int>(a.k);
  const int row = p.row;
  const PointwiseTables<T> tb = pointwise_tables_at<T, kNs>(shared4, p, c_count, k_count);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t slice = pointwise_slice_elements(p);
  T* slices = tb.rest + warp * kPointwiseSlices * slice;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int64_t elements = p.pixels * c_count;
  const int64_t units = (p.rows + 15) / 16;
  const int64_t step = static_cast<int64_t>(gridDim.x) * (kPointwiseThreads / 32);
  // The mbarriers of the warp's slices, after every warp's slices (BOO_POINTWISE_BULK_LOAD).
  const uint32_t bars =
      shared_address(tb.rest + kPointwiseThreads / 32 * kPointwiseSlices * slice) +
      static_cast<uint32_t>(warp * kPointwiseSlices * 8);
  if (BOO_POINTWISE_BULK_LOAD && lane == 0) {
    for (int s = 0; s < kPointwiseSlices; ++s) mbarrier_init(bars + 8 * s, 1);
    mbarrier_init_fence();
  }
  uint32_t parity = 0;  // of each slice's mbarrier, a bit a slice
  // Does unit u fill its slice from x (so that one bulk copy takes it)?
  const auto whole = [&](int64_t u) {
    return (elements - u * 16 * row) * static_cast<int64_t>(sizeof(T)) >= 32 * row;
  };
  // Unit u into slice b: 2 R C 16-byte chunks a unit, zero-filled past x's end. One group a call
  // (but where a bulk copy takes the unit: none).
  const auto fetch = [&](int64_t u, int b) {
    if (BOO_POINTWISE_BULK_LOAD && u < units && whole(u)) {
      if (lane == 0) {
        fence_proxy_async_shared();  // after the slice's earlier reads and writes
        mbarrier_expect_bytes(bars + 8 * b, static_cast<uint32_t>(32 * row));
        bulk_copy(shared_address(slices + b * slice), x + u * 16 * row,
                  static_cast<uint32_t>(32 * row), bars + 8 * b);
      }
      return;
    }
    if (u < units) {
      const int64_t e0 = u * 16 * row;
      const int64_t in_x = (elements - e0) * static_cast<int64_t>(sizeof(T));
      uint32_t d = shared_address(slices + b * slice) + 16 * lane;
      const char* sp = reinterpret_cast<const char*>(x + e0) + 16 * lane;
      if (in_x >= 32 * row) {
        for (int i = lane; i < 2 * row; i += 32, d += 512, sp += 512) {
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(sp));
        }
      } else {
        const int left = static_cast<int>(in_x);
        for (int i = lane; i < 2 * row; i += 32, d += 512, sp += 512) {
          const int n = min(max(left - 16 * i, 0), 16);
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
                       "l"(n > 0 ? static_cast<const void*>(sp) : static_cast<const void*>(x)),
                       "r"(n));
        }
      }
    }
    cp_async_commit();
  };
  int64_t u = static_cast<int64_t>(blockIdx.x) * (kPointwiseThreads / 32) + warp;
  fetch(u, 0);
  pointwise_tables<T, kNs, kHasBias>(a, p, tb.bfrag, tb.amask, tb.bias, tb.wraw);
  __syncthreads();  // the tables; from here on each warp runs alone
  const uint32_t slice_base = shared_address(slices);
  const int64_t y_elements = p.pixels * k_count;
  for (int b = 0; u < units; u += step) {
    const int nb = b + 1 == kPointwiseSlices ? 0 : b + 1;
    if (BOO_POINTWISE_BULK_STORE) {  // slice nb's store (two units back) has read it
      if (lane == 0) tma_store_wait_read<kPointwiseSlices - 2>();
      __syncwarp();
    }
    fetch(u + step, nb);  // slice nb was copied out at the end of an earlier unit
    if (BOO_POINTWISE_BULK_LOAD && whole(u)) {
      mbarrier_wait(bars + 8 * b, (parity >> b) & 1u);  // unit u's bulk copy has landed
      parity ^= 1u << b;
    } else {
      // The next fetch's group may be pending (none of a bulk copy: then every group is done).
      cp_async_wait<BOO_POINTWISE_BULK_LOAD ? 0 : 1>();
      __syncwarp();  // every lane's chunks of unit u have landed
    }
    float acc[2][kNs][4];
    const uint32_t a_row = slice_base + static_cast<uint32_t>(b * slice * sizeof(T)) +
                           static_cast<uint32_t>((g * row / 2 + t) * 4);
    pointwise_multiply<T, kNs>(acc, a_row, a_row + static_cast<uint32_t>(8 * row * sizeof(T)), p,
                               c_count, tb.bfrag, tb.amask);
    __syncwarp();  // every lane has read its A words: the slice may take the outputs
    T* out = slices + b * slice;
    pointwise_stage_outputs<T, kNs, kHasBias, kAct>(acc, shared_address(out), p, k_count, tb.bias);
    const int64_t y0 = u * 16 * p.out_row;
    if (BOO_POINTWISE_BULK_STORE && y_elements - y0 >= pointwise_warp_out_elements(p)) {
      fence_proxy_async_shared();
      __syncwarp();
      if (lane == 0) {
        bulk_store(y + y0, shared_address(out),
                   static_cast<uint32_t>(pointwise_warp_out_elements(p) * sizeof(T)));
      }
    } else {
      __syncwarp();
      pointwise_copy_out(y, y0, y_elements, out, p);
    }
    __syncwarp();  // the slice is free for a later fetch
    b = nb;
  }
  // Before the block's shared memory goes: the stores have read their slices (2, the default: what
  // CUTLASS's TMA-store epilogues wait for), or complete (1).
  if (BOO_POINTWISE_BULK_STORE == 1 && lane == 0) tma_store_wait<0>();
  if (BOO_POINTWISE_BULK_STORE == 2 && lane == 0) tma_store_wait_read<0>();
}

template <class T, bool kHasBias, int kAct>
struct ConvPointwiseRunner {
  static const char* reject(const BooConvArgs& a) {
    if (a.direction != BOO_CONV_FORWARD) return "conv.pointwise runs the forward pass only";
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups != 1) return "conv.pointwise needs groups = 1";
    for (int i = 0; i < 3; ++i) {
      if (a.filter[i] != 1 || a.stride[i] != 1 || a.pad[i] != 0) {
        return "conv.pointwise needs a 1x1 filter, stride 1 and no padding";
      }
    }
    if (a.c > kPointwiseMaxChannels || a.k > kPointwiseMaxChannels) {
      return "conv.pointwise takes at most 64 input and 64 output channels";
    }
    // Packed channels-last x and y (what ConvChannelsLastRunner hands over): P x C and P x K.
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.pointwise needs packed channels-last x and y";
    }
    if (kHasBias && a.bias == nullptr) {
      return "the kernel adds a bias but the bias pointer is missing";
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0) {
      return "conv.pointwise needs 16-byte aligned x and y";
    }
    return nullptr;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    return reject_verdict(reject(a), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) { return reject(a) == nullptr ? 0 : -1; }

  // kK: K rounded up to 8. 16-bit types run the tensor-core kernel, fp32 the CUDA-core one; one
  // wave of blocks, each looping over tiles (the filter is staged once per block).
  template <int kK>
  static int32_t launch(const BooConvArgs& a, void* stream, char* why, int32_t len) {
    const int64_t pixels = a.n * a.in[0] * a.in[1] * a.in[2];
    const int c = static_cast<int>(a.c), k = static_cast<int>(a.k);
    if constexpr (sizeof(T) == 2) {
      const PointwisePlan plan = pointwise_plan(pixels, c, k);
      // Warps of their own where the outputs fit over the inputs (R K <= R C + 1) and an SM
      // holds as many of its blocks (pointwise_warp_kernel); the block kernel elsewhere (few
      // input channels and many outputs: a warp's unit is then a few hundred bytes of x against
      // kilobytes of y). A wave of blocks at most either way.
      if (BOO_POINTWISE_WARP && pointwise_warp_kernel(plan, kK / 8, c, k, sizeof(T))) {
        return launch_tile_wave(
            conv_pointwise_mma_warp_kernel<T, kK / 8, kHasBias, kAct>, kPointwiseThreads,
            static_cast<int>(pointwise_warp_shared_bytes(plan, kK / 8, c, k, sizeof(T))),
            (plan.rows + 16 * kPointwiseThreads / 32 - 1) / (16 * kPointwiseThreads / 32), 1,
            a.sm_count, stream, why, len, a, plan);
      }
      return launch_tile_wave(
          conv_pointwise_mma_kernel<T, kK / 8, kHasBias, kAct>, kPointwiseThreads,
          static_cast<int>(pointwise_shared_bytes(plan, kK / 8, c, k, sizeof(T))),
          (plan.rows + kPointwiseTileRows - 1) / kPointwiseTileRows, 1, a.sm_count, stream, why,
          len, a, plan);
    } else {
      const int widest = c > k ? c : k;
      return launch_tile_wave(
          conv_pointwise_kernel<T, kK, kHasBias, kAct>, kPointwiseThreads,
          static_cast<int>((c * kK + kK) * 4 + kPointwiseThreads * widest * sizeof(T)),
          (pixels + kPointwiseThreads - 1) / kPointwiseThreads, 1, a.sm_count, stream, why, len, a,
          pixels);
    }
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    (void)ws;
    (void)ws_bytes;
    if (const int32_t v = reject_verdict(reject(a), why, len); v != BOO_OK) return v;
    if (a.dry_run) return BOO_OK;
    switch ((a.k + 7) / 8) {
      case 1:
        return launch<8>(a, stream, why, len);
      case 2:
        return launch<16>(a, stream, why, len);
      case 3:
        return launch<24>(a, stream, why, len);
      case 4:
        return launch<32>(a, stream, why, len);
      case 5:
        return launch<40>(a, stream, why, len);
      case 6:
        return launch<48>(a, stream, why, len);
      case 7:
        return launch<56>(a, stream, why, len);
      default:
        return launch<64>(a, stream, why, len);
    }
  }
};

}  // namespace boo_kernels
