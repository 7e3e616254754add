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
//   1. the input points the tile's taps reach go to shared memory (zero outside the image):
//      where x's rows are whole 16-byte vectors and pixels start at even elements, as TMA boxes
//      of up to 2048 elements of a row, each starting on a 16-byte vector
//      (conv_few_channels_boxes.cuh), thread 0 copying the next tile's into a second buffer
//      while this one's MMA runs; else (its own kernel, kTmaX false) rows of `row_len`
//      elements, a warp a row with 16 loads in flight a lane;
//   2. each of the 8 warps takes 32 pixels (two m-tiles) and every output channel; per k16 step
//      it loads its A words (lds.32, the word past a filter row's end masked to zero) into
//      mma.sync's A layout, which is also warpgroup MMA's register A: each of the two
//      warpgroups issues one wgmma m64n64k16 per m-tile, B the step's filters (MN-major, 128-byte
//      swizzled), fp32 accumulators (-DBOO_FEW_WGMMA=0: ldmatrix.x4 and mma.sync m16n8k16, for
//      measuring);
//   3. bias and activation are applied, the tile goes to shared memory (one predicated
//      st.shared a channel pair, at row addresses kept in registers) and out as one TMA box
//      where the block stages by TMA and keeps 64 output channels (128-byte swizzled rows; the
//      box is written while the next tile's MMA runs), else in 16-byte vectors.
// Two blocks share an SM, so one stages or stores while the other multiplies. Sums run in a
// fixed order: deterministic. On an H200 the public stem measured 121.4 us against space-to-
// depth's 261.9 and cuDNN's 457.4 (bench/results/2026-11-26-conv-few-channels-h200.md: the mma
// phase about half of it, at 50% of the issue slots); on warpgroup MMA 107.9 against 122.3 on
// mma.sync in the same call (2026-11-29-few-wgmma-h200.md); with TMA staging and stores 82-86
// against 111-122 (2026-11-29-few-tma-h200.md); with step 3's stores predicated 69-74 against
// 86-87, small element-staged lines 4% faster on the geometric mean; with tile coordinates by the
// plan's multiply-and-shift divisors (few_tile) the 224x224 k64 stems 2-6% faster
// (2026-11-30-weak-picks-h200.md); with the filters set up a 16-byte vector at a time
// (few_filter_from) rather than element by element with three divisions each, and the first
// tile's boxes out before that set-up, 59.9-60.8 against 66.1-69.9 on the public stem and the
// C = 4 UNet input 10.3 against 11.5; with 16 x 16 tiles (few_squarer_tiles) rather than 4 x 56,
// 49 a plane rather than 56, 54.3-54.5 against 60.8-63.0 (2026-12-01-few-setup-h200.md).
//
// ConvFewChannelsRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x, w
// and y arrive packed channels-last, y 16-byte aligned.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_few_channels_boxes.cuh"
#include "conv_grouped_direct.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "fast_divide.cuh"
#include "mma_sync.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

// The GEMM on warpgroup MMA (wgmma.mma_async m64n64k16, A from the same registers, the filters
// as an MN-major 128-byte swizzled B); BOO_NVCC_FLAGS=-DBOO_FEW_WGMMA=0: mma.sync, for measuring.
#ifndef BOO_FEW_WGMMA
#define BOO_FEW_WGMMA 1
#endif
// The input tile staged by TMA boxes into two buffers, the next tile's under this one's MMA
// (conv_few_channels_boxes.cuh), where x's rows allow it; BOO_FEW_TMA_X=0: element loads only.
#ifndef BOO_FEW_TMA_X
#define BOO_FEW_TMA_X 1
#endif
// The output tile stored by one TMA box (128-byte swizzled) where a block stages by TMA and keeps
// 64 output channels; BOO_FEW_TMA_Y=0: 16-byte vector stores only.
#ifndef BOO_FEW_TMA_Y
#define BOO_FEW_TMA_Y 1
#endif
// The filters' set-up a 16-byte vector at a time (8 output channels of one reduction element, zero
// where no tap is), without a zeroing pass; BOO_FEW_SETUP_VECTORS=0: element by element after a
// zeroing pass, three divisions an element (17% of the public stem's warp samples under ncu,
// bench/results/2026-12-01-weak-prof-h200.md), for measuring.
#ifndef BOO_FEW_SETUP_VECTORS
#define BOO_FEW_SETUP_VECTORS 1
#endif
// Tiles of the fewest count (few_squarer_tiles: 16 x 16 on the 112 x 112 stems) rather than the
// widest; BOO_FEW_SQUARER=0: the widest, for measuring.
#ifndef BOO_FEW_SQUARER
#define BOO_FEW_SQUARER 1
#endif
// The set-up's 16-byte vectors a thread loads at once (8 loads each); 2 and 5 measured no faster
// over the stems and small layers (bench/results/2026-12-01-few-setup-h200.md), for measuring.
#ifndef BOO_FEW_SETUP_BATCH
#define BOO_FEW_SETUP_BATCH 1
#endif

