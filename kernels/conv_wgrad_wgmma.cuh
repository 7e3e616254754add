// conv.split_wgrad's warpgroup kernel: backward weight of stride-1 layers whose C and K are
// multiples of 64 (ResNet's 3x3 layers, 1D convolutions), dw(k, c, tap) = the sum over output
// pixels of dy(pixel, k) x(pixel's input point + tap, c), on wgmma (sm_90a).
//
// A block stages a tile of th output rows of tw pixels of dy and the th + (R - 1) dil_h input
// rows its taps reach of x (64 channels each) in shared memory, both with the same row pitch
// (tw + (S - 1) dil_w pixels: dy's extra columns are zero). In that layout tap (r, s) of output
// pixel q is input pixel q + r dil_h pitch + s dil_w: every tap is the same x tile shifted by a
// constant, so a tap's B operand (16 pixels x 64 channels of x) is one matrix descriptor moved
// by the shift, and nothing is gathered.
//   - Both tiles are stored a row of 128 bytes (64 channels) per pixel, swizzled (16-byte vector
//     c of pixel p at c ^ (p % 8)): wgmma's MN-major 128-byte swizzled layout, which it reads
//     from any start row (wgmma.cuh), and rows that cp.async fills from whole 128-byte lines of
//     NHWC memory. (Planes of 8 channels, the unswizzled layout, cost one L2 request per 16 bytes:
//     cp.async merges a warp's requests only where both sides are contiguous; 52 against 43 us
//     on the public 3x3 line.)
//   - Warpgroup j takes up to 3 taps (3 j onwards of the block's) for all 64 output channels:
//     per 16 pixels it issues one m64n64k16 wgmma per tap, or, where its 3 taps are consecutive
//     taps of a filter row (filters 3, 6 or 9 wide), one m64n192k16 whose three 64-wide blocks of B
//     are the x tile at shifts 128 dil_w bytes apart (3-4% faster on an H200:
//     bench/results/2026-11-30-wgrad-pipe-h200.md); A, dy^T, is the dy tile in shared memory read
//     as an MN-major operand (before 2026-11-30 each warp loaded its 16 rows with ldmatrix.x4.trans
//     into registers); the accumulators (64 x 64 fp32 a tap) stay in registers across every tile.
//   - Where a tile spans the whole output width (every 2D layer up to 250 or so pixels wide), two
//     TMA boxes stage it (x's and dy's; the columns past the image, dy's pitch columns among
//     them, arrive as zeros), issued by one thread into one of BOO_WGRAD_WGMMA_STAGES stage
//     buffers and awaited on an mbarrier; elsewhere every thread's cp.async fills one of two
//     stage buffers while the other is multiplied.
// Blocks walk a slice of the tiles as conv_wgrad_direct.cuh's mma.sync kernel does, write their
// fp32 dw to the workspace, and its reduction kernel sums the slices in a fixed order.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "conv_common.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"
#include "split_slices.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace boo_kernels {

constexpr int kWgmmaWgradGroups = 3;  // warpgroups per block, at most
constexpr int kWgmmaWgradThreads = 128 * kWgmmaWgradGroups;
constexpr int kWgmmaWgradTaps = 3;       // taps per warpgroup
constexpr int kWgmmaWgradChannels = 64;  // output channels and input channels per block
constexpr int kWgmmaWgradMaxShared = 220 * 1024;
constexpr int kWgmmaWgradMaxPitch = 256;
// dy pixels per tile (its rows times the pitch), about: BOO_WGRAD_WGMMA_PIXELS for measuring.
#ifndef BOO_WGRAD_WGMMA_PIXELS
#define BOO_WGRAD_WGMMA_PIXELS 256
#endif
// Tiles staged by TMA where they can be (BOO_WGRAD_WGMMA_TMA=0: by cp.async everywhere, for
// measuring), in this many stage buffers.
#ifndef BOO_WGRAD_WGMMA_TMA
#define BOO_WGRAD_WGMMA_TMA 1
#endif
#ifndef BOO_WGRAD_WGMMA_STAGES
#define BOO_WGRAD_WGMMA_STAGES 2
#endif
constexpr int kWgmmaWgradMaxBox = 256;  // a TMA box's extent in any dimension
// One m64n192k16 a k-step for the 3 taps of a filter row where they are that
// (BOO_WGRAD_WGMMA_ROW=0: three m64n64k16, for measuring); dy^T's A operand from shared memory
// with up to BOO_WGRAD_WGMMA_DEPTH k-steps in flight behind the one issued
// (BOO_WGRAD_WGMMA_SS=0: from registers by ldmatrix, as before 2026-11-30, for measuring).
#ifndef BOO_WGRAD_WGMMA_ROW
#define BOO_WGRAD_WGMMA_ROW 1
#endif
#ifndef BOO_WGRAD_WGMMA_SS
#define BOO_WGRAD_WGMMA_SS 1
#endif
#ifndef BOO_WGRAD_WGMMA_DEPTH
#define BOO_WGRAD_WGMMA_DEPTH 2
#endif

