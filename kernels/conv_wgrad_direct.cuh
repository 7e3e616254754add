// conv.split_wgrad's direct kernel: backward weight of small layers, dw(k, c, tap) = sum over
// the output pixels of dy(pixel, k) x(pixel's input point + tap, c), on mma.sync.
//
// CUTLASS's implicit GEMM runs backward weight as a GEMM of K x (taps x C) tiles over the
// pixels, each tile one filter tap: on a 3x3 layer of 64 channels its 9 tiles of 64 x 64 each
// read all of dy and of x, 9 times the tensors from L2 (462 MB on the public n64 c64 56x56 line:
// 75 us against cuDNN's 46, bound by L2). Here a block stages a tile of output pixels of dy
// (at most 64 channels) and the input points its taps reach of x (at most 64 channels) in
// shared memory once, and its warps multiply every tap out of the same tile:
//   - warp w takes 16 channels of x (w % units) and 3 taps ((w / units) x 3 onwards) for all
//     of the block's output channels: per 16 pixels it loads dy's fragments once (one
//     ldmatrix.x4.trans per 16 output channels) and, per tap, x's (one ldmatrix.x4.trans, each
//     lane pointing at its pixel's input point plus the tap: the im2col gather costs nothing);
//   - accumulators stay in registers (at most 64 x 16 x 3 a warp) across every tile the block
//     walks.
// The block's tiles are a slice of the pixels (blocks of a chunk of channels and taps walk
// tiles s, s + slices, ...); each slice writes its fp32 dw into the workspace and a second
// kernel sums the slices in a fixed order (deterministic).
//
// fp32 runs the same plan on tf32 mma.sync (m16n8k8; wgrad_tf32_steps): warpgroup MMA reads tf32
// K-major only, and both operands here are MN-major (channels contiguous); mma.sync takes its
// fragments from registers, which 64-bit shared loads fill in any order.
//
// Grouped layers (C = K, C/G = K/G in 8..64 dividing 64, C a multiple of 64): a block's 64
// channels of dy and of x are the same whole groups, so only the k chunk's own c chunk runs (the
// dense expansion runs all of them, G times the grouped work): the block multiplies 64 x 64 and
// stores the diagonal C/G x C/G blocks of its groups into a grouped dw (K, taps, C/G).
//
// ConvWgradDirectRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x, dy
// and dw arrive packed channels-last with 16-byte aligned pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

// conv_grouped_direct.cuh: the pixel tiling (GroupedPlan, grouped_tile_shape, grouped_tile,
// grouped_row).
#include "batched_sum.cuh"
#include "conv_common.cuh"
#include "conv_grouped_direct.cuh"
#include "conv_wgrad_1x1.cuh"
#include "conv_wgrad_wgmma.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"

