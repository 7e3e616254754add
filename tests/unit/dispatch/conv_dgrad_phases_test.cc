// conv.sm90_implicit's stride phases (backward data as forward convolutions of dy, one per phase
// of dx; kernels/conv_dgrad_phases.cuh) without a GPU: where they apply and why not, the
// forward problems they run, their rank among the candidates, and forced configs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "boo/dispatch/conv_dgrad_phases.h"
#include "conv_dispatch_fixture.h"

namespace boo::dispatch {
namespace {

using testing::conv;
using testing::kNhwc;

// ResNet's downsampling 3x3 (c64 -> k128, stride 2) in backward data.
const char* kDown =
    "convbfp16 -n 32 -c 64 -H 56 -W 56 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -F 2";

using ConvDgradPhasesTest = testing::ConvDispatchFixture;

TEST_F(ConvDgradPhasesTest, StridedBackwardDataRunsItsPhasesStackedInOneConvolution) {
  // Stride 2, 3x3: phases of 1x1, 1x2, 2x1 and 2x2 taps, padded to 2x2 (16 taps for 9) and run
  // as one forward convolution whose output channels are the four phases' C side by side.
  const ops::ConvProblem p = conv(std::string(kDown) + kNhwc);
  ASSERT_TRUE(conv_dgrad_phases_supports(p).is_ok()) << conv_dgrad_phases_supports(p).message();
  const std::vector<ops::ConvProblem> phases = dgrad_phase_problems(p);
  ASSERT_EQ(phases.size(), 1u);
  const ops::ConvProblem& f = phases[0];
  EXPECT_EQ(f.direction, ops::ConvDirection::kForward);
  EXPECT_EQ(f.c, 128);     // dy's channels in
  EXPECT_EQ(f.k, 4 * 64);  // four phases of dx's out
  EXPECT_EQ(f.input, (std::vector<int64_t>{28, 28}));
  EXPECT_EQ(f.filter, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(f.stride, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(f.padding, (std::vector<int64_t>{0, 0}));
  std::vector<std::string> notes;
  auto list = dispatcher().candidates(p, &notes);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  EXPECT_EQ(list->front().algorithm, kConvSm90Implicit);
  EXPECT_TRUE(list->front().config.ends_with("_phases")) << list->front().config;
  EXPECT_NE(list->front().reason.find("stacked in one"), std::string::npos) << list->front().reason;
  EXPECT_EQ(list->back().algorithm, kConvDirect);
  bool said = false;
  for (const std::string& n : notes) said |= n.find("forward stride phases") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(ConvDgradPhasesTest, StrideThreeRunsItsNinePhasesApart) {
  // Stride 3, 3x3: one tap a phase, but at offsets that would pad each to 2x2 (four times the
  // taps): the nine phases run as nine convolutions.
  const ops::ConvProblem p =
      conv("convbfp16 -n 2 -c 32 -H 21 -W 21 -k 48 -y 3 -x 3 -p 1 -q 1 -u 3 -v 3 -l 1 -j 1 -F 2" +
           std::string(kNhwc));
  ASSERT_TRUE(conv_dgrad_phases_supports(p).is_ok()) << conv_dgrad_phases_supports(p).message();
  const std::vector<ops::ConvProblem> phases = dgrad_phase_problems(p);
  ASSERT_EQ(phases.size(), 9u);
  for (const ops::ConvProblem& f : phases) {
    EXPECT_EQ(f.filter, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(f.k, 32);
  }
  auto list = dispatcher().candidates(p, nullptr);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  EXPECT_NE(list->front().reason.find("9 stride phases"), std::string::npos)
      << list->front().reason;
}

TEST_F(ConvDgradPhasesTest, ProjectionShortcutRunsOnePhaseAndZeroesTheRest) {
  // 1x1 stride 2: the odd positions of dx get no tap (the runner's gather writes zeros there).
  const ops::ConvProblem p = conv(
      "convbfp16 -n 32 -c 256 -H 56 -W 56 -k 512 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2 -l 1 -j 1 -F 2" +
      std::string(kNhwc));
  ASSERT_TRUE(conv_dgrad_phases_supports(p).is_ok()) << conv_dgrad_phases_supports(p).message();
  const std::vector<ops::ConvProblem> phases = dgrad_phase_problems(p);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].filter, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(phases[0].input, (std::vector<int64_t>{28, 28}));
}

TEST_F(ConvDgradPhasesTest, Fp32BackwardDataRunsAsTf32ForwardConvolution) {
  // tf32's own dgrad would read an MN-major operand: one phase, the filter turned around.
  for (const char* layout : {"", kNhwc}) {
    const ops::ConvProblem p = conv(
        std::string("conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 "
                    "-F 2") +
        layout);
    ASSERT_TRUE(conv_dgrad_phases_supports(p).is_ok()) << conv_dgrad_phases_supports(p).message();
    const std::vector<ops::ConvProblem> phases = dgrad_phase_problems(p);
    ASSERT_EQ(phases.size(), 1u);
    EXPECT_EQ(phases[0].filter, (std::vector<int64_t>{3, 3}));
    EXPECT_EQ(phases[0].padding, (std::vector<int64_t>{1, 1}));
    auto list = dispatcher().candidates(p, nullptr);
    ASSERT_TRUE(list.has_value()) << list.status().message();
    EXPECT_EQ(list->front().config.rfind("conv.sm90_implicit_fp32_tf32_dgrad_2d", 0), 0u)
        << list->front().config;
    EXPECT_TRUE(list->front().config.ends_with("_phases"));
  }
  // Backward weight stays where it was.
  const ops::ConvProblem wgrad =
      conv("conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4");
  EXPECT_FALSE(conv_dgrad_phases_supports(wgrad).is_ok());
}

TEST_F(ConvDgradPhasesTest, PhasesThatStartPastDyComputeAndDropTheirFirstPositions) {
  // Padding beyond the filter's reach (and strides above it) make a phase's first position read
  // past dy's first element: it starts at dy's first element and skips what it computes before.
  const ops::ConvProblem p =
      conv("conv -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 3 -q 3 -u 1 -v 1 -l 1 -j 1 -F 2" +
           std::string(kNhwc));
  ASSERT_TRUE(conv_dgrad_phases_supports(p).is_ok()) << conv_dgrad_phases_supports(p).message();
  const std::vector<ops::ConvProblem> phases = dgrad_phase_problems(p);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].padding, (std::vector<int64_t>{0, 0}));
  const ops::ConvProblem strided =
      conv("convbfp16 -n 2 -c 32 -H 20 -W 22 -k 48 -y 3 -x 3 -p 1 -q 1 -u 3 -v 3 -l 1 -j 1 -F 2" +
           std::string(kNhwc));
  EXPECT_TRUE(conv_dgrad_phases_supports(strided).is_ok());
}

TEST_F(ConvDgradPhasesTest, ChannelsThatAreNotVectorsRunBehindThePaddingCopies) {
  // C = 35 (and K = 20): conv.padded_channels' configs, the phases over the padded channels.
  for (const char* command :
       {"convbfp16 -n 2 -c 35 -H 19 -W 19 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -F 2",
        "conv -n 2 -c 35 -H 19 -W 19 -k 20 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2"}) {
    const ops::ConvProblem p = conv(std::string(command) + kNhwc);
    ASSERT_FALSE(channels_aligned(p));
    ASSERT_TRUE(conv_dgrad_phases_supports(p).is_ok()) << conv_dgrad_phases_supports(p).message();
    EXPECT_EQ(dgrad_phase_problems(channel_padded(p)).front().k % 4, 0) << command;
    auto list = dispatcher().candidates(p, nullptr);
    ASSERT_TRUE(list.has_value()) << list.status().message();
    EXPECT_EQ(list->front().algorithm, kConvPaddedChannels) << command;
    EXPECT_TRUE(list->front().config.ends_with("_phases")) << list->front().config;
    EXPECT_EQ(list->back().algorithm, kConvDirect);
    const std::string cfg = list->front().config;
    auto forced = dispatcher(cfg).candidates(p, nullptr);
    ASSERT_TRUE(forced.has_value()) << forced.status().message();
    EXPECT_EQ(forced->front().algorithm, kConvPaddedChannels);
  }
  // Unit-stride 16-bit: CUTLASS's own dgrad behind the padding copies, as before.
  const ops::ConvProblem unit =
      conv("convbfp16 -n 2 -c 35 -H 19 -W 19 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2" +
           std::string(kNhwc));
  auto list = dispatcher().candidates(unit, nullptr);
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->front().algorithm, kConvPaddedChannels);
  EXPECT_FALSE(list->front().config.ends_with("_phases")) << list->front().config;
}

TEST_F(ConvDgradPhasesTest, SaysWhyItDoesNotApply) {
  struct Case {
    std::string command;
    std::string why;
  };
  const Case cases[] = {
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2",
       "CUTLASS's own dgrad"},
      {"convbfp16 -n 2 -c 64 -H 19 -W 19 -k 64 -y 3 -x 3 -p 1 -q 1 -u 4 -v 4 -l 1 -j 1 -F 2",
       "above 3"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 2 -F 2",
       "groups"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -F 1",
       "backward data only"},
  };
  for (const Case& c : cases) {
    const ops::ConvProblem p = conv(c.command + kNhwc);
    const core::Status s = conv_dgrad_phases_supports(p);
    EXPECT_FALSE(s.is_ok()) << c.command;
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s.message();
  }
}

TEST_F(ConvDgradPhasesTest, ForcedPhasesConfigsAreChecked) {
  const std::string cfg =
      "conv.sm90_implicit_bf16_f32acc_dgrad_2d_nobias.none_t128x64x64_c1x1_pingpong_phases";
  auto forced = dispatcher(cfg).candidates(conv(std::string(kDown) + kNhwc), nullptr);
  ASSERT_TRUE(forced.has_value()) << forced.status().message();
  ASSERT_EQ(forced->size(), 1u);
  EXPECT_EQ(forced->front().config, cfg);
  EXPECT_EQ(forced->front().algorithm, kConvSm90Implicit);
  // Unit stride: CUTLASS's own dgrad takes it.
  auto refused = dispatcher(cfg).candidates(
      conv("convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2" +
           std::string(kNhwc)),
      nullptr);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.status().message().find("own dgrad"), std::string::npos)
      << refused.status().message();
  // The fp16 class for a bf16 problem.
  auto other = dispatcher(
                   "conv.sm90_implicit_fp16_f32acc_dgrad_2d_nobias.none_t128x64x64_c1x1_pingpong_"
                   "phases")
                   .candidates(conv(std::string(kDown) + kNhwc), nullptr);
  ASSERT_FALSE(other.has_value());
  EXPECT_NE(other.status().message().find("class"), std::string::npos);
}

}  // namespace
}  // namespace boo::dispatch