// Tiles of 256 pixels unless that gives fewer than BOO_FEW_FILL blocks an SM (then 128, then 64);
// BOO_FEW_FILL=1: the wider tiles down to one block an SM, for measuring (the C = 4 UNet input's
// 128-pixel tiles make 320 blocks, 56 past the 264 that two an SM hold).
#ifndef BOO_FEW_FILL
#define BOO_FEW_FILL 2
#endif

namespace boo_kernels {

constexpr int kFewThreads = 256;
constexpr int kFewWarps = kFewThreads / 32;
// m-tiles of 16 pixels a warp, two blocks an SM (4 m-tiles in one block measured slower: 192
// against 162 us on the public stem, bench/results/2026-11-26-conv-few-channels-h200.md).
constexpr int kFewMTiles = 2;
constexpr int kFewBlocksPerSm = 2;
constexpr int kFewTilePixels = kFewWarps * kFewMTiles * 16;  // 256
constexpr int kFewStageBatch = 16;         // element loads in flight a thread, staging without TMA
constexpr int kFewBlockChannels = 64;      // output channels a block, at most
constexpr int kFewMaxChannels = 16;        // input channels, at most
constexpr int kFewMaxReduction = 512;      // filter rows x lp, at most
constexpr int kFewMaxShared = 110 * 1024;  // two blocks an SM

// The block's geometry, planned on the host (few_channels_plan).
struct FewPlan {
  GroupedPlan tile;  // th, tw, tiles_h, tiles_w, id, ih, iw (grouped_tile_shape)
  int cs;            // channels of a staged input point: C, or C + 1 (pairs 4-byte aligned)
  int lead;          // 1: a filter row's reduction starts one element early (TMA, odd origins)
  int lp;            // reduction elements of one filter row: lead + S cs rounded up to even
  int rows;          // filter rows: T x R
  int steps;         // k16 steps: rows x lp / 16, rounded up
  int row_len;       // elements of a staged input row (even; the box row E with TMA)
  int x_elements;    // elements of one buffer of the input tile (a multiple of 8; of 64 with TMA)
  int y_row;         // shared-memory row length (elements) of an output pixel
  int kb, chunks;    // output channels a block (a multiple of 8), blocks per tile
  int w_elements;    // the filters in shared memory: steps x 4 blocks of 16 x 16 (few_filter_at)
  int tma_x;         // 1: the input tile in TMA boxes (`boxes`), two buffers
  int tma_y;         // 1: the output tile out as one TMA box, 128-byte swizzled rows of 64
  FewBoxes boxes;
  // tile.tiles_w, tile.tiles_h and the output depth as divisors (few_tile)
  FastDivisor tiles_w, tiles_h, depth;
  int y_at, bias_at, table_at, bar_at;  // byte offsets in shared memory past the filters
  int shared_bytes;
};

// The plan for `a`, or nullptr with why not in `*why`. `tma` = false plans without TMA (where
// the driver cannot encode a tensor map); `squarer` = false keeps the widest tiles (the plan
// falls back to them where few_squarer_tiles' do not fit).
inline const char* few_channels_plan(const BooConvArgs& a, FewPlan* p, bool tma = true,
                                     bool squarer = BOO_FEW_SQUARER != 0) {
  p->chunks = static_cast<int>((a.k + kFewBlockChannels - 1) / kFewBlockChannels);
  p->kb = static_cast<int>(a.k < kFewBlockChannels ? a.k : kFewBlockChannels);
  // Tiles of 256 pixels, or of 128 or 64 where fewer than two blocks an SM would have one.
  const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
  for (int most = kFewTilePixels; most >= 64; most /= 2) {
    if (!grouped_tile_shape(a, most, &p->tile)) {
      return "conv.padded_channels' direct kernel: its input tile spans 1024 rows or columns or "
             "more (large stride or dilation)";
    }
    if (squarer) {
      const int64_t reach_h = (a.filter[1] - 1) * a.dilation[1] + 1;
      const int64_t reach_w = (a.filter[2] - 1) * a.dilation[2] + 1;
      const FewTiling t =
          few_squarer_tiles(a.out[1], a.out[2], most, a.stride[1], a.stride[2], reach_h, reach_w);
      GroupedPlan& g = p->tile;
      g.tiles_w = t.tiles_w, g.tw = t.tw, g.tiles_h = t.tiles_h, g.th = t.th;
      g.ih = static_cast<int>((g.th - 1) * a.stride[1] + reach_h);
      g.iw = static_cast<int>((g.tw - 1) * a.stride[2] + reach_w);
    }
    const int64_t tiles = a.n * a.out[0] * p->tile.tiles_h * p->tile.tiles_w;
    if (tiles * p->chunks >= BOO_FEW_FILL * sms) break;
  }
  p->tiles_w = fast_divisor(static_cast<uint32_t>(p->tile.tiles_w));
  p->tiles_h = fast_divisor(static_cast<uint32_t>(p->tile.tiles_h));
  p->depth = fast_divisor(static_cast<uint32_t>(a.out[0]));
  const int c = static_cast<int>(a.c), s = static_cast<int>(a.filter[2]);
  p->rows = static_cast<int>(a.filter[0] * a.filter[1]);
  const int pixels = p->tile.th * p->tile.tw;
  const auto round = [](int64_t v, int64_t to) { return (v + to - 1) / to * to; };
  // TMA staging where x's rows are whole 16-byte vectors from a 16-byte aligned x and pixels
  // start at even elements (no zero channel); the tile's origin is even with one leading
  // element where its first column's first element is odd (every tile's alike).
  const bool tma_x_fits = tma && BOO_FEW_TMA_X && reinterpret_cast<uintptr_t>(a.x) % 16 == 0;
  for (int with_tma = tma_x_fits ? 1 : 0; with_tma >= 0; --with_tma) {
    if (with_tma) {
      p->cs = c;
      if (!few_tma_staging(a.in[2], c, s, a.stride[2], a.pad[2], p->tile.tw, p->tile.ih, p->tile.id,
                           &p->lead, &p->lp, &p->boxes)) {
        continue;
      }
    } else {
      // The pairs of a pixel start at an even element when C is even or every pixel's first
      // column (stride x column) is even; otherwise a zero channel makes the points even.
      p->cs = c % 2 == 0 || a.stride[2] % 2 == 0 ? c : c + 1;
      p->lead = 0;
      p->lp = (s * p->cs + 1) / 2 * 2;
    }
    p->tma_x = with_tma;
    // The output box only beside TMA staging: the element-staged kernel has no registers to
    // spare for it (and measured no faster with it: the 11x11 line in the A/B).
    p->tma_y = p->tma_x && BOO_FEW_TMA_Y && p->kb == kFewBlockChannels ? 1 : 0;
    if (static_cast<int64_t>(p->rows) * p->lp > kFewMaxReduction) {
      return "conv.padded_channels' direct kernel: the filter's reduction exceeds 512 elements";
    }
    p->steps = (p->rows * p->lp + 15) / 16;
    p->w_elements = p->steps * 4 * 256;
    int64_t x_bytes = 0;
    if (p->tma_x) {
      p->row_len = p->boxes.e;
      p->x_elements = p->boxes.boxes * p->boxes.box_elements;
      x_bytes = 2 * 2 * static_cast<int64_t>(p->x_elements);
    } else {
      // The last word a pixel reads ends at element iw cs (past the tile's last point when
      // lp > S cs): one more element, and even.
      p->row_len = (p->tile.iw * p->cs + 2) / 2 * 2;
      const int64_t x_elements = static_cast<int64_t>(p->tile.id) * p->tile.ih * p->row_len;
      if (x_elements > kFewMaxShared) break;
      p->x_elements = static_cast<int>(round(x_elements, 8));
      x_bytes = 2 * static_cast<int64_t>(p->x_elements);
    }
    p->y_row = p->tma_y ? kFewBlockChannels : grouped_row(p->kb);
    // Shared memory from a 1024-byte boundary: the filters, the input buffers, the output tile
    // (1024-byte aligned: wgmma's and TMA's swizzle atoms), the bias (fp32), the pair table
    // (per step and t: offset and mask of pairs 8 step + t and + 4), two mbarriers.
    const int64_t y_at = round(2 * static_cast<int64_t>(p->w_elements) + x_bytes, 1024);
    const int64_t bias_at = y_at + round(2 * static_cast<int64_t>(pixels) * p->y_row, 16);
    const int64_t table_at = bias_at + 16 * grouped_ceil(p->kb, 4);
    const int64_t bar_at = table_at + 16 * 4 * p->steps;
    const int64_t bytes = 1024 + bar_at + 16;
    if (bytes <= kFewMaxShared) {
      p->y_at = static_cast<int>(y_at);
      p->bias_at = static_cast<int>(bias_at);
      p->table_at = static_cast<int>(table_at);
      p->bar_at = static_cast<int>(bar_at);
      p->shared_bytes = static_cast<int>(bytes);
      return nullptr;
    }
  }
  if (squarer) return few_channels_plan(a, p, tma, false);
  return "conv.padded_channels' direct kernel: the filters and input tile exceed its shared "
         "memory (large filter, stride or dilation)";
}

// Tile `tile`'s origin, as grouped_tile gives it (W tiles fastest, then H tiles, depth, image),
// by the plan's divisors: a multiply and a shift each, where grouped_tile's three divisions by
// runtime values cost about twenty instructions each, every tile.
__device__ __forceinline__ GroupedTile few_tile(unsigned tile, const FewPlan& p) {
  GroupedTile t;
  uint32_t q = 0;
  t.ow0 = static_cast<int>(fast_divmod(tile, p.tiles_w, &q)) * p.tile.tw;
  t.oh0 = static_cast<int>(fast_divmod(q, p.tiles_h, &q)) * p.tile.th;
  t.od = static_cast<int>(fast_divmod(q, p.depth, &q));
  t.n = q;
  return t;
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

// kTmaX: the form that stages by TMA (p.tma_x), else by element loads. Two kernels, so that
// neither form's registers weigh on the other's MMA loop (one kernel with both spilled the A
// rows' addresses into it: small element-staged lines 3-16% slower, 2026-11-29-few-tma-h200.md).
template <class T, bool kHasBias, int kAct, bool kTmaX>
__global__ void __launch_bounds__(kFewThreads, kFewBlocksPerSm)
    conv_few_channels_kernel(BooConvArgs a, FewPlan p, const __grid_constant__ CUtensorMap x_map,
                             const __grid_constant__ CUtensorMap y_map) {
  extern __shared__ float4 shared4[];
  const GroupedPlan& tp = p.tile;
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.chunks));
  const int64_t tile_step = gridDim.x / p.chunks;
  const int64_t tiles = a.n * a.out[0] * tp.tiles_h * tp.tiles_w;
  const int pixels = tp.th * tp.tw;
  // Shared memory (few_channels_plan): from a 1024-byte boundary the filters, the input tile's
  // buffer(s), the output tile, the bias (fp32), the pair table, the input buffers' mbarriers.
  const uint32_t shared_at = shared_address(shared4);
  char* base = reinterpret_cast<char*>(shared4) + (1024 - shared_at % 1024) % 1024;
  T* filter = reinterpret_cast<T*>(base);
  T* xs = filter + p.w_elements;
  T* ys = reinterpret_cast<T*>(base + p.y_at);
  float* bias = reinterpret_cast<float*>(base + p.bias_at);
  int4* table = reinterpret_cast<int4*>(base + p.table_at);
  const uint32_t bars = shared_address(base + p.bar_at);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int c = static_cast<int>(a.c), fs = static_cast<int>(a.filter[2]);
  const int fr = static_cast<int>(a.filter[1]);
  const int real = fs * p.cs;  // real elements of a filter row's reduction (with the zero channel)
  const int k0 = chunk * p.kb;
  const bool tma_y = kTmaX && p.tma_y;  // (the plan stores by TMA only where it stages by TMA)
  const int kn = a.k - k0 < p.kb ? static_cast<int>(a.k - k0) : p.kb;  // this chunk's channels