namespace boo_kernels {

// Warps per block and dy rows (output channels) per warp: 12 warps of 64 rows, or (for
// measuring, BOO_NVCC_FLAGS=-DBOO_WGRAD_WARPS=24) 24 warps of 32 rows: half the accumulators a
// thread, twice the warps a scheduler.
#ifndef BOO_WGRAD_WARPS
#define BOO_WGRAD_WARPS 12
#endif
constexpr int kWgradWarps = BOO_WGRAD_WARPS;
constexpr int kWgradThreads = 32 * kWgradWarps;
constexpr int kWgradWarpRows = kWgradWarps > 12 ? 32 : 64;
constexpr int kWgradTapsPerWarp = 3;
// Output channels (K) per block: 64 (4 m-tiles of 16), or 32 where K <= 32 (the kernel's
// kMTiles: a fixed count keeps the mma steps free of branches).
constexpr int kWgradMaxMTiles = 4;
constexpr int kWgradBlockChannels = 64;
// Output pixels per tile, at most: 256 where every slice still walks kWgradLongSlice tiles or
// more, else 128. On an H100 256-pixel tiles took the public 3x3 backward weight from 71.1 to
// 63.5 us and n32 c64 112x112 from 126.2 to 108.0 (half the tiles' fixed costs), and lost up to
// 15% where a slice had one or two tiles (bench/results/2026-11-26-conv-wgrad-direct-h100.md).
// BOO_NVCC_FLAGS=-DBOO_WGRAD_TILE_PIXELS=128 turns the long tiles off (for measuring).
#ifndef BOO_WGRAD_TILE_PIXELS
#define BOO_WGRAD_TILE_PIXELS 256
#endif
constexpr int kWgradTilePixels = BOO_WGRAD_TILE_PIXELS;
constexpr int kWgradLongSlice = 4;
constexpr int kWgradMaxShared = 200 * 1024;
// tf32 operands rounded to nearest in shared memory (1), or truncated by the mma (0; measuring).
// Rounding passes the tf32 gate on 19 of 19 lines (truncation 16: cuDNN rounds) at 4-8% of the
// kernel's time (bench/results/2026-11-29-wgrad-tf32-h200.md, call 2).
#ifndef BOO_WGRAD_TF32_ROUND
#define BOO_WGRAD_TF32_ROUND 1
#endif
// Warp groups a block's taps leave idle take shares of each tile's pixel steps, each share its own
// fp32 partial dw (1), or idle (0): an experiment for 1x1 and 1xN filters, and C <= 32, where
// fewer than 3 taps a warp group fill the block's 12 warps. Measured (same table): 1.18x on an
// fp32 1x1, 5-7% slower on a 1D x3 and a C = 32 3x3; off.
#ifndef BOO_WGRAD_SHARES
#define BOO_WGRAD_SHARES 0
#endif
// Slice groups per 32 elements in the reduction (threads of 32 x groups a block; a macro for
// measuring). The reduction is a programmatic dependent launch (launch_dependent) of the slices'
// kernel, which lets it launch once its tiles are done: the launch overlaps the slices' stores
// (1-1.5 us less on small layers, bench/results/2026-11-27-conv-wgrad-tma-h100.md).
#ifndef BOO_WGRAD_REDUCE_GROUPS
#define BOO_WGRAD_REDUCE_GROUPS 16
#endif
constexpr int kWgradReduceGroups = BOO_WGRAD_REDUCE_GROUPS;
// Over more than kWgradReduceDeepSlices slices (a macro too), a thread of the reduction issues the
// loads of this many of its slices before it adds any of them (0: never; a macro for measuring).
// Below that, or at 0, the loop unrolled by 4 holds a thread's few slices in flight in 32
// registers, four blocks an SM; the deep loop takes 64, two blocks an SM, which cost the grids of
// more than two blocks an SM (H200, bench/results/2026-12-02-wgrad-reduce-h200.md: 132 slices of a
// 3x3 layer 0.4-0.8 us faster deep, 16 slices of a grouped one 1.4 us slower).
#ifndef BOO_WGRAD_REDUCE_DEPTH
#define BOO_WGRAD_REDUCE_DEPTH 8
#endif
#ifndef BOO_WGRAD_REDUCE_DEEP_SLICES
#define BOO_WGRAD_REDUCE_DEEP_SLICES (4 * BOO_WGRAD_REDUCE_GROUPS)
#endif
constexpr int kWgradReduceDepth = BOO_WGRAD_REDUCE_DEPTH;
constexpr int kWgradReduceDeepSlices = BOO_WGRAD_REDUCE_DEEP_SLICES;
// Grouped plans: a warp skips the m-tiles of dy outside its x channels' groups (1), or
// multiplies them all as the dense plan does (0; for measuring). The epilogue stores only the
// groups' blocks either way.
#ifndef BOO_WGRAD_GROUP_SKIP
#define BOO_WGRAD_GROUP_SKIP 1
#endif

struct WgradPlan {
  GroupedPlan tile;  // the output-pixel tiling: th, tw, id, ih, iw, tiles_h, tiles_w
  int kb, cb;        // channels of dy (32 or 64) and of x (a multiple of 16, at most 64) per block
  int units;         // cb / 16: a warp's 16 channels of x
  int k_parts;       // kb / a warp's rows of dy
  int taps_block;    // taps per block: 3 x (warps / (units x k_parts)), at most the filter's
  int k_chunks, c_chunks, tap_chunks, chunks;
  int group_channels;  // grouped layers: C/G (a block's c chunk is its k chunk), else 0
  int slices;          // blocks per chunk, each with its own fp32 dw (shares of them, see below)
  int tap_groups;      // warp groups that take the block's taps, 3 each: taps_block / 3, rounded up
  int shares;          // copies of those groups, each on its own pixel steps (1 unless SHARES)
  int x_row, y_row;    // shared-memory rows (elements): an input point, an output pixel
  int pixels16;        // the tile's pixels rounded up to 16 (one mma k-step)
  int shared_bytes;
  int64_t tiles;  // n x D_out x tiles_h x tiles_w
  int64_t total;  // elements of dw (K x taps x C/G where grouped)
};

inline int wgrad_round16(int64_t v) { return static_cast<int>((v + 15) / 16 * 16); }

// A shared-memory row of `channels` (a multiple of 16) elements of `bytes` each: for 16-bit
// types an odd count of 16-byte vectors (ldmatrix's 8 rows meet 8 different bank groups); for
// fp32 the channels and 8 more words, 8 or 24 banks apart from the next row (the 64-bit loads of
// 4 rows by 8 lanes meet every bank once).
inline int wgrad_row(int channels, int bytes) {
  return bytes == 2 ? grouped_row(channels) : channels + 8;
}

// The plan for `a` (elements of `elem_bytes`: 2, or 4 for tf32) on `sm_count` SMs, or why not.
inline const char* wgrad_plan(const BooConvArgs& a, WgradPlan* p, int elem_bytes) {
  const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
  p->kb = a.k <= 32 ? 32 : kWgradBlockChannels;
  p->k_chunks = grouped_ceil(a.k, p->kb);
  p->c_chunks = grouped_ceil(a.c, kWgradBlockChannels);
  p->cb = wgrad_round16(grouped_ceil(a.c, p->c_chunks));
  p->group_channels = 0;
  if (a.groups > 1) {
    const int64_t cg = a.c / a.groups;
    if (elem_bytes != 2 || kWgradWarpRows != 64 || a.c != a.k || a.c % kWgradBlockChannels != 0 ||
        cg % 8 != 0 || kWgradBlockChannels % cg != 0) {
      return "conv.split_wgrad's direct kernel takes grouped layers in fp16 or bf16 with C = K, a "
             "multiple of 64, and C/G in 8, 16, 32 or 64";
    }
    p->group_channels = static_cast<int>(cg);
    p->c_chunks = 1;  // each k chunk's own channels of x
  }
  p->units = p->cb / 16;
  p->k_parts = p->kb > kWgradWarpRows ? p->kb / kWgradWarpRows : 1;
  const int64_t per_block =
      static_cast<int64_t>(kWgradTapsPerWarp) * (kWgradWarps / (p->units * p->k_parts));
  p->taps_block = static_cast<int>(taps < per_block ? taps : per_block);
  p->tap_chunks = grouped_ceil(taps, p->taps_block);
  p->tap_groups = grouped_ceil(p->taps_block, kWgradTapsPerWarp);
  p->shares =
      BOO_WGRAD_SHARES != 0 ? static_cast<int>(per_block / kWgradTapsPerWarp) / p->tap_groups : 1;
  p->chunks = p->k_chunks * p->c_chunks * p->tap_chunks;
  p->x_row = wgrad_row(p->cb, elem_bytes);
  p->y_row = wgrad_row(p->kb, elem_bytes);
  p->total = a.k * (a.c / a.groups) * taps;
  GroupedPlan& t = p->tile;
  for (int most = kWgradTilePixels; most >= 16; most /= 2) {
    if (!grouped_tile_shape(a, most, &t)) continue;
    const int64_t points = static_cast<int64_t>(t.id) * t.ih * t.iw;
    const int pixels = t.th * t.tw;
    p->pixels16 = wgrad_round16(pixels);
    const int64_t bytes =
        16 + 16 * grouped_ceil(points, 4) + 2 * 16 * grouped_ceil(p->pixels16, 4) +
        2 * elem_bytes * (points * p->x_row + static_cast<int64_t>(p->pixels16) * p->y_row);
    if (bytes > kWgradMaxShared) continue;
    p->shared_bytes = static_cast<int>(bytes);
    p->tiles = a.n * a.out[0] * t.tiles_h * t.tiles_w;
    // One block per SM (384 threads near 170 registers): a slice per SM and chunk.
    const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
    if (most > 128 && p->tiles * p->chunks < kWgradLongSlice * sms) continue;
    if (p->tiles >= (int64_t{1} << 31)) {
      return "conv.split_wgrad's direct kernel takes fewer than 2^31 pixel tiles";
    }
    p->slices = slices_per_chunk(sms, p->chunks, p->tiles);
    return nullptr;
  }
  return "conv.split_wgrad's direct kernel: the input tile of 16 pixels exceeds its shared memory "
         "(large filter, stride or dilation)";
}

// Whether a tile pixel (its pixel_at entry: row << 16 | column, -1 past the tile) lies in the
// output image (`rows_left` and `cols_left` from the tile's first row and column). Pixels outside
// multiply the zero row: their x is not staged.
__device__ __forceinline__ bool wgrad_pixel_inside(int where, int rows_left, int cols_left) {
  return where >= 0 && (where >> 16) < rows_left && (where & 0xffff) < cols_left;
}

// One tile's tf32 mma steps of a warp (conv_wgrad_mma_kernel's fp32 form): per 8 pixels of the
// tile (one m16n8k8 k-step: pixels t and t + 4 of lane (g, t)), A = dy^T's rows from the dy tile
// and B = x's channels at each tap from the x tile, both stored a row per pixel with channels
// contiguous. Lanes load them with 64-bit loads of 2 adjacent channels: A's rows g and g + 8 are
// output channels 2g and 2g + 1 of the m-tile, and n-tiles 0 and 1 take x's even and odd
// channels (the warp's 16 from 16 unit), so one load fills a[0], a[1] (or a[2], a[3]) and one
// the b[0] (or b[1]) of both n-tiles. The epilogue stores in that order.
template <int kMTiles>
__device__ __forceinline__ void wgrad_tf32_steps(float (&acc)[kMTiles][kWgradTapsPerWarp][2][4],
                                                 const WgradPlan& p, const int* pixel_at,
                                                 const int* pixel_x,
                                                 const int (&tap_off)[kWgradTapsPerWarp],
                                                 int my_taps, int rows_left, int cols_left,
                                                 uint32_t xb, uint32_t yb, uint32_t zero_at,
                                                 int part, int unit, int share, int shares) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const uint32_t a_col = 4 * (16 * kMTiles * part + 2 * g);
  const uint32_t b_col = 4 * (16 * unit + 2 * g);
  for (int s = share; s < p.pixels16 / 8; s += shares) {
    uint32_t af[kMTiles][4];
    uint32_t bf[kWgradTapsPerWarp][2][2];  // [tap][k row t or t + 4][n-tile]
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int pixel = 8 * s + t + 4 * r;
      const uint32_t a_at = yb + 4 * pixel * p.y_row + a_col;
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) lds64(af[m][2 * r], af[m][2 * r + 1], a_at + 64 * m);
      const int where = pixel_at[pixel];
      const bool valid = wgrad_pixel_inside(where, rows_left, cols_left);
      const uint32_t b_at = xb + pixel_x[pixel] + b_col;
#pragma unroll
      for (int j = 0; j < kWgradTapsPerWarp; ++j) {
        lds64(bf[j][r][0], bf[j][r][1], valid && j < my_taps ? b_at + 4 * tap_off[j] : zero_at);
      }
    }
