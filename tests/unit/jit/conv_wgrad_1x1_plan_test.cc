// conv.split_wgrad's fp32 1x1 kernel's plan (kernels/conv_wgrad_1x1_plan.cuh): chunks that cover
// K and C, a warp per 16 channels of x, copies that divide the block's threads evenly, tiles of
// whole k-steps whose two stages fit, slices that fill the SMs without outnumbering the tiles.
#include "../../../kernels/conv_wgrad_1x1_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace boo_kernels {
namespace {

TEST(ConvWgrad1x1Plan, ChunksCopiesTilesAndSlicesHold) {
  for (int64_t k = 8; k <= 520; k += 8) {
    for (int64_t c : {8, 16, 24, 40, 72, 128, 136, 256, 264, 512, 1000, 2048}) {
      for (int64_t pixels : {1, 7, 196, 1568, 25088, 100352, 3211264}) {
        OneByOneWgradPlan p{};
        SCOPED_TRACE("K " + std::to_string(k) + " C " + std::to_string(c) + " pixels " +
                     std::to_string(pixels));
        ASSERT_EQ(onebyone_wgrad_plan(pixels, k, c, 132, &p), nullptr);
        EXPECT_EQ(p.kb, k <= 32 ? 32 : 64);
        EXPECT_GE(int64_t{p.kb} * p.k_chunks, k);
        EXPECT_LT(int64_t{p.kb} * (p.k_chunks - 1), k);
        EXPECT_EQ(p.cb % 16, 0);
        EXPECT_LE(p.cb, kOneByOneMaxChannels);
        EXPECT_GE(int64_t{p.cb} * p.c_chunks, c);
        EXPECT_LT(int64_t{p.cb} * (p.c_chunks - 1), c);
        EXPECT_EQ(p.warps * 16, p.cb);
        // Every thread copies one vector column of x and one of dy.
        const int threads = 32 * p.warps;
        EXPECT_LE(threads, 2 * kOneByOneMaxChannels);
        EXPECT_EQ(threads % (p.cb / 4), 0);
        EXPECT_EQ(threads % (p.kb / 4), 0);
        EXPECT_EQ(p.tile % 8, 0);
        EXPECT_GE(p.tile, 8);
        EXPECT_LE(p.shared_bytes, kOneByOneMaxShared);
        EXPECT_EQ(p.shared_bytes, 2 * p.tile * (p.x_row + p.y_row) * 4);
        // Rows 8 or 24 banks apart: the 64-bit loads of 4 pixels by 8 lanes meet every bank once.
        EXPECT_TRUE(p.x_row % 32 == 8 || p.x_row % 32 == 24) << p.x_row;
        EXPECT_TRUE(p.y_row % 32 == 8 || p.y_row % 32 == 24) << p.y_row;
        EXPECT_GE(p.tiles * p.tile, pixels);
        EXPECT_LT((p.tiles - 1) * p.tile, pixels);
        EXPECT_GE(p.slices, 1);
        EXPECT_LE(p.slices, p.tiles);
        // An SM holds per_sm blocks (shared memory, 16 warps); the slices fill no more.
        EXPECT_GE(p.per_sm, 1);
        EXPECT_LE(p.per_sm * p.warps, 16);
        EXPECT_LE(int64_t{p.per_sm} * (p.shared_bytes + 1024), 228 * 1024);
        if (p.chunks <= 132 * p.per_sm) {
          EXPECT_LE(int64_t{p.slices} * p.chunks, 132 * p.per_sm);
        }
        // Small blocks come several an SM: at least 8 warps, unless the tile is the smallest.
        if (p.tile > kOneByOneMinTile) {
          EXPECT_GE(p.per_sm * p.warps, 8);
        }
        EXPECT_EQ(p.total, k * c);
      }
    }
  }
}

// The measured cliff's line (n32 c256 56x56 k64): dy read once (one chunk of all 256 channels of
// x), 64-pixel tiles (two stages of 172 KB), a slice per SM; a small line keeps 32-pixel tiles
// rather than one partial sum per 8 pixels.
TEST(ConvWgrad1x1Plan, TheCliffLineReadsDyOnceOnEverySm) {
  OneByOneWgradPlan p{};
  ASSERT_EQ(onebyone_wgrad_plan(32 * 56 * 56, 64, 256, 132, &p), nullptr);
  EXPECT_EQ(p.chunks, 1);
  EXPECT_EQ(p.cb, 256);
  EXPECT_EQ(p.tile, 64);
  EXPECT_EQ(p.slices, 132);
  OneByOneWgradPlan small{};
  ASSERT_EQ(onebyone_wgrad_plan(4 * 7 * 7, 96, 64, 132, &small), nullptr);
  EXPECT_EQ(small.tile, kOneByOneMinTile);
  EXPECT_EQ(small.k_chunks, 2);
  EXPECT_EQ(small.slices, 7);
}

// n64 c16 56x56 k16 (one warp a block) measured 66 us on one 128-pixel block an SM: its plan
// now holds 8 or more blocks an SM on smaller tiles, and slices for all of them.
TEST(ConvWgrad1x1Plan, OneWarpBlocksComeSeveralAnSm) {
  OneByOneWgradPlan p{};
  ASSERT_EQ(onebyone_wgrad_plan(64 * 56 * 56, 16, 16, 132, &p), nullptr);
  EXPECT_EQ(p.warps, 1);
  EXPECT_EQ(p.tile, kOneByOneMinTile);
  EXPECT_GE(p.per_sm, 8);
  EXPECT_EQ(p.slices, 132 * p.per_sm);
  // Four warps (C = 64 at 56x56): three blocks an SM of 64-pixel tiles, not one of 128.
  ASSERT_EQ(onebyone_wgrad_plan(32 * 56 * 56, 64, 64, 132, &p), nullptr);
  EXPECT_EQ(p.tile, 64);
  EXPECT_EQ(p.per_sm, 3);
}

TEST(ConvWgrad1x1Plan, ChannelsThatAreNotVectorsAreRefused) {
  OneByOneWgradPlan p{};
  EXPECT_NE(onebyone_wgrad_plan(100, 12, 64, 132, &p), nullptr);
  EXPECT_NE(onebyone_wgrad_plan(100, 64, 20, 132, &p), nullptr);
  EXPECT_NE(onebyone_wgrad_plan(0, 64, 64, 132, &p), nullptr);
}

}  // namespace
}  // namespace boo_kernels
