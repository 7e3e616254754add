// Convolution dispatch without a GPU: which algorithms apply and why not, candidate order
// (conv.gemm_1x1, heuristic conv.sm90_implicit, conv.depthwise, conv.direct last), forced configs,
// moving on after a failed compile, plan caching (the fake compiler builds stand-in kernel
// objects), the analytical model, and the C argument struct.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "boo/dispatch/conv_dgrad_phases.h"
#include "conv_dispatch_fixture.h"

namespace boo::dispatch {
namespace {

namespace fs = std::filesystem;

using testing::conv;
using testing::kNhwc;

ops::ConvProblem resnet3x3(const std::string& extra = "") {
  return conv("convbfp16 -n 64 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1" +
              extra + kNhwc);
}

std::vector<std::string> algorithms(const std::vector<ConvCandidate>& list) {
  std::vector<std::string> out;
  for (const ConvCandidate& c : list) out.push_back(c.algorithm);
  return out;
}

// The band a kernel model's prediction keeps around what its line measured: within 25%.
void expect_near_measured(double predicted_us, double measured_us, const std::string& line,
                          const std::string& why) {
  EXPECT_GT(predicted_us, 0.8 * measured_us) << line << ": " << why;
  EXPECT_LT(predicted_us, 1.25 * measured_us) << line << ": " << why;
}

using ConvDispatchTest = testing::ConvDispatchFixture;

TEST_F(ConvDispatchTest, NhwcThreeByThreeRanksImplicitGemmThenDirectLast) {
  std::vector<std::string> notes;
  DispatchOptions no_taps;  // (conv.sm90_taps comes first here: its own test)
  no_taps.rank_conv_taps = false;
  auto c = ConvDispatcher(*cache_, nullptr, *gemm_, no_taps).candidates(resnet3x3(" -F 1"), &notes);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  ASSERT_GE(c->size(), 2u);
  EXPECT_EQ(c->front().algorithm, kConvSm90Implicit);
  EXPECT_NE(c->front().reason.find("heuristic: predicted"), std::string::npos);
  // ResNet's 64-channel 3x3: the persistent kernel's 128x64 pingpong tiles and 256x64
  // cooperative ones tie (43.5 and 43.3 us; H100, bench/results/2026-11-27-conv-implicit-k64-
  // h100.md) and rank first, either way round, within 2% of each other; the best
  // non-persistent config, 128x64 tiles two CTAs to an SM, measured 53.2 us.
  const std::set<std::string> first_two = {c->front().config, (*c)[1].config};
  EXPECT_EQ(first_two,
            (std::set<std::string>{
                "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x64x64_c1x1_pingpong",
                "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t256x64x64_c1x1_coop"}));
  EXPECT_LT((*c)[1].predicted_us, 1.02 * c->front().predicted_us);
  ASSERT_GE(c->size(), 3u);
  EXPECT_GT((*c)[2].predicted_us, 1.1 * (*c)[1].predicted_us) << (*c)[2].config;
  EXPECT_EQ(c->back().algorithm, kConvDirect);
  EXPECT_EQ(c->back().config, "conv.direct_bf16_f32acc_fprop_2d_nobias.none");
  for (size_t i = 1; i + 1 < c->size(); ++i) {
    EXPECT_LE((*c)[i - 1].predicted_us, (*c)[i].predicted_us) << i;
  }
  bool told = false;
  for (const std::string& n : notes) told |= n.find("conv.gemm_1x1 does not apply") == 0;
  EXPECT_TRUE(told);
}

TEST_F(ConvDispatchTest, ThreeDimensionalSixtyFourWideLayersTakeCooperativeTiles) {
  // 27 taps over 64 channels: 256x64 cooperative tiles measured 123.2 us against 130.0 on 128x64
  // pingpong ones (the public 3D line, H100, bench/results/2026-11-27-conv-implicit-k64-h100.md).
  auto c = dispatcher().candidates(
      conv("convbfp16 --spatial_dim 3 -n 4 -c 64 -! 16 -H 56 -W 56 -k 64 -@ 3 -y 3 -x 3 -$ 1 "
           "-p 1 -q 1 -# 1 -u 1 -v 1 -^ 1 -l 1 -j 1 -F 1 --in_layout NDHWC --out_layout NDHWC "
           "--fil_layout NDHWC"),
      nullptr);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(c->front().config,
            "conv.sm90_implicit_bf16_f32acc_fprop_3d_nobias.none_t256x64x64_c1x1_coop");
}

TEST_F(ConvDispatchTest, SdUnetThreeByThreeTakesTilesOfTwoEqualHalves) {
  // SD-UNet's fp16 3x3 over 320 channels: 128x160 cooperative tiles (two across N, nothing
  // wasted) measured 26.5 us against 29.6 on 128x192 and 38.5 on 128x128 pingpong ones, once
  // each runs one warpgroup MMA of its width (H200, bench/results/2026-11-28-weak-lines-h200.md).
  auto c = dispatcher().candidates(
      conv("convfp16 -n 2 -c 320 -H 64 -W 64 -k 320 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc)),
      nullptr);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(c->front().config,
            "conv.sm90_implicit_fp16_f32acc_fprop_2d_nobias.none_t128x160x64_c1x1_coop");
}

TEST_F(ConvDispatchTest, FourteenByFourteenWideLayerTakesTilesThatFillThreeWaves) {
  // 196 tiles of 128x128 fill 1.48 waves of 132 SMs, 392 of 128x64 fill 2.97: the 128x64
  // pingpong tiles measured 26.0-26.9 us against 30.5-31.4 channels-last, and 39.1-41.2 against
  // 42.4-43.8 channels-first behind the copies (H200, bench/results/2026-11-30-nchw-h200.md).
  const std::string line =
      "convbfp16 -n 64 -c 256 -H 14 -W 14 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1";
  for (const std::string& layouts : {std::string(kNhwc), std::string()}) {
    auto c = dispatcher().candidates(conv(line + layouts), nullptr);
    ASSERT_TRUE(c.has_value()) << c.status().message();
    EXPECT_EQ(c->front().config,
              "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x64x64_c1x1_pingpong")
        << layouts;
  }
}

TEST_F(ConvDispatchTest, OneByOneGoesToTheGemmFirst) {
  auto p = conv(
      "convbfp16 -n 8 -c 128 -H 14 -W 14 -k 256 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 "
      "-F 1" +
      std::string(kNhwc));
  auto c = dispatcher().candidates(p, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->front().algorithm, kConvGemm1x1);
  EXPECT_NE(c->front().reason.find("the convolution is the GEMM"), std::string::npos);
  EXPECT_EQ(c->back().algorithm, kConvDirect);
}

// Channels-first 1x1 layers whose image is not whole 16 bytes of pixels (14x14, 7x7: the GEMM
// would be gemm.sm90_unaligned's) take the channels-last copies and conv.sm90_implicit first, the
// GEMM after it; aligned images (28x28), channels-last layers and fp32 keep the GEMM first.
TEST_F(ConvDispatchTest, ChannelsFirstOneByOneWithUnalignedImagesGoesToTheImplicitKernelFirst) {
  const std::string tail = " -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1";
  const auto first = [&](const std::string& command) {
    auto c = dispatcher().candidates(conv(command), nullptr);
    EXPECT_TRUE(c.has_value()) << command;
    return c.has_value() ? *c : std::vector<ConvCandidate>{};
  };
  for (const std::string shape :
       {"-n 64 -c 256 -H 14 -W 14 -k 512", "-n 64 -c 2048 -H 7 -W 7 -k 512"}) {
    const auto c = first("convbfp16 " + shape + tail);
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c.front().algorithm, kConvSm90Implicit) << shape;
    const auto gemm = std::find_if(
        c.begin(), c.end(), [](const ConvCandidate& k) { return k.algorithm == kConvGemm1x1; });
    ASSERT_NE(gemm, c.end()) << shape;
    EXPECT_NE(gemm->reason.find("after conv.sm90_implicit"), std::string::npos) << gemm->reason;
  }
  EXPECT_EQ(first("convbfp16 -n 32 -c 256 -H 28 -W 28 -k 512" + tail).front().algorithm,
            kConvGemm1x1);
  EXPECT_EQ(first("convbfp16 -n 64 -c 256 -H 14 -W 14 -k 512" + tail + kNhwc).front().algorithm,
            kConvGemm1x1);
  EXPECT_EQ(first("conv -n 64 -c 256 -H 7 -W 7 -k 512" + tail).front().algorithm, kConvGemm1x1);
}

// conv.sm90_implicit's persistent configs: first on large forward and backward-data problems
// (the public dilated 3x3 on 128x128 pingpong tiles: 104.3 us, 128x256 cooperative ones 108.7,
// against 137.8 on the best non-persistent tile, H100), never for backward weight;
// BOO_CONV_PERSISTENT=0 leaves them out and BOO_CONV_PERSISTENT=first puts them ahead on a
// small problem too.
TEST_F(ConvDispatchTest, PersistentConfigsRankByTheModelAndTheSwitch) {
  const ops::ConvProblem dilated = conv(
      "convbfp16 -n 16 -c 256 -H 64 -W 64 -k 256 -y 3 -x 3 -p 2 -q 2 -u 1 -v 1 -l 2 -j 2 -F 1" +
      std::string(kNhwc));
  auto c = dispatcher().candidates(dilated, nullptr);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(c->front().config,
            "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128x64_c1x1_pingpong");
  EXPECT_EQ((*c)[1].config,
            "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x256x64_c1x1_coop");
  auto wgrad = dispatcher().candidates(resnet3x3(" -F 4"), nullptr);
  ASSERT_TRUE(wgrad.has_value());
  for (const ConvCandidate& x : *wgrad) {
    EXPECT_EQ(x.config.find("_coop"), std::string::npos);
    EXPECT_EQ(x.config.find("_pingpong"), std::string::npos);
  }
  const ops::ConvProblem small =
      conv("convbfp16 -n 1 -c 32 -H 5 -W 7 -k 48 -y 3 -x 3 -p 3 -q 3 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  auto s = dispatcher().candidates(small, nullptr);
  ASSERT_TRUE(s.has_value());
  const auto persistent = [](const ConvCandidate& x) {
    return x.config.find("_coop") != std::string::npos ||
           x.config.find("_pingpong") != std::string::npos;
  };
  EXPECT_FALSE(persistent(s->front())) << s->front().config;
  auto first = dispatcher_with("BOO_CONV_PERSISTENT", "first").candidates(small, nullptr);
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(persistent(first->front())) << first->front().config;
  for (const char* schedule : {"coop", "pingpong"}) {
    auto only = dispatcher_with("BOO_CONV_PERSISTENT", schedule).candidates(small, nullptr);
    ASSERT_TRUE(only.has_value());
    EXPECT_NE(only->front().config.find(std::string("_") + schedule), std::string::npos)
        << only->front().config;
  }
  auto off = dispatcher_with("BOO_CONV_PERSISTENT", "0").candidates(dilated, nullptr);
  ASSERT_TRUE(off.has_value());
  for (const ConvCandidate& x : *off) EXPECT_FALSE(persistent(x)) << x.config;
}

// conv.gemm_1d: the public 1D audio layer as its GEMMs (the interior over overlapping windows of
// x, and the two edge columns) ranks after conv.sm90_implicit's pingpong tiles (264.6 against
// 288.4 us, H100); BOO_CONV_GEMM_1D=0 leaves it out; a dilated filter is not one window; a
// forced GEMM config goes through it; a plan holds one GEMM plan per mapped GEMM.
TEST_F(ConvDispatchTest, OneDimensionalConvolutionsRunAsWindowGemms) {
  const std::string audio =
      "convbfp16 -n 32 -c 512 -H 1 -W 4096 -k 512 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -F 1";
  const ops::ConvProblem p = conv(audio + " -j 1" + kNhwc);
  std::vector<std::string> notes;
  auto c = dispatcher().candidates(p, &notes);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(c->front().config,
            "conv.sm90_implicit_bf16_f32acc_fprop_1d_nobias.none_t128x128x64_c1x1_pingpong");
  const auto windows = std::find_if(
      c->begin(), c->end(), [](const ConvCandidate& x) { return x.algorithm == kConvGemm1d; });
  ASSERT_NE(windows, c->end());
  EXPECT_NE(windows->reason.find("2 edge columns"), std::string::npos) << windows->reason;
  // A small one (a few launches' worth of work) stays on the single implicit kernel, with
  // conv.gemm_1d after it; BOO_CONV_GEMM_1D=first puts it first anyway.
  const ops::ConvProblem small =
      conv("convbfp16 -n 4 -c 64 -H 1 -W 1000 -k 128 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  auto s = dispatcher().candidates(small, nullptr);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->front().algorithm, kConvSm90Implicit);
  EXPECT_TRUE(std::any_of(s->begin(), s->end(),
                          [](const ConvCandidate& x) { return x.algorithm == kConvGemm1d; }));
  DispatchOptions first;
  first.conv_gemm_1d_first = true;
  auto f = ConvDispatcher(*cache_, nullptr, *gemm_, first).candidates(small, nullptr);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->front().algorithm, kConvGemm1d);
  DispatchOptions off;
  off.rank_conv_gemm_1d = false;
  notes.clear();
  auto without = ConvDispatcher(*cache_, nullptr, *gemm_, off).candidates(p, &notes);
  ASSERT_TRUE(without.has_value());
  for (const ConvCandidate& x : *without) EXPECT_NE(x.algorithm, kConvGemm1d);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_GEMM_1D=0") != std::string::npos;
  }));
  notes.clear();
  auto dilated = dispatcher().candidates(conv(audio + " -j 2" + kNhwc), &notes);
  ASSERT_TRUE(dilated.has_value());
  for (const ConvCandidate& x : *dilated) EXPECT_NE(x.algorithm, kConvGemm1d);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("the dilation must be 1") != std::string::npos;
  }));
  auto forced = dispatcher(
                    "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x128x64_c1x1_"
                    "pingpong_persistent_sw1.rh")
                    .candidates(p, nullptr);
  ASSERT_TRUE(forced.has_value()) << forced.status().message();
  EXPECT_EQ(algorithms(*forced), std::vector<std::string>{std::string(kConvGemm1d)});
  DispatchOptions windows_first;
  windows_first.conv_gemm_1d_first = true;
  ConvDispatcher d(*cache_, nullptr, *gemm_, windows_first);
  auto plan = d.plan(p);
  ASSERT_TRUE(plan.has_value()) << plan.status().message();
  EXPECT_EQ((*plan)->algorithm, kConvGemm1d);
  EXPECT_EQ((*plan)->gemms.size(), 3u);
  EXPECT_EQ((*plan)->mappings.size(), 3u);
  EXPECT_NE((*plan)->config.find(", edges "), std::string::npos) << (*plan)->config;
}