struct WgmmaWgradPlan {
  int th, tw, pitch;     // a tile: output rows, output columns, the staged row length (pixels)
  int x_rows;            // staged input rows
  int y_pixels;          // dy pixels staged (th x pitch, rounded up to 16: the wgmma k-steps)
  int x_pixels;          // x pixels staged (every pixel a k-step's shifted operand reaches)
  int x_bytes, y_bytes;  // a stage's x and dy tiles (128 bytes a pixel, in 1024-byte units)
  int tiles_w, tiles_h;
  int64_t tiles;  // planes (n x D) x tiles_h x tiles_w
  int groups;     // warpgroups per block
  int taps_block, k_chunks, c_chunks, tap_chunks, chunks;
  int slices;
  int tma;     // 1: tiles staged by TMA (whole output rows), 0: by cp.async
  int stages;  // stage buffers (2 with cp.async)
  int shared_bytes;
  int64_t total;  // elements of dw
};

// The tile walk of both backward-weight kernels: tiles first, first + step, ... below `tiles`,
// double-buffered. fetch(tile, stage) issues a tile's cp.async copies into a stage (one commit
// group); once a thread's copies of the tile have landed, settle(stage) may rewrite them (its
// own: no other thread's have been waited for); body(tile, k) runs on stage k % 2 once the block
// has met (after a fence.proxy.async where kAsyncProxy: wgmma reads them), and a barrier after it
// frees that stage for the tile after next.
template <bool kAsyncProxy, class Fetch, class Settle, class Body>
__device__ __forceinline__ void wgrad_walk_tiles(int64_t first, int64_t step, int64_t tiles,
                                                 const Fetch& fetch, const Settle& settle,
                                                 const Body& body) {
  if (first < tiles) fetch(first, 0);
  int k = 0;
  for (int64_t tile = first; tile < tiles; tile += step, ++k) {
    if (tile + step < tiles) {
      fetch(tile + step, (k + 1) & 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    settle(k & 1);
    if constexpr (kAsyncProxy) fence_proxy_async_shared();
    __syncthreads();
    body(tile, k);
    __syncthreads();
  }
}

// The taps a warp (mma.sync kernel) or warpgroup (wgmma kernel) stores: those of the block's
// `taps_block` from `first` on that the filter still has past the block's first tap `tap0`, at
// most `most`; zero or more.
__device__ __forceinline__ int wgrad_own_taps(int taps_block, int first, int taps, int tap0,
                                              int most) {
  int own = taps_block - first;
  own = own < taps - tap0 - first ? own : taps - tap0 - first;
  return own < 0 ? 0 : own < most ? own : most;
}

// The plan for `a` (backward weight, packed channels-last, 16-bit: ConvWgradDirectRunner checks
// those), or why this kernel does not take it.
inline const char* wgmma_wgrad_plan(const BooConvArgs& a, WgmmaWgradPlan* p) {
  if (a.c % kWgmmaWgradChannels != 0 || a.k % kWgmmaWgradChannels != 0) {
    return "conv.split_wgrad's wgmma kernel needs C and K multiples of 64";
  }
  if (a.stride[0] != 1 || a.stride[1] != 1 || a.stride[2] != 1) {
    return "conv.split_wgrad's wgmma kernel needs stride 1";
  }
  if (a.filter[0] != 1 || a.pad[0] != 0) {
    return "conv.split_wgrad's wgmma kernel takes 1D and 2D filters (depth 1, no depth padding)";
  }
  const int fh = static_cast<int>(a.filter[1]), fw = static_cast<int>(a.filter[2]);
  // Filters of more than one block's taps restage the tiles per tap chunk: on an H100 a 5x5
  // dilated fp16 layer ran 0.82x the mma.sync kernel's speed (bench/results/
  // 2026-11-27-conv-wgrad-wgmma-h100.md); those stay there.
  if (fh * fw > kWgmmaWgradGroups * kWgmmaWgradTaps) {
    return "conv.split_wgrad's wgmma kernel takes filters of at most 9 taps";
  }
  const int dh = static_cast<int>(a.dilation[1]), dw = static_cast<int>(a.dilation[2]);
  const int64_t out_h = a.out[1], out_w = a.out[2];
  const int reach_w = (fw - 1) * dw;
  if (reach_w + 16 > kWgmmaWgradMaxPitch) {
    return "conv.split_wgrad's wgmma kernel: the filter reaches too far along W";
  }
  p->tiles_w = static_cast<int>(plan_ceil(out_w, kWgmmaWgradMaxPitch - reach_w));
  p->tw = static_cast<int>(plan_ceil(out_w, p->tiles_w));
  p->pitch = p->tw + reach_w;
  // A TMA box of whole rows reads dy's pitch columns from outside the image (zeros).
  const bool tma = BOO_WGRAD_WGMMA_TMA != 0 && p->tiles_w == 1 && p->pitch <= kWgmmaWgradMaxBox;
  // The most output rows whose pixels make about BOO_WGRAD_WGMMA_PIXELS, then fewer until the
  // stages fit.
  int64_t most_rows = BOO_WGRAD_WGMMA_PIXELS / p->pitch;
  most_rows = most_rows < 1 ? 1 : most_rows > out_h ? out_h : most_rows;
  for (int64_t rows = most_rows; rows >= 1; --rows) {
    p->tiles_h = static_cast<int>(plan_ceil(out_h, rows));
    p->th = static_cast<int>(plan_ceil(out_h, p->tiles_h));
    p->x_rows = p->th + (fh - 1) * dh;
    p->y_pixels = (p->th * p->pitch + 15) / 16 * 16;
    const int reach = (fh - 1) * dh * p->pitch + reach_w;
    int x = p->x_rows * p->pitch;
    x = x > p->y_pixels + reach ? x : p->y_pixels + reach;
    p->x_pixels = (x + 7) / 8 * 8;
    p->x_bytes = (p->x_pixels * 128 + 1023) / 1024 * 1024;
    p->y_bytes = (p->y_pixels * 128 + 1023) / 1024 * 1024;
    p->tma = tma && p->x_rows <= kWgmmaWgradMaxBox ? 1 : 0;
    p->stages = p->tma != 0 ? BOO_WGRAD_WGMMA_STAGES : 2;
    // Up to 1 KB to align the stages to the swizzle pattern, the stages, the pixels' table, an
    // mbarrier a stage.
    p->shared_bytes =
        1024 + p->stages * (p->x_bytes + p->y_bytes) + 4 * p->x_pixels + 8 * p->stages;
    if (p->shared_bytes <= kWgmmaWgradMaxShared) break;
    if (p->th == 1) return "conv.split_wgrad's wgmma kernel: a tile exceeds its shared memory";
  }
  if (p->shared_bytes > kWgmmaWgradMaxShared) {
    return "conv.split_wgrad's wgmma kernel: a tile exceeds its shared memory";
  }
  const int64_t planes = a.n * a.out[0];
  p->tiles = planes * p->tiles_h * p->tiles_w;
  if (p->tiles >= (int64_t{1} << 31)) {
    return "conv.split_wgrad's wgmma kernel takes fewer than 2^31 pixel tiles";
  }
  const int taps = fh * fw;
  const int most = kWgmmaWgradGroups * kWgmmaWgradTaps;
  p->taps_block = taps < most ? taps : most;
  p->groups = static_cast<int>(plan_ceil(p->taps_block, kWgmmaWgradTaps));
  p->tap_chunks = static_cast<int>(plan_ceil(taps, p->taps_block));
  p->k_chunks = static_cast<int>(a.k / kWgmmaWgradChannels);
  p->c_chunks = static_cast<int>(a.c / kWgmmaWgradChannels);
  p->chunks = p->k_chunks * p->c_chunks * p->tap_chunks;
  p->total = a.k * a.c * taps;
  // Blocks an SM: by shared memory (227 KB a block at most, 1 KB reserved each) and by registers
  // (near 168 a thread: 384 threads an SM).
  const int by_shared = 232448 / (p->shared_bytes + 1024);
  const int by_threads = kWgmmaWgradGroups / p->groups;
  const int per_sm = by_shared < by_threads ? by_shared : by_threads;
  const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
  p->slices = slices_per_chunk(sms * (per_sm > 0 ? per_sm : 1), p->chunks, p->tiles);
  return nullptr;
}

// Whether every warpgroup of the plan takes 3 consecutive taps of one filter row (filters 3, 6
// or 9 wide: each warpgroup's first tap a multiple of 3), so that conv_wgrad_wgmma_kernel runs
// them as one m64n192k16 a k-step.
inline bool wgmma_wgrad_row(const BooConvArgs& a) {
  return BOO_WGRAD_WGMMA_ROW != 0 && a.filter[2] % kWgmmaWgradTaps == 0;
}

// x's and dy's TMA maps for a plan with p.tma (64 channels, pitch pixels and a tile's rows a
// box), or false where the driver refuses them.
inline bool wgmma_wgrad_maps(const BooConvArgs& a, const WgmmaWgradPlan& p, CUtensorMap* x_map,
                             CUtensorMap* y_map) {
  return tma_map_channels_last(x_map, a.x, a.n, a.in, a.c, p.pitch, p.x_rows) &&
         tma_map_channels_last(y_map, a.y, a.n, a.out, a.k, p.pitch, p.th);
}

// The TMA tile walk: thread 0 issues tiles first, first + step, ... (issue(tile, stage): its
// boxes, completing on the stage's mbarrier at `bars` + 8 stage) `stages` ahead; body(tile, stage)
// runs once the stage's phase has completed, and a barrier after it frees the stage.
template <class Issue, class Body>
__device__ __forceinline__ void wgrad_walk_tiles_tma(int64_t first, int64_t step, int64_t tiles,
                                                     int stages, uint32_t bars, const Issue& issue,
                                                     const Body& body) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages && first + s * step < tiles; ++s) issue(first + s * step, s);
  }
  int stage = 0;
  uint32_t parity = 0;
  for (int64_t tile = first; tile < tiles; tile += step) {
    mbarrier_wait(bars + 8 * stage, parity);
    __syncwarp();
    body(tile, stage);
    __syncthreads();
    if (threadIdx.x == 0 && tile + stages * step < tiles) issue(tile + stages * step, stage);
    if (++stage == stages) stage = 0, parity ^= 1;
  }
}

