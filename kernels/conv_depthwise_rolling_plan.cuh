// The plan of conv.depthwise's rolling kernel (kernels/conv_depthwise_rolling.cuh), in plain C++
// so that dispatch's model and host unit tests (tests/unit/jit/conv_depthwise_rolling_plan_test.cc)
// share it: channel vectors a block, (image, segment, strip) items a block, and the segments of
// output rows each thread walks.
#pragma once

#include <cstdint>

namespace boo_kernels {

// Blocks an SM the kernel's registers are capped for: 3 (80 registers) or 2 (128).
#ifndef BOO_DEPTHWISE_ROLLING_BLOCKS
#define BOO_DEPTHWISE_ROLLING_BLOCKS 2
#endif
// Output pixels along W a thread: 8 (or 4, for measuring).
#ifndef BOO_DEPTHWISE_ROLLING_OUTPUTS
#define BOO_DEPTHWISE_ROLLING_OUTPUTS 8
#endif
// BOO_DEPTHWISE_ROLLING_ROWS=N (through BOO_NVCC_FLAGS) cuts segments of N output rows, for
// measuring; by default rolling_plan chooses.
// Items numbered across images (1: small images share blocks; a chunk's blocks side by side), or
// every block within one image (0: blocks x chunks x planes on the grid, as before 2026-12-01;
// for measuring).
#ifndef BOO_DEPTHWISE_ROLLING_SHARED
#define BOO_DEPTHWISE_ROLLING_SHARED 1
#endif
constexpr int kRollThreads = 256;
constexpr int kRollBlocksPerSm = BOO_DEPTHWISE_ROLLING_BLOCKS;
constexpr int kRollOutputs = BOO_DEPTHWISE_ROLLING_OUTPUTS;
constexpr int kRollMaxVectors = 64;  // channel vectors a block at most
constexpr int kRollTaps = 3;         // the filter's rows and columns

struct RollingPlan {
  int vectors = 0, chunks = 0, per_block = 0, strips = 0, segments = 0, rows = 0;
  int64_t items = 0;   // (image, segment, strip) items: images x segments x strips
  int64_t blocks = 0;  // blocks of items (the grid: blocks x chunks, a block's chunks side by
                       // side); SHARED=0: of one image's items (blocks x chunks x planes)
  int64_t planes = 0;  // SHARED=0: images x output depths x chunks
};

// The plan for K / vector channel vectors (vector elements each), an output of images x out_h x
// out_w pixels (images: batch x output depth) and sm_count SMs.
// Channel vectors per block as the row kernel's (all, or the fewest equal chunks of at most
// kRollMaxVectors); the block's 256 / vectors (image, segment, strip) items, in that order, so
// that small images share blocks; and segments of `rows` output rows. A segment of r rows takes
// r + 2 steps, so a block's time goes as r + 2 and the kernel's as that times the waves of blocks:
// the rows minimise ceil(blocks / slots) (r + 2), slots being the blocks all SMs hold at once,
// among the cuts that fill the slots where any does (ties: the longer segments; SHARED=0: the
// more blocks). H200, 2026-11-29 (bench/results/2026-11-29-depthwise-rolling-h200.md, us by rows
// a segment, * the rule's, blocks of one image each): n64 c32 112x112 *13 rows 36.4, 12 38.6, 7
// 41.1; fp16 n128 c672 14x14 *7 30.7, 5 38.8 (1536 blocks, half of them half idle), 12 37.0; fp32
// n32 c64 56x56 *7 18.9, 6 19.9, 3 21.5; but the public n64 c144 56x56 layer *14 47.4-48.6
// against 45.5-47.8 in 7 (cost 36 against 32; 12 49.9, 4 50.2). n128 c960 7x7 took 2 rows
// (20.4-23.3; 7 27.0: a block a one-strip image, three quarters idle); with images sharing blocks
// 4 rows: 16.4-16.7 us there (section 6), 16.2-16.6 in bench/results/2026-12-01-depthwise-shared-
// h200.md (against 20.1-20.2 in blocks of one image).
inline RollingPlan rolling_plan(int64_t k, int64_t vector, int64_t images, int64_t out_h,
                                int64_t out_w, int64_t sm_count) {
  RollingPlan p;
  const int64_t vectors = k / vector;
  const int64_t chunks = (vectors + kRollMaxVectors - 1) / kRollMaxVectors;
  p.vectors = static_cast<int>((vectors + chunks - 1) / chunks);
  p.chunks = static_cast<int>((vectors + p.vectors - 1) / p.vectors);
  p.per_block = kRollThreads / p.vectors;
  p.strips = static_cast<int>((out_w + kRollOutputs - 1) / kRollOutputs);
  p.planes = BOO_DEPTHWISE_ROLLING_SHARED ? 0 : images * p.chunks;
  const int64_t slots = int64_t{kRollBlocksPerSm} * (sm_count > 0 ? sm_count : 132);
  // All the blocks of a cut (the grid's).
  const auto blocks_of = [&](int64_t rows) {
    const int64_t segments = (out_h + rows - 1) / rows;
    if (BOO_DEPTHWISE_ROLLING_SHARED) {
      return (images * p.strips * segments + p.per_block - 1) / p.per_block * p.chunks;
    }
    return (p.strips * segments + p.per_block - 1) / p.per_block * p.planes;
  };
#ifdef BOO_DEPTHWISE_ROLLING_ROWS
  static_assert(BOO_DEPTHWISE_ROLLING_ROWS >= 1, "segments hold at least one row");
  int64_t best = out_h < BOO_DEPTHWISE_ROLLING_ROWS ? out_h : BOO_DEPTHWISE_ROLLING_ROWS;
#else
  // The cuts rows = ceil(H / segments): every count of segments up to 128, then every 1/16th more
  // (tall images: the host loop stays short) and H, while the blocks stay within 16 waves. The
  // first pass asks whether any fills the slots, the second takes the least cost.
  const auto next = [&](int64_t segs) {
    const int64_t more = segs < 128 ? segs + 1 : segs + segs / 16;
    return segs < out_h && more > out_h ? out_h : more;  // (one-row segments are a cut too)
  };
  bool any_fills = false;
  for (int64_t segs = 1; segs <= out_h; segs = next(segs)) {
    const int64_t blocks = blocks_of((out_h + segs - 1) / segs);
    any_fills = any_fills || blocks >= slots;
    if (blocks > 16 * slots) break;
  }
  int64_t best = out_h;
  double least = 0.0;
  for (int64_t segs = 1; segs <= out_h; segs = next(segs)) {
    const int64_t rows = (out_h + segs - 1) / segs;
    const int64_t blocks = blocks_of(rows);
    if (!any_fills || blocks >= slots) {
      const double cost =
          static_cast<double>((blocks + slots - 1) / slots) * (rows + kRollTaps - 1);
      const bool better = BOO_DEPTHWISE_ROLLING_SHARED ? cost < least : cost <= least;
      if (least == 0.0 || better) best = rows, least = cost;
    }
    if (blocks > 16 * slots) break;
  }
#endif
  p.rows = static_cast<int>(best);
  p.segments = static_cast<int>((out_h + p.rows - 1) / p.rows);
  p.items = images * p.strips * p.segments;
  p.blocks = ((BOO_DEPTHWISE_ROLLING_SHARED ? p.items : int64_t{p.strips} * p.segments) +
              p.per_block - 1) /
             p.per_block;
  return p;
}

}  // namespace boo_kernels