// conv.pointwise: a few-channel 1x1 forward (C = K = 35) streams pixels through its own kernel
// before the padded tensor-core configs (BOO_CONV_POINTWISE=0 leaves it out); with channels
// that are 16-byte vectors the GEMM stays first and conv.pointwise comes after the tensor-core
// algorithms; other problems say why it does not apply.
TEST_F(ConvDispatchTest, PointwiseStreamsFewChannelOneByOnes) {
  const auto p =
      conv("convbfp16 -n 128 -c 35 -H 48 -W 32 -k 35 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  ASSERT_TRUE(conv_pointwise_supports(p).is_ok());
  std::vector<std::string> notes;
  DispatchOptions off_options;
  off_options.rank_conv_pointwise = false;
  auto off = ConvDispatcher(*cache_, nullptr, *gemm_, off_options).candidates(p, &notes);
  ASSERT_TRUE(off.has_value());
  for (const std::string& a : algorithms(*off)) EXPECT_NE(a, kConvPointwise);
  bool told = false;
  for (const std::string& n : notes) told |= n.find("BOO_CONV_POINTWISE=0") != std::string::npos;
  EXPECT_TRUE(told);
  const DispatchOptions on;
  auto c = ConvDispatcher(*cache_, nullptr, *gemm_, on).candidates(p, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->front().algorithm, kConvPointwise);
  EXPECT_EQ(c->front().config, "conv.pointwise_bf16_f32acc_fprop_2d_nobias.none");
  EXPECT_NE(c->front().reason.find("super-row streaming"), std::string::npos) << c->front().reason;
  EXPECT_EQ(c->back().algorithm, kConvDirect);
  // fp32 runs the CUDA-core kernel, modelled by its FMAs.
  const auto fp32 =
      conv("conv -n 128 -c 35 -H 48 -W 32 -k 35 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  std::string why;
  EXPECT_GT(predict_conv_pointwise_us(fp32, gemm_->device_model(), &why), 0.0);
  EXPECT_NE(why.find("pixel-streaming"), std::string::npos) << why;
  // 64 channels each way: the GEMM first, conv.pointwise just before the fallback.
  const auto aligned =
      conv("convbfp16 -n 8 -c 64 -H 14 -W 14 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  auto a = ConvDispatcher(*cache_, nullptr, *gemm_, on).candidates(aligned, nullptr);
  ASSERT_TRUE(a.has_value());
  ASSERT_GE(a->size(), 3u);
  EXPECT_EQ(a->front().algorithm, kConvGemm1x1);
  EXPECT_EQ((*a)[a->size() - 2].algorithm, kConvPointwise);
  // Why not, for what it does not take.
  struct Case {
    std::string command;
    std::string why;
  };
  for (const Case& k : std::vector<Case>{
           {"convbfp16 -n 2 -c 35 -H 9 -W 9 -k 35 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "1x1 filter"},
           {"convbfp16 -n 2 -c 35 -H 9 -W 9 -k 35 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2 -l 1 -j 1 -F 1",
            "stride 1"},
           {"convbfp16 -n 2 -c 65 -H 9 -W 9 -k 35 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1",
            "at most 64"},
           {"convbfp16 -n 2 -c 35 -H 9 -W 9 -k 35 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 2",
            "forward pass only"}}) {
    const core::Status s = conv_pointwise_supports(conv(k.command + kNhwc));
    EXPECT_FALSE(s.is_ok()) << k.command;
    EXPECT_NE(s.message().find(k.why), std::string::npos) << s.message();
  }
  // A forced config runs whether ranked or not.
  auto forced =
      dispatcher("conv.pointwise_bf16_f32acc_fprop_2d_nobias.none").candidates(p, nullptr);
  ASSERT_TRUE(forced.has_value()) << forced.status().message();
  EXPECT_EQ(forced->front().algorithm, kConvPointwise);
}

// conv.grouped's TMA kernel (kernels/conv_grouped_tma.cuh) is modelled where it runs: 1D and 2D
// layers whose blocks hold 64 output channels. ResNeXt's stride-2 G = 32 layer (measured 58 us
// on it against 95 on the dense expansion, H100) now ranks the direct kernel first.
TEST_F(ConvDispatchTest, GroupedTmaKernelIsModelledWhereItRuns) {
  const std::string nhwc(kNhwc);
  const auto reason = [&](const std::string& command) {
    auto c = ConvDispatcher(*cache_, nullptr, *gemm_, DispatchOptions{})
                 .candidates(conv(command), nullptr);
    EXPECT_TRUE(c.has_value());
    return c.has_value() && !c->empty() ? c->front().config + ": " + c->front().reason
                                        : std::string();
  };
  const std::string resnext =
      "convbfp16 -n 64 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 32 -F "
      "1" +
      nhwc;
  EXPECT_NE(reason(resnext).find("kernel (TMA)"), std::string::npos) << reason(resnext);
  const std::string strided =
      "convbfp16 -n 64 -c 256 -H 56 -W 56 -k 256 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 32 -F "
      "1" +
      nhwc;
  EXPECT_EQ(reason(strided).rfind("conv.grouped_bf16_f32acc_fprop_2d_nobias.none: ", 0), 0u)
      << reason(strided);
  EXPECT_TRUE(grouped_tma_applies(conv(strided)));
  // C/G > K/G (blocks of fewer than 64 output channels) and a 3D filter: the cp.async kernel.
  EXPECT_FALSE(grouped_tma_applies(conv(
      "convbfp16 -n 2 -c 64 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 2 -F 1" +
      nhwc)));
  const std::string video =
      "convbfp16 --spatial_dim 3 -n 2 -c 64 -! 8 -H 14 -W 14 -k 64 -@ 3 -y 3 -x 3 -$ 1 -p 1 -q 1 "
      "-# 1 -u 1 -v 1 -^ 1 -l 1 -j 1 -g 8 -F 1 --in_layout NDHWC --out_layout NDHWC "
      "--fil_layout NDHWC";
  EXPECT_FALSE(grouped_tma_applies(conv(video)));
  EXPECT_EQ(reason(video).find("(TMA)"), std::string::npos) << reason(video);
  // The kernels' own plans decide: 32-channel groups at stride 2 overflow the cp.async kernel's
  // tiles but fit the TMA kernel's; with K/G below C/G neither fits, and the direct kernel is
  // not offered (its runner would refuse it).
  const std::string wide =
      "convbfp16 -n 8 -c 128 -H 30 -W 30 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 4 -F 1" +
      nhwc;
  EXPECT_TRUE(conv_grouped_direct_supports(conv(wide)).is_ok());
  EXPECT_TRUE(grouped_tma_applies(conv(wide)));
  const core::Status narrow = conv_grouped_direct_supports(conv(
      "convbfp16 -n 2 -c 128 -H 64 -W 64 -k 32 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 4 -F 1" +
      nhwc));
  EXPECT_FALSE(narrow.is_ok());
  EXPECT_NE(narrow.message().find("shared memory"), std::string::npos) << narrow.message();
}

// conv.grouped's direct kernel: the ResNeXt G = 32 layer (8 channels a group) runs each group's
// small GEMM on its own kernel, first, before the dense expansion (32x the work);
// BOO_CONV_GROUPED_DIRECT=0 leaves it out; problems it does not take say why; a forced config
// runs and its source is the direct kernel's, not a conv.sm90_implicit one.
TEST_F(ConvDispatchTest, GroupedDirectKernelComesBeforeTheDenseExpansion) {
  const auto p = conv(
      "convbfp16 -n 64 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 32 "
      "-F 1" +
      std::string(kNhwc));
  ASSERT_TRUE(conv_grouped_direct_supports(p).is_ok());
  const DispatchOptions on;
  auto c = ConvDispatcher(*cache_, nullptr, *gemm_, on).candidates(p, nullptr);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  ASSERT_GE(c->size(), 3u);
  EXPECT_EQ(c->front().algorithm, kConvGrouped);
  EXPECT_EQ(c->front().config, "conv.grouped_bf16_f32acc_fprop_2d_nobias.none");
  EXPECT_NE(c->front().reason.find("per-group mma.sync"), std::string::npos) << c->front().reason;
  EXPECT_EQ((*c)[1].algorithm, kConvGrouped);
  EXPECT_NE((*c)[1].config.find("_dense"), std::string::npos) << (*c)[1].config;
  EXPECT_EQ(c->back().algorithm, kConvDirect);
  DispatchOptions off_options;
  off_options.rank_conv_grouped_direct = false;
  std::vector<std::string> notes;
  auto off = ConvDispatcher(*cache_, nullptr, *gemm_, off_options).candidates(p, &notes);
  ASSERT_TRUE(off.has_value());
  for (const ConvCandidate& k : *off) {
    EXPECT_NE(k.config.rfind("conv.grouped_", 0), 0u) << k.config;
  }
  bool told = false;
  for (const std::string& n : notes)
    told |= n.find("BOO_CONV_GROUPED_DIRECT=0") != std::string::npos;
  EXPECT_TRUE(told);
  struct Case {
    std::string command;
    std::string why;
  };
  for (const Case& k : std::vector<Case>{
           {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 16 -F "
            "1",
            "C/G = 4"},
           {"convbfp16 -n 2 -c 128 -H 9 -W 9 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 2 "
            "-F 1",
            "up to 32"},
           {"conv -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 8 -F 1",
            "fp16 and bf16"},
           {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 8 -F "
            "2",
            "forward pass only"},
           {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 64 -F "
            "1",
            "groups = 64"}}) {
    const core::Status s = conv_grouped_direct_supports(conv(k.command + kNhwc));
    EXPECT_FALSE(s.is_ok()) << k.command;
    EXPECT_NE(s.message().find(k.why), std::string::npos) << s.message();
  }
  const ConvDispatcher forced_dispatcher =
      dispatcher("conv.grouped_bf16_f32acc_fprop_2d_nobias.none");
  auto forced = forced_dispatcher.candidates(p, nullptr);
  ASSERT_TRUE(forced.has_value()) << forced.status().message();
  ASSERT_EQ(forced->size(), 1u);
  EXPECT_EQ(forced->front().algorithm, kConvGrouped);
  auto src = forced_dispatcher.source(forced->front());
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_NE(src->text.find("ConvGroupedRunner"), std::string::npos);
}

TEST_F(ConvDispatchTest, ImplicitGemmSaysWhyItDoesNotApply) {
  struct Case {
    std::string command;
    std::string why;
  };
  const Case cases[] = {
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 4 -F 1",
       "groups = 1 only"},
      {"convbfp16 -n 2 -c 35 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
       "C and K must be multiples of 8"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -F 2",
       "unit-stride"},
      {"conv -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4",
       "tf32 runs forward only"},
      {"conv -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 --math fp32",
       "fp32 without tf32"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 -b 1 "
       "--activation relu6",
       "relu6"},
  };
  for (const Case& c : cases) {
    const ops::ConvProblem p = conv(c.command + kNhwc);
    const core::Status s = conv_sm90_supports(p);
    EXPECT_FALSE(s.is_ok()) << c.command;
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s.message();
    std::vector<std::string> notes;
    DispatchOptions no_grouped_direct;  // (it takes the G = 4 problem: its own test)
    no_grouped_direct.rank_conv_grouped_direct = false;
    no_grouped_direct.rank_conv_taps = false;          // (it takes relu6: its own test)
    no_grouped_direct.rank_conv_wgrad_direct = false;  // (it takes tf32: its own test)
    auto list = ConvDispatcher(*cache_, nullptr, *gemm_, no_grouped_direct).candidates(p, &notes);
    ASSERT_TRUE(list.has_value());
    // Only the padding copies make the C = 35 problem an implicit GEMM, and only the stride
    // phases (forward convolutions) the strided backward data.
    ASSERT_FALSE(list->empty());
    EXPECT_EQ(list->back().algorithm, kConvDirect) << c.command;
    const bool phased = conv_dgrad_phases_supports(p).is_ok();
    EXPECT_EQ(phased, c.why == "unit-stride") << c.command;
    for (size_t i = 0; i + 1 < list->size(); ++i) {
      EXPECT_EQ((*list)[i].algorithm, phased ? kConvSm90Implicit : kConvPaddedChannels)
          << c.command;
      if (phased) {
        EXPECT_TRUE((*list)[i].config.ends_with("_phases")) << (*list)[i].config;
      }
    }
    EXPECT_EQ(list->size() > 1, conv_padded_supports(p).is_ok() || phased) << c.command;
  }
  EXPECT_TRUE(conv_sm90_supports(resnet3x3(" -F 2")).is_ok());
  EXPECT_TRUE(conv_sm90_supports(resnet3x3(" -F 4")).is_ok());
}

TEST_F(ConvDispatchTest, PaddedChannelsRunsMisalignedChannelsOnTheImplicitGemm) {
  // The C = 3 stem: padded to C = 8 (forward: space-to-depth), ranked before the fallback.
  const std::string stem =
      "convbfp16 -n 2 -c 3 -H 31 -W 31 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 "
      "-l 1 -j 1 -F ";
  // (conv.padded_channels' direct kernel, first on the forward stem, is left out: this checks
  // the padded configs; FewChannelsKernelRanksByTheModelAndTheSwitch checks the kernel.)
  const ConvDispatcher padded_only = dispatcher_with("BOO_CONV_FEW_CHANNELS", "0");
  for (const std::string dir : {"1", "4"}) {
    const ops::ConvProblem p = conv(stem + dir + kNhwc);
    ASSERT_TRUE(conv_padded_supports(p).is_ok()) << dir;
    auto list = padded_only.candidates(p, nullptr);
    ASSERT_TRUE(list.has_value());
    EXPECT_EQ(list->front().algorithm, kConvPaddedChannels);
    EXPECT_EQ(list->front().config.rfind(space::kConvSm90Prefix, 0), 0u);
    EXPECT_NE(
        list->front().reason.find(dir == "1" ? "space-to-depth to C=32" : "padded to C=8 K=64"),
        std::string::npos)
        << list->front().reason;
    EXPECT_EQ(list->back().algorithm, kConvDirect);
  }
  // The forward stem runs space-to-depth: 2x2 blocks of 3 channels padded to a 32-wide k-block,
  // a 4x4 filter, stride 1, no padding, over the output extent plus the taps.
  const ops::ConvProblem fwd = conv(stem + "1" + kNhwc);
  ASSERT_TRUE(conv_space_to_depth_supports(fwd).is_ok());
  const ops::ConvProblem blocked = space_to_depth_problem(fwd);
  EXPECT_EQ(blocked.c, 32);
  EXPECT_EQ(blocked.k, 64);
  EXPECT_EQ(blocked.filter, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(blocked.stride, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(blocked.padding, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(blocked.input, (std::vector<int64_t>{fwd.output()[0] + 3, fwd.output()[1] + 3}));
  EXPECT_EQ(blocked.output(), fwd.output());
  auto first = padded_only.candidates(fwd, nullptr);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->front().config.substr(first->front().config.size() - 4), "_s2d");
  // Not for backward passes, unit strides, dilation, or channels that fill a k-block.
  EXPECT_FALSE(conv_space_to_depth_supports(conv(stem + "4" + kNhwc)).is_ok());
  const std::string s1 = "convbfp16 -n 2 -c 3 -H 31 -W 31 -k 64 -y 7 -x 7 -p 3 -q 3 -u 1 -v 1 ";
  EXPECT_FALSE(conv_space_to_depth_supports(conv(s1 + "-l 1 -j 1 -F 1" + kNhwc)).is_ok());
  const std::string s2 = "convbfp16 -n 2 -c 3 -H 31 -W 31 -k 64 -y 3 -x 3 -p 2 -q 2 -u 2 -v 2 ";
  EXPECT_FALSE(conv_space_to_depth_supports(conv(s2 + "-l 2 -j 2 -F 1" + kNhwc)).is_ok());
  const std::string wide = "convbfp16 -n 2 -c 35 -H 31 -W 31 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 ";
  EXPECT_NE(conv_space_to_depth_supports(conv(wide + "-l 1 -j 1 -F 1" + kNhwc))
                .message()
                .find("fills a k-block"),
            std::string::npos);

  // Backward data with a stride is beyond CUTLASS's dgrad, padded or not.
  const core::Status dgrad = conv_padded_supports(conv(stem + "2" + kNhwc));
  EXPECT_NE(dgrad.message().find("unit-stride"), std::string::npos) << dgrad.message();

  // K = 35 too, and a 1x1 whose GEMM would be unaligned: without conv.pointwise (which takes it
  // first, PointwiseStreamsFewChannelOneByOnes) the padded implicit GEMM comes first, the GEMM
  // second. NCHW tensors are relaid in the same copies.
  const ops::ConvProblem one =
      conv("convbfp16 -n 128 -c 35 -H 48 -W 32 -k 35 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1");
  const ops::ConvProblem q = padded_problem(one);
  EXPECT_EQ(q.c, 40);
  EXPECT_EQ(q.k, 40);
  EXPECT_EQ(q.in_layout, core::Layout::kChannelsLast);
  DispatchOptions no_pointwise;
  no_pointwise.rank_conv_pointwise = false;
  auto list = ConvDispatcher(*cache_, nullptr, *gemm_, no_pointwise).candidates(one, nullptr);
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(list->front().algorithm, kConvPaddedChannels);
  const std::vector<std::string> names = algorithms(*list);
  EXPECT_NE(std::find(names.begin(), names.end(), std::string(kConvGemm1x1)), names.end());
  // The copies are charged: the padded problem costs more than the same problem aligned.
  const space::ConvSm90Config c = *space::ConvSm90Config::parse_name(list->front().config);
  EXPECT_GT(predict_conv_padded_us(one, c, DeviceModel{}),
            predict_conv_sm90_us(q, c, DeviceModel{}));

  // fp32 pads to 4 channels; aligned channels, or groups, leave conv.padded_channels out.
  EXPECT_EQ(padded_problem(conv("conv -n 2 -c 3 -H 9 -W 9 -k 6 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l "
                                "1 -j 1 -F 1"))
                .k,
            8);
  EXPECT_NE(conv_padded_supports(resnet3x3(" -F 1")).message().find("does not apply"),
            std::string::npos);
  EXPECT_NE(conv_padded_supports(conv("convbfp16 -n 2 -c 70 -H 9 -W 9 -k 70 -y 3 -x 3 -p 1 -q 1 "
                                      "-u 1 -v 1 -l 1 -j 1 -g 2 -F 1" +
                                      std::string(kNhwc)))
                .message()
                .find("groups = 1 only"),
            std::string::npos);

  // A conv.sm90_implicit config forced on misaligned channels runs behind the padding.
  const std::string forced = "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x64x64_c1x1";
  auto f = dispatcher(forced).candidates(one, nullptr);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ(f->front().algorithm, kConvPaddedChannels);
}

TEST_F(ConvDispatchTest, GroupedRunsTheDenseExpansionWhereItBeatsTheFallback) {
  // ResNeXt's G = 32 layer of 8 channels per group: the dense problem on the implicit GEMM comes
  // before conv.direct, in every direction (ranked by default; forward and backward weight have
  // direct kernels that come first, GroupedDirectKernelComesBeforeTheDenseExpansion and
  // GroupedWgradRunsTheDirectKernelOnItsGroupsOnly).
  DispatchOptions no_grouped_direct;
  no_grouped_direct.rank_conv_grouped_direct = false;
  no_grouped_direct.rank_conv_wgrad_direct = false;
  ConvDispatcher ranked(*cache_, nullptr, *gemm_, no_grouped_direct);
  const std::string resnext =
      "convbfp16 -n 64 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 "
      "-v 1 -l 1 -j 1 -g 32 -F ";
  for (const std::string dir : {"1", "2", "4"}) {
    const ops::ConvProblem p = conv(resnext + dir + kNhwc);
    ASSERT_TRUE(conv_grouped_supports(p).is_ok()) << dir;
    EXPECT_EQ(dense_problem(p).groups, 1);
    auto list = ranked.candidates(p, nullptr);
    ASSERT_TRUE(list.has_value());
    EXPECT_EQ(list->front().algorithm, kConvGrouped) << dir;
    EXPECT_EQ(list->front().config.substr(list->front().config.size() - 6), "_dense");
    EXPECT_NE(list->front().reason.find("32x the work"), std::string::npos);
    EXPECT_EQ(list->back().algorithm, kConvDirect);
    // The expansion costs G times the grouped work: more than the dense problem's own time.
    const space::ConvSm90Config c = *space::ConvSm90Config::parse_name(list->front().config);
    space::ConvSm90Config plain = c;
    plain.dense_groups = false;
    EXPECT_GT(predict_conv_grouped_us(p, c, DeviceModel{}),
              predict_conv_sm90_us(dense_problem(p), plain, DeviceModel{}));
  }
  // Many groups of two channels: G times the work loses to conv.direct; the note says so.
  std::vector<std::string> notes;
  auto many = ranked.candidates(
      conv("convbfp16 -n 8 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 "
           "-g 64 -F 1"),
      &notes);
  ASSERT_TRUE(many.has_value());
  EXPECT_EQ(algorithms(*many), std::vector<std::string>{std::string(kConvDirect)});
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("conv.grouped left out") != std::string::npos;
  }));
  // BOO_CONV_GROUPED=0 leaves it out: conv.direct, with a note that says why.
  notes.clear();
  auto off =
      dispatcher_with("BOO_CONV_GROUPED", "0").candidates(conv(resnext + "1" + kNhwc), &notes);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(algorithms(*off), std::vector<std::string>{std::string(kConvDirect)});
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_GROUPED=0") != std::string::npos;
  }));
  // Depthwise (G = C) and ungrouped problems are not conv.grouped's.
  EXPECT_NE(conv_grouped_supports(
                conv("convbfp16 -n 2 -c 16 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 "
                     "-j 1 -g 16 -F 1"))
                .message()
                .find("depthwise"),
            std::string::npos);
  EXPECT_FALSE(conv_grouped_supports(resnet3x3(" -F 1")).is_ok());
  // A forced dense config names conv.grouped; on an ungrouped problem it is refused.
  const std::string forced =
      "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128x64_c1x1_dense";
  auto f = dispatcher(forced).candidates(conv(resnext + "1" + kNhwc), nullptr);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->front().algorithm, kConvGrouped);
  EXPECT_FALSE(dispatcher(forced).candidates(resnet3x3(" -F 1"), nullptr).has_value());
}

