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
// of the copy bandwidth: 42.7 us on the public ResNeXt line, 1.30x cuDNN). 1D and 2D layers with
// 64 output channels a block run the TMA kernel instead (conv_grouped_tma.cuh: 29 us there); this
// one takes the rest (3D, C/G > K/G, 24 channels a group). Sums run in a fixed order:
// deterministic.
//
// ConvGroupedRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x, w and
// y arrive packed channels-last with 16-byte aligned pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "conv_grouped_mma.cuh"
#include "conv_grouped_tma.cuh"
#include "conv_relayout.cuh"

namespace boo_kernels {
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
  T* __restrict__ y = static_cast<T*>(a.y);

  // 1. Once per block: the filters (cp.async), the zero row, the bias and the tables.
  grouped_block_setup<T, kHasBias>(a, p, chunk, zero, bias, chunk_at, filter);
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

  const GroupedWarp wp = grouped_warp(a, p, shared_address(xs0), zero, filter);
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
    // 3. The groups' GEMMs, bias and activation, into the output tile.
    if (wp.computes) {
      grouped_mma_tile<T, kAct>(p, wp, chunk_at, bias,
                                (k & 1) * x_elements * static_cast<uint32_t>(sizeof(T)), pixels,
                                [&](int pixel, int col, uint32_t pair) {
                                  *reinterpret_cast<uint32_t*>(ys + pixel * p.y_row + col) = pair;
                                });
    }
    __syncthreads();  // the output tile is complete; this input buffer is free
    // 4. The output tile out in 16-byte vectors.
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

  // Why neither kernel takes `a`, or nullptr with `*plan` and `*tma` the plan of the one that
  // runs (grouped_direct_plan).
  static const char* reject(const BooConvArgs& a, GroupedPlan* plan, GroupedTmaPlan* tma) {
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
    // (run() re-plans the cp.async kernel where the driver refuses the TMA maps.)
    return grouped_direct_plan(a, plan, tma);
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    GroupedPlan plan{};
    GroupedTmaPlan tma{};
    return reject_verdict(reject(a, &plan, &tma), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    GroupedPlan plan{};
    GroupedTmaPlan tma{};
    return reject(a, &plan, &tma) == nullptr ? 0 : -1;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    (void)ws;
    (void)ws_bytes;
    GroupedPlan plan{};
    GroupedTmaPlan tma{};
    if (const int32_t v = reject_verdict(reject(a, &plan, &tma), why, len); v != BOO_OK) return v;
    if (a.dry_run) return BOO_OK;
    // The TMA kernel where it applies and the driver takes its maps, else the cp.async one.
    CUtensorMap x_map{}, y_map{};
    if (tma.tiles > 0 && grouped_tma_maps(a, plan, tma, &x_map, &y_map)) {
      const int64_t tma_work = tma.tiles * plan.chunks;
      const bool few = (plan.th * plan.tw * tma.images + 15) / 16 <= 4;  // m-tiles
      // The instance for kN n-tiles a warp and kSteps hoisted steps, by the tile's m-tiles.
      const auto launch = [&](auto n, auto steps) {
        constexpr int kN = decltype(n)::value, kSteps = decltype(steps)::value;
        auto kernel = few ? conv_grouped_tma_kernel<T, kHasBias, kAct, kN, 4, kSteps>
                          : conv_grouped_tma_kernel<T, kHasBias, kAct, kN, 8, kSteps>;
        return launch_tile_wave(kernel, kGroupedThreads, tma.shared_bytes, tma_work, plan.chunks,
                                a.sm_count, stream, why, len, a, plan, tma, x_map, y_map);
      };
      using std::integral_constant;
      // K/G = 8 with a short reduction keeps its filter fragments in registers.
      const bool hoist = BOO_GROUPED_TMA_HOIST_B && plan.q <= 2 * kGroupedTmaHoistedSteps;
      switch (a.k / a.groups / 8) {  // K/G = 8, 16 or 32 (64 output channels a block)
        case 1:
          if (hoist) {
            return launch(integral_constant<int, 1>{},
                          integral_constant<int, kGroupedTmaHoistedSteps>{});
          }
          return launch(integral_constant<int, 1>{}, integral_constant<int, 0>{});
        case 2:
          return launch(integral_constant<int, 2>{}, integral_constant<int, 0>{});
        default:
          return launch(integral_constant<int, 4>{}, integral_constant<int, 0>{});
      }
    }
    // The cp.async kernel, on its own plan (the TMA plan's groups and tiles are not its).
    GroupedPlan cp{};
    if (const char* e = grouped_plan(a, &cp)) {
      return reject_verdict(tma.tiles > 0 ? "conv.grouped's TMA kernel: the driver refused its "
                                            "tensor maps, and the cp.async kernel's tiles do not "
                                            "fit its shared memory"
                                          : e,
                            why, len);
    }
    const int64_t work = a.n * a.out[0] * cp.tiles_h * cp.tiles_w * static_cast<int64_t>(cp.chunks);
    return launch_tile_wave(conv_grouped_mma_kernel<T, kHasBias, kAct>, kGroupedThreads,
                            cp.shared_bytes, work, cp.chunks, a.sm_count, stream, why, len, a, cp);
  }
};

}  // namespace boo_kernels
