// conv.grouped's plans, in plain C++ so that host unit tests replay them
// (tests/unit/jit/conv_grouped_plan_test.cc): the cp.async kernel's groups and pixel tiles
// (grouped_plan; kernels/conv_grouped_mma.cuh, conv_grouped_direct.cuh) and the TMA kernel's
// re-tiling, stages and shared memory (grouped_tma_plan; kernels/conv_grouped_tma.cuh).
// conv.split_wgrad's and conv.padded_channels' direct kernels tile their pixels with the same
// grouped_tile_shape.
#pragma once

#include <cstdint>

// BooConvArgs: the C ABI (include/boo/codegen/abi.h; codegen inlines it, host targets that include
// this header have include/boo/codegen on their path).
#include "abi.h"

namespace boo_kernels {

// Output pixels of a tile, at most (8 m-tiles); BOO_GROUPED_TILE_PIXELS (a multiple of 16, at
// most 128) is for measuring.
#ifndef BOO_GROUPED_TILE_PIXELS
#define BOO_GROUPED_TILE_PIXELS 128
#endif
constexpr int kGroupedTilePixels = BOO_GROUPED_TILE_PIXELS;
constexpr int kGroupedMTiles = kGroupedTilePixels / 16;
constexpr int kGroupedBlockChannels = 64;  // channels of x and of y per block, at most
constexpr int kGroupedMaxGroupChannels = 32;
constexpr int kGroupedMaxShared = 100 * 1024;

// BOO_NVCC_FLAGS=-DBOO_GROUPED_TMA=0 turns the kernel off (the cp.async kernel runs everything).
#ifndef BOO_GROUPED_TMA
#define BOO_GROUPED_TMA 1
#endif
// -DBOO_GROUPED_TMA_HALF2=0 (measuring) leaves out the plan of 64-pixel tiles with two stages, two
// blocks an SM, that grouped_tma_plan tries before 64-pixel tiles with three stages, one block.
#ifndef BOO_GROUPED_TMA_HALF2
#define BOO_GROUPED_TMA_HALF2 1
#endif
// -DBOO_GROUPED_TMA_PHASES=0 (measuring) stages stride-2 rows whole, as stride-1 ones, instead of
// in two phases (grouped_tma_plan).
#ifndef BOO_GROUPED_TMA_PHASES
#define BOO_GROUPED_TMA_PHASES 1
#endif
// -DBOO_GROUPED_TMA_ONE_OUT=0 (measuring) leaves out the plan of 64-pixel tiles with two stages
// and one output tile, two blocks an SM, that grouped_tma_plan tries where two output tiles do
// not let two blocks fit.
#ifndef BOO_GROUPED_TMA_ONE_OUT
#define BOO_GROUPED_TMA_ONE_OUT 1
#endif
constexpr int kGroupedTmaChannels = 64;  // output channels of a block: a 128-byte row a pixel
constexpr int kGroupedTmaMaxStages = 3;
constexpr int kGroupedTmaMaxShared = 227 * 1024;
constexpr int kGroupedTmaTwoBlocks = 113 * 1024;  // two blocks an SM (1 KB each for the driver)

// The block's geometry, planned on the host (grouped_plan).
struct GroupedPlan {
  int th, tw;               // output tile (rows, columns)
  int id, ih, iw;           // input tile: the points the tile's taps reach
  int tiles_h, tiles_w;     // tiles per output plane
  int gb, chunks;           // groups per block; G / gb
  int q;                    // 8-channel chunks of one output channel's filter: taps x C/G / 8
  int x_row, w_row, y_row;  // shared-memory row lengths (elements): input point, filter, output
  int shared_bytes;
  // The input tile's columns: sw points between adjacent output columns' first inputs (the
  // stride), or, where the TMA kernel stages a stride-2 row in phases (even columns, then odd
  // ones: GroupedTmaPlan), 1, with iw the points of one phase and phase_points the points
  // (iw x ih x images, rounded up to 8) from one phase's first to the next's.
  int sw, phases, phase_points;
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
  p->sw = static_cast<int>(a.stride[2]);
  p->phases = 1;
  p->phase_points = 0;
  return p->id < 2048 && p->ih < 1024 && p->iw < 1024;
}

// A block's filter rows: q 8-channel chunks of one output channel's taps x C/G, each row padded
// as grouped_row pads.
inline void grouped_filter_rows(const BooConvArgs& a, GroupedPlan* p) {
  const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
  p->q = static_cast<int>(taps * (a.c / a.groups) / 8);
  p->w_row = grouped_row(p->q * 8);
}

// The cp.async kernel's plan for `a`, or why it does not take it.
inline const char* grouped_plan(const BooConvArgs& a, GroupedPlan* p) {
  const int cg = static_cast<int>(a.c / a.groups), kg = static_cast<int>(a.k / a.groups);
  if (!grouped_tile_shape(a, kGroupedTilePixels, p)) {
    return "conv.grouped's direct kernel: its input tile spans 1024 rows or columns or more "
           "(large stride or dilation)";
  }
  grouped_filter_rows(a, p);
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

// Shared memory, from a 1024-byte boundary: the output tiles (out_tiles of out_bytes each), the
// input stages (stage_bytes each), the stages' mbarriers, then what grouped_block_setup fills: the
// zero row, the bias, the reduction's offsets and the filters.
struct GroupedTmaPlan {
  int stages;       // input stages: 2, or 3 on 64-pixel tiles
  int out_tiles;    // output tiles: 2 (a tile's store reads one while the next tile writes the
                    // other), or 1 (the next tile's epilogue waits for the store's read)
  int images;       // images a tile spans: 1, or where one tile holds a whole plane, as many
                    // planes as fit the tile's pixels
  int64_t tiles;    // tiles of the problem
  int box_bytes;    // a tile's input: x_row x iw x ih x images elements, a box each phase
  int stage_bytes;  // its stage: the phases phase_points apart, rounded up to 1024 bytes
  int out_bytes;    // one output tile (128 bytes a pixel) rounded up to 1024
  int shared_bytes;
};

inline int grouped_round_1024(int64_t bytes) {
  return static_cast<int>((bytes + 1023) / 1024 * 1024);
}

// The TMA kernel's plan for `a`: its tiling `p` (64 output channels' groups a block, its own
// pixel tiles) and `t`, or why it does not apply. Tiles of 128 pixels with two stages where two
// blocks fit an SM; else (strided layers' wide input boxes) 64 pixels with two stages where two
// blocks fit, with two output tiles or else one; else with three stages, one block an SM; else
// 128 pixels, one block an SM.
// - ResNeXt's stride-2 n64 c256 56x56 G = 32 layer, H100: 58.3 us on 64-pixel tiles with three
//   stages, 73-75 us on 32-pixel tiles with three stages, two blocks an SM
//   (bench/results/2026-11-27-conv-grouped-tma-h100.md).
// - H200, 64-pixel tiles of two stages and two blocks an SM against three stages and one block:
//   that layer 52.4 -> 49.3 us, n64 c512 28x28 stride 2 40.9 -> 33.1
//   (bench/results/2026-11-30-kernel-times-h200.md).
inline const char* grouped_tma_plan(const BooConvArgs& a, GroupedPlan* p, GroupedTmaPlan* t) {
  if (!BOO_GROUPED_TMA) return "conv.grouped's TMA kernel is off (BOO_GROUPED_TMA=0)";
  if (a.in[0] != 1 || a.out[0] != 1 || a.filter[0] != 1) {
    return "conv.grouped's TMA kernel takes 1D and 2D layers";
  }
  // 64 output channels a block: its groups, whatever the cp.async kernel's plan takes (it keeps
  // the groups' input tiles twice in 100 KB, and gives wide boxes fewer groups; where its tiles
  // do not fit at all, this plan may still).
  const int64_t cg = a.c / a.groups, kg = a.k / a.groups;
  if (kg < cg || kGroupedTmaChannels % kg != 0 || a.groups % (kGroupedTmaChannels / kg) != 0) {
    return "conv.grouped's TMA kernel needs 64 output channels a block (K/G >= C/G)";
  }
  GroupedPlan groups{};
  grouped_filter_rows(a, &groups);
  groups.gb = static_cast<int>(kGroupedTmaChannels / kg);
  groups.chunks = static_cast<int>(a.groups / groups.gb);
  groups.x_row = grouped_row(static_cast<int>(groups.gb * cg));
  groups.y_row = grouped_row(static_cast<int>(groups.gb * kg));
  struct Option {
    int pixels, stages, out_tiles, most_bytes;
  };
  const Option options[] = {{kGroupedTilePixels, 2, 2, kGroupedTmaTwoBlocks},
                            {kGroupedTilePixels / 2, 2, 2, kGroupedTmaTwoBlocks},
                            {kGroupedTilePixels / 2, 2, 1, kGroupedTmaTwoBlocks},
                            {kGroupedTilePixels / 2, 3, 2, kGroupedTmaMaxShared},
                            {kGroupedTilePixels, 2, 2, kGroupedTmaMaxShared}};
  // A row of stride 2 staged whole puts a tile's adjacent pixels two points apart: the eight
  // rows of an ldmatrix fall in four of the eight 16-byte bank groups (ncu: 42% of the shared
  // loads' wavefronts were conflicts on a stride-2 G = 32 layer). Staged as two boxes, its even
  // points and its odd ones (TMA element strides), adjacent pixels' taps are adjacent points.
  // Both phases' boxes are as wide as the even one, so the input may take a little more room:
  // where that costs an option its fit, the whole rows are tried before the next option.
  const bool phasable =
      BOO_GROUPED_TMA_PHASES && a.stride[2] == 2 && a.filter[2] >= 2 && a.dilation[2] % 2 == 1;
  for (const Option& o : options) {
    if (!BOO_GROUPED_TMA_HALF2 && &o == &options[1]) continue;
    if (!BOO_GROUPED_TMA_ONE_OUT && &o == &options[2]) continue;
    for (int tried = 0; tried < 2; ++tried) {
      const bool phased = tried == 0;
      if (phased && !phasable) continue;
      *p = groups;
      if (!grouped_tile_shape(a, o.pixels, p)) continue;
      if (phased) {
        p->phases = 2;
        p->sw = 1;
        p->iw = p->tw + static_cast<int>((a.filter[2] - 1) * a.dilation[2] / 2);
      }
      if (p->x_row > 256 || p->iw * p->phases > 256 || p->ih > 256 || p->tw > 256 || p->th > 256) {
        continue;
      }
      const int plane = p->th * p->tw;
      t->stages = o.stages;
      t->out_tiles = o.out_tiles;
      t->images = 1;
      if (p->tiles_h == 1 && p->tiles_w == 1) {
        const int64_t fit = o.pixels / plane;
        t->images = static_cast<int>(fit < a.n ? fit : a.n);
      }
      t->tiles = (a.n + t->images - 1) / t->images * p->tiles_h * p->tiles_w;
      const int64_t points = static_cast<int64_t>(p->iw) * p->ih * t->images;
      // (A phase's box starts on 128 bytes: rows of an odd number of 16-byte units, 8 points.)
      if (phased) p->phase_points = static_cast<int>((points + 7) / 8 * 8);
      const int64_t box = 2LL * p->x_row * points * p->phases;
      const int64_t staged = phased ? 2LL * p->x_row * p->phase_points * p->phases : box;
      const int kb = kGroupedTmaChannels;
      const int64_t tables = 16LL * ((8 * kGroupedTmaMaxStages + 15) / 16) + 16 +
                             16 * ((kb + 3) / 4) + 16 * ((p->q + 1 + 3) / 4) + 2LL * kb * p->w_row;
      t->box_bytes = static_cast<int>(box);
      t->stage_bytes = grouped_round_1024(staged);
      t->out_bytes = grouped_round_1024(128LL * plane * t->images);
      const int64_t bytes = 1024 + static_cast<int64_t>(t->out_tiles) * t->out_bytes +
                            static_cast<int64_t>(t->stages) * t->stage_bytes + tables;
      if (box < (1 << 20) && bytes <= o.most_bytes) {
        t->shared_bytes = p->shared_bytes = static_cast<int>(bytes);
        return nullptr;
      }
    }
  }
  return "conv.grouped's TMA kernel: its tiles exceed shared memory or a box side is over 256";
}

// The plan of the kernel conv.grouped's runner launches for `a`: the TMA kernel's where
// grouped_tma_plan takes it (tma->tiles > 0), else the cp.async kernel's (tma->tiles == 0), or
// the cp.async plan's reason where neither fits. Dispatch asks the same (conv_direct_models.cc).
inline const char* grouped_direct_plan(const BooConvArgs& a, GroupedPlan* plan,
                                       GroupedTmaPlan* tma) {
  if (grouped_tma_plan(a, plan, tma) == nullptr) return nullptr;
  *tma = GroupedTmaPlan{};
  return grouped_plan(a, plan);
}

}  // namespace boo_kernels
