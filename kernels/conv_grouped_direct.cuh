// conv.grouped's direct kernel: forward grouped convolutions (1 < G < C) whose groups are narrow,
// C/G and K/G multiples of 8 and at most kGroupedMaxGroupChannels (ResNeXt's 32 x 4d and 32 x 8d
// blocks, RegNet's group widths). The dense expansion runs such a layer as a G times larger
// convolution (G = 32: 114.8 us against cuDNN's 55.4 on the public ResNeXt line, H100); here each
// group is its own small implicit GEMM: M = output pixels, N = K/G, and the reduction runs over
// taps x C/G input channels in chunks of 8 (one 16-byte row of a fragment), so nothing is
// computed that the result does not need.
//
// A block keeps gb consecutive groups (at most 64 channels of x and of y) and walks tiles of
// output pixels, each of one output depth plane of one image (th x tw, at most
// kGroupedTilePixels); per tile:
//   1. cp.async stages the input tile (into one of two buffers, while the previous tile is
//      multiplied) (every input point the tile's taps reach, zero-filled
//      outside the image) and the groups' filters in shared memory, rows padded to an odd
//      number of 16-byte units so that the eight rows of an 8 x 8 fragment fall in distinct
//      banks;
//   2. each warp takes one (group, 8 output channels) pair and up to 8 m-tiles of 16 pixels; per
//      reduction step it loads the filter fragment once (ldmatrix.x2) and, per m-tile, the input
//      fragment (ldmatrix.x4, each lane pointing at its pixel's tap: the im2col gather costs
//      nothing) into mma.sync m16n8k16 with fp32 accumulators;
//   3. bias and activation are applied, the tile goes back to shared memory and out in 16-byte
//      vectors.
// The filters, the tables of offsets and each lane's fragment addresses are set up once per block.
// The target is the memory floor: x read once (plus the halo from L2) and y written once (0.37
// of the copy bandwidth so far: 42.7 us on the public ResNeXt line, 1.30x cuDNN). Sums run in a
// fixed order: deterministic.
//
// ConvGroupedRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x, w and
// y arrive packed channels-last with 16-byte aligned pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_relayout.cuh"
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
constexpr int kGroupedTilePixels = 128;  // output pixels per block, at most: 8 m-tiles
constexpr int kGroupedMTiles = kGroupedTilePixels / 16;
constexpr int kGroupedBlockChannels = 64;  // channels of x and of y per block, at most
constexpr int kGroupedMaxGroupChannels = 32;
constexpr int kGroupedMaxShared = 100 * 1024;

// The block's geometry, planned on the host (grouped_plan).
struct GroupedPlan {
  int th, tw;               // output tile (rows, columns)
  int id, ih, iw;           // input tile: the points the tile's taps reach
  int tiles_h, tiles_w;     // tiles per output plane
  int gb, chunks;           // groups per block; G / gb
  int q;                    // 8-channel chunks of one output channel's filter: taps x C/G / 8
  int x_row, w_row, y_row;  // shared-memory row lengths (elements): input point, filter, output
  int shared_bytes;
};

// Rows of `elements` 16-bit values, padded to an odd number of 16-byte units.
inline int grouped_row(int elements) {
  const int units = (elements + 7) / 8;
  return (units % 2 == 1 ? units : units + 1) * 8;
}

