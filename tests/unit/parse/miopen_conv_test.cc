#include "boo/parse/miopen_conv.h"

#include <gtest/gtest.h>

#include "boo/parse/registry.h"

namespace boo::parse {
namespace {

using ops::ConvDirection;
using ops::ConvProblem;

ParsedCommand parse_ok(const std::string& line) {
  auto r = make_default_registry().parse(line);
  EXPECT_TRUE(r.has_value()) << line << ": " << r.status().to_string();
  return r.has_value() ? *r : ParsedCommand{};
}

const ConvProblem& conv(const ParsedCommand& c, size_t i = 0) {
  return std::get<ConvProblem>(c.problems.at(i));
}

void expect_round_trip(const ConvProblem& p) {
  auto again = make_default_registry().parse(p.to_command());
  ASSERT_TRUE(again.has_value()) << p.to_command() << ": " << again.status().to_string();
  ASSERT_EQ(again->problems.size(), 1u);
  EXPECT_EQ(std::get<ConvProblem>(again->problems[0]), p) << p.to_command();
}

TEST(MiopenConv, SeedCommandFields) {
  const auto c = parse_ok(
      "convbfp16 -n 128 -c 128 -H 24 -W 48 -k 384 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv "
      "-g 1 -F 1 -t 1 --iter 100 --in_layout NHWC --out_layout NHWC --fil_layout NHWC");
  ASSERT_EQ(c.problems.size(), 1u);
  const ConvProblem& p = conv(c);
  EXPECT_EQ(p.dtype, core::DType::kBF16);
  EXPECT_EQ(p.spatial_dims, 2);
  EXPECT_EQ(p.n, 128);
  EXPECT_EQ(p.c, 128);
  EXPECT_EQ(p.k, 384);
  EXPECT_EQ(p.input, (std::vector<int64_t>{24, 48}));
  EXPECT_EQ(p.in_layout, core::Layout::kChannelsLast);
  EXPECT_EQ(p.direction, ConvDirection::kForward);
  EXPECT_EQ(c.run.time, true);
  EXPECT_EQ(c.run.iter, 100);
  EXPECT_FALSE(c.run.verify.has_value());
  EXPECT_EQ(p.key(),
            "conv2d_bf16_f32acc_fwd_n128c128h24w48_k384y1x1_s1x1p0x0d1x1_g1_nhwc.nhwc.nhwc_"
            "nobias.none");
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 128 * 384 * 24 * 48 * 128);
}

TEST(MiopenConv, MiopenDefaultsApplyAndF0ExpandsToThreeDirections) {
  // MIOpen's defaults: n 100, c 3, H W 32, k 32, 3x3 filter, NCHW, -F 0 (all three).
  const auto c = parse_ok("conv");
  ASSERT_EQ(c.problems.size(), 3u);
  EXPECT_EQ(conv(c, 0).direction, ConvDirection::kForward);
  EXPECT_EQ(conv(c, 1).direction, ConvDirection::kBackwardData);
  EXPECT_EQ(conv(c, 2).direction, ConvDirection::kBackwardWeight);
  EXPECT_EQ(conv(c).n, 100);
  EXPECT_EQ(conv(c).c, 3);
  EXPECT_EQ(conv(c).k, 32);
  EXPECT_EQ(conv(c).filter, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(conv(c).output(), (std::vector<int64_t>{30, 30}));
  EXPECT_EQ(conv(c).in_layout, core::Layout::kChannelsFirst);
  EXPECT_EQ(conv(c).math, core::MathMode::kTF32);  // fp32 defaults to tf32, as cuDNN does
  EXPECT_EQ(parse_ok("conv -F 6").problems.size(), 2u);
  EXPECT_EQ(parse_ok("conv -F 7").problems.size(), 3u);
}

TEST(MiopenConv, LongFlagsAndLowerCaseLayouts) {
  const auto c = parse_ok(
      "convfp16 --batchsize 2 --in_channels 8 --in_h 9 --in_w 7 --out_channels 4 --fil_h 3 "
      "--fil_w 3 --pad_h 1 --pad_w 1 --conv_stride_h 2 --conv_stride_w 2 --forw 4 "
      "--in_layout nhwc --fil_layout nhwc --out_layout nchw");
  const ConvProblem& p = conv(c);
  EXPECT_EQ(p.dtype, core::DType::kF16);
  EXPECT_EQ(p.direction, ConvDirection::kBackwardWeight);
  EXPECT_EQ(p.output(), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(p.out_layout, core::Layout::kChannelsFirst);
  expect_round_trip(p);
}

TEST(MiopenConv, DepthFlagsOfATwoDimensionalCommandAreNoted) {
  const auto c = parse_ok("conv -n 1 -c 8 -H 5 -W 5 -k 4 -y 3 -x 3 --in_d 4 -@ 3 -# 2");
  EXPECT_EQ(conv(c).spatial_dims, 2);
  ASSERT_EQ(c.notes.size(), 2u);  // -@ 3 is the default: no note
  EXPECT_EQ(c.notes[0], "--in_d 4: a depth flag of a 2D command (--spatial_dim 2) is ignored");
  EXPECT_NE(c.notes[1].find("-# 2:"), std::string::npos) << c.notes[1];
}

TEST(MiopenConv, ThreeDimensionalFlags) {
  const auto c = parse_ok(
      "convbfp16 --spatial_dim 3 -n 4 -c 64 -! 16 -H 56 -W 56 -k 64 -@ 3 -y 3 -x 3 -$ 1 -p 1 "
      "-q 1 -# 2 -u 1 -v 1 -^ 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NDHWC --out_layout NDHWC "
      "--fil_layout NDHWC");
  const ConvProblem& p = conv(c);
  EXPECT_EQ(p.spatial_dims, 3);
  EXPECT_EQ(p.input, (std::vector<int64_t>{16, 56, 56}));
  EXPECT_EQ(p.stride, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(p.output(), (std::vector<int64_t>{8, 56, 56}));
  EXPECT_NE(p.key().find("conv3d_"), std::string::npos);
  EXPECT_NE(p.key().find("d16h56w56"), std::string::npos);
  EXPECT_NE(p.key().find("z3y3x3"), std::string::npos);
  expect_round_trip(p);
}

TEST(MiopenConv, HeightOneIsOneDimensional) {
  const auto c = parse_ok(
      "convbfp16 -n 32 -c 512 -H 1 -W 4096 -k 512 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 "
      "--in_layout NHWC --out_layout NHWC --fil_layout NHWC");
  const ConvProblem& p = conv(c);
  EXPECT_EQ(p.spatial_dims, 1);
  EXPECT_EQ(p.input, (std::vector<int64_t>{4096}));
  EXPECT_EQ(p.filter, (std::vector<int64_t>{3}));
  EXPECT_EQ(p.key().rfind("conv1d_bf16", 0), 0u) << p.key();
  EXPECT_NE(p.key().find("nwc.nwc.nwc"), std::string::npos);
  expect_round_trip(p);
  // H = 1 but a 3-tall filter with padding is a real 2D problem.
  EXPECT_EQ(conv(parse_ok("conv -n 1 -c 4 -H 1 -W 8 -k 4 -y 3 -x 3 -p 1 -q 1 -F 1")).spatial_dims,
            2);
  // -m conv ignores the transposed output padding, so -Y does not keep it 2D (found by the
  // fuzzer: the canonical command drops -Y and reparsed as 1D).
  const ConvProblem with_y = conv(parse_ok(
      "convbfp16 -n 32 -Y 64 -H 1 -W 4096 -k 64 -y 1 -x 3 -p 0 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 "
      "--in_layout NHWC --out_layout NHWC --fil_layout NHWC"));
  EXPECT_EQ(with_y.spatial_dims, 1);
  expect_round_trip(with_y);
}

TEST(MiopenConv, TransposedIsMirroredBackwardData) {
  // Transposed: input 4x5 with C=6 channels, K=3 outputs, 3x3 filter, stride 2, pad 1,
  // output padding 1 -> output (4-1)*2 - 2 + 2 + 1 + 1 = 8 and (5-1)*2 - 2 + 2 + 1 + 1 = 10.
  const auto c = parse_ok(
      "convfp16 -n 2 -c 6 -H 4 -W 5 -k 3 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -m trans -Y 1 -X 1 -F 1 "
      "-g 3");
  const ConvProblem& p = conv(c);
  EXPECT_TRUE(p.transposed);
  EXPECT_EQ(p.direction, ConvDirection::kBackwardData);
  EXPECT_EQ(p.c, 3);  // mirrored: the conv's input is the transposed conv's output
  EXPECT_EQ(p.k, 6);
  EXPECT_EQ(p.input, (std::vector<int64_t>{8, 10}));
  EXPECT_EQ(p.output(), (std::vector<int64_t>{4, 5}));
  EXPECT_NE(p.key().find("_bwd.trans_"), std::string::npos) << p.key();
  expect_round_trip(p);
  // The backward-data pass of a transposed conv is the mirrored conv's forward pass.
  const auto all = parse_ok("convfp16 -n 2 -c 6 -H 4 -W 5 -k 3 -m trans -u 2 -v 2 -Y 1 -X 0");
  ASSERT_EQ(all.problems.size(), 3u);
  EXPECT_EQ(conv(all, 1).direction, ConvDirection::kForward);
  EXPECT_EQ(conv(all, 2).direction, ConvDirection::kBackwardWeight);
  for (const auto& q : all.problems) expect_round_trip(std::get<ConvProblem>(q));
}

TEST(MiopenConv, BiasActivationAndMathExtensions) {
  const auto c = parse_ok(
      "convbfp16 -n 2 -c 8 -H 6 -W 6 -k 16 -y 3 -x 3 -p 1 -q 1 -F 1 -b 1 --activation silu");
  EXPECT_TRUE(conv(c).bias);
  EXPECT_EQ(conv(c).activation, ops::Activation::kSilu);
  EXPECT_NE(conv(c).key().find("_bias.silu"), std::string::npos);
  expect_round_trip(conv(c));
  const auto exact = parse_ok("conv -n 1 -c 4 -H 5 -W 5 -k 4 -F 1 --math fp32");
  EXPECT_EQ(conv(exact).math, core::MathMode::kF32);
  EXPECT_NE(conv(exact).key().find("_fp32_f32acc_"), std::string::npos);
  expect_round_trip(conv(exact));
  // With -F 0 the bias belongs to the forward problem; the backward ones are plain (noted).
  const auto all = parse_ok("convbfp16 -n 1 -c 8 -H 4 -W 4 -k 8 -b 1 --activation relu");
  ASSERT_EQ(all.problems.size(), 3u);
  EXPECT_TRUE(conv(all, 0).bias);
  EXPECT_FALSE(conv(all, 1).bias);
  EXPECT_FALSE(all.notes.empty());
}

TEST(MiopenConv, PadModeSameAndValid) {
  EXPECT_EQ(conv(parse_ok("conv -n 1 -c 4 -H 7 -W 7 -k 4 -y 3 -x 3 -z same -F 1")).output(),
            (std::vector<int64_t>{7, 7}));
  EXPECT_EQ(
      conv(parse_ok("conv -n 1 -c 4 -H 7 -W 7 -k 4 -y 3 -x 3 -p 1 -q 1 -z valid -F 1")).output(),
      (std::vector<int64_t>{5, 5}));
}

TEST(MiopenConv, IgnoredFlagsAreNotedAndDriverPrefixIsSkipped) {
  const auto c = parse_ok("./bin/MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -F 1 -s 1 -S 0");
  EXPECT_EQ(c.problems.size(), 1u);
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[0].find("-s 1"), std::string::npos);
}

TEST(MiopenConv, NegativeValuesAreValuesNotFlags) {
  auto r = make_default_registry().parse("conv -n 1 -c 4 -H 5 -W 5 -k 4 -p -1 -F 1");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.status().message().find("-p"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("-1"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace boo::parse