TEST_F(ConvDispatchTest, SplitWgradSplitsBackwardWeightWithFewTilesOverTheImages) {
  // The public 3x3 backward weight (9 tiles of 64 x 64 for 132 SMs): split over the images,
  // ranked first, before the unsplit kernels; BOO_CONV_SPLIT_WGRAD=0 leaves it out with a note.
  const ops::ConvProblem p = resnet3x3(" -F 4");
  ASSERT_TRUE(conv_split_wgrad_supports(p).is_ok());
  std::vector<std::string> notes;
  auto off = dispatcher_with("BOO_CONV_SPLIT_WGRAD", "0").candidates(p, &notes);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(off->front().algorithm, kConvSm90Implicit);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_SPLIT_WGRAD=0") != std::string::npos;
  }));
  // (Without the direct kernel, which goes first here: its own test below.)
  ConvDispatcher ranked = dispatcher_with("BOO_CONV_WGRAD_DIRECT", "0");
  auto list = ranked.candidates(p, nullptr);
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->front().algorithm, kConvSplitWgrad);
  const auto c = space::ConvSm90Config::parse_name(list->front().config);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_GT(c->wgrad_splits, 1);
  EXPECT_EQ(c->stages, 0);  // the slices fill the SMs: no second CTA per SM
  EXPECT_NE(list->front().reason.find("slices side by side"), std::string::npos);
  // Cheaper than the unsplit config it splits, by the model.
  space::ConvSm90Config unsplit = *c;
  unsplit.wgrad_splits = 0;
  EXPECT_LT(predict_conv_split_wgrad_us(p, *c, DeviceModel{}),
            predict_conv_sm90_us(p, unsplit, DeviceModel{}));
  // A small problem is left to the unsplit kernel (the launches cost more than they save).
  auto small = ranked.candidates(
      conv("convbfp16 -n 4 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc)),
      nullptr);
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->front().algorithm, kConvSm90Implicit);
  // Not for other directions, fewer images than slices, or channels the implicit GEMM lacks.
  EXPECT_FALSE(conv_split_wgrad_supports(resnet3x3(" -F 1")).is_ok());
  EXPECT_FALSE(conv_split_wgrad_supports(
                   conv("convbfp16 -n 2 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 "
                        "-l 1 -j 1 -F 4" +
                        std::string(kNhwc)))
                   .is_ok());
  // A forced split config names conv.split_wgrad; on a forward problem it is refused.
  const std::string forced =
      "conv.sm90_implicit_bf16_f32acc_wgrad_2d_nobias.none_t64x64x64_c1x1_split8";
  auto f = dispatcher(forced).candidates(p, nullptr);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->front().algorithm, kConvSplitWgrad);
  EXPECT_FALSE(dispatcher(forced).candidates(resnet3x3(" -F 1"), nullptr).has_value());
}

