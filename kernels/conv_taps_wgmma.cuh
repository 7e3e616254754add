// conv.sm90_taps: forward convolutions of stride 1 with C = 64 input channels and K a multiple
// of 64 (the 3x3 layers of ResNet's first stage, 1D and 2D filters of at most 9 taps), on wgmma
// (sm_90a), every tap of the filter multiplied out of one staging of the input.
//
// The output is computed transposed: y^T(k, q) = sum over taps and c of w(k, tap, c)
// x(q + shift(tap), c), 64 output channels as wgmma's M and 128 output positions q as its N.
// (The other way round, output channels as N, a 64-wide N tile reads 4 KB of shared memory per
// 32 clocks of mma: the whole shared-memory bandwidth, which is what holds CUTLASS's implicit
// GEMM near 40% of the tensor peak on these layers. Here a k-step reads 2 KB of filter and 4 KB
// of input per 64 clocks.)
//   - A block tile is th output rows of one plane, staged with the (R - 1) dil_h rows and
//     (S - 1) dil_w columns its taps reach: pitch = tw + (S - 1) dil_w pixels a row. Output
//     position q = row pitch + col takes input pixel q + r dil_h pitch + s dil_w for tap (r, s):
//     every tap is the staged tile shifted by a constant, so its B operand (128 positions x 64
//     channels, K-major) is one matrix descriptor moved by the shift (wgmma.cuh: the swizzle is
//     applied to the address). Positions with col >= tw, or past th rows, are computed and
//     thrown away.
//   - One TMA box stages a tile (64 channels x pitch pixels x th + reach rows, 128-byte swizzled,
//     zeros outside the image) into one of 2 or 3 stages, an mbarrier each; the filter (64 output
//     channels x taps x 64 channels, 8 KB a tap, the same layout) is staged once per block.
//   - Two warpgroups share each tile: where K is a multiple of 128 each takes 64 of the block's
//     128 output channels over the tile's (up to) 128 positions, else each takes 128 of its (up
//     to) 256 positions for the block's 64 output channels. A warpgroup's share is 4 k-steps a
//     tap of m64n128k16 wgmma into 64 fp32 accumulators a thread; then bias and activation, and
//     stmatrix.trans writes it position-major (64 channels a position, the TMA layout) over the
//     stage it was read from, 16 KB a warpgroup, and TMA boxes store the tile: whole rows where
//     the tile spans the output's width (box width pitch: the columns past the image are not
//     written), else one row of tw.
//   - One thread issues the boxes. While a tile's mma run, it waits for the previous tile's
//     store to have read its stage and stages the tile 2 (3 stages) or 1 ahead into it.
// Blocks: one per SM, each keeping one chunk of K (64 or 128 output channels; block b: chunk
// b % chunks) and walking its share of the tiles.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace boo_kernels {

constexpr int kTapsChannels = 64;    // C, and the output channels a warpgroup keeps
constexpr int kTapsPositions = 128;  // output positions a warpgroup's share (wgmma's N)
constexpr int kTapsMaxTaps = 9;
constexpr int kTapsThreads = 256;  // two warpgroups
constexpr int kTapsMaxStages = 3;
constexpr int kTapsMaxShared = 227 * 1024;
constexpr int kTapsTapBytes = kTapsChannels * kTapsChannels * 2;  // a tap's filter (8 KB)
constexpr int kTapsShareBytes = kTapsPositions * 128;             // a warpgroup's output (16 KB)

struct TapsPlan {
  int split_k;        // 1: the warpgroups take 64 output channels each, 0: 128 positions each
  int th, tw, pitch;  // a tile: output rows, output columns, staged pixels a row
  int x_rows;         // staged input rows (th + (R - 1) dil_h)
  int box_w;          // the output box's width: pitch (tiles_w = 1) or tw (th = 1)
  int tiles_w, tiles_h;
  int64_t tiles;  // planes (n x D) x tiles_h x tiles_w
  int taps;
  int stage_bytes;  // the box (128 bytes a pixel) or the output shares, whichever is larger
  int stages;
  int k_chunks;  // of 64 output channels (split_k 0) or 128 (split_k 1)
  int slices;    // blocks per chunk
  int shared_bytes;
};

