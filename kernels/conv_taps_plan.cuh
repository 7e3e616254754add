// The tile plan of conv.sm90_taps (kernels/conv_taps_wgmma.cuh), in plain C++ so that the
// kernel, dispatch's model (src/dispatch/conv_direct_models.cc) and host unit tests
// (tests/unit/jit/conv_taps_plan_test.cc) share it.
//
// A tile is th output rows of one plane, staged with the rows and columns its taps reach
// (pitch = tw + reach_w pixels a row): th x pitch output positions, wgmma's N (n, rounded up to
// 8, 64 to 256), of which th x tw are kept. The plan takes, over every n, the tiles whose busiest
// block's work is least: tiles a block x (n + kTapsTileCost). (Positions past tw or th are
// computed and thrown away: whole rows of 56 take 4 x 58 = 232 positions, where the kernel's
// first form computed 256 for them; rows of 224 took 2 pieces of 114 in 256 each.)
#pragma once

#include <cstdint>

#include "host_device.cuh"
#include "split_slices.cuh"

namespace boo_kernels {

constexpr int kTapsChannels = 64;      // C, and the output channels a block keeps
constexpr int kTapsMinPositions = 64;  // the narrowest tile (wgmma's N)
constexpr int kTapsMaxPositions = 256;
constexpr int kTapsMaxTaps = 9;
// Stages of the ring, at most (as many as fit, at least 2); BOO_TAPS_MAX_STAGES=n, for measuring.
#ifndef BOO_TAPS_MAX_STAGES
#define BOO_TAPS_MAX_STAGES 3
#endif
constexpr int kTapsMaxStages = BOO_TAPS_MAX_STAGES;
constexpr int kTapsMaxShared = 227 * 1024;
constexpr int kTapsTapBytes = kTapsChannels * kTapsChannels * 2;  // a tap's filter (8 KB)
constexpr int kTapsMaxBox = 256;  // a TMA box's extent in any dimension
// A tile's cost beyond its mma, in output positions of mma (its barriers and descriptors; the
// epilogue goes as n and runs under the other warpgroup's mma).
constexpr int kTapsTileCost = 32;
// BOO_TAPS_N=n (through BOO_NVCC_FLAGS) plans as the kernel's first form did, for measuring:
// budgets of n, n - 32, ... until two stages fit, every tile n positions (256: the first form).
#ifndef BOO_TAPS_N
#define BOO_TAPS_N 0
#endif

struct TapsPlan {
  int n;              // positions a tile computes (wgmma's N)
  int th, tw, pitch;  // a tile: output rows, output columns, staged pixels a row
  int x_rows;         // staged input rows (th + reach_h)
  int box_w;          // the output box's width: pitch (tiles_w = 1) or tw (th = 1)
  int tiles_w, tiles_h;
  int64_t tiles;  // planes (n x D) x tiles_h x tiles_w
  int taps;
  int stage_bytes;  // the box (128 bytes a pixel) or the output, whichever is larger
  int stages;
  int k_chunks;    // of 64 output channels
  int slices;      // blocks per chunk (all_chunks: blocks)
  int all_chunks;  // 1: every block computes every chunk of K for each staged tile
  int out_ring;    // all_chunks: output buffers a warpgroup (2: a ring, every chunk through it)
  int shared_bytes;
  int turned;  // 1: the filter is turned around by the kernel launched just before this one
};

// Whether a filter (`dims` extents with their strides and paddings) maps pixel i of x to pixel i
// of y (1x1, stride 1, no padding), so that its `pixels` run as one row of one image: tiles of
// 256 positions however small the planes are (7 x 7 rows would stage 36 rows of 7). Not past a
// 32-bit coordinate. The kernel's view (taps_pointwise_view) and dispatch's model both ask it.
inline bool taps_one_row(const int64_t* filter, const int64_t* stride, const int64_t* pad, int dims,
                         int64_t pixels) {
  for (int i = 0; i < dims; ++i) {
    if (filter[i] != 1 || stride[i] != 1 || pad[i] != 0) return false;
  }
  return pixels < (int64_t{1} << 31);
}

// Where a 1x1 layer's K takes 2 to kTapsAllChunks chunks, every block computes them all for each
// staged tile (TapsPlan::all_chunks): its filter holds every chunk (a slot of 8 KB each), and
// output buffers of the warpgroups' take the chunks' outputs (TapsPlan::out_ring, below). Each
// input tile is read once and each pixel's output channels are stored together. (With a chunk a
// block, the chunks' blocks read each tile again and store a pixel's channels in pieces: n64 c24
// 56x56 -> k144 at 0.79x cuDNN; weighting the chunks' blocks apart made it 1.20x slower,
// 2026-12-03-taps-split.) BOO_TAPS_ALL_CHUNKS=0 (through BOO_NVCC_FLAGS) keeps a chunk a block, for
// measuring.
#ifndef BOO_TAPS_ALL_CHUNKS
#define BOO_TAPS_ALL_CHUNKS 1
#endif
constexpr int kTapsAllChunks = 4;

// What TapsPlan::all_chunks changes, for the plan, the kernel and dispatch's model alike: the
// filter's 8 KB slots (one a tap, or one a chunk of K), the chunks a block computes from each
// staged tile, and the blocks a slice of the tiles takes (one a chunk, or one).
BOO_HD inline int taps_filter_slots(const TapsPlan& p) {
  return p.all_chunks ? p.k_chunks : p.taps;
}
BOO_HD inline int taps_tile_chunks(const TapsPlan& p) { return p.all_chunks ? p.k_chunks : 1; }
BOO_HD inline int taps_slice_blocks(const TapsPlan& p) { return p.all_chunks ? 1 : p.k_chunks; }

// Every chunk in each block: each warpgroup stores its chunks' outputs through a ring of two
// buffers where that leaves as many stages as one buffer would (TapsPlan::out_ring): a chunk's
// store reads its buffer while the next chunk's mma and epilogue run (the leader waits only for
// the store two chunks back), and the stage goes back to the producer once the last chunk's mma
// has read it. Otherwise one buffer a warpgroup: each chunk's epilogue waits for its store to read
// the buffer, the last chunk's output goes over the stage, and the stage is released after that
// store. H200, 2026-12-03 (bench/results/2026-12-03-taps-ring-h200.md): the ring 1.05x and 1.06x
// faster on n64 c40 28x28 -> k240 and n64 c32 28x28 -> k128 +bias +relu (3 stages either way);
// where it cost a stage (n = 256), 2-chunk layers 0.97-0.98x, 4-chunk layers with C = 64
// 0.99x, 3-chunk layers 1.03x. BOO_TAPS_OUT_RING=0 (through BOO_NVCC_FLAGS) keeps one buffer a
// warpgroup, =2 takes the ring wherever two stages fit (for measuring).
#ifndef BOO_TAPS_OUT_RING
#define BOO_TAPS_OUT_RING 1
#endif
// The output buffers of a block (both warpgroups'), of n positions x 128 bytes each.
BOO_HD inline int taps_out_buffers(const TapsPlan& p) { return 2 * p.out_ring; }

// The tiles of at most `budget` positions over an output of out_h x out_w: whole rows where one
// fits (as many as the budget holds, spread evenly over the height), else one row cut into
// pieces; with their stages (as many as fit, at least 2) and shared memory. False where two
// stages do not fit beside the filter.
// n_forced: the positions a tile computes (0: th x pitch, rounded up to 8). The filter's slots
// and output buffers follow p's all_chunks, k_chunks and taps (taps_filter_slots).
inline bool taps_tiles(int budget, int n_forced, int64_t out_h, int64_t out_w, int64_t reach_h,
                       int64_t reach_w, int taps, TapsPlan* p) {
  if (budget < reach_w + 1) return false;
  if (out_w + reach_w <= budget) {
    p->tiles_w = 1;
    p->tw = static_cast<int>(out_w);
    p->pitch = static_cast<int>(out_w + reach_w);
    // (Staged rows are a TMA box's extent: at most 256.)
    int64_t rows = budget / p->pitch < out_h ? budget / p->pitch : out_h;
    rows = rows < kTapsMaxBox - reach_h ? rows : kTapsMaxBox - reach_h;
    p->tiles_h = static_cast<int>(plan_ceil(out_h, rows));
    p->th = static_cast<int>(plan_ceil(out_h, p->tiles_h));
    p->box_w = p->pitch;
  } else {
    p->tiles_w = static_cast<int>(plan_ceil(out_w, budget - reach_w));
    p->tw = static_cast<int>(plan_ceil(out_w, p->tiles_w));
    p->pitch = static_cast<int>(p->tw + reach_w);
    p->tiles_h = static_cast<int>(out_h);
    p->th = 1;
    p->box_w = p->tw;
  }
  const int64_t n = plan_ceil(static_cast<int64_t>(p->th) * p->pitch, 8) * 8;
  p->n = n_forced != 0 ? n_forced : static_cast<int>(n < kTapsMinPositions ? kTapsMinPositions : n);
  p->x_rows = static_cast<int>(p->th + reach_h);
  const int x_bytes = (p->x_rows * p->pitch * 128 + 1023) / 1024 * 1024;
  const int out_bytes = p->n * 128;
  p->stage_bytes = x_bytes > out_bytes ? x_bytes : out_bytes;
  // The thrown-away positions' operands reach past the last stage: slack for them (reads).
  const int64_t reach_bytes = (p->n + reach_h * p->pitch + reach_w) * 128;
  const int slack =
      reach_bytes > p->stage_bytes ? static_cast<int>(reach_bytes - p->stage_bytes) : 0;
  p->taps = taps;
  // Up to 1 KB to align to the swizzle pattern, the filter and `ring` output buffers a warpgroup,
  // the stages and the slack, two mbarriers a stage: the bytes with as many stages as fit (at most
  // kTapsMaxStages), or 0 where two do not.
  const auto fit = [&](int ring, int* stages) {
    const int fixed = 1024 + taps_filter_slots(*p) * kTapsTapBytes + 2 * ring * out_bytes + slack;
    for (*stages = kTapsMaxStages; *stages >= 2; --*stages) {
      const int bytes = fixed + *stages * (p->stage_bytes + 16);
      if (bytes <= kTapsMaxShared) return bytes;
    }
    return 0;
  };
  int stages = 0, ring_stages = 0;
  const int one = fit(p->all_chunks ? 1 : 0, &stages);
  if (one == 0) return false;
  const int ring = p->all_chunks && BOO_TAPS_OUT_RING ? fit(2, &ring_stages) : 0;
  const bool take_ring = ring != 0 && (ring_stages >= stages || BOO_TAPS_OUT_RING == 2);
  p->out_ring = take_ring ? 2 : p->all_chunks ? 1 : 0;
  p->stages = take_ring ? ring_stages : stages;
  p->shared_bytes = take_ring ? ring : one;
  return true;
}

// The plan for an output of planes x out_h x out_w positions, a filter of fh x fw taps reaching
// reach_h rows and reach_w columns, k_chunks chunks of 64 output channels and `blocks` blocks (one
// an SM); or why the kernel does not take it.
inline const char* taps_tile_plan(int64_t planes, int64_t out_h, int64_t out_w, int fh, int fw,
                                  int64_t reach_h, int64_t reach_w, int k_chunks, int64_t blocks,
                                  TapsPlan* out) {
  if (fh * fw > kTapsMaxTaps) return "conv.sm90_taps takes filters of at most 9 taps";
  if (reach_w + 16 > 128 || reach_h + 1 > 256) {
    return "conv.sm90_taps: the dilated filter reaches too far";
  }
  int64_t best = -1;
  const int step = BOO_TAPS_N != 0 ? 32 : 8;
  for (int budget = BOO_TAPS_N != 0 ? BOO_TAPS_N : kTapsMaxPositions; budget >= kTapsMinPositions;
       budget -= step) {
    TapsPlan p{};
    p.taps = fh * fw;
    p.k_chunks = k_chunks;
    p.all_chunks =
        BOO_TAPS_ALL_CHUNKS && p.taps == 1 && k_chunks >= 2 && k_chunks <= kTapsAllChunks;
    if (!taps_tiles(budget, BOO_TAPS_N, out_h, out_w, reach_h, reach_w, p.taps, &p)) continue;
    p.tiles = planes * p.tiles_h * p.tiles_w;
    p.slices = slices_per_chunk(blocks, taps_slice_blocks(p), p.tiles);
    const int64_t cost = plan_ceil(p.tiles, p.slices) * taps_tile_chunks(p) * (p.n + kTapsTileCost);
    if (best < 0 || cost < best) best = cost, *out = p;
    if (BOO_TAPS_N != 0) break;
  }
  if (best < 0) return "conv.sm90_taps: a tile exceeds its shared memory";
  if (out->tiles >= (int64_t{1} << 31) || planes >= (int64_t{1} << 31)) {
    return "conv.sm90_taps takes fewer than 2^31 tiles";
  }
  return nullptr;
}

}  // namespace boo_kernels
