// conv.padded_channels' direct kernel: forward convolutions with few input channels (the C = 3
// stems of image and video models; C up to 16, not a multiple of 8), on mma.sync without
// padding the channels to a 16-byte vector. The padded GEMM and space-to-depth
// (kernels/conv_space_to_depth.cuh) multiply 2.7 to 3.5 times the real reduction there (a 7x7
// stride-2 stem: 392 or 512 of 147) and copy x first: 267 us against cuDNN's 461 on the public stem
// (H100). Here the reduction is the filter's rows: for one filter row (depth and height tap) the
// S taps times C channels an output pixel reads are S C consecutive elements of one input row
// (unit dilation along W), whatever the stride. So
//   k = tap row x lp + s cs + c,  lp = S cs rounded up to even,
// and the A fragment of output pixel p at reduction pair (k, k + 1) is one aligned 32-bit word
// of the staged input tile, at pixel_offset(p) + pair_offset(k): 7 x 22 = 154 of 160 reduction
// elements on the stem (cs = C, or C + 1 where an odd C and an odd stride would misalign the
// pairs; the padding channel is staged as zero).
//
// A block keeps the filters of up to 64 output channels in shared memory (few_filter_at: the B
// operand of ldmatrix) and walks tiles of at most 256 output pixels (one output depth plane of
// one image, th x tw; 128 or 64 on small problems); per tile:
//   1. the input points the tile's taps reach go to shared memory (zero outside the image),
//      rows of `row_len` elements, a warp a row with 16 loads in flight a lane;
//   2. each of the 8 warps takes 32 pixels (two m-tiles) and every output channel; per k16 step
//      it loads its A words (lds.32, the word past a filter row's end masked to zero) into
//      mma.sync's A layout, which is also warpgroup MMA's register A: each of the two
//      warpgroups issues one wgmma m64n64k16 per m-tile, B the step's filters (MN-major, 128-byte
//      swizzled), fp32 accumulators (-DBOO_FEW_WGMMA=0: ldmatrix.x4 and mma.sync m16n8k16, for
//      measuring);
//   3. bias and activation are applied, the tile goes to shared memory and out in 16-byte
//      vectors.
// Two blocks share an SM, so one stages or stores while the other multiplies. Sums run in a
// fixed order: deterministic. On an H200 the public stem measured 121.4 us against space-to-
// depth's 261.9 and cuDNN's 457.4 (bench/results/2026-11-26-conv-few-channels-h200.md: the mma
// phase about half of it, at 50% of the issue slots); on warpgroup MMA 107.9 against 122.3 on
// mma.sync in the same call (2026-11-29-few-wgmma-h200.md).
//
// ConvFewChannelsRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x, w
// and y arrive packed channels-last, y 16-byte aligned.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_grouped_direct.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"
#include "wgmma.cuh"

// The GEMM on warpgroup MMA (wgmma.mma_async m64n64k16, A from the same registers, the filters
// as an MN-major 128-byte swizzled B); BOO_NVCC_FLAGS=-DBOO_FEW_WGMMA=0: mma.sync, for measuring.
#ifndef BOO_FEW_WGMMA
#define BOO_FEW_WGMMA 1
#endif

