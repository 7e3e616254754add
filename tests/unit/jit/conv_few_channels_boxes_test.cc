// conv.padded_channels' direct kernel's TMA staging (kernels/conv_few_channels_boxes.cuh): every
// pixel of a tile row reads its whole filter-row span from one box, at an even element, and the
// boxes are as few as the overlap allows; rows TMA cannot copy are refused.
#include "../../../kernels/conv_few_channels_boxes.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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

TEST(ConvFewChannelsBoxes, FilterSetUpInvertsTheWeightPlacement) {
  // The kernel once placed weight i of an output channel (filter row i / (S C), tap, channel) at
  // reduction element row lp + lead + tap cs + channel; its vector set-up asks few_filter_from for
  // the inverse. Every element of every k16 step: the weight placed there, or -1.
  int checked = 0;
  for (int c = 1; c <= 16; ++c) {
    for (int cs : {c, c + 1}) {
      for (int lead : {0, 1}) {
        for (int s_taps : {1, 2, 3, 5, 7, 11}) {
          for (int rows : {1, 3, 7, 21}) {
            const int lp = (lead + s_taps * cs + 1) / 2 * 2;
            const int ks = (rows * lp + 15) / 16 * 16;
            std::vector<int> placed(ks, -1);
            for (int i = 0; i < rows * s_taps * c; ++i) {
              const int row = i / (s_taps * c), j = i % (s_taps * c);
              const int k = row * lp + lead + j / c * cs + j % c;
              ASSERT_LT(k, ks);
              ASSERT_EQ(placed[k], -1);  // one weight an element
              placed[k] = i;
            }
            for (int k = 0; k < ks; ++k) {
              ASSERT_EQ(few_filter_from(k, lp, lead, rows, s_taps, cs, c), placed[k])
                  << "C " << c << " cs " << cs << " lead " << lead << " S " << s_taps << " rows "
                  << rows << " k " << k;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

TEST(ConvFewChannelsBoxes, SquarerTilesAreFewerAndCoverThePlane) {
  // The stems' 112 x 112 planes (7x7 stride 2): 16 x 16 tiles, 49 a plane, against 56 of 4 x 56.
  const FewTiling stem = few_squarer_tiles(112, 112, 256, 2, 2, 7, 7);
  EXPECT_EQ(stem.tw, 16);
  EXPECT_EQ(stem.th, 16);
  EXPECT_EQ(stem.tiles_w * stem.tiles_h, 49);
  int fewer = 0;
  for (int64_t ho : {1, 7, 14, 28, 56, 64, 100, 112, 150, 224}) {
    for (int64_t wo : {1, 7, 14, 28, 37, 56, 64, 100, 112, 150, 224, 4096}) {
      for (int most : {64, 128, 256}) {
        for (int64_t stride : {1, 2, 4}) {
          for (int64_t reach : {1, 3, 7}) {
            SCOPED_TRACE(std::to_string(ho) + " x " + std::to_string(wo) + " most " +
                         std::to_string(most) + " stride " + std::to_string(stride) + " reach " +
                         std::to_string(reach));
            // The widest tiles, as grouped_tile_shape cuts them.
            const int64_t widest_w = (wo + std::min(most, 64) - 1) / std::min(most, 64);
            const int64_t widest_tw = (wo + widest_w - 1) / widest_w;
            const int64_t widest_h = (ho + std::max<int64_t>(1, most / widest_tw) - 1) /
                                     std::max<int64_t>(1, most / widest_tw);
            const int64_t widest_th = (ho + widest_h - 1) / widest_h;
            const auto points = [&](int64_t th, int64_t tw) {
              return ((th - 1) * stride + reach) * ((tw - 1) * stride + reach);
            };
            const FewTiling t = few_squarer_tiles(ho, wo, most, stride, stride, reach, reach);
            EXPECT_GE(static_cast<int64_t>(t.tiles_w) * t.tw, wo);
            EXPECT_GE(static_cast<int64_t>(t.tiles_h) * t.th, ho);
            EXPECT_LE(t.th * t.tw, std::max(most, t.tw));  // (a row wider than `most`: one row)
            EXPECT_LE(static_cast<int64_t>(t.tiles_w) * t.tiles_h, widest_w * widest_h);
            if (t.tiles_w == widest_w) {
              EXPECT_EQ(t.tw, widest_tw);
              EXPECT_EQ(t.th, widest_th);
              continue;
            }
            ++fewer;
            EXPECT_LT(static_cast<int64_t>(t.tiles_w) * t.tiles_h, widest_w * widest_h);
            EXPECT_GE(t.tw, 8);
            EXPECT_LE(points(t.th, t.tw), points(widest_th, widest_tw));
            EXPECT_LE((t.th - 1) * stride + reach, 256);
            EXPECT_NE(ho, 1);  // 1D planes keep the widest tiles
          }
        }
      }
    }
  }
  EXPECT_GT(fewer, 50);
}

}  // namespace
}  // namespace boo_kernels