#pragma unroll
    for (int j = 0; j < kWgradTapsPerWarp; ++j) {
      const uint32_t b0[2] = {bf[j][0][0], bf[j][1][0]}, b1[2] = {bf[j][0][1], bf[j][1][1]};
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_1688_tf32(acc[m][j][0], af[m], b0);
        mma_1688_tf32(acc[m][j][1], af[m], b1);
      }
    }
  }
}

// kGrouped: a grouped plan (p.group_channels > 0), its own instance so that dense layers keep
// their steps free of the m-tile tests.
template <class T, int kMTiles, bool kGrouped = false>
__global__ void __launch_bounds__(kWgradThreads, 1)
    conv_wgrad_mma_kernel(BooConvArgs a, WgradPlan p, float* __restrict__ ws) {
  extern __shared__ float4 shared4[];
  const GroupedPlan& tp = p.tile;
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int slice = static_cast<int>(blockIdx.x / static_cast<unsigned>(p.chunks));
  const int k0 = (chunk % p.k_chunks) * p.kb;
  const int c0 = (kGrouped ? chunk % p.k_chunks : chunk / p.k_chunks % p.c_chunks) * p.cb;
  const int tap0 = chunk / (p.k_chunks * p.c_chunks) * p.taps_block;
  const int taps = static_cast<int>(a.filter[0] * a.filter[1] * a.filter[2]);
  const int points = tp.id * tp.ih * tp.iw, pixels = tp.th * tp.tw;
  // Shared memory: 16 zero bytes, each input point's (d, h, w) in the tile, each pixel's (row,
  // column) in the tile (-1 past the tile), two input tiles, two output-gradient tiles.
  float4* at = shared4;
  T* zero = reinterpret_cast<T*>(at);
  at += 1;
  int* point_at = reinterpret_cast<int*>(at);
  at += (points + 3) / 4;
  int* pixel_at = reinterpret_cast<int*>(at);
  at += (p.pixels16 + 3) / 4;
  int* pixel_x = reinterpret_cast<int*>(at);  // a pixel's first input point (byte offset)
  at += (p.pixels16 + 3) / 4;
  T* xs0 = reinterpret_cast<T*>(at);
  const int x_elements = points * p.x_row;
  const int y_elements = p.pixels16 * p.y_row;
  T* ys0 = xs0 + 2 * x_elements;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ dy = static_cast<const T*>(a.y);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  constexpr int kVec = 16 / static_cast<int>(sizeof(T));  // elements a 16-byte vector
  constexpr bool kTf32 = sizeof(T) == 4;

  if (threadIdx.x < kVec) zero[threadIdx.x] = from_float<T>(0.0f);
  for (int i = threadIdx.x; i < points; i += kWgradThreads) {
    point_at[i] = (i / (tp.iw * tp.ih)) << 20 | (i / tp.iw % tp.ih) << 10 | i % tp.iw;
  }
  for (int i = threadIdx.x; i < p.pixels16; i += kWgradThreads) {
    pixel_at[i] = i < pixels ? (i / tp.tw) << 16 | i % tp.tw : -1;
    pixel_x[i] = i < pixels ? static_cast<int>(sizeof(T)) *
                                  ((i / tp.tw * static_cast<int>(a.stride[1]) * tp.iw +
                                    i % tp.tw * static_cast<int>(a.stride[2])) *
                                   p.x_row)
                            : 0;
  }
  __syncthreads();

  // A tile's copies: x's points (cb / kVec vectors each) and dy's pixels (kb / kVec each),
  // zero-filled outside the image, past the channels and past the tile. This thread copies
  // vector x_v of points x_first, + x_step, ... and vector y_v of pixels y_first, + y_step, ...
  // (32-bit offsets within an image: reject() bounds them).
  const int x_vectors = p.cb / kVec, x_v = threadIdx.x % x_vectors;
  const int x_first = threadIdx.x / x_vectors, x_step = kWgradThreads / x_vectors;
  const int y_vectors = p.kb / kVec, y_v = threadIdx.x % y_vectors;
  const int y_first = threadIdx.x / y_vectors, y_step = kWgradThreads / y_vectors;
  const bool x_channels = c0 + x_v * kVec < a.c, y_channels = k0 + y_v * kVec < a.k;
  const int in_d = static_cast<int>(a.in[0]), in_h = static_cast<int>(a.in[1]);
  const int in_w = static_cast<int>(a.in[2]), out_h = static_cast<int>(a.out[1]);
  const int out_w = static_cast<int>(a.out[2]), cc = static_cast<int>(a.c);
  const int kk = static_cast<int>(a.k);
  // This thread's destinations: vector x_v of point `point`, vector y_v of pixel `pixel`.
  const auto x_dst = [&](int buffer, int point) {
    return xs0 + buffer * x_elements + x_v * kVec + point * p.x_row;
  };
  const auto y_dst = [&](int buffer, int pixel) {
    return ys0 + buffer * y_elements + y_v * kVec + pixel * p.y_row;
  };
  const auto fetch = [&](int64_t tile, int buffer) {
    const GroupedTile o = grouped_tile(static_cast<unsigned>(tile), a, tp);
    const int d0 = o.od * static_cast<int>(a.stride[0]) - static_cast<int>(a.pad[0]);
    const int h0 = o.oh0 * static_cast<int>(a.stride[1]) - static_cast<int>(a.pad[1]);
    const int w0 = o.ow0 * static_cast<int>(a.stride[2]) - static_cast<int>(a.pad[2]);
    const T* image = x + o.n * a.in[0] * a.in[1] * a.in[2] * a.c + c0 + x_v * kVec;
    for (int point = x_first; point < points; point += x_step) {
      const int where = point_at[point];
      const int d = d0 + (where >> 20), h = h0 + (where >> 10 & 1023), col = w0 + (where & 1023);
      const bool inside = x_channels && static_cast<unsigned>(d) < static_cast<unsigned>(in_d) &&
                          static_cast<unsigned>(h) < static_cast<unsigned>(in_h) &&
                          static_cast<unsigned>(col) < static_cast<unsigned>(in_w);
      cp_async_16(x_dst(buffer, point), inside ? image + ((d * in_h + h) * in_w + col) * cc : x,
                  inside ? 16 : 0);
    }
    const T* plane = dy + (o.n * a.out[0] + o.od) * a.out[1] * a.out[2] * a.k + k0 + y_v * kVec;
    for (int pixel = y_first; pixel < p.pixels16; pixel += y_step) {
      const int where = pixel_at[pixel];
      const int oh = o.oh0 + (where >> 16), ow = o.ow0 + (where & 0xffff);
      const bool inside = where >= 0 && y_channels && oh < out_h && ow < out_w;
      cp_async_16(y_dst(buffer, pixel), inside ? plane + (oh * out_w + ow) * kk : dy,
                  inside ? 16 : 0);
    }
    cp_async_commit();
  };
  // tf32: once its copies of a tile have landed, a thread rounds them to tf32 in place (to
  // nearest even, round_tf32_vectors), as CUTLASS's tf32 kernels round their operands; mma.sync
  // would otherwise drop the low 13 bits. Truncated, the relative error on random data measured
  // 6.9e-4 against cuDNN's 2.6e-4 where cuDNN rounds (bench/results/2026-11-29-wgrad-tf32-h200.md):
  // more than the gate's twice the vendor's. BOO_NVCC_FLAGS=-DBOO_WGRAD_TF32_ROUND=0 truncates.
  const auto settle = [&](int buffer) {
    if constexpr (kTf32 && BOO_WGRAD_TF32_ROUND != 0) {
      round_tf32_vectors(shared_address(x_dst(buffer, 0)), 4 * p.x_row, x_first, points, x_step);
      round_tf32_vectors(shared_address(y_dst(buffer, 0)), 4 * p.y_row, y_first, p.pixels16,
                         y_step);
    }
  };

  // Warp w: dy's rows 16 kMTiles (w % k_parts) onwards, x's channels 16 (w / k_parts % units)
  // onwards of the block's, and of group g = w / (k_parts units), taps 3 (g % tap_groups)
  // onwards on the tile's pixel steps share, share + shares, ... (share = g / tap_groups; with
  // one share, taps 3 g onwards on every step).
  constexpr bool kShares = BOO_WGRAD_SHARES != 0;
  const int part = warp % p.k_parts;
  const int unit = warp / p.k_parts % p.units;
  const int group = warp / (p.k_parts * p.units);
  const int share = kShares ? group / p.tap_groups : 0;
  const int shares = kShares ? p.shares : 1;
  const int first_tap = (kShares ? group % p.tap_groups : group) * kWgradTapsPerWarp;
  // The warp's taps within the block's and the filter's, at most 3; the others multiply the
  // zero row (every warp runs 3 taps' mma: no branches in the steps) and are not stored.
  const int my_taps =
      share < shares ? wgrad_own_taps(p.taps_block, first_tap, taps, tap0, kWgradTapsPerWarp) : 0;
  // Each tap's offset (elements) in the input tile from the pixel's first input point.
  int tap_off[kWgradTapsPerWarp];
  const int fw = static_cast<int>(a.filter[2]), fh = static_cast<int>(a.filter[1]);
#pragma unroll
  for (int j = 0; j < kWgradTapsPerWarp; ++j) {
    const int tap = tap0 + first_tap + (j < my_taps ? j : 0);
    const int fx = tap % fw, fy = tap / fw % fh, fz = tap / (fw * fh);
    tap_off[j] =
        ((fz * static_cast<int>(a.dilation[0]) * tp.ih + fy * static_cast<int>(a.dilation[1])) *
             tp.iw +
         fx * static_cast<int>(a.dilation[2])) *
        p.x_row;
  }
  // This lane's ldmatrix rows: A (dy^T, k-major: a row per pixel) rows lane % 8 + 8 (lane / 16)
  // of a k-step, channels 8 (lane / 8 % 2) onwards; B (x, a row per pixel's input point) rows
  // lane % 8 + 8 (lane / 8 % 2), channels 16 unit + 8 (lane / 16) onwards.
  const int a_row = lane % 8 + 8 * (lane / 16), a_col = 8 * (lane / 8 % 2);
  const int b_row = lane % 8 + 8 * (lane / 8 % 2), b_col = 16 * unit + 8 * (lane / 16);
  const uint32_t zero_at = shared_address(zero);
  // Grouped: the m-tiles of dy's rows in the groups of the warp's 16 channels of x (k0 = c0); the
  // others' products fall outside every group and are neither multiplied nor stored.
  bool mine[kMTiles];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) mine[m] = true;
  if constexpr (kGrouped && BOO_WGRAD_GROUP_SKIP != 0) {
    // span: C/G or 16, a power of two (the group test of the epilogue, below)
    const int span = p.group_channels > 16 ? p.group_channels : 16, ss = __ffs(span) - 1;
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) mine[m] = 16 * (kMTiles * part + m) >> ss == 16 * unit >> ss;
  }

  float acc[kMTiles][kWgradTapsPerWarp][2][4];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int j = 0; j < kWgradTapsPerWarp; ++j) {
#pragma unroll
      for (int n = 0; n < 2; ++n)
        acc[m][j][n][0] = acc[m][j][n][1] = acc[m][j][n][2] = acc[m][j][n][3] = 0.0f;
    }
  }

  wgrad_walk_tiles<false>(slice, p.slices, p.tiles, fetch, settle, [&](int64_t tile, int k) {
    if (my_taps > 0) {
      const GroupedTile o = grouped_tile(static_cast<unsigned>(tile), a, tp);
      const int rows_left = out_h - o.oh0, cols_left = out_w - o.ow0;
      const uint32_t xb = shared_address(xs0 + (k & 1) * x_elements);
      const uint32_t yb = shared_address(ys0 + (k & 1) * y_elements);
      if constexpr (kTf32) {
        wgrad_tf32_steps<kMTiles>(acc, p, pixel_at, pixel_x, tap_off, my_taps, rows_left, cols_left,
                                  xb, yb, zero_at, part, unit, share, shares);
      } else {
        for (int s = share; s < p.pixels16 / 16; s += shares) {
          // Every fragment of the step first (4 + 3 ldmatrix), then its 24 mma: the loads' latency
          // is paid once a step.
          const int where = pixel_at[16 * s + b_row];
          const bool valid = wgrad_pixel_inside(where, rows_left, cols_left);
          const uint32_t b_at = xb + pixel_x[16 * s + b_row] + 2 * b_col;
          uint32_t af[kMTiles][4];
          const uint32_t a_at = yb + 2 * ((16 * s + a_row) * p.y_row + 16 * kMTiles * part + a_col);
#pragma unroll
          for (int m = 0; m < kMTiles; ++m) {
            if (mine[m]) ldmatrix_x4_trans(af[m], a_at + 32 * m);
          }
          uint32_t bf[kWgradTapsPerWarp][4];
#pragma unroll
          for (int j = 0; j < kWgradTapsPerWarp; ++j) {
            ldmatrix_x4_trans(bf[j], valid && j < my_taps ? b_at + 2 * tap_off[j] : zero_at);
          }
#pragma unroll
          for (int j = 0; j < kWgradTapsPerWarp; ++j) {
            const uint32_t b0[2] = {bf[j][0], bf[j][1]}, b1[2] = {bf[j][2], bf[j][3]};
#pragma unroll
            for (int m = 0; m < kMTiles; ++m) {
              if (!mine[m]) continue;
              mma_16816<T>(acc[m][j][0], af[m], b0);
              mma_16816<T>(acc[m][j][1], af[m], b1);
            }
          }
        }
      }
    }
  });

  cudaTriggerProgrammaticLaunchCompletion();  // the reduction may launch
  // The slice's dw (16-bit): acc[m][j][n] rows (output channels) k0 + 16 m + g (+ 8), columns (x's
  // channels) c0 + 16 unit + 8 n + 2t and + 1, tap tap0 + first_tap + j; packed K, taps, C.
  if (my_taps == 0) return;
  const int g = lane / 4, t = lane % 4;
  float* out = ws + (static_cast<int64_t>(slice) * shares + share) * p.total;
  if constexpr (kTf32) {
    // tf32 (wgrad_tf32_steps): rows g and g + 8 of m-tile M are output channels 16 M + 2g and
    // + 1; n-tile n's column j is x's channel 16 unit + 2j + n, so a row's c[0], c[1] of both
    // n-tiles are 4 consecutive channels from 16 unit + 4t.
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
      for (int j = 0; j < kWgradTapsPerWarp; ++j) {
        if (j >= my_taps) break;
        const int c = c0 + 16 * unit + 4 * t;
        if (c >= a.c) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int kk = k0 + 16 * (kMTiles * part + m) + 2 * g + h;
          if (kk >= a.k) continue;
          *reinterpret_cast<float4*>(
              out + (static_cast<int64_t>(kk) * taps + tap0 + first_tap + j) * a.c + c) =
              make_float4(acc[m][j][0][2 * h], acc[m][j][1][2 * h], acc[m][j][0][2 * h + 1],
                          acc[m][j][1][2 * h + 1]);
        }
      }
    }
  } else if constexpr (kGrouped) {
    // Grouped: only channel pairs of one group (c and c + 1 share it: C/G is even), at the
    // channel's place in its group. C/G is 8, 16, 32 or 64 (wgrad_plan), a power of two, so a
    // channel's group and place are a shift and a mask of its offset in the block (k0 = c0, a
    // multiple of 64; C = K, so every row and column of the block is in the tensor). Divisions by
    // C/G here were most of the kernel's instructions on small planes: 6.8k a warp on n32 c1024
    // 7x7 G = 32, 34 us (ncu, bench/results/2026-11-30-kernel-times-h200.md).
    const int gc = p.group_channels, gs = __ffs(gc) - 1;
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int kl = 16 * (kMTiles * part + m) + g + 8 * h;
        float* row_out = out + (static_cast<int64_t>(k0 + kl) * taps + tap0 + first_tap) * gc;
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          const int cl = 16 * unit + 8 * n + 2 * t;
          if (kl >> gs != cl >> gs) continue;
#pragma unroll
          for (int j = 0; j < kWgradTapsPerWarp; ++j) {
            if (j < my_taps) {
              *reinterpret_cast<float2*>(row_out + j * gc + (cl & (gc - 1))) =
                  make_float2(acc[m][j][n][2 * h], acc[m][j][n][2 * h + 1]);
            }
          }
        }
      }
    }
  } else {
    const int cc = static_cast<int>(a.c);
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
      for (int j = 0; j < kWgradTapsPerWarp; ++j) {
        if (j >= my_taps) break;
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          const int c = c0 + 16 * unit + 8 * n + 2 * t;
          if (c >= cc) continue;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int kk = k0 + 16 * (kMTiles * part + m) + g + 8 * h;
            if (kk >= a.k) continue;
            *reinterpret_cast<float2*>(
                out + (static_cast<int64_t>(kk) * taps + tap0 + first_tap + j) * cc + c) =
                make_float2(acc[m][j][n][2 * h], acc[m][j][n][2 * h + 1]);
          }
        }
      }
    }
  }
}