// conv.split_wgrad's direct kernel: first on the public 3x3 backward weight (measured 68-70 us
// against 75-79 for the split CUTLASS kernels on an H100), left to the unsplit kernel on a tiny
// one (5.8 us against 15.7); BOO_CONV_WGRAD_DIRECT=0 leaves it out with a note, =first puts it
// first anywhere it applies; problems it does not take say why; a forced config runs its own
// source.
// Grouped backward weight with C = K and C/G in 8..64: the direct kernel runs each 64-channel
// chunk against its own channels only and multiplies only its groups' m-tiles, where the dense
// expansion does G times the grouped work (H200, 2026-11-30: ResNeXt's n64 c256 28x28 G = 32
// took 209.3 us on the expansion against cuDNN's 45.1;
// bench/results/2026-11-30-model-lists-h200.md).
TEST_F(ConvDispatchTest, GroupedWgradRunsTheDirectKernelOnItsGroupsOnly) {
  const std::string resnext =
      "convbfp16 -n 64 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 32 "
      "-F 4";
  const ops::ConvProblem p = conv(resnext + kNhwc);
  ASSERT_TRUE(conv_split_wgrad_direct_supports(p).is_ok());
  auto list = dispatcher().candidates(p, nullptr);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  EXPECT_EQ(list->front().algorithm, kConvSplitWgrad);
  EXPECT_EQ(list->front().config, "conv.split_wgrad_bf16_f32acc_wgrad_2d_nobias.none");
  // 4 chunks (one per 64 channels), not 16: the dense plan's c chunks are not run.
  EXPECT_NE(list->front().reason.find("x 4 chunks"), std::string::npos) << list->front().reason;
  // The dense expansion follows, predicted slower.
  const auto dense = std::find_if(list->begin(), list->end(), [](const ConvCandidate& c) {
    return c.algorithm == kConvGrouped;
  });
  ASSERT_NE(dense, list->end());
  EXPECT_GT(dense->predicted_us, 3.0 * list->front().predicted_us);
  // Grouped layers run the mma.sync kernel's model (the dense plan's steps), never the wgmma
  // kernel's, which dense layers of this size take.
  const ops::ConvProblem dense_p = conv(
      "convbfp16 -n 64 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
      std::string(kNhwc));
  const ops::ConvProblem g64 = conv(
      "convbfp16 -n 64 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 4 "
      "-F 4" +
      std::string(kNhwc));
  const DeviceModel d;
  std::string why;
  predict_conv_split_wgrad_direct_us(g64, d, &why);
  EXPECT_NE(why.find("mma.sync"), std::string::npos) << why;
  predict_conv_split_wgrad_direct_us(dense_p, d, &why);
  EXPECT_NE(why.find("wgmma"), std::string::npos) << why;
}