namespace boo_kernels {

constexpr int kFewThreads = 256;
constexpr int kFewWarps = kFewThreads / 32;
// m-tiles of 16 pixels a warp, two blocks an SM (4 m-tiles in one block measured slower: 192
// against 162 us on the public stem, bench/results/2026-11-26-conv-few-channels-h200.md).
constexpr int kFewMTiles = 2;
constexpr int kFewBlocksPerSm = 2;
constexpr int kFewTilePixels = kFewWarps * kFewMTiles * 16;  // 256
constexpr int kFewStageBatch = 16;                           // staging loads in flight a thread
constexpr int kFewBlockChannels = 64;                        // output channels a block, at most
constexpr int kFewMaxChannels = 16;                          // input channels, at most
constexpr int kFewMaxReduction = 512;                        // filter rows x lp, at most
constexpr int kFewMaxShared = 110 * 1024;                    // two blocks an SM

// The block's geometry, planned on the host (few_channels_plan).
struct FewPlan {
  GroupedPlan tile;  // th, tw, tiles_h, tiles_w, id, ih, iw (grouped_tile_shape)
  int cs;            // channels of a staged input point: C, or C + 1 (pairs 4-byte aligned)
  int lp;            // reduction elements of one filter row: S cs rounded up to even
  int rows;          // filter rows: T x R
  int steps;         // k16 steps: rows x lp / 16, rounded up
  int row_len;       // elements of a staged input row (even)
  int x_elements;    // elements of the staged input tile (a multiple of 8)
  int y_row;         // shared-memory row length (elements) of an output pixel
  int kb, chunks;    // output channels a block (a multiple of 8), blocks per tile
  int w_elements;    // the filters in shared memory: steps x 4 blocks of 16 x 16 (few_filter_at)
  int shared_bytes;
};

// The plan for `a`, or nullptr with why not in `*why`.
inline const char* few_channels_plan(const BooConvArgs& a, FewPlan* p) {
  p->chunks = static_cast<int>((a.k + kFewBlockChannels - 1) / kFewBlockChannels);
  p->kb = static_cast<int>(a.k < kFewBlockChannels ? a.k : kFewBlockChannels);
  // Tiles of 256 pixels, or of 128 or 64 where fewer than two blocks an SM would have one.
  const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
  for (int most = kFewTilePixels; most >= 64; most /= 2) {
    if (!grouped_tile_shape(a, most, &p->tile)) {
      return "conv.padded_channels' direct kernel: its input tile spans 1024 rows or columns or "
             "more (large stride or dilation)";
    }
    const int64_t tiles = a.n * a.out[0] * p->tile.tiles_h * p->tile.tiles_w;
    if (tiles * p->chunks >= 2 * sms) break;
  }
  const int c = static_cast<int>(a.c), s = static_cast<int>(a.filter[2]);
  // The pairs of a pixel start at an even element when C is even or every pixel's first column
  // (stride x column) is even; otherwise a zero channel makes the points even.
  p->cs = c % 2 == 0 || a.stride[2] % 2 == 0 ? c : c + 1;
  p->lp = (s * p->cs + 1) / 2 * 2;
  p->rows = static_cast<int>(a.filter[0] * a.filter[1]);
  if (static_cast<int64_t>(p->rows) * p->lp > kFewMaxReduction) {
    return "conv.padded_channels' direct kernel: the filter's reduction exceeds 512 elements";
  }
  p->steps = (p->rows * p->lp + 15) / 16;
  // The last word a pixel reads ends at element iw cs (past the tile's last point when lp > S
  // cs): one more element, and even.
  p->row_len = (p->tile.iw * p->cs + 2) / 2 * 2;
  const int64_t x_elements = static_cast<int64_t>(p->tile.id) * p->tile.ih * p->row_len;
  p->x_elements = static_cast<int>((x_elements + 7) / 8 * 8);
  p->w_elements = p->steps * 4 * 256;
  p->y_row = grouped_row(p->kb);
  const int pixels = p->tile.th * p->tile.tw;
  // (1024: the filters start at a 1024-byte boundary, wgmma's swizzle atom.)
  const int64_t bytes = 1024 + 16 * grouped_ceil(p->kb, 4) + 16 * 4 * p->steps +
                        2 * (static_cast<int64_t>(p->w_elements) + p->x_elements +
                             static_cast<int64_t>(pixels) * p->y_row) +
                        16;
  if (bytes > kFewMaxShared) {
    return "conv.padded_channels' direct kernel: the filters and input tile exceed its shared "
           "memory (large filter, stride or dilation)";
  }
  p->shared_bytes = static_cast<int>(bytes);
  return nullptr;
}

// The filters in shared memory: per k16 step, four blocks of 16 output channels x 16 reduction
// elements (512 bytes each; ldmatrix.x4 reads one block per step, at an immediate offset). In a
// block, output channel n's row is 32 bytes and its two 16-byte halves swap for n % 8 >= 4, so
// that the eight rows an 8 x 8 matrix reads fall in distinct banks. Element (n, k) for n < 64.
__host__ __device__ __forceinline__ int few_filter_at(int n, int k) {
  const int half = (k % 16 / 8) ^ (n % 8 / 4);
  return ((k / 16 * 4 + n / 16) * 16 + n % 16) * 16 + half * 8 + k % 8;
}

// The same filters as wgmma's B (BOO_FEW_WGMMA): a 128-byte row of 64 output channels per
// reduction element k, its 16-byte vector v at v ^ (k % 8) (wgmma_desc_sw128), a k16 step every
// 2048 bytes.
__host__ __device__ __forceinline__ int few_filter_wgmma_at(int n, int k) {
  return k * 64 + ((n / 8) ^ (k % 8)) * 8 + n % 8;
}

template <class T, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kFewThreads, kFewBlocksPerSm)
    conv_few_channels_kernel(BooConvArgs a, FewPlan p) {
  extern __shared__ float4 shared4[];
  const GroupedPlan& tp = p.tile;
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int64_t tile_step = gridDim.x / p.chunks;
  const int64_t tiles = a.n * a.out[0] * tp.tiles_h * tp.tiles_w;
  const int pixels = tp.th * tp.tw;
  // Shared memory: the filters (at a 1024-byte boundary), the bias (fp32), the pair table (per
  // step and t: offset and mask of pairs 8 step + t and + 4), the input tile, the output tile.
  const uint32_t shared_at = shared_address(shared4);
  T* filter =
      reinterpret_cast<T*>(reinterpret_cast<char*>(shared4) + (1024 - shared_at % 1024) % 1024);
  float4* at = reinterpret_cast<float4*>(filter + p.w_elements);
  float* bias = reinterpret_cast<float*>(at);
  at += (p.kb + 3) / 4;
  int4* table = reinterpret_cast<int4*>(at);
  at += 4 * p.steps;
  T* xs = reinterpret_cast<T*>(at);
  T* ys = xs + p.x_elements;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int c = static_cast<int>(a.c), fs = static_cast<int>(a.filter[2]);
  const int fr = static_cast<int>(a.filter[1]);
  const int real = fs * p.cs;  // real elements of a filter row's reduction (with the zero channel)
  const int k0 = chunk * p.kb;
  const int kn = a.k - k0 < p.kb ? static_cast<int>(a.k - k0) : p.kb;  // this chunk's channels

  // 1. Once per block: the filters (zero past each row's taps, the zero channel and the block's
  // channels; then the chunk's weights, read in order, eight loads in flight a thread), the bias
  // and the pair table.
  for (int i = threadIdx.x; i < p.w_elements / 8; i += kFewThreads) {
    reinterpret_cast<uint4*>(filter)[i] = make_uint4(0, 0, 0, 0);
  }
  __syncthreads();
  {
    const int per_row = fs * c, per_k = p.rows * per_row, total = kn * per_k;
    const T* __restrict__ wk = w + static_cast<int64_t>(k0) * per_k;
    for (int first = threadIdx.x; first < total; first += 8 * kFewThreads) {
      T v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int i = first + u * kFewThreads;
        v[u] = i < total ? wk[i] : from_float<T>(0.0f);
      }
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int i = first + u * kFewThreads;
        if (i >= total) break;
        const int n = i / per_k, rest = i - n * per_k, row = rest / per_row;
        const int j = rest - row * per_row, s = j / c;
        const int k = row * p.lp + s * p.cs + (j - s * c);
        filter[BOO_FEW_WGMMA ? few_filter_wgmma_at(n, k) : few_filter_at(n, k)] = v[u];
      }
    }
  }
  // (wgmma reads the filters through the async proxy: this thread's stores made visible to it
  // before the barrier that publishes them.)
  if (BOO_FEW_WGMMA) fence_proxy_async_shared();
  for (int n = threadIdx.x; n < p.kb; n += kFewThreads) {
    bias[n] = kHasBias && n < kn ? to_float(static_cast<const T*>(a.bias)[k0 + n]) : 0.0f;
  }
  // Pair q (elements 2q, 2q + 1 of the reduction): filter row 2q / lp (depth tap z, height tap
  // r), element j of it; its offset from a pixel's first staged element, and a mask that keeps
  // only the first element where the second is past the row's taps (it belongs to the next
  // point: its filter element is zero, and a non-finite value there must not leak in). Pairs
  // past the reduction read offset 0 under a zero mask.
  const int dz = static_cast<int>(a.dilation[0]), dy = static_cast<int>(a.dilation[1]);
  for (int i = threadIdx.x; i < 8 * p.steps; i += kFewThreads) {
    const int step = i / 8, half = i % 8 / 4, t = i % 4;
    const int q = 8 * step + 4 * half + t, k = 2 * q;
    int off = 0, mask = 0;
    if (k < p.rows * p.lp) {
      const int row = k / p.lp, j = k % p.lp, z = row / fr, r = row % fr;
      off = (z * dz * tp.ih + r * dy) * p.row_len + j;
      mask = j + 1 < real ? -1 : 0xffff;
    }
    int* e = reinterpret_cast<int*>(&table[4 * step + t]);
    e[2 * half] = 2 * off;  // bytes
    e[2 * half + 1] = mask;
  }

  // This lane's A rows: pixels 32 warp + 16 m + g (+ 8), as byte addresses of their first
  // staged element (past the tile: pixel 0, computed and dropped). B's ldmatrix row: filter
  // row (output channel) 8 (lane / 16) + lane % 8, k-half lane / 8 % 2.
  const int g = lane / 4, t = lane % 4;
  const uint32_t xs_at = shared_address(xs);
  uint32_t a_at[kFewMTiles][2];