// dw[i] = the sum of the slices' ws[s * total + i] in a fixed order: kWgradReduceGroups groups of
// slices (s = group, group + groups, ...) summed in order, then the groups in order. A thread
// takes 4 consecutive elements (total is a multiple of 8: C is) and has kDepth of its slices'
// loads in flight at once (0: the loop unrolled by 4); the order of the additions does not depend
// on it.
template <class T, int kDepth>
__global__ void __launch_bounds__(32 * kWgradReduceGroups)
    conv_wgrad_reduce_kernel(const float* __restrict__ ws, T* __restrict__ dw, int slices,
                             int64_t total) {
  __shared__ float4 part[kWgradReduceGroups][32];
  const int lane = threadIdx.x % 32, group = threadIdx.x / 32;
  cudaGridDependencySynchronize();
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * 32 + lane) * 4;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const auto add = [&sum](const float4& v) {
    sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
  };
  const auto load = [&](int s) {
    return __ldcs(reinterpret_cast<const float4*>(ws + static_cast<int64_t>(s) * total + i));
  };
  if constexpr (kDepth > 0) {
    if (i < total) add_in_batches<kDepth>(group, slices, kWgradReduceGroups, load, add);
  } else if (i < total) {
#pragma unroll 4
    for (int s = group; s < slices; s += kWgradReduceGroups) add(load(s));
  }
  part[group][lane] = sum;
  __syncthreads();
  if (group == 0 && i < total) {
    float4 all = part[0][lane];
#pragma unroll
    for (int q = 1; q < kWgradReduceGroups; ++q) {
      const float4 v = part[q][lane];
      all.x += v.x, all.y += v.y, all.z += v.z, all.w += v.w;
    }
    dw[i] = from_float<T>(all.x);
    dw[i + 1] = from_float<T>(all.y);
    dw[i + 2] = from_float<T>(all.z);
    dw[i + 3] = from_float<T>(all.w);
  }
}