TEST_F(ConvDispatchTest, SplitWgradDirectKernelRanksByTheModelAndTheSwitch) {
  const ops::ConvProblem p = resnet3x3(" -F 4");
  ASSERT_TRUE(conv_split_wgrad_direct_supports(p).is_ok());
  auto list = dispatcher().candidates(p, nullptr);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  EXPECT_EQ(list->front().algorithm, kConvSplitWgrad);
  EXPECT_EQ(list->front().config, "conv.split_wgrad_bf16_f32acc_wgrad_2d_nobias.none");
  // Stride 1 with 64 channels and 9 taps: the wgmma kernel's model; 32 channels: mma.sync's.
  EXPECT_NE(list->front().reason.find("wgmma tiles"), std::string::npos) << list->front().reason;
  EXPECT_NE(list->front().reason.find("132 slices"), std::string::npos) << list->front().reason;
  std::string why;
  predict_conv_split_wgrad_direct_us(
      conv("convbfp16 -n 64 -c 32 -H 56 -W 56 -k 32 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc)),
      DeviceModel{}, &why);
  EXPECT_NE(why.find("mma.sync"), std::string::npos) << why;
  const ops::ConvProblem tiny =
      conv("convbfp16 -n 1 -c 64 -H 9 -W 11 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc));
  auto small = dispatcher().candidates(tiny, nullptr);
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->front().algorithm, kConvSm90Implicit);
  EXPECT_TRUE(std::any_of(small->begin(), small->end(), [](const ConvCandidate& c) {
    return c.config == "conv.split_wgrad_bf16_f32acc_wgrad_2d_nobias.none";
  }));
  ConvDispatcher first = dispatcher_with("BOO_CONV_WGRAD_DIRECT", "first");
  ConvDispatcher off = dispatcher_with("BOO_CONV_WGRAD_DIRECT", "0");
  auto forced_first = first.candidates(tiny, nullptr);
  ASSERT_TRUE(forced_first.has_value());
  EXPECT_EQ(forced_first->front().config, "conv.split_wgrad_bf16_f32acc_wgrad_2d_nobias.none");
  std::vector<std::string> notes;
  auto without = off.candidates(p, &notes);
  ASSERT_TRUE(without.has_value());
  for (const ConvCandidate& c : *without) {
    EXPECT_NE(c.config.rfind("conv.split_wgrad_", 0), 0u) << c.config;
  }
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_WGRAD_DIRECT=0") != std::string::npos;
  }));
  // What it does not take, and why.
  struct Case {
    std::string command;
    std::string why;
  };
  for (const Case& k : std::vector<Case>{
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "backward weight only"},
           {"convfp32 -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4 "
            "--math fp32",
            "fp32 runs in tf32 only"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 2 "
            "-F 4",
            "groups = 2 (grouped layers need fp16 or bf16, C = K"},
           {"conv -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 2 -F 4 "
            "--math tf32",
            "groups = 2"},
           {"convbfp16 -n 8 -c 256 -H 28 -W 28 -k 256 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 "
            "-g 64 -F 4",
            "C/G in 8, 16, 32 or 64"},
           {"convbfp16 -n 8 -c 36 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4",
            "C = 36 and K = 64"}}) {
    const core::Status s = conv_split_wgrad_direct_supports(conv(k.command + kNhwc));
    ASSERT_FALSE(s.is_ok()) << k.command;
    EXPECT_NE(s.message().find(k.why), std::string::npos) << s.message();
  }
  // A forced config names conv.split_wgrad and builds the direct kernel's source.
  const ConvDispatcher forced = dispatcher("conv.split_wgrad_bf16_f32acc_wgrad_2d_nobias.none");
  auto f = forced.candidates(p, nullptr);
  ASSERT_TRUE(f.has_value()) << f.status().message();
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ(f->front().algorithm, kConvSplitWgrad);
  auto src = forced.source(f->front());
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_NE(src->text.find("ConvWgradDirectRunner"), std::string::npos);
  EXPECT_FALSE(forced.candidates(resnet3x3(" -F 1"), nullptr).has_value());
  // The model: the public line's prediction near its measured 42.9 us (H100, tiles staged by
  // TMA), and the reason says how they are staged.
  std::string model_why;
  const double us = predict_conv_split_wgrad_direct_us(p, DeviceModel{}, &model_why);
  EXPECT_GT(us, 38.0);
  EXPECT_LT(us, 48.0);
  EXPECT_NE(model_why.find("by TMA"), std::string::npos) << model_why;
  // Rows wider than a tile are staged by cp.async (1D, W 500: 2 column tiles).
  model_why.clear();
  predict_conv_split_wgrad_direct_us(
      conv(
          "convbfp16 -n 16 -c 128 -H 1 -W 500 -k 128 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
          std::string(kNhwc)),
      DeviceModel{}, &model_why);
  EXPECT_NE(model_why.find("wgmma tiles"), std::string::npos) << model_why;
  EXPECT_EQ(model_why.find("by TMA"), std::string::npos) << model_why;
}

