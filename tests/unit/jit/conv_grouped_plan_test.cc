// conv.grouped's plans (kernels/conv_grouped_plan.cuh): the cp.async kernel's groups and pixel
// tiles, and the TMA kernel's re-tiling: which stages and blocks an SM each layer gets, and that
// every plan's shared memory holds what the kernel lays out.
#include "../../../kernels/conv_grouped_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "../dispatch/conv_dispatch_fixture.h"
#include "boo/dispatch/conv_args.h"

namespace boo_kernels {
namespace {

// A 2D bf16 forward layer, channels-last, 3x3 unless told, padding filter / 2: the arguments
// dispatch builds for it (make_conv_args).
BooConvArgs layer(int64_t n, int64_t c, int64_t hw, int64_t k, int64_t groups, int64_t stride,
                  int64_t filter = 3) {
  const std::string f = std::to_string(filter), pad = std::to_string(filter / 2),
                    s = std::to_string(stride), h = std::to_string(hw);
  const std::string command = "convbfp16 -n " + std::to_string(n) + " -c " + std::to_string(c) +
                              " -H " + h + " -W " + h + " -k " + std::to_string(k) + " -y " + f +
                              " -x " + f + " -p " + pad + " -q " + pad + " -u " + s + " -v " + s +
                              " -l 1 -j 1 -g " + std::to_string(groups) + " -F 1" +
                              boo::dispatch::testing::kNhwc;
  return boo::dispatch::make_conv_args(boo::dispatch::testing::conv(command),
                                       boo::dispatch::ConvPointers{}, 0, 132);
}

struct Planned {
  GroupedPlan p{};
  GroupedTmaPlan t{};
  const char* why = nullptr;
};

Planned plan_tma(const BooConvArgs& a) {
  Planned r;
  r.why = grouped_tma_plan(a, &r.p, &r.t);
  return r;
}

// The kernel's layout (conv_grouped_tma_kernel): a 1024-byte alignment slack, one or two output
// tiles, the stages, then the tables; every box within its stage.
void expect_layout_holds(const Planned& r) {
  EXPECT_GE(r.t.stages, 2);
  EXPECT_LE(r.t.stages, kGroupedTmaMaxStages);
  EXPECT_LE(r.t.box_bytes, r.t.stage_bytes);
  EXPECT_EQ(r.t.stage_bytes % 1024, 0);
  EXPECT_EQ(r.t.out_bytes % 1024, 0);
  EXPECT_GE(r.t.out_bytes, 128 * r.p.th * r.p.tw * r.t.images);
  EXPECT_TRUE(r.t.out_tiles == 1 || r.t.out_tiles == 2);
  EXPECT_GE(r.t.shared_bytes, 1024 + r.t.out_tiles * r.t.out_bytes + r.t.stages * r.t.stage_bytes);
  EXPECT_LE(r.t.shared_bytes, kGroupedTmaMaxShared);
  EXPECT_LE(r.p.th * r.p.tw * r.t.images, kGroupedTilePixels);
  // The phases: each a box of iw x ih x images points, the next phase_points further on 128
  // bytes, all within the stage; or one box of the whole rows.
  if (r.p.phases > 1) {
    EXPECT_EQ(r.p.sw, 1);
    EXPECT_GE(r.p.phase_points, r.p.iw * r.p.ih * r.t.images);
    EXPECT_EQ(2 * r.p.phase_points * r.p.x_row % 128, 0);
    EXPECT_LE(2 * r.p.phases * r.p.phase_points * r.p.x_row, r.t.stage_bytes);
    EXPECT_LE(r.p.iw * r.p.phases, 256);  // the box's traversal
  } else {
    EXPECT_EQ(r.p.phase_points, 0);
  }
  EXPECT_EQ(r.t.box_bytes, 2 * r.p.x_row * r.p.iw * r.p.ih * r.t.images * r.p.phases);
}

// The 16-byte bank group (of eight) of the ldmatrix row of a tile's pixel `pixel` of its first
// row at tap column fx, as the kernel addresses it (grouped_a_row, chunk_at).
int bank_group(const BooConvArgs& a, const Planned& r, int pixel, int fx) {
  const int col = fx * static_cast<int>(a.dilation[2]);
  const int point = pixel * r.p.sw + (col % r.p.phases) * r.p.phase_points + col / r.p.phases;
  return point * r.p.x_row * 2 / 16 % 8;
}

// ResNeXt's stride-1 layers: 128-pixel tiles, two stages, two blocks an SM.
TEST(ConvGroupedPlan, StrideOneLayersTakeTwoBlocksOfWideTiles) {
  for (const BooConvArgs& a : {layer(64, 256, 28, 256, 32, 1), layer(32, 512, 14, 512, 32, 1),
                               layer(32, 1024, 7, 1024, 32, 1), layer(8, 128, 56, 128, 16, 1)}) {
    const Planned r = plan_tma(a);
    SCOPED_TRACE("c " + std::to_string(a.c) + " " + std::to_string(a.in[1]));
    ASSERT_EQ(r.why, nullptr);
    expect_layout_holds(r);
    EXPECT_EQ(r.t.stages, 2);
    EXPECT_LE(r.t.shared_bytes, kGroupedTmaTwoBlocks);
    EXPECT_GT(r.p.th * r.p.tw * r.t.images, kGroupedTilePixels / 2);
  }
}

// Stride-2 layers, whose input boxes are wide: 64-pixel tiles, two stages and two blocks an SM
// where they fit (n64 c512 28x28 G = 32: 40.9 -> 33.1 us on an H200 against three stages, one
// block), with one output tile where two do not (c1024 14x14: its 32-channel groups' filters take
// 37 KiB; 116.5 KiB with two output tiles), else three stages, one block.
TEST(ConvGroupedPlan, StrideTwoLayersTakeTwoBlocksWhereTheyFit) {
  for (const BooConvArgs& a : {layer(64, 256, 56, 256, 32, 2), layer(64, 512, 28, 512, 32, 2)}) {
    const Planned r = plan_tma(a);
    SCOPED_TRACE("c " + std::to_string(a.c));
    ASSERT_EQ(r.why, nullptr);
    expect_layout_holds(r);
    EXPECT_EQ(r.t.stages, 2);
    EXPECT_EQ(r.t.out_tiles, 2);
    EXPECT_LE(r.t.shared_bytes, kGroupedTmaTwoBlocks);
    EXPECT_LE(r.p.th * r.p.tw * r.t.images, kGroupedTilePixels / 2);
  }
  const Planned wide = plan_tma(layer(64, 1024, 14, 1024, 32, 2));
  ASSERT_EQ(wide.why, nullptr);
  expect_layout_holds(wide);
  EXPECT_EQ(wide.t.stages, 2);
  EXPECT_EQ(wide.t.out_tiles, 1);
  EXPECT_LE(wide.t.shared_bytes, kGroupedTmaTwoBlocks);
  EXPECT_GT(wide.t.shared_bytes + wide.t.out_bytes, kGroupedTmaTwoBlocks);
}

// Rows of stride 2 are staged in two phases (even points, odd points), so that the pixels of a
// tile row that an ldmatrix reads at a tap fall in distinct bank groups; staged whole
// (BOO_GROUPED_TMA_PHASES=0) eight of them fell in four. Stride 1, a 1x1 filter (only even
// points) and an even dilation keep one box; so does a layer whose phases would cost its plan
// two blocks an SM (n64 c1024 14x14: 32-channel groups; both phases as wide as the even one).
TEST(ConvGroupedPlan, StrideTwoRowsAreStagedInPhases) {
  for (const BooConvArgs& a : {layer(64, 256, 56, 256, 32, 2), layer(64, 512, 28, 512, 32, 2),
                               layer(8, 128, 56, 128, 16, 2, 5)}) {
    const Planned r = plan_tma(a);
    SCOPED_TRACE("c " + std::to_string(a.c) + " " + std::to_string(a.in[1]));
    ASSERT_EQ(r.why, nullptr);
    expect_layout_holds(r);
    EXPECT_EQ(r.p.phases, 2);
    EXPECT_EQ(r.p.iw, r.p.tw + (a.filter[2] - 1) / 2);
    ASSERT_GE(r.p.tw, 8);
    for (int fx = 0; fx < a.filter[2]; ++fx) {
      int seen = 0;
      for (int pixel = 0; pixel < 8; ++pixel) seen |= 1 << bank_group(a, r, pixel, fx);
      EXPECT_EQ(seen, 0xff) << "tap column " << fx;
    }
  }
  for (const BooConvArgs& a : {layer(64, 256, 28, 256, 32, 1), layer(64, 256, 28, 256, 32, 2, 1),
                               layer(64, 1024, 14, 1024, 32, 2)}) {
    const Planned r = plan_tma(a);
    ASSERT_EQ(r.why, nullptr);
    expect_layout_holds(r);
    EXPECT_EQ(r.p.phases, 1);
    EXPECT_EQ(r.p.sw, a.stride[2]);
  }
  BooConvArgs dilated = layer(16, 256, 28, 256, 32, 2);
  dilated.dilation[2] = 2;
  dilated.pad[2] = 2;
  dilated.out[2] = (dilated.in[2] + 2 * 2 - 2 * 2 - 1) / 2 + 1;
  const Planned r = plan_tma(dilated);
  ASSERT_EQ(r.why, nullptr);
  EXPECT_EQ(r.p.phases, 1);
}

// Where the cp.async kernel's tiles do not fit its 100 KB (32-channel groups, stride 2), the TMA
// kernel's plan may still: the runner takes the problem on it (tests/gpu/conv_grouped.txt's n8
// c128 30x30 G = 4 stride-2 line) instead of refusing it.
TEST(ConvGroupedPlan, TheTmaPlanTakesWhatTheCpAsyncPlanCannot) {
  const BooConvArgs a = layer(8, 128, 30, 128, 4, 2);
  GroupedPlan cp{};
  EXPECT_NE(grouped_plan(a, &cp), nullptr);
  const Planned r = plan_tma(a);
  ASSERT_EQ(r.why, nullptr);
  expect_layout_holds(r);
  EXPECT_EQ(r.t.stages, 3);
  // K/G below C/G: neither kernel takes it.
  const BooConvArgs narrow = layer(2, 128, 64, 32, 4, 2);
  EXPECT_NE(grouped_plan(narrow, &cp), nullptr);
  EXPECT_NE(plan_tma(narrow).why, nullptr);
}

// Every plan the TMA kernel takes over a sweep of grouped layers holds the kernel's layout, and
// takes two blocks an SM whenever its shared memory allows.
TEST(ConvGroupedPlan, EveryPlanHoldsItsLayout) {
  int planned = 0;
  for (int64_t groups : {2, 4, 8, 16, 32, 64}) {
    for (int64_t cg : {8, 16, 32}) {
      for (int64_t hw : {7, 14, 17, 28, 56, 112}) {
        for (int64_t stride : {1, 2}) {
          for (int64_t filter : {1, 3, 5}) {
            const BooConvArgs a = layer(4, cg * groups, hw, cg * groups, groups, stride, filter);
            const Planned r = plan_tma(a);
            if (r.why != nullptr) continue;
            SCOPED_TRACE("G " + std::to_string(groups) + " C/G " + std::to_string(cg) + " hw " +
                         std::to_string(hw) + " stride " + std::to_string(stride) + " filter " +
                         std::to_string(filter));
            ++planned;
            expect_layout_holds(r);
            if (r.t.stages == 3) {
              EXPECT_GT(r.t.shared_bytes, kGroupedTmaTwoBlocks);
            }
            EXPECT_EQ(r.t.tiles, (a.n + r.t.images - 1) / r.t.images * r.p.tiles_h * r.p.tiles_w);
          }
        }
      }
    }
  }
  EXPECT_GT(planned, 100);
}

}  // namespace
}  // namespace boo_kernels
