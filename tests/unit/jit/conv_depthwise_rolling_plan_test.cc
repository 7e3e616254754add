// conv.depthwise's rolling kernel's plan (kernels/conv_depthwise_rolling_plan.cuh): chunks of at
// most 64 channel vectors that cover K, items that fit a block, segments that cover the output's
// rows once, blocks that fill the SMs' slots where any cut does, and the cuts measured on an H200.
#include "../../../kernels/conv_depthwise_rolling_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace boo_kernels {
namespace {

TEST(ConvDepthwiseRollingPlan, ChunksItemsAndSegmentsCoverTheOutput) {
  const int64_t slots = int64_t{kRollBlocksPerSm} * 132;
  for (int64_t vector : {1, 2}) {
    for (int64_t k : {2, 6, 24, 130, 144, 520, 960}) {
      for (int64_t images : {1, 3, 64, 4096}) {
        for (int64_t h : {1, 2, 7, 14, 56, 150, 1000}) {
          for (int64_t w : {1, 7, 9, 56, 203}) {
            SCOPED_TRACE("vector " + std::to_string(vector) + " K " + std::to_string(k) +
                         " images " + std::to_string(images) + " " + std::to_string(h) + "x" +
                         std::to_string(w));
            const RollingPlan p = rolling_plan(k, vector, images, h, w, 132);
            const int64_t vectors = k / vector;
            EXPECT_LE(p.vectors, kRollMaxVectors);
            EXPECT_GE(int64_t{p.vectors} * p.chunks, vectors);
            EXPECT_LT(int64_t{p.vectors} * (p.chunks - 1), vectors);
            EXPECT_EQ(p.per_block, kRollThreads / p.vectors);
            EXPECT_EQ(int64_t{p.strips} * kRollOutputs >= w, true);
            EXPECT_LT(int64_t{p.strips - 1} * kRollOutputs, w);
            // Segments cover the rows once: the last one holds at least one.
            EXPECT_GE(p.rows, 1);
            EXPECT_GE(int64_t{p.segments} * p.rows, h);
            EXPECT_LT(int64_t{p.segments - 1} * p.rows, h);
            // Items numbered across images, in blocks of per_block (the last one partial).
            EXPECT_EQ(p.items, images * p.strips * p.segments);
            EXPECT_EQ(p.blocks, (p.items + p.per_block - 1) / p.per_block);
            // Where one segment a row would fill the slots, the chosen cut fills them too.
            const int64_t finest =
                (images * p.strips * h + p.per_block - 1) / p.per_block * p.chunks;
            if (finest >= slots && h <= 64) {
              EXPECT_GE(p.blocks * p.chunks, slots);
            }
          }
        }
      }
    }
  }
}

// Tall, narrow images (one strip, few channels) are cut into enough segments to fill the SMs
// where one-row segments would, else into the shortest segments.
TEST(ConvDepthwiseRollingPlan, TallImagesFillTheSms) {
  const int64_t slots = int64_t{kRollBlocksPerSm} * 132;
  for (int64_t h : {20000, 1000000}) {
    for (int64_t k : {2, 64}) {
      const RollingPlan p = rolling_plan(k, 2, 1, h, 8, 132);
      const int64_t finest = (h + p.per_block - 1) / p.per_block * p.chunks;
      if (finest >= slots) {
        EXPECT_GE(p.blocks * p.chunks, slots) << "H " << h << " K " << k;
        EXPECT_LE(p.blocks * p.chunks, 17 * slots) << "H " << h << " K " << k;
      } else {
        EXPECT_LE(p.rows, 2) << "H " << h << " K " << k;
      }
    }
  }
}

// The cuts measured in bench/results/2026-11-29-depthwise-rolling-h200.md (blocks of one image),
// where the rule's was the fastest or within 5% of it, and the 7x7 layer's with images sharing
// blocks (its section 6: 4 rows, 16.4-16.7 us against 20.0-20.2 in 2).
TEST(ConvDepthwiseRollingPlan, CutsTheMeasuredLayersAsMeasuredBest) {
  const struct {
    const char* layer;
    int64_t k, vector, images, h, w;
    int rows;
  } cases[] = {{"bf16 n64 c32 112x112", 32, 2, 64, 112, 112, 13},
               {"fp16 n128 c672 14x14", 672, 2, 128, 14, 14, 7},
               {"fp32 n32 c64 56x56", 64, 1, 32, 56, 56, 7},
               {"bf16 n128 c960 7x7", 960, 2, 128, 7, 7, 4},
               {"bf16 n64 c144 56x56 (public)", 144, 2, 64, 56, 56, 14}};
  for (const auto& c : cases) {
    const RollingPlan p = rolling_plan(c.k, c.vector, c.images, c.h, c.w, 132);
    EXPECT_EQ(p.rows, c.rows) << c.layer;
  }
}

}  // namespace
}  // namespace boo_kernels