// fp32 backward weight (tf32): CUTLASS's sm90 wgrad reads tf32 K-major only, so the direct
// kernel's tf32 form comes before conv.direct on 3x3 layers, strided ones and NCHW (behind the
// copies); its tiles are at most 128 pixels (two fp32 stages in shared memory), fewer where a
// stride widens the input tile; fp32 products (--math fp32) stay on conv.direct.
TEST_F(ConvDispatchTest, SplitWgradDirectKernelRunsFp32InTf32) {
  for (const std::string& layout : {std::string(kNhwc), std::string()}) {
    for (const char* shape : {" -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1",
                              " -n 16 -c 64 -H 57 -W 57 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2"}) {
      const ops::ConvProblem p = conv(std::string("conv") + shape + " -l 1 -j 1 -F 4" + layout);
      ASSERT_EQ(p.math, core::MathMode::kTF32);
      ASSERT_TRUE(conv_split_wgrad_direct_supports(p).is_ok()) << shape;
      auto list = dispatcher().candidates(p, nullptr);
      ASSERT_TRUE(list.has_value()) << list.status().message();
      EXPECT_EQ(list->front().config, "conv.split_wgrad_fp32_tf32_wgrad_2d_nobias.none") << shape;
      EXPECT_NE(list->front().reason.find("tf32 mma.sync"), std::string::npos)
          << list->front().reason;
      EXPECT_EQ(list->front().reason.find("wgmma"), std::string::npos) << list->front().reason;
    }
  }
  // 56-wide rows: 2 rows (112 pixels) a tile, 28 tiles an image (256 pixels would not fit).
  std::string why;
  predict_conv_split_wgrad_direct_us(
      conv("conv -n 64 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc)),
      DeviceModel{}, &why);
  EXPECT_NE(why.find("1792 pixel tiles"), std::string::npos) << why;
  // The 16-bit kernel (mma.sync: 32 channels) takes 256-pixel tiles there: 4 rows, 14 an image.
  why.clear();
  predict_conv_split_wgrad_direct_us(
      conv("convbfp16 -n 64 -c 32 -H 56 -W 56 -k 32 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc)),
      DeviceModel{}, &why);
  EXPECT_NE(why.find("896 pixel tiles"), std::string::npos) << why;
  const ops::ConvProblem strict = conv(
      "conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4 "
      "--math fp32" +
      std::string(kNhwc));
  auto list = dispatcher().candidates(strict, nullptr);
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->front().algorithm, kConvDirect);
}

// The fp32 1x1 kernel's model (predict_onebyone_wgrad_us) near what it measured on an H200
// (bench/results/2026-11-29-forced-lines-h200.md, section 5): the ResNet line 56.4 us on one
// 16-warp block an SM, n64 c16 56x56 k16 24.2 on 13 one-warp blocks an SM and 1716 slices,
// n8 c1000 7x7 k520 23.6 over 36 chunks.
TEST_F(ConvDispatchTest, OneByOneWgradModelIsNearItsMeasurements) {
  const struct {
    const char* shape;
    double measured_us;
  } lines[] = {{" -n 32 -c 256 -H 56 -W 56 -k 64", 56.4},
               {" -n 64 -c 16 -H 56 -W 56 -k 16", 24.2},
               {" -n 8 -c 1000 -H 7 -W 7 -k 520", 23.6},
               {" -n 8 -c 72 -H 14 -W 14 -k 40", 7.6}};
  for (const auto& line : lines) {
    const ops::ConvProblem p = conv(std::string("conv") + line.shape +
                                    " -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 4" + kNhwc);
    std::string why;
    const double us = predict_conv_split_wgrad_direct_us(p, DeviceModel{}, &why);
    EXPECT_NE(why.find("1x1 tf32 kernel"), std::string::npos) << why;
    expect_near_measured(us, line.measured_us, line.shape, why);
  }
}

// A 1x1 fp32 backward weight: the GEMM would run behind K-major copies on gemm.sm90_unaligned,
// so the direct tf32 kernel goes first where it is predicted faster (its 3x3 plan measured
// 1.10-1.46x faster on four such lines, the 1x1 kernel 1.2-3.0x faster than that); a bf16 one keeps
// conv.gemm_1x1 first (gemm.sm90, no copies); with BOO_CONV_WGRAD_DIRECT=first the direct kernel
// goes before the GEMM there too.
TEST_F(ConvDispatchTest, OneByOneFp32BackwardWeightTakesTheDirectKernelBeforeTheCopiedGemm) {
  for (const char* shape : {" -n 4 -c 64 -H 7 -W 7 -k 96", " -n 32 -c 256 -H 56 -W 56 -k 64"}) {
    const ops::ConvProblem p =
        conv(std::string("conv") + shape + " -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 4" + kNhwc);
    auto list = dispatcher().candidates(p, nullptr);
    ASSERT_TRUE(list.has_value()) << list.status().message();
    ASSERT_GE(list->size(), 2u);
    EXPECT_EQ(list->front().config, "conv.split_wgrad_fp32_tf32_wgrad_2d_nobias.none") << shape;
    EXPECT_NE(list->front().reason.find("before conv.gemm_1x1"), std::string::npos)
        << list->front().reason;
    // Predicted on the 1x1 kernel's plan (kernels/conv_wgrad_1x1_plan.cuh), not the 3x3 one's.
    EXPECT_NE(list->front().reason.find("1x1 tf32 kernel"), std::string::npos)
        << list->front().reason;
    EXPECT_EQ((*list)[1].algorithm, kConvGemm1x1) << shape;
    // Listed once.
    EXPECT_EQ(std::count_if(list->begin(), list->end(),
                            [](const ConvCandidate& c) {
                              return c.config == "conv.split_wgrad_fp32_tf32_wgrad_2d_nobias.none";
                            }),
              1)
        << shape;
  }
  // n64 c16 56x56 k16: gemm.skinny gathers both MN-major fp32 operands there (measured 333 us
  // against the 1x1 kernel's 24); its model now says so and the GEMM would be copied instead, and
  // where gemm.skinny is the GEMM's pick the direct kernel goes first regardless.
  const ops::ConvProblem narrow =
      conv("conv -n 64 -c 16 -H 56 -W 56 -k 16 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc));
  auto narrow_list = dispatcher().candidates(narrow, nullptr);
  ASSERT_TRUE(narrow_list.has_value()) << narrow_list.status().message();
  EXPECT_EQ(narrow_list->front().config, "conv.split_wgrad_fp32_tf32_wgrad_2d_nobias.none");
  EXPECT_NE(narrow_list->front().reason.find("before conv.gemm_1x1"), std::string::npos)
      << narrow_list->front().reason;
  const ops::ConvProblem half =
      conv("convbfp16 -n 32 -c 256 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 4" +
           std::string(kNhwc));
  auto list = dispatcher().candidates(half, nullptr);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  EXPECT_EQ(list->front().algorithm, kConvGemm1x1);
  ConvDispatcher first = dispatcher_with("BOO_CONV_WGRAD_DIRECT", "first");
  auto forced_first = first.candidates(half, nullptr);
  ASSERT_TRUE(forced_first.has_value());
  EXPECT_EQ(forced_first->front().config, "conv.split_wgrad_bf16_f32acc_wgrad_2d_nobias.none");
  EXPECT_EQ((*forced_first)[1].algorithm, kConvGemm1x1);
}

// Problems at the parser's size limits rank without overflow (the sanitizer build aborts on
// signed overflow): a 2^31-tall transposed filter, a 3e9-tall image (found by the CLI audit).
TEST_F(ConvDispatchTest, HugeBackwardWeightRanksWithoutOverflow) {
  for (const char* command : {"convbfp16 -n 2 -c 8 -H 8 -W 8 -k 8 -y 2147483647 -x 3 -m trans -F 4",
                              "convbfp16 -n 2 -c 8 -H 3000000000 -W 8 -k 8 -y 3 -x 3 -F 4",
                              "conv -n 2 -c 8 -H 3000000000 -W 8 -k 8 -y 3 -x 3 -u 7 -v 5 -F 4"}) {
    auto list = dispatcher().candidates(conv(command), nullptr);
    ASSERT_TRUE(list.has_value()) << list.status().message();
    EXPECT_FALSE(list->empty()) << command;
  }
}

TEST_F(ConvDispatchTest, FewChannelsKernelRanksByTheModelAndTheSwitch) {
  // The public C = 3 stem: the direct kernel first (its 160-element reduction against
  // space-to-depth's 512), the padded configs after it.
  const ops::ConvProblem stem =
      conv("convbfp16 -n 64 -c 3 -H 224 -W 224 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  ASSERT_TRUE(conv_few_channels_supports(stem).is_ok());
  auto list = dispatcher().candidates(stem, nullptr);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  EXPECT_EQ(list->front().algorithm, kConvPaddedChannels);
  EXPECT_EQ(list->front().config, "conv.padded_channels_bf16_f32acc_fprop_2d_nobias.none");
  EXPECT_NE(list->front().reason.find("few-channel warpgroup-MMA"), std::string::npos)
      << list->front().reason;
  EXPECT_TRUE(std::any_of(list->begin(), list->end(), [](const ConvCandidate& c) {
    return c.algorithm == kConvPaddedChannels && c.config.find("_s2d") != std::string::npos;
  }));
  ConvDispatcher off = dispatcher_with("BOO_CONV_FEW_CHANNELS", "0");
  std::vector<std::string> notes;
  auto without = off.candidates(stem, &notes);
  ASSERT_TRUE(without.has_value());
  for (const ConvCandidate& c : *without) {
    EXPECT_NE(c.config.rfind("conv.padded_channels_", 0), 0u) << c.config;
  }
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_FEW_CHANNELS=0") != std::string::npos;
  }));
  // What it does not take, and why.
  struct Case {
    std::string command;
    std::string why;
  };
  for (const Case& k : std::vector<Case>{
           {"convbfp16 -n 8 -c 3 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2",
            "forward pass only"},
           {"conv -n 8 -c 3 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "fp16 and bf16 only"},
           {"convbfp16 -n 8 -c 6 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 2 "
            "-F 1",
            "groups = 2"},
           {"convbfp16 -n 8 -c 3 -H 28 -W 28 -k 60 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "C = 3 and K = 60"},
           {"convbfp16 -n 8 -c 24 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "C = 24 and K = 64"},
           {"convbfp16 -n 8 -c 3 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 2 -F 1",
            "dilation 2 along W"},
           {"convbfp16 -n 8 -c 15 -H 64 -W 64 -k 64 -y 9 -x 9 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "exceeds 512 elements"}}) {
    const core::Status s = conv_few_channels_supports(conv(k.command + kNhwc));
    ASSERT_FALSE(s.is_ok()) << k.command;
    EXPECT_NE(s.message().find(k.why), std::string::npos) << s.message();
  }
  // A forced config names conv.padded_channels and builds the direct kernel's source.
  const ConvDispatcher forced = dispatcher("conv.padded_channels_bf16_f32acc_fprop_2d_nobias.none");
  auto f = forced.candidates(stem, nullptr);
  ASSERT_TRUE(f.has_value()) << f.status().message();
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ(f->front().algorithm, kConvPaddedChannels);
  auto src = forced.source(f->front());
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_NE(src->text.find("ConvFewChannelsRunner"), std::string::npos);
  // The model: the stem's 7 filter rows of 22 elements (a leading element and 7 taps x 3
  // channels) in 10 k16 steps, 16 x 16 tiles (few_squarer_tiles), 12 a block, staged and stored
  // by TMA. Its constants were fitted to the kernel of 2026-11-29 (82.2-85.9 us on an H200,
  // bench/results/2026-11-29-few-tma-h200.md); it predicts 75 us where the kernel of
  // 2026-12-01 measured 52.6-54.5 (bench/results/2026-12-01-few-setup-h200.md): an
  // overestimate that only ever favours the padded configs, several times slower on the stems.
  std::string why;
  const double us = predict_conv_few_channels_us(stem, DeviceModel{}, &why);
  EXPECT_GT(us, 50.0) << why;
  EXPECT_LT(us, 80.0) << why;
  // Rows that are not whole 16-byte vectors (W C = 669) stage element by element: slower.
  const ops::ConvProblem odd =
      conv("convbfp16 -n 64 -c 3 -H 223 -W 223 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  EXPECT_GT(predict_conv_few_channels_us(odd, DeviceModel{}, nullptr), us + 5.0);
  // Small problems pay the block's set-up: an 11x11 stride-4 filter of 96 channels goes to the
  // padded configs (15.0 us measured against the direct kernel's 37.0).
  const ops::ConvProblem alexnet =
      conv("convbfp16 -n 2 -c 3 -H 67 -W 71 -k 96 -y 11 -x 11 -p 2 -q 2 -u 4 -v 4 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  auto small = dispatcher().candidates(alexnet, nullptr);
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->front().config.rfind(space::kConvSm90Prefix, 0), 0u) << small->front().config;
  EXPECT_TRUE(std::any_of(small->begin(), small->end(), [](const ConvCandidate& c) {
    return c.config == "conv.padded_channels_bf16_f32acc_fprop_2d_nobias.none";
  }));
}

TEST_F(ConvDispatchTest, TapsKernelRanksByTheModelAndTheSwitch) {
  // ResNet's 64-channel 3x3 forward: conv.sm90_taps first (30.5 us measured against 43.2 for the
  // implicit GEMM's best config, bench/results/2026-11-27-conv-taps-h100.md; 28.3-28.8 with tiles
  // of 232 positions and the mma in turns, 2026-11-30-taps-turns-h200.md), the implicit GEMM's
  // configs after it.
  const ops::ConvProblem public3x3 = resnet3x3(" -F 1");
  ASSERT_TRUE(conv_sm90_taps_supports(public3x3).is_ok());
  auto list = dispatcher().candidates(public3x3, nullptr);
  ASSERT_TRUE(list.has_value()) << list.status().message();
  ASSERT_GE(list->size(), 3u);
  EXPECT_EQ(list->front().algorithm, kConvSm90Taps);
  EXPECT_EQ(list->front().config, "conv.sm90_taps_bf16_f32acc_fprop_2d_nobias.none");
  EXPECT_NE(list->front().reason.find("896 tiles of 4 x 58 positions (232 computed)"),
            std::string::npos)
      << list->front().reason;
  EXPECT_EQ((*list)[1].algorithm, kConvSm90Implicit);
  // The model, fitted to that line (7 tiles a block).
  std::string why;
  const double us = predict_conv_sm90_taps_us(public3x3, DeviceModel{}, &why);
  EXPECT_GT(us, 27.0) << why;
  EXPECT_LT(us, 30.5) << why;
  // K = 128 at 28x28: the implicit GEMM's 128x128 tiles measured faster (18.0 against 21.0 us):
  // the kernel comes after its configs; BOO_CONV_TAPS=first puts it ahead of everything.
  const ops::ConvProblem wide =
      conv("convbfp16 -n 64 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  auto later = dispatcher().candidates(wide, nullptr);
  ASSERT_TRUE(later.has_value());
  EXPECT_EQ(later->front().algorithm, kConvSm90Implicit);
  const auto at = std::find_if(later->begin(), later->end(),
                               [](const ConvCandidate& c) { return c.algorithm == kConvSm90Taps; });
  ASSERT_NE(at, later->end());
  EXPECT_NE(at->reason.find("x 2 chunks of 64 channels"), std::string::npos) << at->reason;
  ConvDispatcher first = dispatcher_with("BOO_CONV_TAPS", "first");
  ConvDispatcher off = dispatcher_with("BOO_CONV_TAPS", "0");
  auto ahead = first.candidates(wide, nullptr);
  ASSERT_TRUE(ahead.has_value());
  EXPECT_EQ(ahead->front().algorithm, kConvSm90Taps);
  std::vector<std::string> notes;
  auto without = off.candidates(public3x3, &notes);
  ASSERT_TRUE(without.has_value());
  for (const ConvCandidate& c : *without) EXPECT_NE(c.algorithm, kConvSm90Taps);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_TAPS=0") != std::string::npos;
  }));
  // What it does not take, and why.
  struct Case {
    std::string command;
    std::string why;
  };
  for (const Case& k : std::vector<Case>{
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 4",
            "forward and backward data only"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2",
            "backward data: it takes K a multiple of 8 up to 64"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 3 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2",
            "padding within the dilated filter's reach"},
           {"conv -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "fp16 and bf16 only"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 2 "
            "-F 1",
            "groups = 2"},
           {"convbfp16 -n 8 -c 128 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "C = 128 and K = 64 (it takes C a multiple of 8 up to 64 and K a multiple of 8)"},
           {"convbfp16 -n 8 -c 36 -H 28 -W 28 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1",
            "C = 36 and K = 64"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 100 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1",
            "C = 64 and K = 100"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -F 1",
            "stride 1"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 28 -k 64 -y 5 -x 5 -p 2 -q 2 -u 1 -v 1 -l 1 -j 1 -F 1",
            "at most 9 taps"},
           {"convbfp16 -n 8 -c 64 -H 28 -W 300 -k 64 -y 1 -x 3 -p 0 -q 60 -u 1 -v 1 -l 1 -j 60 "
            "-F 1",
            "reaches too far"},
           {"convbfp16 --spatial_dim 3 -n 2 -c 64 -! 5 -H 12 -W 13 -k 64 -@ 3 -y 3 -x 3 -$ 1 -p 1 "
            "-q 1 -# 1 -u 1 -v 1 -^ 1 -l 1 -j 1 -F 1",
            "depth 1"}}) {
    const core::Status s = conv_sm90_taps_supports(conv(
        k.command + (k.command.find("spatial_dim 3") != std::string::npos
                         ? std::string(" --in_layout NDHWC --out_layout NDHWC --fil_layout NDHWC")
                         : std::string(kNhwc))));
    ASSERT_FALSE(s.is_ok()) << k.command;
    EXPECT_NE(s.message().find(k.why), std::string::npos) << s.message();
  }
  // A forced config names conv.sm90_taps and builds its source; on a problem it does not take
  // the error says why.
  const ConvDispatcher forced = dispatcher("conv.sm90_taps_bf16_f32acc_fprop_2d_nobias.none");
  auto f = forced.candidates(public3x3, nullptr);
  ASSERT_TRUE(f.has_value()) << f.status().message();
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ(f->front().algorithm, kConvSm90Taps);
  auto src = forced.source(f->front());
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_NE(src->text.find("ConvTapsRunner<__nv_bfloat16, false, 0>"), std::string::npos);
  auto refused = forced.candidates(resnet3x3(" -F 4"), nullptr);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.status().message().find("forward and backward data only"), std::string::npos)
      << refused.status().message();
  // Backward data of the same layer: the forward kernel over dy with the filter turned around,
  // ahead of the implicit GEMM's configs by the model.
  auto dgrad = dispatcher().candidates(resnet3x3(" -F 2"), nullptr);
  ASSERT_TRUE(dgrad.has_value()) << dgrad.status().message();
  EXPECT_EQ(dgrad->front().config, "conv.sm90_taps_bf16_f32acc_dgrad_2d_nobias.none");
}

TEST_F(ConvDispatchTest, TapsKernelTakesFewChannelsAndShortOneByOneReductions) {
  const auto first = [&](const std::string& shape) {
    auto list = dispatcher().candidates(
        conv("convbfp16 " + shape + " -u 1 -v 1 -l 1 -j 1 -F 1" + std::string(kNhwc)), nullptr);
    EXPECT_TRUE(list.has_value()) << shape;
    return list.has_value() ? list->front() : ConvCandidate{};
  };
  // 3x3 layers with C = 32 and 48: the kernel's model against the implicit GEMM's (measured
  // 19.6-20.0 us against 36.6, and 12.3 against 19.0; H200,
  // bench/results/2026-12-01-taps-channels-h200.md).
  for (const std::string shape : {"-n 64 -c 32 -H 56 -W 56 -k 32 -y 3 -x 3 -p 1 -q 1",
                                  "-n 32 -c 48 -H 28 -W 28 -k 96 -y 3 -x 3 -p 1 -q 1"}) {
    const ConvCandidate c = first(shape);
    EXPECT_EQ(c.algorithm, kConvSm90Taps) << shape << ": " << c.reason;
  }
  // A 1x1 expansion with C = 16: every pixel in one row, before the GEMM (66.5 us against 82.4).
  const ConvCandidate expansion = first("-n 64 -c 16 -H 112 -W 112 -k 96 -y 1 -x 1 -p 0 -q 0");
  EXPECT_EQ(expansion.algorithm, kConvSm90Taps) << expansion.reason;
  EXPECT_NE(expansion.reason.find("tiles of 1 x 256 positions"), std::string::npos)
      << expansion.reason;
  EXPECT_NE(expansion.reason.find("before conv.gemm_1x1"), std::string::npos) << expansion.reason;
  // C = 64: the GEMM's k-block is whole and it measured faster (38.5 us against 44.4).
  EXPECT_EQ(first("-n 64 -c 64 -H 56 -W 56 -k 256 -y 1 -x 1 -p 0 -q 0").algorithm, kConvGemm1x1);
  // One partial k-block: the GEMM's prediction counts its model's error on the class (1.33).
  // Measured on an H200 (2026-12-03), taps against the GEMM: c24 -> k144 at 28x28 12.5 against
  // 18.1 us, c40 -> k240 at 28x28 14.2 against 17.9, c48 -> k144 10.85 against 14.7 (the GEMM
  // predicted faster on all three).
  for (const std::string shape :
       {"-n 64 -c 24 -H 28 -W 28 -k 144", "-n 64 -c 40 -H 28 -W 28 -k 240",
        "-n 64 -c 48 -H 28 -W 28 -k 144"}) {
    const ConvCandidate c = first(shape + " -y 1 -x 1 -p 0 -q 0");
    EXPECT_EQ(c.algorithm, kConvSm90Taps) << shape << ": " << c.reason;
    EXPECT_NE(c.reason.find("with the model's error on one partial k-block"), std::string::npos)
        << c.reason;
  }
  // ... and the GEMM stays first where it measured faster: c56 -> k192 at 14x14 7.5 against 9.7,
  // c40 -> k240 at 14x14 (n128) 10.45 against 12.65, c24 -> k144 at 14x14 8.3 against 10.15.
  for (const std::string shape :
       {"-n 32 -c 56 -H 14 -W 14 -k 192", "-n 128 -c 40 -H 14 -W 14 -k 240",
        "-n 64 -c 24 -H 14 -W 14 -k 144"}) {
    EXPECT_EQ(first(shape + " -y 1 -x 1 -p 0 -q 0").algorithm, kConvGemm1x1) << shape;
  }
}

TEST_F(ConvDispatchTest, ForcedConfigsAreCheckedAgainstTheProblem) {
  const ops::ConvProblem p = resnet3x3(" -F 1");
  auto direct = dispatcher("conv.direct_bf16_f32acc_fprop_2d_nobias.none").candidates(p, nullptr);
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(algorithms(*direct), std::vector<std::string>{std::string(kConvDirect)});
  const std::string sm90 = "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128x64_c1x1";
  auto forced = dispatcher(sm90).candidates(p, nullptr);
  ASSERT_TRUE(forced.has_value());
  EXPECT_EQ(forced->front().config, sm90);
  // Another class (the fp16 kernel for a bf16 problem) would compute something else.
  auto other = dispatcher("conv.direct_fp16_f32acc_fprop_2d_nobias.none").candidates(p, nullptr);
  ASSERT_FALSE(other.has_value());
  EXPECT_NE(other.status().message().find("not a config of this problem's class"),
            std::string::npos);
  auto gemm = dispatcher("gemm.sm90_whatever").candidates(p, nullptr);
  ASSERT_FALSE(gemm.has_value());
  EXPECT_NE(gemm.status().message().find("1x1"), std::string::npos) << gemm.status().message();
  auto unknown = dispatcher("conv.winograd_x").candidates(p, nullptr);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.status().message().find("no convolution algorithm"), std::string::npos);
}

// conv.depthwise's rolling kernel against its measurements on an H200 (the device model at the
// copy bandwidth measured in the same call, 4250 GB/s;
// bench/results/2026-11-29-depthwise-rolling-h200.md, call 3, dispatch's cuts; the 7x7 layer with
// images sharing blocks, bench/results/2026-12-01-depthwise-shared-h200.md): within 25%.
TEST_F(ConvDispatchTest, DepthwiseRollingModelIsNearItsMeasurements) {
  DeviceModel h200;
  h200.bandwidth_gbs = 4250.0;
  const struct {
    const char* line;
    double measured_us;
  } lines[] = {{"convbfp16 -n 64 -c 144 -H 56 -W 56 -k 144 -y 3 -x 3 -p 1 -q 1 -g 144 -F 1", 47.7},
               {"convbfp16 -n 64 -c 144 -H 56 -W 56 -k 144 -y 3 -x 3 -p 1 -q 1 -g 144 -F 2", 48.6},
               {"convbfp16 -n 64 -c 32 -H 112 -W 112 -k 32 -y 3 -x 3 -p 1 -q 1 -g 32 -F 1", 36.4},
               {"convfp16 -n 128 -c 672 -H 14 -W 14 -k 672 -y 3 -x 3 -p 1 -q 1 -g 672 -F 1", 32.2},
               {"convbfp16 -n 128 -c 960 -H 7 -W 7 -k 960 -y 3 -x 3 -p 1 -q 1 -g 960 -F 1", 16.5},
               {"conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -g 64 -F 1", 20.1}};
  for (const auto& line : lines) {
    std::string why;
    const double us = predict_conv_depthwise_us(
        conv(std::string(line.line) + " -u 1 -v 1 -l 1 -j 1" + kNhwc), h200, &why);
    EXPECT_NE(why.find("(rolling rows)"), std::string::npos) << line.line << ": " << why;
    expect_near_measured(us, line.measured_us, line.line, why);
  }
  // Images (batch x output depth) share the grid's x with the rows and strips (65536 of them
  // were past its z before 2026-12-01); past 2^31 / 4 they are past the kernel's ints: not
  // modelled as it.
  for (const char* n : {"512", "2097152"}) {
    std::string why;
    predict_conv_depthwise_us(
        conv(std::string("convbfp16 --spatial_dim 3 -n ") + n +
             " -c 8 -! 512 -H 8 -W 8 -k 8 -@ 1 -y 3 -x 3 -$ 0 -p 1 -q 1 -# 1 -u 1 -v 1 -^ 1 -l 1 "
             "-j 1 -g 8 -F 1 --in_layout NDHWC --out_layout NDHWC --fil_layout NDHWC"),
        h200, &why);
    EXPECT_EQ(why.find("(rolling rows)") != std::string::npos, std::string(n) == "512") << why;
  }
}

TEST_F(ConvDispatchTest, DepthwiseForwardRunsItsOwnKernelBeforeTheFallback) {
  const std::string dw =
      "convbfp16 -n 64 -c 144 -H 56 -W 56 -k 144 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 144";
  std::vector<std::string> notes;
  auto c = dispatcher().candidates(conv(dw + " -F 1" + kNhwc), &notes);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(algorithms(*c),
            (std::vector<std::string>{std::string(kConvDepthwise), std::string(kConvDirect)}));
  EXPECT_EQ(c->front().config, "conv.depthwise_bf16_f32acc_fprop_2d_nobias.none");
  EXPECT_NE(c->front().reason.find("heuristic: predicted"), std::string::npos);
  // The rolling kernel (3x3, stride 1; its model: DepthwiseRollingModelIsNearItsMeasurements).
  EXPECT_NE(c->front().reason.find("(rolling rows)"), std::string::npos) << c->front().reason;
  // Stride 2 and a 5x5 filter run the row kernel; C = 35 (not whole 8-byte vectors) and W
  // dilation the older kernels, each modelled apart.
  for (const char* rows :
       {"convbfp16 -n 64 -c 144 -H 56 -W 56 -k 144 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 144",
        "convbfp16 -n 64 -c 144 -H 56 -W 56 -k 144 -y 5 -x 5 -p 2 -q 2 -u 1 -v 1 -l 1 -j 1 -g "
        "144"}) {
    auto r = dispatcher().candidates(conv(rows + std::string(" -F 1") + kNhwc), nullptr);
    ASSERT_TRUE(r.has_value()) << rows;
    EXPECT_NE(r->front().reason.find("(rows)"), std::string::npos) << r->front().reason;
  }
  for (const char* other :
       {"convbfp16 -n 64 -c 36 -H 56 -W 56 -k 36 -y 3 -x 3 -p 1 -q 2 -u 1 -v 1 -l 1 -j 2 -g 36",
        "convbfp16 -n 64 -c 35 -H 56 -W 56 -k 35 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 35"}) {
    auto o = dispatcher().candidates(conv(other + std::string(" -F 1") + kNhwc), nullptr);
    ASSERT_TRUE(o.has_value()) << other;
    EXPECT_EQ(o->front().algorithm, kConvDepthwise) << other;
    EXPECT_EQ(o->front().reason.find("(rows)"), std::string::npos) << o->front().reason;
  }
  // NCHW: the plane kernel on the caller's tensors where W is whole 16-byte vectors and the
  // filter "same" along W, else the layout copies around the row kernel.
  auto nchw = dispatcher().candidates(conv(dw + " -F 1"), nullptr);
  ASSERT_TRUE(nchw.has_value());
  EXPECT_NE(nchw->front().reason.find("NCHW planes"), std::string::npos) << nchw->front().reason;
  EXPECT_EQ(nchw->front().reason.find("layout copies"), std::string::npos);
  auto copied = dispatcher().candidates(
      conv("convbfp16 -n 64 -c 144 -H 56 -W 52 -k 144 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 "
           "-g 144 -F 1"),
      nullptr);
  ASSERT_TRUE(copied.has_value());
  EXPECT_GT(copied->front().predicted_us, c->front().predicted_us);
  EXPECT_NE(copied->front().reason.find("layout copies"), std::string::npos);
  // Backward data with stride 1 and K = C: the forward kernel on dy with the filter flipped,
  // ranked unless left out (BOO_CONV_DEPTHWISE_BACKWARD=0), or forced.
  ConvDispatcher ranked(*cache_, nullptr, *gemm_, DispatchOptions{});
  DispatchOptions off;
  off.rank_conv_depthwise_backward = false;
  ConvDispatcher unranked_dispatcher(*cache_, nullptr, *gemm_, off);
  auto dgrad = ranked.candidates(conv(dw + " -F 2" + kNhwc), nullptr);
  ASSERT_TRUE(dgrad.has_value());
  EXPECT_EQ(dgrad->front().algorithm, kConvDepthwise);
  EXPECT_EQ(dgrad->front().config, "conv.depthwise_bf16_f32acc_dgrad_2d_nobias.none");
  notes.clear();
  auto unranked = unranked_dispatcher.candidates(conv(dw + " -F 2" + kNhwc), &notes);
  ASSERT_TRUE(unranked.has_value());
  EXPECT_NE(unranked->front().algorithm, kConvDepthwise);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("BOO_CONV_DEPTHWISE_BACKWARD=0 leaves them out") != std::string::npos;
  }));
  // Backward weight (strided too): its own two-stage reduction, ranked when asked.
  auto wgrad = ranked.candidates(
      conv("convbfp16 -n 2 -c 64 -H 9 -W 9 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 64 "
           "-F 4" +
           std::string(kNhwc)),
      nullptr);
  ASSERT_TRUE(wgrad.has_value());
  EXPECT_EQ(wgrad->front().config, "conv.depthwise_bf16_f32acc_wgrad_2d_nobias.none");
  const std::string dgrad_cfg = "conv.depthwise_bf16_f32acc_dgrad_2d_nobias.none";
  auto forced_dgrad = dispatcher(dgrad_cfg).candidates(conv(dw + " -F 2" + kNhwc), nullptr);
  ASSERT_TRUE(forced_dgrad.has_value());
  EXPECT_EQ(forced_dgrad->front().config, dgrad_cfg);
  // Channel multiplier 2 is depthwise too; groups below C, backward weight with more than 64
  // taps, and backward data that is strided, has a multiplier or pads beyond the filter are not
  // (yet).
  auto mult = dispatcher().candidates(
      conv("convbfp16 -n 2 -c 16 -H 9 -W 9 -k 32 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 16 "
           "-F 1" +
           std::string(kNhwc)),
      nullptr);
  ASSERT_TRUE(mult.has_value());
  EXPECT_EQ(mult->front().algorithm, kConvDepthwise);
  struct Case {
    std::string command;
    std::string why;
  };
  const Case cases[] = {
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 16 -F 1",
       "groups (16) is not C (64)"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 64 -F 2",
       "backward data needs stride 1"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 64 -F 2",
       "backward data needs K = C"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 3 -x 3 -p 3 -q 1 -u 1 -v 1 -l 1 -j 1 -g 64 -F 2",
       "padding within the dilated filter"},
      {"convbfp16 -n 2 -c 64 -H 9 -W 9 -k 64 -y 9 -x 9 -p 4 -q 4 -u 1 -v 1 -l 1 -j 1 -g 64 -F 4",
       "at most 64 filter taps"},
  };
  for (const Case& k : cases) {
    std::vector<std::string> why;
    auto list = ranked.candidates(conv(k.command + kNhwc), &why);
    ASSERT_TRUE(list.has_value());
    EXPECT_EQ(algorithms(*list), std::vector<std::string>{std::string(kConvDirect)}) << k.command;
    bool told = false;
    for (const std::string& n : why) told |= n.find(k.why) != std::string::npos;
    EXPECT_TRUE(told) << k.command;
  }
  // Forced: the depthwise config of the problem's class, and not on a problem it cannot run.
  const std::string cfg = "conv.depthwise_bf16_f32acc_fprop_2d_nobias.none";
  auto forced = dispatcher(cfg).candidates(conv(dw + " -F 1" + kNhwc), nullptr);
  ASSERT_TRUE(forced.has_value());
  EXPECT_EQ(forced->front().config, cfg);
  auto refused = dispatcher(cfg).candidates(resnet3x3(" -F 1"), nullptr);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.status().message().find("is not C"), std::string::npos);
}

