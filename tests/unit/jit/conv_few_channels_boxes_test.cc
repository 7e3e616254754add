// conv.padded_channels' direct kernel's TMA staging (kernels/conv_few_channels_boxes.cuh): every
// pixel of a tile row reads its whole filter-row span from one box, at an even element, and the
// boxes are as few as the overlap allows; rows TMA cannot copy are refused.
#include "../../../kernels/conv_few_channels_boxes.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace boo_kernels {
namespace {

TEST(ConvFewChannelsBoxes, EveryPixelReadsItsSpanFromOneBox) {
  int planned = 0, several = 0;
  for (int c : {1, 2, 3, 4, 5, 6, 12, 15, 16}) {
    for (int64_t stride : {1, 2, 3, 4}) {
      for (int s : {1, 3, 5, 7, 11}) {
        for (int64_t w : {8, 24, 31, 56, 96, 224, 230, 801, 4096}) {
          for (int tw : {1, 7, 32, 56, 64}) {
            for (int lead : {0, 1}) {
              const int lp = (s * c + lead + 1) / 2 * 2;
              const int ih = 13, id = 3;
              FewBoxes b;
              SCOPED_TRACE("C " + std::to_string(c) + " stride " + std::to_string(stride) + " S " +
                           std::to_string(s) + " W " + std::to_string(w) + " tw " +
                           std::to_string(tw) + " lead " + std::to_string(lead));
              if (!few_boxes(w * c, tw, stride, c, lp, ih, id, &b)) {
                // Refused only for the reasons the header gives, or a span too wide to split.
                EXPECT_TRUE((w * c) % 8 != 0 || (stride * c) % 2 != 0 ||
                            (tw - 1) * stride * c + lp + kFewBoxMaxShift > kFewBoxMaxElements);
                continue;
              }
              ++planned;
              several += b.boxes > 1;
              EXPECT_EQ(b.e % 8, 0);
              EXPECT_LE(b.e, kFewBoxMaxElements);
              EXPECT_EQ(b.step % 8, 0);
              EXPECT_EQ(b.box_elements % 64, 0);
              EXPECT_GE(b.box_elements, b.e * ih * id);
              int last_box = -1;
              for (int px = 0; px < tw; ++px) {
                const int64_t start = px * stride * c;
                const int at = few_box_pixel(b, 0, px, 1, stride, c);
                const int box = at / b.box_elements, local = at % b.box_elements;
                ASSERT_LT(box, b.boxes);
                // The box's first element is element box x step past the origin's vector.
                EXPECT_EQ(int64_t{box} * b.step + local, start);
                // Whatever the tile's shift (0, 2, 4 or 6), the span lies in the box's row, at
                // an even element (32-bit words).
                for (int shift = 0; shift <= kFewBoxMaxShift; shift += 2) {
                  EXPECT_EQ((shift + local) % 2, 0);
                  EXPECT_LE(shift + local + lp, b.e);
                }
                last_box = box;
                // Row py x stride_h of the same box.
                const int below = few_box_pixel(b, 2, px, 3, stride, c);
                EXPECT_EQ(below - at, 6 * b.e);
              }
              EXPECT_EQ(last_box, b.boxes - 1);  // no box that no pixel reads
            }
          }
        }
      }
    }
  }
  EXPECT_GT(planned, 1000);
  EXPECT_GT(several, 10);
}

TEST(ConvFewChannelsBoxes, ThePublicStem) {
  // n64 c3 224x224, 7x7 stride 2, padding 3: tiles of 4 x 56 output pixels, 13 staged rows; the
  // origin is odd (column -3 x 3 channels), so 1 + 21 elements a filter row; the last pixel
  // starts 330 elements in: one box of 368 elements a row.
  FewBoxes b;
  ASSERT_TRUE(few_boxes(224 * 3, 56, 2, 3, 22, 13, 1, &b));
  EXPECT_EQ(b.e, 368);
  EXPECT_EQ(b.step, 336);
  EXPECT_EQ(b.boxes, 1);
  EXPECT_EQ(b.box_elements, 4800);  // 368 x 13, rounded up to 64
  // A 1D row of 12 channels at stride 4: 64 pixels span 3024 elements, two boxes.
  ASSERT_TRUE(few_boxes(2048 * 12, 64, 4, 12, 60, 1, 1, &b));
  EXPECT_EQ(b.e, 2048);
  EXPECT_EQ(b.step, 1976);
  EXPECT_EQ(b.boxes, 2);
}

TEST(ConvFewChannelsBoxes, RowsTmaCannotCopyAreRefused) {
  FewBoxes b;
  EXPECT_FALSE(few_boxes(61 * 3, 31, 2, 3, 22, 13, 1, &b));  // 366-byte rows
  EXPECT_FALSE(few_boxes(32 * 3, 32, 1, 3, 10, 3, 1, &b));   // odd pixel starts
  EXPECT_FALSE(few_boxes(0, 8, 1, 4, 4, 3, 1, &b));
  EXPECT_FALSE(few_boxes(224 * 3, 56, 2, 3, 22, 300, 1, &b));     // more than 256 rows a box
  EXPECT_FALSE(few_boxes(4096 * 16, 64, 4, 16, 1990, 1, 1, &b));  // a span wider than a box
}

}  // namespace
}  // namespace boo_kernels