inline int taps_ceil(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

// The plan for `a` (forward, packed channels-last, 16-bit: ConvTapsRunner checks those), or
// why this kernel does not take it.
inline const char* taps_plan(const BooConvArgs& a, TapsPlan* p) {
  if (a.c != kTapsChannels) {
    return "conv.sm90_taps needs C = 64 (its whole filter stays in shared memory)";
  }
  if (a.k % kTapsChannels != 0) return "conv.sm90_taps needs K a multiple of 64";
  if (a.stride[0] != 1 || a.stride[1] != 1 || a.stride[2] != 1) {
    return "conv.sm90_taps needs stride 1";
  }
  if (a.filter[0] != 1 || a.pad[0] != 0) {
    return "conv.sm90_taps takes 1D and 2D filters (depth 1, no depth padding)";
  }
  const int fh = static_cast<int>(a.filter[1]), fw = static_cast<int>(a.filter[2]);
  if (fh * fw > kTapsMaxTaps) return "conv.sm90_taps takes filters of at most 9 taps";
  p->taps = fh * fw;
  const int64_t out_h = a.out[1], out_w = a.out[2];
  const int64_t reach_h = (fh - 1) * a.dilation[1], reach_w = (fw - 1) * a.dilation[2];
  if (reach_w + 16 > kTapsPositions || reach_h + 1 > 256) {
    return "conv.sm90_taps: the dilated filter reaches too far";
  }
  p->split_k = a.k % (2 * kTapsChannels) == 0 ? 1 : 0;
  const int positions = kTapsPositions * (p->split_k != 0 ? 1 : 2);
  const int filter = (p->split_k + 1) * p->taps * kTapsTapBytes;
  // The widest tiles within the tile's positions whose stages fit beside the filter, in steps
  // of 32 positions.
  p->stages = 0;
  for (int budget = positions; budget >= 32 + reach_w && p->stages < 2; budget -= 32) {
    if (out_w + reach_w <= budget) {
      // Whole rows: as many as the budget holds, spread evenly over the height.
      p->tiles_w = 1;
      p->tw = static_cast<int>(out_w);
      p->pitch = static_cast<int>(out_w + reach_w);
      int rows = budget / p->pitch;
      rows = rows < out_h ? rows : static_cast<int>(out_h);
      p->tiles_h = taps_ceil(out_h, rows);
      p->th = taps_ceil(out_h, p->tiles_h);
      p->box_w = p->pitch;
    } else {
      p->tiles_w = taps_ceil(out_w, budget - reach_w);
      p->tw = taps_ceil(out_w, p->tiles_w);
      p->pitch = static_cast<int>(p->tw + reach_w);
      p->tiles_h = static_cast<int>(out_h);
      p->th = 1;
      p->box_w = p->tw;
    }
    p->x_rows = static_cast<int>(p->th + reach_h);
    const int x_bytes = (p->x_rows * p->pitch * 128 + 1023) / 1024 * 1024;
    p->stage_bytes = x_bytes > 2 * kTapsShareBytes ? x_bytes : 2 * kTapsShareBytes;
    // The thrown-away positions' operands reach past the last stage: slack for them (reads).
    const int64_t reach_bytes = (positions + reach_h * p->pitch + reach_w) * 128;
    const int slack =
        reach_bytes > p->stage_bytes ? static_cast<int>(reach_bytes - p->stage_bytes) : 0;
    // Up to 1 KB to align to the swizzle pattern, the filter (two chunks with split_k), the
    // stages and the slack, an mbarrier a stage.
    for (p->stages = kTapsMaxStages; p->stages >= 2; --p->stages) {
      p->shared_bytes = 1024 + filter + p->stages * p->stage_bytes + slack + 8 * p->stages;
      if (p->shared_bytes <= kTapsMaxShared) break;
    }
  }
  if (p->stages < 2) return "conv.sm90_taps: a tile exceeds its shared memory";
  p->tiles = a.n * a.out[0] * p->tiles_h * p->tiles_w;
  if (p->tiles >= (int64_t{1} << 31) || a.n * a.out[0] >= (int64_t{1} << 31)) {
    return "conv.sm90_taps takes fewer than 2^31 tiles";
  }
  p->k_chunks = static_cast<int>(a.k / (kTapsChannels * (p->split_k + 1)));
  const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
  int64_t slices = sms / p->k_chunks;
  slices = slices < 1 ? 1 : slices;
  p->slices = static_cast<int>(slices < p->tiles ? slices : p->tiles);
  return nullptr;
}

// x's and y's TMA maps: x in boxes of 64 channels x pitch x x_rows, y in boxes of 64 output
// channels x box_w x th; false where the driver refuses them.
inline bool taps_maps(const BooConvArgs& a, const TapsPlan& p, CUtensorMap* x_map,
                      CUtensorMap* y_map) {
  const auto map = [&](CUtensorMap* m, const void* base, const int64_t* extent, int64_t channels,
                       int width, int rows) {
    const uint64_t c = static_cast<uint64_t>(channels), w = static_cast<uint64_t>(extent[2]);
    const uint64_t h = static_cast<uint64_t>(extent[1]);
    const uint64_t dims[4] = {c, w, h, static_cast<uint64_t>(a.n * extent[0])};
    const uint64_t strides[3] = {2 * c, 2 * c * w, 2 * c * w * h};
    const uint32_t box[4] = {kTapsChannels, static_cast<uint32_t>(width),
                             static_cast<uint32_t>(rows), 1};
    return tma_map_4d(m, base, dims, strides, box);
  };
  return map(x_map, a.x, a.in, a.c, p.pitch, p.x_rows) &&
         map(y_map, a.y, a.out, a.k, p.box_w, p.th);
}

template <class T, bool kBias, int kAct>
__global__ void __launch_bounds__(kTapsThreads, 1)
    conv_taps_wgmma_kernel(BooConvArgs a, TapsPlan p, const __grid_constant__ CUtensorMap x_map,
                           const __grid_constant__ CUtensorMap y_map) {
  extern __shared__ float4 shared4[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(shared4);
  // Everything from a 1024-byte boundary: the 128-byte swizzle repeats every 8 rows.
  smem += (1024 - shared_address(smem) % 1024) % 1024;
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.k_chunks));
  const int slice = static_cast<int>(blockIdx.x / static_cast<unsigned>(p.k_chunks));
  const int k_block = chunk * kTapsChannels * (p.split_k + 1);
  const int group = static_cast<int>(threadIdx.x) / 128;
  const int filter_bytes = p.taps * kTapsTapBytes;
  const uint32_t w_at = shared_address(smem);
  const uint32_t stages_at = w_at + (p.split_k + 1) * filter_bytes;
  const uint32_t bars = stages_at + p.stages * p.stage_bytes;  // the slack holds them too

  // The block's filter: output channel k_block + r (r < 64 or 128), tap t, 16-byte vector v of
  // its 64 channels at filter_bytes (r / 64) + 8192 t + 128 (r % 64) + 16 (v ^ r % 8).
  const T* __restrict__ w = static_cast<const T*>(a.w);
  const int vectors = (p.split_k + 1) * p.taps * kTapsChannels * 8;
  for (int i = threadIdx.x; i < vectors; i += kTapsThreads) {
    const int v = i % 8, r = i / 8 % kTapsChannels, t = i / (8 * kTapsChannels) % p.taps;
    const int half = i / (8 * kTapsChannels * p.taps);
    cp_async_16(
        smem + half * filter_bytes + t * kTapsTapBytes + r * 128 + 16 * (v ^ r % 8),
        w + (static_cast<int64_t>(k_block + 64 * half + r) * p.taps + t) * kTapsChannels + 8 * v,
        16);
  }
  cp_async_commit();
  const bool leader = threadIdx.x == 0;
  if (leader) {
    for (int s = 0; s < p.stages; ++s) mbarrier_init(bars + 8 * s, 1);
    mbarrier_init_fence();
  }
  __syncthreads();  // the barriers are initialized before anyone waits on them
  // This warpgroup's output channels and positions; this thread's accumulator rows: output
  // channels k0 + 16 quarter + g (+ 8).
  const int k0 = k_block + (p.split_k != 0 ? kTapsChannels * group : 0);
  const uint32_t share = static_cast<uint32_t>(kTapsShareBytes * group);
  const int lane = threadIdx.x % 32, quarter = threadIdx.x % 128 / 32, g = lane / 4;
  float bias[2] = {0.0f, 0.0f};
  if constexpr (kBias) {
    for (int h = 0; h < 2; ++h) {
      bias[h] = to_float(static_cast<const T*>(a.bias)[k0 + 16 * quarter + g + 8 * h]);
    }
  }
  const int fw = static_cast<int>(a.filter[2]);
  const int dil_h = static_cast<int>(a.dilation[1]), dil_w = static_cast<int>(a.dilation[2]);
  const int pad_h = static_cast<int>(a.pad[1]), pad_w = static_cast<int>(a.pad[2]);
  // A tile's (plane, first output row, first output column).
  const auto place = [&](int64_t tile, int* plane, int* oh0, int* ow0) {
    *ow0 = static_cast<int>(tile % p.tiles_w) * p.tw;
    const int64_t rest = tile / p.tiles_w;
    *oh0 = static_cast<int>(rest % p.tiles_h) * p.th;
    *plane = static_cast<int>(rest / p.tiles_h);
  };
  const auto issue = [&](int64_t tile, int stage) {
    int plane, oh0, ow0;
    place(tile, &plane, &oh0, &ow0);
    const uint32_t bar = bars + 8 * stage;
    mbarrier_expect_bytes(bar, static_cast<uint32_t>(128 * p.pitch * p.x_rows));
    tma_load_4d(stages_at + stage * p.stage_bytes, &x_map, bar, 0, ow0 - pad_w, oh0 - pad_h, plane);
  };
  const int64_t step = p.slices;
  // The first tiles' boxes go out while the filter's copies land.
  if (leader) {
    for (int s = 0; s + 1 < p.stages && slice + s * step < p.tiles; ++s) {
      issue(slice + s * step, s);
    }
  }
  cp_async_wait<0>();
  fence_proxy_async_shared();
  __syncthreads();

  // stmatrix rows: lane l gives position 8 (2 i + l / 16) + l % 8's vector of output channels
  // 16 quarter + 8 ((l / 8) % 2) .. + 7 of the warpgroup's share, swizzled (the position % 8 is
  // l % 8).
  const uint32_t st_lane =
      share + static_cast<uint32_t>((8 * (lane / 16) + lane % 8) * 128 +
                                    16 * ((2 * quarter + lane / 8 % 2) ^ lane % 8));
  // Descriptor starts count 16 bytes: a tap's filter is 512 further, a shifted pixel 8, a
  // k-step 2; the warpgroup's filter (split_k) or positions (else) start further still.
  const uint64_t a_desc = wgmma_desc_sw128(w_at + (p.split_k != 0 ? filter_bytes * group : 0));
  const uint32_t b_share = p.split_k != 0 ? 0 : share;
  float acc[64];
  int stage = 0;
  uint32_t parity = 0;
  for (int64_t tile = slice, i = 0; tile < p.tiles; tile += step, ++i) {
    const uint32_t xs = stages_at + stage * p.stage_bytes;
    mbarrier_wait(bars + 8 * stage, parity);
    const uint64_t b_desc = wgmma_desc_sw128(xs + b_share);
    wgmma_fence();
#pragma unroll 1
    for (int tap = 0; tap < p.taps; ++tap) {
      const int shift = tap / fw * dil_h * p.pitch + tap % fw * dil_w;
      const uint64_t at = a_desc + static_cast<uint64_t>(tap * (kTapsTapBytes / 16));
      const uint64_t bt = b_desc + static_cast<uint64_t>(shift * 8);
#pragma unroll
      for (int j = 0; j < 4; ++j) wgmma_m64n128k16_ss<T>(acc, at + 2 * j, bt + 2 * j, tap + j);
    }
    wgmma_commit();
    if (leader) {
      // Under the mma: the stage of the tile before frees once its store has read it, and takes
      // the tile stages - 1 ahead.
      const int64_t ahead = tile + (p.stages - 1) * step;
      if (i > 0) tma_store_wait_read<0>();
      if (ahead < p.tiles) {
        int free = stage + p.stages - 1;
        free = free >= p.stages ? free - p.stages : free;
        issue(ahead, free);
      }
    }
    wgmma_wait<0>();
    wgmma_hold(acc);
    __syncthreads();  // every warpgroup's mma has read the stage: it takes the output now

    // acc[4 i + 2 h + e]: output channel 16 quarter + g + 8 h, position 8 i + 2 t + e.
#pragma unroll
    for (int u = 0; u < 16; u += 2) {
      uint32_t r[4];
#pragma unroll
      for (int v = 0; v < 2; ++v) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float* d = acc + 4 * (u + v) + 2 * h;
          r[2 * v + h] =
              pack_pair<T>(activate<kAct>(d[0] + bias[h]), activate<kAct>(d[1] + bias[h]));
        }
      }
      stmatrix_x4_trans(xs + st_lane + 1024 * u, r);
    }
    fence_proxy_async_shared();
    __syncthreads();
    if (leader) {
      int plane, oh0, ow0;
      place(tile, &plane, &oh0, &ow0);
      tma_store_4d(&y_map, xs, k_block, ow0, oh0, plane);
      if (p.split_k != 0) {
        tma_store_4d(&y_map, xs + kTapsShareBytes, k_block + kTapsChannels, ow0, oh0, plane);
      }
    }
    if (++stage == p.stages) stage = 0, parity ^= 1;
  }
  if (leader) tma_store_wait<0>();
}