inline int grouped_ceil(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

// The output-pixel tiling of `p` for tiles of at most `most` pixels (rows of at most 64 wide
// tiles, contiguous runs of x and y) and the input tile their taps reach. (conv.split_wgrad's
// direct kernel tiles its pixels the same way.) False where the input tile spans 1024 rows or
// columns or more (its tables pack 10 bits).
inline bool grouped_tile_shape(const BooConvArgs& a, int most, GroupedPlan* p) {
  const int64_t ho = a.out[1], wo = a.out[2];
  p->tiles_w = grouped_ceil(wo, most < 64 ? most : 64);
  p->tw = grouped_ceil(wo, p->tiles_w);
  const int rows = most / p->tw > 0 ? most / p->tw : 1;
  p->tiles_h = grouped_ceil(ho, rows);
  p->th = grouped_ceil(ho, p->tiles_h);
  p->id = static_cast<int>((a.filter[0] - 1) * a.dilation[0] + 1);
  p->ih = static_cast<int>((p->th - 1) * a.stride[1] + (a.filter[1] - 1) * a.dilation[1] + 1);
  p->iw = static_cast<int>((p->tw - 1) * a.stride[2] + (a.filter[2] - 1) * a.dilation[2] + 1);
  return p->id < 2048 && p->ih < 1024 && p->iw < 1024;
}

// The plan for `a`, or nullptr with why not in `*why`.
inline const char* grouped_plan(const BooConvArgs& a, GroupedPlan* p) {
  const int cg = static_cast<int>(a.c / a.groups), kg = static_cast<int>(a.k / a.groups);
  if (!grouped_tile_shape(a, kGroupedTilePixels, p)) {
    return "conv.grouped's direct kernel: its input tile spans 1024 rows or columns or more "
           "(large stride or dilation)";
  }
  const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
  p->q = static_cast<int>(taps * cg / 8);
  p->w_row = grouped_row(p->q * 8);
  const int widest = cg > kg ? cg : kg;
  for (int gb = static_cast<int>(kGroupedBlockChannels / widest); gb >= 1; --gb) {
    if (a.groups % gb != 0) continue;
    p->gb = gb;
    p->chunks = static_cast<int>(a.groups / gb);
    p->x_row = grouped_row(gb * cg);
    p->y_row = grouped_row(gb * kg);
    const int64_t points = static_cast<int64_t>(p->id) * p->ih * p->iw;
    const int64_t pixels = static_cast<int64_t>(p->th) * p->tw;
    const int64_t bytes =
        16 + 16 * grouped_ceil(gb * kg, 4) + 16 * grouped_ceil(p->q + 1, 4) +
        16 * grouped_ceil(points, 4) + 16 * grouped_ceil(pixels, 4) +
        2 * (static_cast<int64_t>(gb) * kg * p->w_row + 2 * points * p->x_row + pixels * p->y_row);
    if (bytes <= kGroupedMaxShared) {
      p->shared_bytes = static_cast<int>(bytes);
      return nullptr;
    }
  }
  return "conv.grouped's direct kernel: the filter and input tile of one group exceed its shared "
         "memory (large filter or dilation)";
}

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

// Blocks are persistent: block b keeps the filters of chunk b % chunks (and the tables below,
// which depend on the tile's shape, not its place) and walks the tiles b / chunks,
// + gridDim.x / chunks, ..., fetching the next tile's input (a second buffer) while it
// multiplies this one. (One tile per block measured bound by instructions: 0.69 warp
// instructions issued per scheduler per cycle, DRAM 17% busy, on the public ResNeXt line; most
// of them set the block up or divided a flat copy index.)
template <class T, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kGroupedThreads, kGroupedBlocksPerSm)
    conv_grouped_mma_kernel(BooConvArgs a, GroupedPlan p) {
  extern __shared__ float4 shared4[];
  const int cg = static_cast<int>(a.c / a.groups), kg = static_cast<int>(a.k / a.groups);
  const int cb = p.gb * cg, kb = p.gb * kg;
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int64_t tile_step = gridDim.x / p.chunks;
  const int64_t tiles = a.n * a.out[0] * p.tiles_h * p.tiles_w;
  const int points = p.id * p.ih * p.iw, pixels = p.th * p.tw;
  // Shared memory: 16 zero bytes (the rows of reduction steps past the filter), the bias (fp32),
  // each 8-channel chunk's offset in the input tile, each input point's (d, h, w) in the tile,
  // each output pixel's (row, column), the filters, two input tiles, the output tile.
  float4* at = shared4;
  T* zero = reinterpret_cast<T*>(at);
  at += 1;
  float* bias = reinterpret_cast<float*>(at);
  at += (kb + 3) / 4;
  int* chunk_at = reinterpret_cast<int*>(at);
  at += (p.q + 1 + 3) / 4;
  int* point_at = reinterpret_cast<int*>(at);
  at += (points + 3) / 4;
  int* pixel_at = reinterpret_cast<int*>(at);
  at += (pixels + 3) / 4;
  T* filter = reinterpret_cast<T*>(at);
  T* xs0 = filter + kb * p.w_row;
  const int x_elements = points * p.x_row;  // one input tile (a multiple of 8 elements)
  T* ys = xs0 + 2 * x_elements;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  // 1. Once per block: the filters (cp.async), the zero row, the bias and the tables.
  const T* w_block = w + static_cast<int64_t>(chunk) * kb * p.q * 8;  // kb filters of q chunks
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
  // Chunk j of the reduction: tap j / (C/G / 8), channels 8 (j % (C/G / 8)) onwards of the
  // group; its offset (elements) from a pixel's first input point; -1 past the end.
  const int per_tap = cg / 8;
  const int fw = static_cast<int>(a.filter[2]), fh = static_cast<int>(a.filter[1]);
  for (int j = threadIdx.x; j <= p.q; j += kGroupedThreads) {
    int off = -1;
    if (j < p.q) {
      const int tap = j / per_tap, fx = tap % fw, fy = tap / fw % fh, fz = tap / (fw * fh);
      off = ((fz * static_cast<int>(a.dilation[0]) * p.ih + fy * static_cast<int>(a.dilation[1])) *
                 p.iw +
             fx * static_cast<int>(a.dilation[2])) *
                p.x_row +
            (j % per_tap) * 8;
    }
    chunk_at[j] = off;
  }
  for (int i = threadIdx.x; i < points; i += kGroupedThreads) {
    point_at[i] = (i / (p.iw * p.ih)) << 20 | (i / p.iw % p.ih) << 10 | i % p.iw;
  }
  for (int i = threadIdx.x; i < pixels; i += kGroupedThreads) {
    pixel_at[i] = (i / p.tw) << 16 | i % p.tw;
  }
  __syncthreads();  // the tables (the filters may still be in flight)

  // This thread's share of a tile's copies: 16-byte vector x_v of points x_first,
  // x_first + x_step, ... (threads past x_step * vectors copy nothing); the same for y.
  const int x_vectors = cb / 8, x_step = kGroupedThreads / x_vectors;
  const int x_v = threadIdx.x % x_vectors, x_first = threadIdx.x / x_vectors;
  const int y_vectors = kb / 8, y_step = kGroupedThreads / y_vectors;
  const int y_v = threadIdx.x % y_vectors, y_first = threadIdx.x / y_vectors;
  const auto fetch = [&](int64_t tile, T* buffer) {
    const GroupedTile o = grouped_tile(static_cast<unsigned>(tile), a, p);
    const int64_t d0 = o.od * a.stride[0] - a.pad[0];
    const int64_t h0 = o.oh0 * a.stride[1] - a.pad[1];
    const int64_t w0 = o.ow0 * a.stride[2] - a.pad[2];
    const T* image = x + o.n * a.in[0] * a.in[1] * a.in[2] * a.c + chunk * cb + x_v * 8;
    if (x_first < x_step) {
      for (int point = x_first; point < points; point += x_step) {
        const int where = point_at[point];
        const int64_t d = d0 + (where >> 20), h = h0 + (where >> 10 & 1023),
                      col = w0 + (where & 1023);
        const bool inside =
            d >= 0 && d < a.in[0] && h >= 0 && h < a.in[1] && col >= 0 && col < a.in[2];
        cp_async_16(buffer + point * p.x_row + x_v * 8,
                    inside ? image + ((d * a.in[1] + h) * a.in[2] + col) * a.c : x,
                    inside ? 16 : 0);
      }
    }
    cp_async_commit();
  };

  // Warp w: the (group, n-tile) pair w / per_item, m-tiles w % per_item, + per_item, ...
  const int items = kb / 8;  // (group, 8 output channels) pairs
  const int per_item = kGroupedWarps / items;
  const int item = warp / per_item, first_m = warp % per_item;
  const int m_tiles = (pixels + 15) / 16;
  const int my_tiles = first_m < m_tiles ? (m_tiles - first_m + per_item - 1) / per_item : 0;
  const bool computes = item < items && my_tiles > 0;
  const int group = item / (kg / 8);  // within the block
  const int out0 = item * 8;          // first output channel (within the block)
  // This lane's ldmatrix rows: A's pixel (matrix lane / 8: rows +8 for odd ones, the second
  // k-half for the upper two) in each of its m-tiles, as byte addresses in the first input
  // buffer (past the tile: the last pixel, whose rows are computed and dropped); B's filter row;
  // the zero row.
  const int a_half = lane / 16, b_half = lane / 8 % 2;
  uint32_t a_at[kGroupedMTiles];
#pragma unroll
  for (int m = 0; m < kGroupedMTiles; ++m) {
    int pixel = (first_m + m * per_item) * 16 + lane % 8 + (lane / 8 % 2) * 8;
    pixel = pixel < pixels ? pixel : pixels - 1;
    const int py = pixel / p.tw, px = pixel % p.tw;
    a_at[m] = shared_address(
        xs0 +
        (py * static_cast<int>(a.stride[1]) * p.iw + px * static_cast<int>(a.stride[2])) * p.x_row +
        group * cg);
  }
  const uint32_t zero_at = shared_address(zero);
  const uint32_t b_at = shared_address(filter + (out0 + lane % 8) * p.w_row);
  const int g = lane / 4, t = lane % 4;

  int64_t tile = blockIdx.x / p.chunks;
  if (tile < tiles) fetch(tile, xs0);
  for (int k = 0; tile < tiles; tile += tile_step, ++k) {
    // 2. The next tile's input into the other buffer, then wait for this one's.
    if (tile + tile_step < tiles) {
      fetch(tile + tile_step, xs0 + ((k + 1) & 1) * x_elements);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();  // this tile's input (the first time also the filters) is in
    // 3. The groups' GEMMs: per reduction step, B's fragment once, then each m-tile's A.
    if (computes) {
      const uint32_t buffer = (k & 1) * x_elements * static_cast<uint32_t>(sizeof(T));
      float acc[kGroupedMTiles][4];
#pragma unroll
      for (int m = 0; m < kGroupedMTiles; ++m) {
        acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.0f;
      }
      for (int s = 0; s < (p.q + 1) / 2; ++s) {
        const int jb = 2 * s + b_half;
        uint32_t bf[2];
        ldmatrix_x2(bf, jb < p.q ? b_at + jb * 16 : zero_at);
        const int off = chunk_at[2 * s + a_half];
        const uint32_t shift = buffer + 2 * off;
#pragma unroll
        for (int m = 0; m < kGroupedMTiles; ++m) {
          if (m >= my_tiles) break;
          uint32_t af[4];
          ldmatrix_x4(af, off >= 0 ? a_at[m] + shift : zero_at);
          mma_16816<T>(acc[m], af, bf);
        }
      }
      // 4. acc[m]: pixels 16 mt + g and + 8, output channels out0 + 2t and + 1: bias,
      // activation, into the output tile.
#pragma unroll
      for (int m = 0; m < kGroupedMTiles; ++m) {
        if (m >= my_tiles) break;
        const int mt = first_m + m * per_item;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int pixel = mt * 16 + g + 8 * h;
          if (pixel >= pixels) continue;
          const int col = out0 + 2 * t;  // two adjacent channels: one 4-byte store
          const T pair[2] = {from_float<T>(activate<kAct>(acc[m][2 * h] + bias[col])),
                             from_float<T>(activate<kAct>(acc[m][2 * h + 1] + bias[col + 1]))};
          *reinterpret_cast<uint32_t*>(ys + pixel * p.y_row + col) =
              *reinterpret_cast<const uint32_t*>(pair);
        }
      }
    }
    __syncthreads();  // the output tile is complete; this input buffer is free
    // 5. The output tile out in 16-byte vectors.
    if (y_first < y_step) {
      const GroupedTile o = grouped_tile(static_cast<unsigned>(tile), a, p);
      T* plane = y + (o.n * a.out[0] + o.od) * a.out[1] * a.out[2] * a.k + chunk * kb + y_v * 8;
      for (int pixel = y_first; pixel < pixels; pixel += y_step) {
        const int where = pixel_at[pixel];
        const int64_t oh = o.oh0 + (where >> 16), ow = o.ow0 + (where & 0xffff);
        if (oh >= a.out[1] || ow >= a.out[2]) continue;
        *reinterpret_cast<uint4*>(plane + (oh * a.out[2] + ow) * a.k) =
            *reinterpret_cast<const uint4*>(ys + pixel * p.y_row + y_v * 8);
      }
    }
  }
}