#pragma unroll
  for (int m = 0; m < kFewMTiles; ++m) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int pixel = (warp * kFewMTiles + m) * 16 + g + 8 * h;
      const int py = pixel < pixels ? pixel / tp.tw : 0, px = pixel < pixels ? pixel % tp.tw : 0;
      a_at[m][h] = xs_at + 2 * (py * static_cast<int>(a.stride[1]) * p.row_len +
                                px * static_cast<int>(a.stride[2]) * p.cs);
    }
  }
  const uint32_t b_at =
      shared_address(filter + few_filter_at(8 * (lane / 16) + lane % 8, (lane / 8 % 2) * 8));
  const int n_pairs = (kn + 15) / 16;  // ldmatrix.x4 per step: two n-tiles each
  const int y_vectors = kn / 8, y_step = kFewThreads / y_vectors;
  const int y_v = threadIdx.x % y_vectors, y_first = threadIdx.x / y_vectors;
  // (wgmma: a warpgroup computes where any of its warps has pixels; the others' rows are pixel
  // 0's, dropped.)
  const bool computes = (BOO_FEW_WGMMA ? warp / 4 * 4 : warp) * kFewMTiles * 16 < pixels;
  const uint64_t w_desc = wgmma_desc_sw128(shared_address(filter));

  // The staging of one input row: elements e = column x cs + channel.
  const int64_t in_d = a.in[0], in_h = a.in[1], in_w = a.in[2];
  const int row_count = tp.id * tp.ih;
  for (int64_t tile = blockIdx.x / p.chunks; tile < tiles; tile += tile_step) {
    const GroupedTile o = grouped_tile(static_cast<unsigned>(tile), a, tp);
    // 2. The input tile.
    {
      // Warp w stages rows w, w + 8, ...: up to kFewStageBatch loads in flight a lane, then
      // their stores.
      const int64_t d0 = o.od * a.stride[0] - a.pad[0];
      const int64_t h0 = o.oh0 * a.stride[1] - a.pad[1];
      const int64_t w0 = o.ow0 * a.stride[2] - a.pad[2];
      const int lo = w0 < 0 ? static_cast<int>(-w0) : 0;  // first column inside
      const int hi = in_w - w0 < tp.iw ? static_cast<int>(in_w - w0) : tp.iw;  // past the last
      const int e_lo = lo * c, e_hi = hi * c;
      for (int row = warp; row < row_count; row += kFewWarps) {
        const int z = row / tp.ih;
        const int64_t d = d0 + z, h = h0 + (row - z * tp.ih);
        const bool inside = d >= 0 && d < in_d && h >= 0 && h < in_h;
        T* dst = xs + row * p.row_len;
        const int64_t base = ((o.n * in_d + d) * in_h + h) * in_w * c + w0 * c;
        for (int e0 = lane; e0 < p.row_len; e0 += 32 * kFewStageBatch) {
          T v[kFewStageBatch];
#pragma unroll
          for (int u = 0; u < kFewStageBatch; ++u) {
            const int e = e0 + 32 * u;
            v[u] = from_float<T>(0.0f);
            if (p.cs == c) {
              if (inside && e >= e_lo && e < e_hi) v[u] = x[base + e];
            } else if (inside && e < p.row_len) {
              const int col = e / p.cs, ch = e - col * p.cs;
              if (ch < c && col >= lo && col < hi) v[u] = x[base + col * c + ch];
            }
          }
#pragma unroll
          for (int u = 0; u < kFewStageBatch; ++u) {
            if (e0 + 32 * u < p.row_len) dst[e0 + 32 * u] = v[u];
          }
        }
      }
    }
    __syncthreads();  // the input tile (the first time also the filters and tables) is in
    // 3. The GEMM: per step, the A words of both m-tiles, then the filter fragments.
    if (computes) {
      float acc[kFewMTiles][8][4];
#pragma unroll
      for (int m = 0; m < kFewMTiles; ++m) {
#pragma unroll
        for (int n = 0; n < 8; ++n) acc[m][n][0] = acc[m][n][1] = acc[m][n][2] = acc[m][n][3] = 0;
      }
      // This lane's A words of a step, both m-tiles.
      const auto load_a = [&](uint32_t(&af)[kFewMTiles][4], int step) {
        const int4 e = table[4 * step + t];
#pragma unroll
        for (int m = 0; m < kFewMTiles; ++m) {
          af[m][0] = lds32(a_at[m][0] + e.x) & static_cast<uint32_t>(e.y);
          af[m][1] = lds32(a_at[m][1] + e.x) & static_cast<uint32_t>(e.y);
          af[m][2] = lds32(a_at[m][0] + e.z) & static_cast<uint32_t>(e.w);
          af[m][3] = lds32(a_at[m][1] + e.z) & static_cast<uint32_t>(e.w);
        }
      };
      if constexpr (BOO_FEW_WGMMA != 0) {
        // Per step and m-tile one m64n64k16 of the warpgroup (rows 16 w' of warp w' = this
        // warp's m-tile m; acc[m] is its 32-register accumulator in the same order). A fragment
        // buffer is loaded again two steps later, after the group that read it retired.
        const auto issue = [&](uint32_t(&af)[kFewMTiles][4], int step) {
          wgmma_fence();
#pragma unroll
          for (int m = 0; m < kFewMTiles; ++m) {
            wgmma_m64n64k16_rs<T>(reinterpret_cast<float(&)[32]>(acc[m]), af[m],
                                  w_desc + 128 * step, 1);
          }
          wgmma_commit();
        };
        uint32_t af[2][kFewMTiles][4];
        int step = 0;
#pragma unroll 1
        for (; step + 1 < p.steps; step += 2) {
#pragma unroll
          for (int u = 0; u < 2; ++u) {
            load_a(af[u], step + u);
            issue(af[u], step + u);
            wgmma_wait<1>();
          }
        }
        if (step < p.steps) {
          load_a(af[0], step);
          issue(af[0], step);
        }
        wgmma_wait<0>();
#pragma unroll
        for (int m = 0; m < kFewMTiles; ++m) wgmma_hold(reinterpret_cast<float(&)[32]>(acc[m]));
      } else {
        // (Not unrolled: two steps unrolled measured no faster,
        // 2026-11-26-conv-few-channels-h200.md.)
#pragma unroll 1
        for (int step = 0; step < p.steps; ++step) {
          uint32_t af[kFewMTiles][4];
          load_a(af, step);
          // Every filter fragment of the step before the first mma (one block of 16 output
          // channels each, 512 bytes apart).
          uint32_t bf[4][4];
          const uint32_t b_step = b_at + step * 4 * 512;
#pragma unroll
          for (int np = 0; np < 4; ++np) {
            if (np < n_pairs) ldmatrix_x4(bf[np], b_step + np * 512);
          }
#pragma unroll
          for (int np = 0; np < 4; ++np) {
            if (np >= n_pairs) break;
            const uint32_t b0[2] = {bf[np][0], bf[np][1]}, b1[2] = {bf[np][2], bf[np][3]};
#pragma unroll
            for (int m = 0; m < kFewMTiles; ++m) {
              mma_16816<T>(acc[m][2 * np], af[m], b0);
              mma_16816<T>(acc[m][2 * np + 1], af[m], b1);
            }
          }
        }
      }
      // 4. acc[m][n]: pixels 32 warp + 16 m + g (+ 8), output channels 8 n + 2t and + 1: bias,
      // activation, into the output tile.
#pragma unroll
      for (int m = 0; m < kFewMTiles; ++m) {
#pragma unroll
        for (int n = 0; n < 8; ++n) {
          if (8 * n >= kn) break;
          const int col = 8 * n + 2 * t;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int pixel = (warp * kFewMTiles + m) * 16 + g + 8 * h;
            if (pixel >= pixels) continue;
            const float v0 = activate<kAct>(acc[m][n][2 * h] + (kHasBias ? bias[col] : 0.0f));
            const float v1 =
                activate<kAct>(acc[m][n][2 * h + 1] + (kHasBias ? bias[col + 1] : 0.0f));
            *reinterpret_cast<uint32_t*>(ys + pixel * p.y_row + col) = pack_pair<T>(v0, v1);
          }
        }
      }
    }
    __syncthreads();  // the output tile is complete; the input tile is free
    // 5. The output tile out in 16-byte vectors: this thread's vector y_v of pixels y_first,
    // + y_step, ... (threads past y_step x vectors store nothing).
    if (y_first < y_step) {
      T* plane = y + (o.n * a.out[0] + o.od) * a.out[1] * a.out[2] * a.k + k0 + y_v * 8;
      int py = y_first / tp.tw, px = y_first % tp.tw;
      for (int pixel = y_first; pixel < pixels; pixel += y_step) {
        const int64_t oh = o.oh0 + py, ow = o.ow0 + px;
        if (oh < a.out[1] && ow < a.out[2]) {
          *reinterpret_cast<uint4*>(plane + (oh * a.out[2] + ow) * a.k) =
              *reinterpret_cast<const uint4*>(ys + pixel * p.y_row + y_v * 8);
        }
        for (px += y_step; px >= tp.tw; px -= tp.tw) ++py;
      }
    }
  }
}

