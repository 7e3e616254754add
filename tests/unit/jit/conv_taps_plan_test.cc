// conv.sm90_taps' plan (kernels/conv_taps_plan.cuh): over a sweep of output shapes, filters and
// chunks, tiles that cover the output once, a tile width (wgmma's N) that holds every position a
// tile computes, stages that fit the shared memory, and the busiest block's work no more than
// the kernel's first form's (every tile 256 positions); the widths chosen for ResNet's rows.
#include "../../../kernels/conv_taps_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

namespace boo_kernels {
namespace {

// The first form's plan: budgets of 256, 224, ... until two stages fit, every tile 256 wide.
TapsPlan first_form(int64_t planes, int64_t h, int64_t w, int fh, int fw, int64_t reach_h,
                    int64_t reach_w, int chunks) {
  TapsPlan p{};
  p.taps = fh * fw;
  for (int budget = 256; budget >= 32 + reach_w; budget -= 32) {
    if (taps_tiles(budget, 256, h, w, reach_h, reach_w, p.taps, &p)) break;
  }
  p.tiles = planes * p.tiles_h * p.tiles_w;
  p.slices = slices_per_chunk(132, chunks, p.tiles);
  return p;
}

int64_t work(const TapsPlan& p) { return plan_ceil(p.tiles, p.slices) * (p.n + kTapsTileCost); }

TEST(ConvTapsPlan, TilesCoverTheOutputAndFitTheirWidth) {
  for (int64_t planes : {1, 4, 64, 1000}) {
    for (int64_t h : {1, 2, 7, 14, 28, 56, 100, 224, 256, 300}) {
      for (int64_t w : {1, 5, 7, 14, 28, 56, 63, 112, 224, 700, 4096}) {
        for (const auto& [r, s] :
             {std::pair{1, 1}, {2, 2}, {3, 3}, {5, 1}, {1, 5}, {3, 1}, {1, 9}, {9, 1}}) {
          for (int chunks : {1, 2, 3, 4}) {
            const int fh = h == 1 ? 1 : r, fw = s;
            // Dilation 2 on the 2x2 filter, 12 on the 1x9 row (a reach of 96 columns: pieces).
            const int64_t dil = r == 2 ? 2 : (s == 9 ? 12 : 1);
            SCOPED_TRACE(std::to_string(planes) + " planes " + std::to_string(h) + "x" +
                         std::to_string(w) + " filter " + std::to_string(fh) + "x" +
                         std::to_string(fw) + " chunks " + std::to_string(chunks));
            TapsPlan p{};
            const int64_t reach_h = (fh - 1) * dil, reach_w = (fw - 1) * dil;
            ASSERT_EQ(taps_tile_plan(planes, h, w, fh, fw, reach_h, reach_w, chunks, 132, &p),
                      nullptr);
            // Tiles cover the output once: whole rows, or one row in pieces.
            EXPECT_GE(int64_t{p.th} * p.tiles_h, h);
            EXPECT_LT(int64_t{p.th} * (p.tiles_h - 1), h);
            EXPECT_GE(int64_t{p.tw} * p.tiles_w, w);
            EXPECT_LT(int64_t{p.tw} * (p.tiles_w - 1), w);
            EXPECT_TRUE(p.tiles_w == 1 || p.th == 1);
            EXPECT_EQ(p.pitch, p.tw + reach_w);
            EXPECT_EQ(p.x_rows, p.th + reach_h);
            // TMA boxes of at most 256 in every dimension (W = 1, H = 256, 9 taps down a column,
            // 1000 planes: two tiles of 128 rows, not one of 256 staging 264).
            EXPECT_LE(p.x_rows, kTapsMaxBox);
            EXPECT_LE(p.pitch, kTapsMaxBox);
            EXPECT_EQ(p.tiles, planes * p.tiles_h * p.tiles_w);
            // The width: a multiple of 8 that holds the tile's positions, an instantiation.
            EXPECT_EQ(p.n % 8, 0);
            EXPECT_GE(p.n, kTapsMinPositions);
            EXPECT_LE(p.n, kTapsMaxPositions);
            EXPECT_GE(p.n, p.th * p.pitch);
            EXPECT_LT(p.n - 8,
                      p.th * p.pitch > kTapsMinPositions ? p.th * p.pitch : kTapsMinPositions);
            // Its stages hold the staged input and the output, and fit beside the filter.
            EXPECT_GE(p.stages, 2);
            EXPECT_GE(p.stage_bytes, p.x_rows * p.pitch * 128);
            EXPECT_GE(p.stage_bytes, p.n * 128);
            EXPECT_EQ(p.stage_bytes % 1024, 0);
            EXPECT_LE(p.shared_bytes, kTapsMaxShared);
            // After the alignment and the filter: every stage, then the full and empty mbarriers
            // of each; and the last stage's thrown-away positions read up to n + the taps' reach
            // past its start (shifted descriptors), within the allocation.
            // (Every chunk in each block: a slot a chunk and the warpgroups' output buffers of n
            // positions, one or a ring of two each.)
            EXPECT_EQ(p.all_chunks != 0, BOO_TAPS_ALL_CHUNKS && fh * fw == 1 && chunks >= 2);
            if (p.all_chunks) {
              EXPECT_TRUE(p.out_ring == 1 || p.out_ring == 2) << p.out_ring;
            } else {
              EXPECT_EQ(p.out_ring, 0);
            }
            const int64_t filter = p.all_chunks
                                       ? chunks * kTapsTapBytes + taps_out_buffers(p) * p.n * 128
                                       : p.taps * kTapsTapBytes;
            const int64_t past_filter = p.shared_bytes - 1024 - filter;
            EXPECT_GE(past_filter, int64_t{p.stages} * p.stage_bytes + 16 * p.stages);
            EXPECT_GE(past_filter, int64_t{p.stages - 1} * p.stage_bytes +
                                       (p.n + reach_h * p.pitch + reach_w) * 128);
            EXPECT_GE(p.slices, 1);
            EXPECT_LE(p.slices * (p.all_chunks ? 1 : chunks), 132);
            EXPECT_LE(p.slices, p.tiles);
            // Never more work for the busiest block than the first form's tiles (its budgets are
            // among those searched, each at n <= 256: this guards the search and its cost).
            if (!p.all_chunks) {
              const TapsPlan old = first_form(planes, h, w, fh, fw, reach_h, reach_w, chunks);
              ASSERT_GE(old.stages, 2);
              EXPECT_LE(work(p), work(old));
            }
          }
        }
      }
    }
  }
}

TEST(ConvTapsPlan, ResNetRowsComputeFewerPositions) {
  struct Case {
    int64_t planes, h, w;
    int n, th, pitch, tiles_w;
  };
  // 3x3, padding 1: rows of 56 as 4 x 58 = 232 positions (was 256: 7 of a block's tiles, 9%
  // less mma); 224-wide rows in pieces of 112 + 2 as 120 positions (was 256 for 114); rows of
  // 28 as 7 x 30 = 210 in 216 (4 tiles an image either way; was 8 x 30 in 256).
  for (const Case& c : {Case{64, 56, 56, 232, 4, 58, 1}, Case{8, 224, 224, 120, 1, 114, 2},
                        Case{64, 28, 28, 216, 7, 30, 1}}) {
    SCOPED_TRACE(std::to_string(c.planes) + " x " + std::to_string(c.h) + "x" +
                 std::to_string(c.w));
    TapsPlan p{};
    ASSERT_EQ(taps_tile_plan(c.planes, c.h, c.w, 3, 3, 2, 2, 1, 132, &p), nullptr);
    EXPECT_EQ(p.n, c.n);
    EXPECT_EQ(p.th, c.th);
    EXPECT_EQ(p.pitch, c.pitch);
    EXPECT_EQ(p.tiles_w, c.tiles_w);
  }
}

// 1x1 layers whose K takes 2 to 4 chunks: every block computes every chunk of each staged tile
// (its tiles once, on every SM); one chunk, five chunks, or more than one tap: a chunk a block.
TEST(ConvTapsPlan, OneByOneLayersComputeEveryChunkInEachBlock) {
  if (!BOO_TAPS_ALL_CHUNKS) GTEST_SKIP() << "built with -DBOO_TAPS_ALL_CHUNKS=0: a chunk a block";
  TapsPlan p{};
  // n64 c24 56x56 -> k144: 200704 pixels as one row, three chunks.
  ASSERT_EQ(taps_tile_plan(1, 1, 200704, 1, 1, 0, 0, 3, 132, &p), nullptr);
  EXPECT_EQ(p.all_chunks, 1);
  EXPECT_EQ(p.slices, 132);
  EXPECT_GE(p.stages, 2);
  EXPECT_LE(p.shared_bytes, kTapsMaxShared);
  // n = 256 there: a ring of two output buffers a warpgroup would leave 2 stages, not 3, so one
  // buffer each. n64 c40 28x28 -> k240 (50176 pixels, four chunks) plans n = 192, where the ring
  // keeps 3 stages.
  EXPECT_EQ(p.n, 256);
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.out_ring, BOO_TAPS_OUT_RING == 2 ? 2 : 1);
  ASSERT_EQ(taps_tile_plan(1, 1, 50176, 1, 1, 0, 0, 4, 132, &p), nullptr);
  EXPECT_EQ(p.n, 192);
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.out_ring, BOO_TAPS_OUT_RING ? 2 : 1);
  // Fewer tiles than SMs: a block a tile.
  ASSERT_EQ(taps_tile_plan(1, 1, 1000, 1, 1, 0, 0, 4, 132, &p), nullptr);
  EXPECT_EQ(p.all_chunks, 1);
  EXPECT_EQ(p.slices, p.tiles);
  ASSERT_EQ(taps_tile_plan(1, 1, 200704, 1, 1, 0, 0, 1, 132, &p), nullptr);
  EXPECT_EQ(p.all_chunks, 0);
  EXPECT_EQ(p.slices, 132);
  ASSERT_EQ(taps_tile_plan(1, 1, 200704, 1, 1, 0, 0, 5, 132, &p), nullptr);
  EXPECT_EQ(p.all_chunks, 0);
  EXPECT_EQ(p.slices, 26);
  ASSERT_EQ(taps_tile_plan(64, 56, 56, 3, 3, 2, 2, 2, 132, &p), nullptr);
  EXPECT_EQ(p.all_chunks, 0);
  EXPECT_EQ(p.slices, 66);
}

TEST(ConvTapsPlan, RefusesWhatTheKernelCannotStage) {
  TapsPlan p{};
  EXPECT_NE(taps_tile_plan(1, 8, 8, 5, 2, 4, 1, 1, 132, &p), nullptr);      // 10 taps
  EXPECT_NE(taps_tile_plan(1, 8, 200, 1, 9, 0, 120, 1, 132, &p), nullptr);  // reaches 120 columns
  EXPECT_NE(taps_tile_plan(1, 300, 8, 9, 1, 256, 0, 1, 132, &p), nullptr);  // reaches 256 rows
}

}  // namespace
}  // namespace boo_kernels