  const uint32_t xs_at = shared_address(xs);
  const int64_t in_d = a.in[0], in_h = a.in[1], in_w = a.in[2];
  const int row_count = tp.id * tp.ih;
  // TMA: thread 0 copies a tile's boxes into buffer `buffer`, completing on its mbarrier (the
  // first element of box b is element e0 + b step of the tile's first input row; rows and planes
  // outside the image, and elements outside a row, read as zero).
  // The tile's origin (its first input column's first element, less the lead) lies `shift`
  // elements into the 16-byte vector `vector` (floor division: the origin is negative in the
  // padding), where its first box starts.
  const auto origin = [&](const GroupedTile& o, int* vector) {
    const int64_t e = (o.ow0 * a.stride[2] - a.pad[2]) * a.c - p.lead;
    const int64_t v = e >= 0 ? e / 8 : -((7 - e) / 8);
    *vector = static_cast<int>(v);
    return static_cast<int>(e - 8 * v);
  };
  const uint32_t box_bytes = 2u * static_cast<uint32_t>(p.boxes.box_elements);
  const auto fetch = [&](int64_t tile, int buffer) {
    const GroupedTile o = few_tile(static_cast<unsigned>(tile), p);
    int v0 = 0;
    origin(o, &v0);
    const int h0 = static_cast<int>(o.oh0 * a.stride[1] - a.pad[1]);
    const int d0 = static_cast<int>(o.od * a.stride[0] - a.pad[0]);
    const uint32_t bar = bars + 8 * buffer;
    mbarrier_expect_bytes(bar,
                          2u * static_cast<uint32_t>(p.boxes.boxes * p.boxes.e * tp.ih * tp.id));
    const uint32_t to = xs_at + 2u * static_cast<uint32_t>(buffer * p.x_elements);
#pragma unroll 1
    for (int box = 0; box < p.boxes.boxes; ++box) {
      tma_load_5d(to + box * box_bytes, &x_map, bar, v0 + box * (p.boxes.step / 8), h0, d0,
                  static_cast<int>(o.n));
    }
  };
  // The first tile's boxes go out before the set-up below, which they do not touch.
  if (kTmaX && threadIdx.x == 0) {
    mbarrier_init(bars, 1);
    mbarrier_init(bars + 8, 1);
    mbarrier_init_fence();
    if (blockIdx.x / p.chunks < tiles) fetch(blockIdx.x / p.chunks, 0);
  }