TEST_F(ConvDispatchTest, PlansAreCachedAndAFailedCompileMovesOn) {
  ConvDispatcher d = dispatcher();
  const ops::ConvProblem p = resnet3x3(" -F 1");
  setenv("BOO_FAKE_NVCC_FAIL", "conv.sm90_implicit", 1);
  auto plan = d.plan(p);
  ASSERT_TRUE(plan.has_value()) << plan.status().message();
  EXPECT_EQ((*plan)->algorithm, kConvDirect);
  bool skipped = false;
  for (const std::string& line : (*plan)->explanation)
    skipped |= line.rfind("skipped conv.sm90", 0) == 0;
  EXPECT_TRUE(skipped);
  const int compiles = boo::testing::count_lines(log_);
  auto again = d.plan(p);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *plan);
  EXPECT_EQ(boo::testing::count_lines(log_), compiles);
  unsetenv("BOO_FAKE_NVCC_FAIL");
  auto wgrad = d.plan(resnet3x3(" -F 4"));
  ASSERT_TRUE(wgrad.has_value()) << wgrad.status().message();
  // The implicit GEMM's wgrad kernel, split over the images (9 output tiles for 132 SMs).
  EXPECT_EQ((*wgrad)->algorithm, kConvSplitWgrad);
  EXPECT_NE((*wgrad)->config.find("_wgrad_2d_"), std::string::npos);
}