template <class T, bool kHasBias, int kAct>
struct ConvGroupedRunner {
  static_assert(sizeof(T) == 2, "conv.grouped's direct kernel runs on 16-bit tensor-core types");

  static const char* reject(const BooConvArgs& a, GroupedPlan* plan) {
    if (a.direction != BOO_CONV_FORWARD) {
      return "conv.grouped's direct kernel runs the forward pass only";
    }
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups < 2 || a.c % a.groups != 0 || a.k % a.groups != 0) {
      return "conv.grouped's direct kernel needs G >= 2 dividing C and K";
    }
    const int64_t cg = a.c / a.groups, kg = a.k / a.groups;
    if (cg % 8 != 0 || kg % 8 != 0 || cg > kGroupedMaxGroupChannels ||
        kg > kGroupedMaxGroupChannels) {
      return "conv.grouped's direct kernel needs C/G and K/G in 8, 16, 24 or 32";
    }
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.grouped's direct kernel needs packed channels-last x and y";
    }
    const int64_t w_elements = a.filter[0] * a.filter[1] * a.filter[2] * cg;
    if (a.w_stride[1] != 1 || a.w_stride[0] != w_elements) {
      return "conv.grouped's direct kernel needs a packed channels-last filter";
    }
    if (a.out[1] * a.out[2] > (int64_t{1} << 30) || a.in[1] * a.in[2] > (int64_t{1} << 30)) {
      return "conv.grouped's direct kernel takes planes of at most 2^30 points";
    }
    if (a.n * a.out[0] * a.out[1] * a.out[2] >= (int64_t{1} << 31)) {
      return "conv.grouped's direct kernel takes fewer than 2^31 output pixels";
    }
    if (kHasBias && a.bias == nullptr) {
      return "the kernel adds a bias but the bias pointer is missing";
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.w) % 16 != 0) {
      return "conv.grouped's direct kernel needs 16-byte aligned x, w and y";
    }
    return grouped_plan(a, plan);
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    GroupedPlan plan{};
    return reject_verdict(reject(a, &plan), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    GroupedPlan plan{};
    return reject(a, &plan) == nullptr ? 0 : -1;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    (void)ws;
    (void)ws_bytes;
    GroupedPlan plan{};
    if (const int32_t v = reject_verdict(reject(a, &plan), why, len); v != BOO_OK) return v;
    if (a.dry_run) return BOO_OK;
    const int64_t work =
        a.n * a.out[0] * plan.tiles_h * plan.tiles_w * static_cast<int64_t>(plan.chunks);
    return launch_tile_wave(conv_grouped_mma_kernel<T, kHasBias, kAct>, kGroupedThreads,
                            plan.shared_bytes, work, plan.chunks, a.sm_count, stream, why, len, a,
                            plan);
  }
};

}  // namespace boo_kernels