  // 1. Once per block: the filters (zero past each row's taps, the zero channel and the block's
  // channels), the bias and the pair table.
  constexpr bool kSetupVectors = BOO_FEW_WGMMA && BOO_FEW_SETUP_VECTORS;
  constexpr int kSetupBatch = BOO_FEW_SETUP_BATCH;
  if constexpr (kSetupVectors) {
    // wgmma's B: 16-byte vector v of reduction element k holds output channels 8 v .. 8 v + 7
    // (few_filter_wgmma_at). Lanes take consecutive k of one v, so each of a thread's 8 loads
    // reads consecutive weights of one output channel across the warp; kSetupBatch x 8 loads in
    // flight.
    const int per_k = p.rows * fs * c, ks = p.steps * 16;
    const T* __restrict__ wk = w + static_cast<int64_t>(k0) * per_k;
    for (int first = threadIdx.x; first < ks * 8; first += kSetupBatch * kFewThreads) {
      alignas(16) T v[kSetupBatch][8];
      int at[kSetupBatch];
#pragma unroll
      for (int h = 0; h < kSetupBatch; ++h) {
        const int u = first + h * kFewThreads, vec = u / ks, k = u - vec * ks;
        const int from = u < ks * 8 ? few_filter_from(k, p.lp, p.lead, p.rows, fs, p.cs, c) : -1;
        at[h] = u < ks * 8 ? few_filter_wgmma_at(8 * vec, k) : -1;
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          const int n = 8 * vec + e;
          v[h][e] = from >= 0 && n < kn ? wk[static_cast<int64_t>(n) * per_k + from]
                                        : from_float<T>(0.0f);
        }
      }
#pragma unroll
      for (int h = 0; h < kSetupBatch; ++h) {
        if (at[h] >= 0) *reinterpret_cast<uint4*>(filter + at[h]) = *reinterpret_cast<uint4*>(v[h]);
      }
    }
  } else {
    // Element by element: zeros first, then the chunk's weights, read in order, eight loads in
    // flight a thread.
    for (int i = threadIdx.x; i < p.w_elements / 8; i += kFewThreads) {
      reinterpret_cast<uint4*>(filter)[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
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
        const int k = row * p.lp + p.lead + s * p.cs + (j - s * c);
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
  // only the elements of the row's taps: the leading element (lead) and the one past the taps
  // belong to the neighbouring points, their filter elements are zero, and a non-finite value
  // there must not leak in. Pairs past the reduction read offset 0 under a zero mask.
  const int dz = static_cast<int>(a.dilation[0]), dy = static_cast<int>(a.dilation[1]);
  for (int i = threadIdx.x; i < 8 * p.steps; i += kFewThreads) {
    const int step = i / 8, half = i % 8 / 4, t = i % 4;
    const int q = 8 * step + 4 * half + t, k = 2 * q;
    int off = 0, mask = 0;
    if (k < p.rows * p.lp) {
      const int row = k / p.lp, j = k % p.lp, z = row / fr, r = row % fr;
      off = (z * dz * tp.ih + r * dy) * p.row_len + j;
      const bool low = j >= p.lead && j < p.lead + real;
      const bool high = j + 1 >= p.lead && j + 1 < p.lead + real;
      mask = (low ? 0xffff : 0) | (high ? static_cast<int>(0xffff0000u) : 0);
    }
    int* e = reinterpret_cast<int*>(&table[4 * step + t]);
    e[2 * half] = 2 * off;  // bytes
    e[2 * half + 1] = mask;
  }

  // This lane's A rows: pixels 32 warp + 16 m + g (+ 8), as byte offsets of their first
  // staged element from the buffer's start (past the tile: pixel 0, computed and dropped). B's
  // ldmatrix row: filter row (output channel) 8 (lane / 16) + lane % 8, k-half lane / 8 % 2.
  const int g = lane / 4, t = lane % 4;
  // The tile pixel of this lane's row h (0: g, 1: g + 8) of m-tile m.
  const auto row_pixel = [&](int m, int h) { return (warp * kFewMTiles + m) * 16 + g + 8 * h; };
  const int st_h = static_cast<int>(a.stride[1]), st_w = static_cast<int>(a.stride[2]);
  // In buffer 0 at shift 0 (TMA: moved to the tile's buffer and shift, `placed` bytes).
  uint32_t a_at[kFewMTiles][2];
#pragma unroll
  for (int m = 0; m < kFewMTiles; ++m) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int pixel = row_pixel(m, h);
      const int py = pixel < pixels ? pixel / tp.tw : 0, px = pixel < pixels ? pixel % tp.tw : 0;
      a_at[m][h] = xs_at + 2 * (kTmaX ? few_box_pixel(p.boxes, py, px, st_h, st_w, c)
                                      : py * st_h * p.row_len + px * st_w * p.cs);
    }
  }
  uint32_t placed = 0;
  const uint32_t b_at =
      shared_address(filter + few_filter_at(8 * (lane / 16) + lane % 8, (lane / 8 % 2) * 8));
  const int n_pairs = (kn + 15) / 16;  // ldmatrix.x4 per step: two n-tiles each
  const int y_vectors = kn / 8, y_step = kFewThreads / y_vectors;
  const int y_v = threadIdx.x % y_vectors, y_first = threadIdx.x / y_vectors;
  // (wgmma: a warpgroup computes where any of its warps has pixels; the others' rows are pixel
  // 0's, dropped.)
  const bool computes = (BOO_FEW_WGMMA ? warp / 4 * 4 : warp) * kFewMTiles * 16 < pixels;
  const uint64_t w_desc = wgmma_desc_sw128(shared_address(filter));

  // TMA: the filters, bias, tables and mbarriers are in before the first wait. (Element
  // staging's first barrier covers them: its loads go out under the filters' set-up.)
  if constexpr (kTmaX) __syncthreads();

  // The epilogue's rows: this lane's first pair (channels 2t, 2t + 1) of pixel rows
  // 32 warp + 16 m + g (+ 8), as shared addresses.
  uint32_t y_at[kFewMTiles][2];
#pragma unroll
  for (int m = 0; m < kFewMTiles; ++m) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int pixel = row_pixel(m, h);
      y_at[m][h] = shared_address(ys) + 2 * pixel * (tma_y ? kFewBlockChannels : p.y_row) + 4 * t;
    }
  }
  int it = 0;
  for (int64_t tile = blockIdx.x / p.chunks; tile < tiles; tile += tile_step, ++it) {
    const GroupedTile o = few_tile(static_cast<unsigned>(tile), p);
    // 2. The input tile: TMA boxes (the next tile's into the other buffer, which the last
    // tile's MMA has finished reading), or element loads.
    const int buffer = kTmaX ? (it & 1) : 0;
    if constexpr (kTmaX) {
      int vector = 0;
      const uint32_t place = 2u * static_cast<uint32_t>(buffer * p.x_elements + origin(o, &vector));
#pragma unroll
      for (int m = 0; m < kFewMTiles; ++m) {
        a_at[m][0] += place - placed;
        a_at[m][1] += place - placed;
      }
      placed = place;
      if (threadIdx.x == 0 && tile + tile_step < tiles) fetch(tile + tile_step, buffer ^ 1);
      mbarrier_wait(bars + 8 * buffer, static_cast<uint32_t>(it >> 1) & 1u);
    } else {
      // Warp w stages rows w, w + 8, ...: up to kFewStageBatch loads in flight a lane, then
      // their stores; elements e = column x cs + channel.
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
        const int64_t base_e = ((o.n * in_d + d) * in_h + h) * in_w * c + w0 * c;
        for (int e0 = lane; e0 < p.row_len; e0 += 32 * kFewStageBatch) {
          T v[kFewStageBatch];
#pragma unroll
          for (int u = 0; u < kFewStageBatch; ++u) {
            const int e = e0 + 32 * u;
            v[u] = from_float<T>(0.0f);
            if (p.cs == c) {
              if (inside && e >= e_lo && e < e_hi) v[u] = x[base_e + e];
            } else if (inside && e < p.row_len) {
              const int col = e / p.cs, ch = e - col * p.cs;
              if (ch < c && col >= lo && col < hi) v[u] = x[base_e + col * c + ch];
            }
          }
#pragma unroll
          for (int u = 0; u < kFewStageBatch; ++u) {
            if (e0 + 32 * u < p.row_len) dst[e0 + 32 * u] = v[u];
          }
        }
      }
      __syncthreads();  // the input tile is in
    }
    // 3. The GEMM: per step, the A words of both m-tiles, then the filter fragments.
    float acc[kFewMTiles][8][4];
    if (computes) {
#pragma unroll
      for (int m = 0; m < kFewMTiles; ++m) {
#pragma unroll
        for (int n = 0; n < 8; ++n) acc[m][n][0] = acc[m][n][1] = acc[m][n][2] = acc[m][n][3] = 0;
      }
      // This lane's A words of a step, both m-tiles. (The next step's table entry loaded a step
      // ahead measured 3-5% slower on the stems: bench/results/2026-12-01-few-setup-h200.md.)
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
    }
    // The output tile is free once the last tile's stores have read it (TMA: thread 0 waits
    // for its bulk store; the barrier tells everyone). Without TMA, the staging's barrier did.
    if (tma_y && threadIdx.x == 0) tma_store_wait_read<0>();
    if (kTmaX) __syncthreads();
    // 4. acc[m][n]: pixels 32 warp + 16 m + g (+ 8), output channels 8 n + 2t and + 1: bias,
    // activation, into the output tile (TMA: 128-byte rows, 16-byte vector v at v ^ (pixel % 8)),
    // each pair one st.shared predicated on the pixel, at the row's address (kept in registers:
    // opaque to ptxas, which otherwise rebuilds it for every store) plus the n-tile's bytes.
    if (computes) {
#pragma unroll
      for (int m = 0; m < kFewMTiles; ++m) {
        asm volatile("" : "+r"(y_at[m][0]), "+r"(y_at[m][1]));
#pragma unroll
        for (int n = 0; n < 8; ++n) {
          if (8 * n >= kn) break;
          const int col = 8 * n + 2 * t;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int pixel = row_pixel(m, h);
            const float v0 = activate<kAct>(acc[m][n][2 * h] + (kHasBias ? bias[col] : 0.0f));
            const float v1 =
                activate<kAct>(acc[m][n][2 * h + 1] + (kHasBias ? bias[col + 1] : 0.0f));
            const uint32_t at = y_at[m][h] + (tma_y ? (16 * n) ^ (16 * g) : 16 * n);
            sts32_if(at, pack_pair<T>(v0, v1), pixel < pixels);
          }
        }
      }
    }
    if (tma_y) fence_proxy_async_shared();  // the tile's stores, visible to the TMA store
    __syncthreads();                        // the output tile is complete; the input tile is free
    // 5. The output tile out: one TMA box (channels past K and pixels past the image are not
    // written), or in 16-byte vectors: this thread's vector y_v of pixels y_first, + y_step, ...
    // (threads past y_step x vectors store nothing).
    if (tma_y) {
      if (threadIdx.x == 0) {
        tma_store_4d(&y_map, shared_address(ys), k0, o.ow0, o.oh0,
                     static_cast<int>(o.n * a.out[0] + o.od));
      }
    } else if (y_first < y_step) {
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
  // (The block's shared memory stays until its last store has read it.)
  if (tma_y && threadIdx.x == 0) tma_store_wait<0>();
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

  // x as rows of W C elements in 16-byte vectors (5D: 8 elements, W C / 8 vectors, H, D,
  // images; boxes of 8 x E / 8 x ih x id, unswizzled) and y channels-last (boxes of 64 channels
  // x tw x th, 128-byte swizzled), as the plan uses them.
  static bool maps(const BooConvArgs& a, const FewPlan& p, CUtensorMap* x_map, CUtensorMap* y_map) {
    const uint64_t row = static_cast<uint64_t>(a.in[2] * a.c);
    const uint64_t h = static_cast<uint64_t>(a.in[1]), d = static_cast<uint64_t>(a.in[0]);
    const uint64_t dims[5] = {8, row / 8, h, d, static_cast<uint64_t>(a.n)};
    const uint64_t strides[4] = {16, 2 * row, 2 * row * h, 2 * row * h * d};
    const uint32_t box[5] = {8, static_cast<uint32_t>(p.boxes.e / 8),
                             static_cast<uint32_t>(p.tile.ih), static_cast<uint32_t>(p.tile.id), 1};
    return (!p.tma_x || tma_map<5>(x_map, a.x, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE)) &&
           (!p.tma_y || tma_map_channels_last(y_map, a.y, a.n, a.out, a.k, p.tile.tw, p.tile.th));
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
    CUtensorMap x_map{}, y_map{};
    if ((plan.tma_x || plan.tma_y) && !maps(a, plan, &x_map, &y_map)) {
      // (No tensor-map encoder in this driver: the element loads and vector stores.)
      if (const int32_t v = reject_verdict(few_channels_plan(a, &plan, false), why, len);
          v != BOO_OK) {
        return v;
      }
    }
    const int64_t work =
        a.n * a.out[0] * plan.tile.tiles_h * plan.tile.tiles_w * static_cast<int64_t>(plan.chunks);
    return launch_tile_wave(plan.tma_x ? conv_few_channels_kernel<T, kHasBias, kAct, true>
                                       : conv_few_channels_kernel<T, kHasBias, kAct, false>,
                            kFewThreads, plan.shared_bytes, work, plan.chunks, a.sm_count, stream,
                            why, len, a, plan, x_map, y_map);
  }
};

}  // namespace boo_kernels