TEST_F(ConvDispatchTest, ModelPrefersFullTilesAndChargesLayoutCopies) {
  const DeviceModel d;
  const ops::ConvProblem p = resnet3x3(" -F 1");
  space::ConvSm90Config big;
  big.cls = space::conv_class_of(p);
  space::ConvSm90Config small = big;
  small.tile_m = small.tile_n = 64;
  std::string why;
  const double big_us = predict_conv_sm90_us(p, big, d, &why);
  EXPECT_LT(predict_conv_sm90_us(p, small, d), big_us * 2.0);
  EXPECT_NE(why.find("tiles of 128x128"), std::string::npos) << why;
  // 64 output channels: a 128-wide N tile computes half zeros; 128x64 wins over 128x128.
  space::ConvSm90Config narrow = big;
  narrow.tile_n = 64;
  EXPECT_LT(predict_conv_sm90_us(p, narrow, d), big_us);
  ops::ConvProblem nchw = p;
  nchw.in_layout = nchw.out_layout = nchw.fil_layout = core::Layout::kChannelsFirst;
  EXPECT_GT(predict_conv_sm90_us(nchw, big, d, &why), big_us);
  EXPECT_NE(why.find("layout copies"), std::string::npos);
}

TEST(ConvArgs, SpatialFormAndStridesOfEveryLayout) {
  // 2D NCHW: D = 1 in front, strides (N, C, D, H, W).
  ops::ConvProblem p = conv(
      "convbfp16 -n 2 -c 3 -H 5 -W 7 -k 4 -y 3 -x 1 -p 1 -q 0 -u 2 -v 1 "
      "-l 1 -j 1 -F 1");
  ConvPointers ptrs;
  int x = 0, w = 0, y = 0;
  ptrs.x = &x;
  ptrs.w = &w;
  ptrs.y = &y;
  BooConvArgs a = make_conv_args(p, ptrs, 0, 132);
  EXPECT_EQ(a.spatial_dims, 2);
  EXPECT_EQ(a.direction, BOO_CONV_FORWARD);
  EXPECT_EQ(std::vector<int64_t>(a.in, a.in + 3), (std::vector<int64_t>{1, 5, 7}));
  EXPECT_EQ(std::vector<int64_t>(a.filter, a.filter + 3), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(std::vector<int64_t>(a.out, a.out + 3), (std::vector<int64_t>{1, 3, 7}));
  EXPECT_EQ(std::vector<int64_t>(a.stride, a.stride + 3), (std::vector<int64_t>{1, 2, 1}));
  EXPECT_EQ(std::vector<int64_t>(a.pad, a.pad + 3), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(a.x_stride[0], 3 * 5 * 7);
  EXPECT_EQ(a.x_stride[1], 5 * 7);
  EXPECT_EQ(a.x_stride[3], 7);
  EXPECT_EQ(a.x_stride[4], 1);
  EXPECT_EQ(a.bias, nullptr);
  EXPECT_EQ(a.x, &x);
  // 3D NDHWC: C innermost, then W, H, D.
  p = conv(
      "convbfp16 --spatial_dim 3 -n 2 -c 8 -! 3 -H 4 -W 5 -k 16 -@ 1 -y 1 -x 1 -$ 0 -p 0 "
      "-q 0 -# 1 -u 1 -v 1 -^ 1 -l 1 -j 1 -F 4 --in_layout NDHWC --out_layout NDHWC "
      "--fil_layout NDHWC");
  a = make_conv_args(p, ptrs, 0, 132);
  EXPECT_EQ(a.direction, BOO_CONV_BACKWARD_WEIGHT);
  EXPECT_EQ(std::vector<int64_t>(a.x_stride, a.x_stride + 5),
            (std::vector<int64_t>{3 * 4 * 5 * 8, 1, 4 * 5 * 8, 5 * 8, 8}));
  EXPECT_EQ(a.w_stride[1], 1);
  EXPECT_EQ(a.y_stride[1], 1);
  EXPECT_EQ(a.y_stride[4], 16);
  // 1D: D = H = 1.
  p = conv("convbfp16 -n 2 -c 8 -H 1 -W 9 -k 8 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1" +
           std::string(kNhwc));
  ASSERT_EQ(p.spatial_dims, 1);
  a = make_conv_args(p, ptrs, 0, 132);
  EXPECT_EQ(std::vector<int64_t>(a.in, a.in + 3), (std::vector<int64_t>{1, 1, 9}));
  EXPECT_EQ(std::vector<int64_t>(a.pad, a.pad + 3), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(a.x_stride[4], 8);
}

}  // namespace
}  // namespace boo::dispatch