// x_map and y_map: x's and dy's TMA maps (kTma; wgmma_wgrad_maps), unused otherwise.
// kRow: the plan's warpgroups each take the 3 taps of a filter row (wgmma_wgrad_row), one
// m64n192k16 a k-step (its own kernel: with both forms in one, ptxas serialized the wgmma, C7511).
template <class T, bool kTma, bool kRow>
__global__ void __launch_bounds__(kWgmmaWgradThreads, 1)
    conv_wgrad_wgmma_kernel(BooConvArgs a, WgmmaWgradPlan p, float* __restrict__ ws,
                            const __grid_constant__ CUtensorMap x_map,
                            const __grid_constant__ CUtensorMap y_map) {
  extern __shared__ float4 shared4[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(shared4);
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int slice = static_cast<int>(blockIdx.x / static_cast<unsigned>(p.chunks));
  const int k0 = chunk % p.k_chunks * kWgmmaWgradChannels;
  const int c0 = chunk / p.k_chunks % p.c_chunks * kWgmmaWgradChannels;
  const int tap0 = chunk / (p.k_chunks * p.c_chunks) * p.taps_block;
  const int fw = static_cast<int>(a.filter[2]);
  const int taps = static_cast<int>(a.filter[1]) * fw;
  const int threads = 128 * p.groups;
  const int stage_bytes = p.x_bytes + p.y_bytes;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ dy = static_cast<const T*>(a.y);
  const int in_h = static_cast<int>(a.in[1]), in_w = static_cast<int>(a.in[2]);
  const int out_h = static_cast<int>(a.out[1]), out_w = static_cast<int>(a.out[2]);
  const int cc = static_cast<int>(a.c), kk = static_cast<int>(a.k);

  // The stages start at a 1024-byte boundary (the 128-byte swizzle repeats every 8 rows of 128
  // bytes and wgmma applies it to the address). Each staged pixel's (row, column) in the tile,
  // the same for x and dy and for every tile, is tabled once: the copies divide nothing.
  smem += (1024 - shared_address(smem) % 1024) % 1024;
  int* where = reinterpret_cast<int*>(smem + p.stages * stage_bytes);
  const uint32_t bars = shared_address(where + p.x_pixels);
  if constexpr (kTma) {
    // TMA writes a box's pixels only: the staged pixels past the boxes (each stage's x pixels
    // from x_rows x pitch on, dy's from th x pitch on) stay zero. Bytes [from, to) of a stage:
    const auto zero = [&](int from, int to) {
      for (int s = 0; s < p.stages; ++s) {
        for (int i = from + 16 * static_cast<int>(threadIdx.x); i < to; i += 16 * threads) {
          *reinterpret_cast<float4*>(smem + s * stage_bytes + i) =
              make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
      }
    };
    zero(128 * p.x_rows * p.pitch, p.x_bytes);
    zero(p.x_bytes + 128 * p.th * p.pitch, p.x_bytes + p.y_bytes);
    if (threadIdx.x == 0) {
      for (int s = 0; s < p.stages; ++s) mbarrier_init(bars + 8 * s, 1);
      mbarrier_init_fence();
    }
    fence_proxy_async_shared();
  } else {
    for (int i = threadIdx.x; i < p.x_pixels; i += threads)
      where[i] = i / p.pitch << 16 | i % p.pitch;
  }
  __syncthreads();

  // A tile's copies: 16-byte vectors, this thread's vector v of pixels first, + step, ... (a
  // warp copies 4 whole pixels), zero-filled outside the image, past the tile's rows and in dy's
  // pitch columns.
  const int v = threadIdx.x % 8, first = threadIdx.x / 8;
  // Pixel rows of 128 bytes with 16-byte vector v at v ^ (pixel % 8) (pixel % 8 is first % 8 for
  // every pixel this thread copies: step is a multiple of 8).
  const int vector_at = 16 * (v ^ first % 8);
  const int step = threads / 8;
  const auto fetch = [&](int64_t tile, int stage) {
    const int col_tile = static_cast<int>(tile % p.tiles_w);
    const int64_t rest = tile / p.tiles_w;
    const int row_tile = static_cast<int>(rest % p.tiles_h);
    const int64_t plane = rest / p.tiles_h;
    const int oh0 = row_tile * p.th, ow0 = col_tile * p.tw;
    const int ih0 = oh0 - static_cast<int>(a.pad[1]), iw0 = ow0 - static_cast<int>(a.pad[2]);
    const T* image = x + plane * in_h * in_w * cc + c0 + 8 * v;
    unsigned char* xs = smem + stage * stage_bytes + vector_at;
    for (int pixel = first; pixel < p.x_pixels; pixel += step) {
      const int rc = where[pixel], row = rc >> 16, h = ih0 + row, w = iw0 + (rc & 0xffff);
      const bool inside = row < p.x_rows &&
                          static_cast<unsigned>(h) < static_cast<unsigned>(in_h) &&
                          static_cast<unsigned>(w) < static_cast<unsigned>(in_w);
      cp_async_16(xs + pixel * 128, inside ? image + (h * in_w + w) * cc : x, inside ? 16 : 0);
    }
    const T* grad = dy + plane * out_h * out_w * kk + k0 + 8 * v;
    unsigned char* ys = smem + stage * stage_bytes + p.x_bytes + vector_at;
    for (int pixel = first; pixel < p.y_pixels; pixel += step) {
      const int rc = where[pixel], row = rc >> 16, col = rc & 0xffff;
      const int h = oh0 + row, w = ow0 + col;
      const bool inside = row < p.th && col < p.tw && h < out_h && w < out_w;
      cp_async_16(ys + pixel * 128, inside ? grad + (h * out_w + w) * kk : dy, inside ? 16 : 0);
    }
    cp_async_commit();
  };

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int group = warp / 4, quarter = warp % 4;
  const int first_tap = group * kWgmmaWgradTaps;
  const int my_taps = wgrad_own_taps(p.taps_block, first_tap, taps, tap0, kWgmmaWgradTaps);
  // Every warpgroup runs 3 taps' wgmma (a tap past its own repeats its first and is not stored:
  // no branch between the mma, which would serialize them). Each tap's shift (bytes) in the x
  // tile.
  uint32_t shift[kWgmmaWgradTaps];
#pragma unroll
  for (int j = 0; j < kWgmmaWgradTaps; ++j) {
    const int tap = tap0 + first_tap + (j < my_taps ? j : 0);
    shift[j] = static_cast<uint32_t>(128 * (tap / fw * static_cast<int>(a.dilation[1]) * p.pitch +
                                            tap % fw * static_cast<int>(a.dilation[2])));
  }
  const uint32_t smem_at = shared_address(smem);

  // The 3 taps' accumulators side by side: tap j's 64 x 64 at acc[32 j ...] (the layout of one
  // m64n192k16 over the three).
  float acc[32 * kWgmmaWgradTaps];
#pragma unroll
  for (int i = 0; i < 32 * kWgmmaWgradTaps; ++i) acc[i] = 0.0f;
  const auto tap_acc = [&](int j) -> float(&)[32] {
    return *reinterpret_cast<float(*)[32]>(acc + 32 * j);
  };
  // A stage's B descriptors: tap j's x tile shifted (desc[j]); with kRow, desc[0] spans the
  // row's 3 taps, the x tile at shifts 128 dil_w bytes apart, as one m64n192k16 whose three
  // 64-wide blocks of n lie that far apart (wgmma_desc_sw128's `atoms`).
  const uint32_t row_atoms = 128u * static_cast<uint32_t>(a.dilation[2]);
  const auto stage_descs = [&](uint32_t xs, uint64_t(&desc)[kWgmmaWgradTaps]) {
#pragma unroll
    for (int j = 0; j < kWgmmaWgradTaps; ++j) {
      desc[j] = kRow && j == 0 ? wgmma_desc_sw128(xs + shift[0], row_atoms)
                               : wgmma_desc_sw128(xs + shift[j]);
    }
  };

  // A k-step is 16 pixels: 2048 bytes of each tile, 128 in a descriptor's start field.
  const int steps = p.y_pixels / 16;
#if BOO_WGRAD_WGMMA_SS
  // Both operands from shared memory, MN-major (dy's tile as A: a pixel's 64 output channels
  // contiguous), so nothing but the accumulators is in registers: a k-step's wgmma waits only
  // for the one BOO_WGRAD_WGMMA_DEPTH + 1 steps back (A in registers by ldmatrix waited for the
  // load too: 1-3% slower on an H200).
  const auto body = [&](int64_t, int stage) {
    const uint32_t xs = smem_at + stage * stage_bytes;
    const uint64_t a_desc = wgmma_desc_sw128(xs + p.x_bytes);
    uint64_t desc[kWgmmaWgradTaps];
    stage_descs(xs, desc);
    for (int k = 0; k < steps; ++k) {
      wgmma_fence();
      if constexpr (kRow) {
        wgmma_m64nk16_ss_mn<T, 192>(acc, a_desc + 128 * k, desc[0] + 128 * k, 1);
      } else {
#pragma unroll
        for (int j = 0; j < kWgmmaWgradTaps; ++j) {
          wgmma_m64nk16_ss_mn<T, 64>(tap_acc(j), a_desc + 128 * k, desc[j] + 128 * k, 1);
        }
      }
      wgmma_commit();
      wgmma_wait<BOO_WGRAD_WGMMA_DEPTH>();
    }
    wgmma_wait<0>();
    wgmma_hold(acc);
  };
#else
  // dy^T's fragment by ldmatrix (this lane's row: pixel 8 (lane / 16) + lane % 8 of the k-step,
  // vector 2 quarter + (lane / 8) % 2, swizzled), then the taps' wgmma with A in registers; a
  // fragment buffer is written again two steps later, after the group that read it has retired.
  const uint32_t a_lane = static_cast<uint32_t>((8 * (lane / 16) + lane % 8) * 128 +
                                                16 * ((2 * quarter + lane / 8 % 2) ^ lane % 8));
  const auto body = [&](int64_t, int stage) {
    const uint32_t xs = smem_at + stage * stage_bytes;
    const uint32_t a_at = xs + p.x_bytes + a_lane;
    uint64_t desc[kWgmmaWgradTaps];
    stage_descs(xs, desc);
    uint32_t af[2][4];
    const auto step = [&](uint32_t(&f)[4], int k) {
      ldmatrix_x4_trans(f, a_at + 2048 * k);
      wgmma_fence();
      if constexpr (kRow) {
        wgmma_m64n192k16_rs<T>(acc, f, desc[0] + 128 * k, 1);
      } else {
#pragma unroll
        for (int j = 0; j < kWgmmaWgradTaps; ++j) {
          wgmma_m64n64k16_rs<T>(tap_acc(j), f, desc[j] + 128 * k, 1);
        }
      }
      wgmma_commit();
    };
    int s = 0;
    for (; s + 1 < steps; s += 2) {
      step(af[0], s);
      wgmma_wait<1>();
      step(af[1], s + 1);
      wgmma_wait<1>();
    }
    if (s < steps) step(af[0], s);
    wgmma_wait<0>();
    wgmma_hold(acc);
  };
#endif
  if constexpr (kTma) {
    // A tile's boxes (the whole width: tiles_w is 1): x's x_rows rows from the tile's first
    // input row, dy's th rows, each pitch pixels wide from the first column it needs.
    const auto issue = [&](int64_t tile, int stage) {
      const int oh0 = static_cast<int>(tile % p.tiles_h) * p.th;
      const int plane = static_cast<int>(tile / p.tiles_h);
      const uint32_t xs = smem_at + stage * stage_bytes, bar = bars + 8 * stage;
      mbarrier_expect_bytes(bar, static_cast<uint32_t>(128 * p.pitch * (p.x_rows + p.th)));
      tma_load_4d(xs, &x_map, bar, c0, -static_cast<int>(a.pad[2]),
                  oh0 - static_cast<int>(a.pad[1]), plane);
      tma_load_4d(xs + p.x_bytes, &y_map, bar, k0, 0, oh0, plane);
    };
    wgrad_walk_tiles_tma(slice, p.slices, p.tiles, p.stages, bars, issue, body);
  } else {
    wgrad_walk_tiles<true>(
        slice, p.slices, p.tiles, fetch, [](int) {},
        [&](int64_t tile, int k) { body(tile, k & 1); });
  }
  wgmma_hold(acc);

  cudaTriggerProgrammaticLaunchCompletion();  // the reduction may launch
  // The slice's dw: acc[j][4 i + 2 h + e] is output channel k0 + 16 quarter + g + 8 h, input
  // channel c0 + 8 i + 2 t + e, tap tap0 + first_tap + j; packed K, taps, C.
  const int g = lane / 4, t = lane % 4;
  float* out = ws + static_cast<int64_t>(slice) * p.total;
#pragma unroll
  for (int j = 0; j < kWgmmaWgradTaps; ++j) {
    if (j >= my_taps) break;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int ko = k0 + 16 * quarter + g + 8 * h;
      float* row = out + (static_cast<int64_t>(ko) * taps + tap0 + first_tap + j) * cc + c0 + 2 * t;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        *reinterpret_cast<float2*>(row + 8 * i) =
            make_float2(acc[32 * j + 4 * i + 2 * h], acc[32 * j + 4 * i + 2 * h + 1]);
      }
    }
  }
}

}  // namespace boo_kernels