// The inner runner (behind ConvChannelsLastRunner): packed channels-last x and y, w packed
// K, taps, C; 16-bit types.
template <class T, bool kBias, int kAct>
struct ConvTapsRunner {
  static_assert(sizeof(T) == 2, "conv.sm90_taps runs on 16-bit tensor-core types");

  static const char* reject(const BooConvArgs& a, TapsPlan* plan) {
    if (a.direction != BOO_CONV_FORWARD) return "conv.sm90_taps runs the forward pass only";
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups != 1) return "conv.sm90_taps needs one group";
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.sm90_taps needs packed channels-last x and y";
    }
    const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
    if (a.w_stride[1] != 1 || a.w_stride[0] != taps * a.c || a.w_stride[4] != a.c) {
      return "conv.sm90_taps needs a packed channels-last filter";
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.w) % 16 != 0) {
      return "conv.sm90_taps needs 16-byte aligned x, w and y";
    }
    if (kBias && a.bias == nullptr) return "the kernel adds a bias but the bias pointer is missing";
    return taps_plan(a, plan);
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    TapsPlan plan{};
    return reject_verdict(reject(a, &plan), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    TapsPlan plan{};
    return reject(a, &plan) == nullptr ? 0 : -1;
  }

  static int32_t run(const BooConvArgs& a, void*, int64_t, void* stream, char* why, int32_t len) {
    TapsPlan plan{};
    if (const int32_t v = reject_verdict(reject(a, &plan), why, len); v != BOO_OK) return v;
    CUtensorMap x_map{}, y_map{};
    if (!taps_maps(a, plan, &x_map, &y_map)) {
      write_why(why, len, "conv.sm90_taps: the driver refused the TMA maps of x and y");
      return BOO_ERROR;
    }
    if (a.dry_run) return BOO_OK;
    const auto kernel = conv_taps_wgmma_kernel<T, kBias, kAct>;
    if (const cudaError_t e = cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, plan.shared_bytes);
        e != cudaSuccess) {
      return cuda_result(e, why, len);
    }
    const unsigned blocks =
        static_cast<unsigned>(plan.k_chunks) * static_cast<unsigned>(plan.slices);
    kernel<<<blocks, kTapsThreads, plan.shared_bytes, static_cast<cudaStream_t>(stream)>>>(
        a, plan, x_map, y_map);
    return cuda_result(cudaGetLastError(), why, len);
  }
};

}  // namespace boo_kernels