template <class T, bool kHasBias, int kAct>
struct ConvFewChannelsRunner {
  static_assert(sizeof(T) == 2, "conv.padded_channels' direct kernel runs on 16-bit types");

  static const char* reject(const BooConvArgs& a, FewPlan* plan) {
    if (a.direction != BOO_CONV_FORWARD) {
      return "conv.padded_channels' direct kernel runs the forward pass only";
    }
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups != 1) return "conv.padded_channels' direct kernel needs groups = 1";
    if (a.c > kFewMaxChannels) {
      return "conv.padded_channels' direct kernel takes at most 16 input channels";
    }
    if (a.k % 8 != 0) {
      return "conv.padded_channels' direct kernel needs K a multiple of 8 (16-byte output rows)";
    }
    if (a.dilation[2] != 1) {
      return "conv.padded_channels' direct kernel needs unit dilation along W";
    }
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.padded_channels' direct kernel needs packed channels-last x and y";
    }
    const int64_t w_elements = a.filter[0] * a.filter[1] * a.filter[2] * a.c;
    if (a.w_stride[1] != 1 || a.w_stride[0] != w_elements) {
      return "conv.padded_channels' direct kernel needs a packed channels-last filter";
    }
    if (a.out[1] * a.out[2] > (int64_t{1} << 30) || a.in[1] * a.in[2] > (int64_t{1} << 30)) {
      return "conv.padded_channels' direct kernel takes planes of at most 2^30 points";
    }
    if (a.n * a.out[0] * a.out[1] * a.out[2] >= (int64_t{1} << 31)) {
      return "conv.padded_channels' direct kernel takes fewer than 2^31 output pixels";
    }
    if (kHasBias && a.bias == nullptr) {
      return "the kernel adds a bias but the bias pointer is missing";
    }
    if (reinterpret_cast<uintptr_t>(a.y) % 16 != 0) {
      return "conv.padded_channels' direct kernel needs a 16-byte aligned y";
    }
    return few_channels_plan(a, plan);
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    FewPlan plan{};
    return reject_verdict(reject(a, &plan), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    FewPlan plan{};
    return reject(a, &plan) == nullptr ? 0 : -1;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    (void)ws;
    (void)ws_bytes;
    FewPlan plan{};
    if (const int32_t v = reject_verdict(reject(a, &plan), why, len); v != BOO_OK) return v;
    if (a.dry_run) return BOO_OK;
    const int64_t work =
        a.n * a.out[0] * plan.tile.tiles_h * plan.tile.tiles_w * static_cast<int64_t>(plan.chunks);
    return launch_tile_wave(conv_few_channels_kernel<T, kHasBias, kAct>, kFewThreads,
                            plan.shared_bytes, work, plan.chunks, a.sm_count, stream, why, len, a,
                            plan);
  }
};

}  // namespace boo_kernels