// The warpgroup kernel (conv_wgrad_wgmma.cuh) runs the layers it takes (stride 1, C and K
// multiples of 64, at most 9 taps); BOO_NVCC_FLAGS=-DBOO_WGRAD_WGMMA=0 turns it off, for measuring.
#ifndef BOO_WGRAD_WGMMA
#define BOO_WGRAD_WGMMA 1
#endif

// T: __half or __nv_bfloat16, or float (tf32 mma.sync: the wgmma kernel reads 16-bit operands
// only, as warpgroup MMA takes tf32 K-major only and both operands here are MN-major).
template <class T>
struct ConvWgradDirectRunner {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                "conv.split_wgrad's direct kernel runs on 16-bit and tf32 tensor cores");

  static const char* reject(const BooConvArgs& a, WgradPlan* plan) {
    if (a.direction != BOO_CONV_BACKWARD_WEIGHT) {
      return "conv.split_wgrad's direct kernel runs backward weight only";
    }
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups < 1 || a.c % a.groups != 0 || a.k % a.groups != 0) {
      return "conv.split_wgrad's direct kernel needs C and K multiples of the groups";
    }
    if (a.c % 8 != 0 || a.k % 8 != 0) {
      return "conv.split_wgrad's direct kernel needs C and K multiples of 8";
    }
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.split_wgrad's direct kernel needs packed channels-last x and dy";
    }
    const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2], cg = a.c / a.groups;
    if (a.w_stride[1] != 1 || a.w_stride[0] != taps * cg || a.w_stride[4] != cg) {
      return "conv.split_wgrad's direct kernel needs a packed channels-last dw";
    }
    if (a.out[1] >= (int64_t{1} << 15) || a.out[2] >= (int64_t{1} << 16)) {
      return "conv.split_wgrad's direct kernel takes output planes under 32768 x 65536";
    }
    if (a.in[0] * a.in[1] * a.in[2] * a.c >= (int64_t{1} << 31) ||
        a.out[1] * a.out[2] * a.k >= (int64_t{1} << 31)) {
      return "conv.split_wgrad's direct kernel takes images (and output planes) of fewer than 2^31 "
             "elements";
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.w) % 16 != 0) {
      return "conv.split_wgrad's direct kernel needs 16-byte aligned x, dy and dw";
    }
    return wgrad_plan(a, plan, static_cast<int>(sizeof(T)));
  }

  // Whether the warpgroup kernel takes `a` (which reject() accepted), and its plan.
  static bool use_wgmma(const BooConvArgs& a, WgmmaWgradPlan* plan) {
    return sizeof(T) == 2 && BOO_WGRAD_WGMMA != 0 && a.groups == 1 &&
           wgmma_wgrad_plan(a, plan) == nullptr;
  }

  // Whether the fp32 1x1 kernel takes `a` (which reject() accepted; BOO_WGRAD_1X1, an
  // experiment), and its plan.
  static bool use_onebyone(const BooConvArgs& a, OneByOneWgradPlan* plan) {
    return sizeof(T) == 4 && BOO_WGRAD_1X1 != 0 && a.groups == 1 && onebyone_wgrad_geometry(a) &&
           onebyone_wgrad_plan(a.n * a.out[0] * a.out[1] * a.out[2], a.k, a.c, a.sm_count, plan) ==
               nullptr;
  }

  // The fp32 partial dw a plan writes: a slice each (the wgmma and 1x1 kernels), or a share of a
  // slice.
  static int partials(const WgmmaWgradPlan& plan) { return plan.slices; }
  static int partials(const OneByOneWgradPlan& plan) { return plan.slices; }
  static int partials(const WgradPlan& plan) { return plan.slices * plan.shares; }

  template <class Plan>
  static int64_t slices_bytes(const Plan& plan) {
    return static_cast<int64_t>(partials(plan)) * plan.total * static_cast<int64_t>(sizeof(float));
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    WgradPlan plan{};
    return reject_verdict(reject(a, &plan), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    WgradPlan plan{};
    if (reject(a, &plan) != nullptr) return -1;
    WgmmaWgradPlan wide{};
    OneByOneWgradPlan flat{};
    return use_wgmma(a, &wide)      ? slices_bytes(wide)
           : use_onebyone(a, &flat) ? slices_bytes(flat)
                                    : slices_bytes(plan);
  }

  // The launch of `kernel` (a, plan, slices, extra...) on `blocks` of `threads` and the plan's
  // shared bytes, then the reduction of the `slices` workspace slices into dw.
  template <class Kernel, class Plan, class... Extra>
  static int32_t launch(const BooConvArgs& a, Kernel kernel, const Plan& plan, unsigned blocks,
                        int threads, float* slices, cudaStream_t s, char* why, int32_t len,
                        const Extra&... extra) {
    if (const cudaError_t e = cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, plan.shared_bytes);
        e != cudaSuccess) {
      return cuda_result(e, why, len);
    }
    kernel<<<blocks, threads, plan.shared_bytes, s>>>(a, plan, slices, extra...);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_result(e, why, len);
    const int parts = partials(plan);
    const auto reduce = kWgradReduceDepth > 0 && parts > kWgradReduceDeepSlices
                            ? conv_wgrad_reduce_kernel<T, kWgradReduceDepth>
                            : conv_wgrad_reduce_kernel<T, 0>;
    return cuda_result(
        launch_dependent(reduce, dim3(static_cast<unsigned>((plan.total + 127) / 128)),
                         dim3(32 * kWgradReduceGroups), s, slices, static_cast<T*>(a.w), parts,
                         plan.total),
        why, len);
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    WgradPlan plan{};
    if (const int32_t v = reject_verdict(reject(a, &plan), why, len); v != BOO_OK) return v;
    WgmmaWgradPlan wide{};
    OneByOneWgradPlan flat{};
    const bool wgmma = use_wgmma(a, &wide);
    const bool onebyone = !wgmma && use_onebyone(a, &flat);
    if (const char* e = conv_workspace_error(ws,
                                             wgmma      ? slices_bytes(wide)
                                             : onebyone ? slices_bytes(flat)
                                                        : slices_bytes(plan),
                                             ws_bytes)) {
      write_why(why, len, e);
      return BOO_ERROR;
    }
    if (a.dry_run) return BOO_OK;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    float* slices = static_cast<float*>(ws);
    if constexpr (sizeof(T) == 2) {
      if (wgmma) return launch_wgmma(a, wide, slices, s, why, len);
    }
    if constexpr (sizeof(T) == 4 && BOO_WGRAD_1X1 != 0) {
      if (onebyone) {
        const auto kernel = flat.kb == 32 ? conv_wgrad_1x1_tf32_kernel<2>
                                          : conv_wgrad_1x1_tf32_kernel<kWgradMaxMTiles>;
        const unsigned blocks =
            static_cast<unsigned>(flat.chunks) * static_cast<unsigned>(flat.slices);
        return launch(a, kernel, flat, blocks, 32 * flat.warps, slices, s, why, len);
      }
    }
    auto kernel = conv_wgrad_mma_kernel<T, 2>;
    if constexpr (kWgradWarpRows == 64) {
      if (plan.kb == 64) kernel = conv_wgrad_mma_kernel<T, kWgradMaxMTiles>;
      // Grouped plans (16-bit): kb = 64, C = K a multiple of 64.
      if constexpr (sizeof(T) == 2) {
        if (plan.group_channels > 0) kernel = conv_wgrad_mma_kernel<T, kWgradMaxMTiles, true>;
      }
    }
    const unsigned blocks = static_cast<unsigned>(plan.chunks) * static_cast<unsigned>(plan.slices);
    return launch(a, kernel, plan, blocks, kWgradThreads, slices, s, why, len);
  }

  // The warpgroup kernel (16-bit types; instantiated for those only).
  static int32_t launch_wgmma(const BooConvArgs& a, WgmmaWgradPlan& wide, float* slices,
                              cudaStream_t s, char* why, int32_t len) {
    const unsigned blocks = static_cast<unsigned>(wide.chunks) * static_cast<unsigned>(wide.slices);
    // Where the driver refuses the TMA maps, the same plan's tiles go through cp.async.
    CUtensorMap x_map{}, y_map{};
    if (wide.tma != 0 && !wgmma_wgrad_maps(a, wide, &x_map, &y_map)) wide.tma = 0;
    const bool row = wgmma_wgrad_row(a);
    const auto kernel = wide.tma != 0 ? (row ? conv_wgrad_wgmma_kernel<T, true, true>
                                             : conv_wgrad_wgmma_kernel<T, true, false>)
                                      : (row ? conv_wgrad_wgmma_kernel<T, false, true>
                                             : conv_wgrad_wgmma_kernel<T, false, false>);
    return launch(a, kernel, wide, blocks, 128 * wide.groups, slices, s, why, len, x_map, y_map);
  }
};

}  // namespace boo_kernels
