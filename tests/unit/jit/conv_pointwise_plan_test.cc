// conv.pointwise's plan (kernels/conv_pointwise_plan.cuh) for every C and K the kernels take: whole
// 32-bit words a super-row, the warp kernel's in-place rule (a unit's outputs fit its slice, and
// the public C = K = 35 class takes it while few-channel, many-output layers do not), and shared
// memory that fits an SM (the warp kernel's never less resident than the block kernel's).
#include "../../../kernels/conv_pointwise_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>

namespace boo_kernels {
namespace {

constexpr int64_t kSharedPerSm = 228 * 1024;  // sm_90
constexpr int64_t kReservedPerBlock = 1024;   // the driver's share of each block

bool fits(int64_t bytes, int blocks) {
  return blocks * (bytes + kReservedPerBlock) <= kSharedPerSm;
}

TEST(ConvPointwisePlan, SuperRowsAreWholeWordsAndCoverEveryPixel) {
  for (int c = 1; c <= kPointwiseMaxChannels; ++c) {
    for (int k = 1; k <= kPointwiseMaxChannels; ++k) {
      for (int64_t pixels : {1, 2, 7, 273, 196608}) {
        const PointwisePlan p = pointwise_plan(pixels, c, k);
        SCOPED_TRACE("C " + std::to_string(c) + " K " + std::to_string(k));
        EXPECT_EQ(p.row % 2, 0);
        EXPECT_EQ(p.out_row % 2, 0);
        EXPECT_EQ(p.slots, c % 2 == 0 && k % 2 == 0 ? 1 : 2);
        EXPECT_GE(p.rows * p.slots, pixels);
        EXPECT_LT((p.rows - 1) * p.slots, pixels);
        EXPECT_GE(16 * p.steps, p.row);
        // The masked words past a super-row stay inside a stage's or a slice's slack.
        EXPECT_LE(16 * p.steps, p.row + 16);
      }
    }
  }
}

TEST(ConvPointwisePlan, WarpKernelOnlyWhereAUnitsOutputsFitItsSlice) {
  for (int c = 1; c <= kPointwiseMaxChannels; ++c) {
    for (int k = 1; k <= kPointwiseMaxChannels; ++k) {
      const PointwisePlan p = pointwise_plan(1000, c, k);
      EXPECT_EQ(pointwise_in_place(p),
                pointwise_warp_out_elements(p) <= pointwise_slice_elements(p))
          << "C " << c << " K " << k;
    }
  }
  EXPECT_TRUE(pointwise_in_place(pointwise_plan(196608, 35, 35)));  // the public line
  EXPECT_TRUE(pointwise_in_place(pointwise_plan(1000, 35, 13)));
  EXPECT_FALSE(pointwise_in_place(pointwise_plan(1000, 3, 16)));  // measured slower on warps
  EXPECT_FALSE(pointwise_in_place(pointwise_plan(1000, 24, 36)));
}

TEST(ConvPointwisePlan, SharedMemoryFitsAndTheWarpKernelNeverHoldsFewerBlocks) {
  for (int c = 1; c <= kPointwiseMaxChannels; ++c) {
    for (int k = 1; k <= kPointwiseMaxChannels; ++k) {
      const PointwisePlan p = pointwise_plan(4096, c, k);
      const int n_tiles = (k + 7) / 8;
      SCOPED_TRACE("C " + std::to_string(c) + " K " + std::to_string(k));
      const int64_t block = pointwise_shared_bytes(p, n_tiles, c, k, 2);
      const int64_t warp = pointwise_warp_shared_bytes(p, n_tiles, c, k, 2);
      EXPECT_TRUE(fits(block, 1)) << block;
      EXPECT_TRUE(fits(warp, 1)) << warp;
      // Where the warp kernel runs, its two slices a warp take less than the block kernel's
      // output buffers and stages: an SM holds at least as many of its blocks.
      // (The experiments' forms take more: three slices, or 128 bytes of mbarriers.)
      if (pointwise_in_place(p) && kPointwiseSlices == 2 && !BOO_POINTWISE_BULK_LOAD) {
        EXPECT_LT(warp, block);
      }
      // The tables come first and keep what follows them 16-byte aligned.
      EXPECT_EQ(pointwise_table_bytes(p, n_tiles, c, k, 2) % 16, 0);
      EXPECT_EQ(pointwise_slice_elements(p) * 2 % 16, 0);
      EXPECT_EQ(pointwise_stage_elements(p) * 2 % 16, 0);
      EXPECT_EQ(pointwise_warp_out_elements(p) * 2 % 16, 0);
    }
  }
  // The runner's choice: the warp kernel in place where an SM holds as many of its blocks.
  int warp_classes = 0;
  for (int c = 1; c <= kPointwiseMaxChannels; ++c) {
    for (int k = 1; k <= kPointwiseMaxChannels; ++k) {
      const PointwisePlan p = pointwise_plan(4096, c, k);
      const int n_tiles = (k + 7) / 8;
      if (!pointwise_warp_kernel(p, n_tiles, c, k, 2)) continue;
      ++warp_classes;
      EXPECT_TRUE(pointwise_in_place(p)) << c << " " << k;
      const int budget = n_tiles < 8 ? 3 : 2;
      EXPECT_GE(pointwise_blocks_per_sm(pointwise_warp_shared_bytes(p, n_tiles, c, k, 2), budget),
                pointwise_blocks_per_sm(pointwise_shared_bytes(p, n_tiles, c, k, 2), budget))
          << c << " " << k;
    }
  }
  EXPECT_GT(warp_classes, 1000);
  // The lines the warp kernel was measured on take it (C = K = 35, C = 35 K = 13, C = 33 K = 7);
  // C = 38, K = 33 (two blocks of the warp kernel against three of the block kernel's) does not.
  EXPECT_TRUE(pointwise_warp_kernel(pointwise_plan(196608, 35, 35), 5, 35, 35, 2));
  EXPECT_TRUE(pointwise_warp_kernel(pointwise_plan(78400, 35, 13), 2, 35, 13, 2));
  EXPECT_TRUE(pointwise_warp_kernel(pointwise_plan(7007, 33, 7), 1, 33, 7, 2));
  EXPECT_FALSE(pointwise_warp_kernel(pointwise_plan(4096, 38, 33), 5, 38, 33, 2));
  // The public C = K = 35 line: three blocks an SM (its launch bounds' budget) on either kernel.
  const PointwisePlan pub = pointwise_plan(196608, 35, 35);
  EXPECT_TRUE(fits(pointwise_shared_bytes(pub, 5, 35, 35, 2), 3));
  EXPECT_TRUE(fits(pointwise_warp_shared_bytes(pub, 5, 35, 35, 2), 3));
}

}  // namespace
}  // namespace boo_kernels
