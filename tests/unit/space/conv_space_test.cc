// conv.sm90_implicit's configuration space: class and config names round-trip for every rule
// set, the validity rules give their reasons, unsupported classes have no configs.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "boo/space/conv_sm90.h"

namespace boo::space {
namespace {

using core::DType;
using ops::ConvDirection;

std::vector<ConvClass> sample_classes() {
  std::vector<ConvClass> out;
  for (DType t : {DType::kBF16, DType::kF16}) {
    for (ConvDirection d :
         {ConvDirection::kForward, ConvDirection::kBackwardData, ConvDirection::kBackwardWeight}) {
      for (int dims = 1; dims <= 3; ++dims) {
        ConvClass c;
        c.dtype = t;
        c.direction = d;
        c.spatial_dims = dims;
        out.push_back(c);
      }
    }
  }
  ConvClass fused;
  fused.bias = true;
  fused.activation = ops::Activation::kGeluTanh;
  out.push_back(fused);
  ConvClass tf32;
  tf32.dtype = DType::kF32;
  tf32.math = core::MathMode::kTF32;
  tf32.spatial_dims = 3;
  out.push_back(tf32);
  return out;
}

TEST(ConvSm90, ClassAndConfigNamesRoundTripInEveryRuleSet) {
  for (RuleSet rules : kAllRuleSets) {
    for (const ConvClass& cls : sample_classes()) {
      auto back = ConvClass::parse_name(cls.name());
      ASSERT_TRUE(back.has_value()) << cls.name() << ": " << back.status().message();
      EXPECT_EQ(*back, cls);
      const auto space = conv_sm90_space(cls, rules);
      EXPECT_FALSE(space.empty()) << cls.name();
      std::set<std::string> names;
      for (const ConvSm90Config& c : space) {
        auto parsed = ConvSm90Config::parse_name(c.name());
        ASSERT_TRUE(parsed.has_value()) << c.name() << ": " << parsed.status().message();
        EXPECT_EQ(*parsed, c);
        EXPECT_TRUE(names.insert(c.name()).second) << "duplicate " << c.name();
      }
    }
  }
  ConvSm90Config c;
  c.cls.bias = true;
  c.cls.activation = ops::Activation::kSilu;
  EXPECT_EQ(c.name(), "conv.sm90_implicit_bf16_f32acc_fprop_2d_bias.silu_t128x128x64_c1x1");
  // The space-to-depth variant of conv.padded_channels: a suffix that reads back, forward only.
  c.space_to_depth = true;
  EXPECT_EQ(c.name(), "conv.sm90_implicit_bf16_f32acc_fprop_2d_bias.silu_t128x128x64_c1x1_s2d");
  auto s2d = ConvSm90Config::parse_name(c.name());
  ASSERT_TRUE(s2d.has_value()) << s2d.status().message();
  EXPECT_EQ(*s2d, c);
  EXPECT_TRUE(check_conv_sm90(c).is_ok());
  c.cls = ConvClass{};
  c.cls.direction = ConvDirection::kBackwardWeight;
  EXPECT_NE(check_conv_sm90(c).message().find("forward convolutions only"), std::string::npos);
  EXPECT_FALSE(ConvSm90Config::parse_name(
                   "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128x64_c1x1_s2d_s2d")
                   .has_value());
  // conv.grouped's dense expansion: its own suffix, any direction, not with space-to-depth.
  ConvSm90Config dense;
  dense.cls.direction = ConvDirection::kBackwardWeight;
  dense.dense_groups = true;
  EXPECT_EQ(dense.name(),
            "conv.sm90_implicit_bf16_f32acc_wgrad_2d_nobias.none_t128x128x64_c1x1_dense");
  auto back = ConvSm90Config::parse_name(dense.name());
  ASSERT_TRUE(back.has_value()) << back.status().message();
  EXPECT_EQ(*back, dense);
  EXPECT_TRUE(check_conv_sm90(dense).is_ok());
  dense.cls.direction = ConvDirection::kForward;
  dense.space_to_depth = true;
  EXPECT_NE(check_conv_sm90(dense).message().find("do not combine"), std::string::npos);
  // Backward data as forward stride phases: its own suffix, backward data only, tf32 allowed
  // (the kernel is the class's forward one), alone.
  ConvSm90Config phases;
  phases.cls.direction = ConvDirection::kBackwardData;
  phases.cls.dtype = core::DType::kF32;
  phases.cls.math = core::MathMode::kTF32;
  phases.tile_k = 32;
  phases.schedule = ConvSchedule::kPingpong;
  phases.dgrad_phases = true;
  EXPECT_EQ(phases.name(),
            "conv.sm90_implicit_fp32_tf32_dgrad_2d_nobias.none_t128x128x32_c1x1_pingpong_phases");
  auto phases_back = ConvSm90Config::parse_name(phases.name());
  ASSERT_TRUE(phases_back.has_value()) << phases_back.status().message();
  EXPECT_EQ(*phases_back, phases);
  EXPECT_TRUE(check_conv_sm90(phases).is_ok()) << check_conv_sm90(phases).message();
  phases.dgrad_phases = false;  // tf32's own dgrad would read an MN-major operand
  EXPECT_FALSE(check_conv_sm90(phases).is_ok());
  phases.dgrad_phases = true;
  phases.cls.direction = ConvDirection::kForward;
  EXPECT_NE(check_conv_sm90(phases).message().find("backward data"), std::string::npos);
  phases.cls.direction = ConvDirection::kBackwardData;
  phases.dense_groups = true;
  EXPECT_NE(check_conv_sm90(phases).message().find("do not combine"), std::string::npos);
  // conv.split_wgrad's slice count: a suffix with its number, backward weight only.
  ConvSm90Config split;
  split.cls.direction = ConvDirection::kBackwardWeight;
  split.wgrad_splits = 8;
  EXPECT_EQ(split.name(),
            "conv.sm90_implicit_bf16_f32acc_wgrad_2d_nobias.none_t128x128x64_c1x1_split8");
  auto split_back = ConvSm90Config::parse_name(split.name());
  ASSERT_TRUE(split_back.has_value()) << split_back.status().message();
  EXPECT_EQ(*split_back, split);
  EXPECT_TRUE(check_conv_sm90(split).is_ok());
  split.wgrad_splits = 1;
  EXPECT_NE(check_conv_sm90(split).message().find("[2, 32]"), std::string::npos);
  split.wgrad_splits = 4;
  split.cls.direction = ConvDirection::kForward;
  EXPECT_NE(check_conv_sm90(split).message().find("backward weight"), std::string::npos);
  EXPECT_FALSE(ConvSm90Config::parse_name(
                   "conv.sm90_implicit_bf16_f32acc_wgrad_2d_nobias.none_t128x128x64_c1x1_splitx")
                   .has_value());
  // A fixed stage count: a suffix right after the cluster, before the wrappers' suffixes.
  split.cls.direction = ConvDirection::kBackwardWeight;
  split.stages = 4;
  EXPECT_EQ(split.name(),
            "conv.sm90_implicit_bf16_f32acc_wgrad_2d_nobias.none_t128x128x64_c1x1_st4_split4");
  auto staged = ConvSm90Config::parse_name(split.name());
  ASSERT_TRUE(staged.has_value()) << staged.status().message();
  EXPECT_EQ(*staged, split);
  EXPECT_TRUE(check_conv_sm90(split).is_ok());
  ConvSm90Config s2d_staged = c;
  s2d_staged.stages = 3;
  EXPECT_EQ(ConvSm90Config::parse_name(s2d_staged.name()).value(), s2d_staged);
  EXPECT_FALSE(ConvSm90Config::parse_name(
                   "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128x64_c1x1_st")
                   .has_value());
}

TEST(ConvSm90, SmallTilesGetStagesForTwoCtasPerSm) {
  // Tiles of at most 128 x 64 accumulators: 4 stages, so that two CTAs share an SM; larger
  // tiles (one CTA by registers) keep the automatic carveout.
  for (RuleSet r : {RuleSet::kTiny, RuleSet::kDefault, RuleSet::kFull}) {
    for (const ConvSm90Config& c : conv_sm90_space(ConvClass{}, r)) {
      EXPECT_EQ(c.stages, !c.persistent() && c.tile_m * c.tile_n <= 128 * 64 ? 4 : 0) << c.name();
      EXPECT_EQ(c.stages, conv_sm90_coresident_stages(c));
    }
  }
  ConvSm90Config c;
  c.tile_n = 64;
  EXPECT_EQ(conv_sm90_coresident_stages(c), 4);
  c.tile_n = 128;
  EXPECT_EQ(conv_sm90_coresident_stages(c), 0);
}

TEST(ConvSm90, PersistentCooperativeConfigs) {
  // The persistent kernel: "_coop" after the cluster, tiles up to 256 rows (two consumer
  // warpgroups), forward and backward data, stages always auto.
  ConvSm90Config c;
  c.schedule = ConvSchedule::kCooperative;
  c.tile_m = 256;
  EXPECT_EQ(c.name(), "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t256x128x64_c1x1_coop");
  EXPECT_TRUE(check_conv_sm90(c).is_ok()) << check_conv_sm90(c).message();
  auto back = ConvSm90Config::parse_name(c.name());
  ASSERT_TRUE(back.has_value()) << back.status().message();
  EXPECT_EQ(*back, c);
  c.tile_m = 128;
  c.tile_n = 256;
  EXPECT_TRUE(check_conv_sm90(c).is_ok()) << check_conv_sm90(c).message();
  EXPECT_EQ(conv_sm90_coresident_stages(c), 0);
  c.cls.direction = ConvDirection::kBackwardData;
  EXPECT_TRUE(check_conv_sm90(c).is_ok()) << check_conv_sm90(c).message();
  // With a wrapper suffix after it, it still reads back.
  c.dense_groups = true;
  auto dense = ConvSm90Config::parse_name(c.name());
  ASSERT_TRUE(dense.has_value()) << dense.status().message();
  EXPECT_EQ(*dense, c);
  struct Case {
    void (*edit)(ConvSm90Config&);
    const char* reason;
  };
  const Case cases[] = {
      {[](ConvSm90Config& k) { k.tile_m = 64; }, "cooperative tile M must be 128 or 256"},
      {[](ConvSm90Config& k) { k.tile_n = 256, k.tile_m = 256; }, "128 registers per thread"},
      {[](ConvSm90Config& k) { k.stages = 4; }, "as many stages as fit"},
      {[](ConvSm90Config& k) { k.cls.direction = ConvDirection::kBackwardWeight; },
       "forward and backward data only"},
  };
  for (const Case& k : cases) {
    ConvSm90Config bad;
    bad.schedule = ConvSchedule::kCooperative;
    k.edit(bad);
    const core::Status s = check_conv_sm90(bad);
    ASSERT_FALSE(s.is_ok()) << k.reason;
    EXPECT_NE(s.message().find(k.reason), std::string::npos) << s.message();
  }
  EXPECT_FALSE(ConvSm90Config::parse_name(
                   "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128x64_c1x1_coop_coop")
                   .has_value());
  // Pingpong: one warpgroup per tile, so 64- or 128-row tiles of at most 128x128.
  ConvSm90Config pp;
  pp.schedule = ConvSchedule::kPingpong;
  pp.tile_n = 64;
  EXPECT_EQ(pp.name(),
            "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x64x64_c1x1_pingpong");
  EXPECT_TRUE(check_conv_sm90(pp).is_ok()) << check_conv_sm90(pp).message();
  auto pp_back = ConvSm90Config::parse_name(pp.name());
  ASSERT_TRUE(pp_back.has_value()) << pp_back.status().message();
  EXPECT_EQ(*pp_back, pp);
  pp.tile_m = 256;
  EXPECT_NE(check_conv_sm90(pp).message().find("pingpong tile M must be 64 or 128"),
            std::string::npos);
  pp.tile_m = 128;
  pp.tile_n = 256;
  EXPECT_NE(check_conv_sm90(pp).message().find("128 registers per thread"), std::string::npos);
  // The default space has both schedules for forward and backward data, neither for wgrad.
  int coop = 0, pingpong = 0;
  for (const ConvSm90Config& k : conv_sm90_space(ConvClass{}, RuleSet::kDefault)) {
    coop += k.schedule == ConvSchedule::kCooperative;
    pingpong += k.schedule == ConvSchedule::kPingpong;
  }
  EXPECT_GT(coop, 0);
  EXPECT_GT(pingpong, 0);
  ConvClass wgrad;
  wgrad.direction = ConvDirection::kBackwardWeight;
  for (const ConvSm90Config& k : conv_sm90_space(wgrad, RuleSet::kFull)) {
    EXPECT_FALSE(k.persistent()) << k.name();
  }
}

TEST(ConvSm90, RuleSetsGrow) {
  const ConvClass cls;
  EXPECT_LT(conv_sm90_space(cls, RuleSet::kTiny).size(),
            conv_sm90_space(cls, RuleSet::kDefault).size());
  EXPECT_LT(conv_sm90_space(cls, RuleSet::kDefault).size(),
            conv_sm90_space(cls, RuleSet::kFull).size());
}

TEST(ConvSm90, ValidityRulesGiveReasons) {
  struct Case {
    void (*edit)(ConvSm90Config&);
    const char* reason;
  };
  const Case cases[] = {
      {[](ConvSm90Config& c) { c.tile_m = 256; }, "tile M must be 64 or 128"},
      {[](ConvSm90Config& c) { c.tile_n = 48; }, "tile N must be a multiple of 32"},
      {[](ConvSm90Config& c) { c.tile_k = 256; }, "tile K must span 64 or 128 bytes"},
      {[](ConvSm90Config& c) { c.tile_n = 256; }, "128 registers per thread"},
      {[](ConvSm90Config& c) { c.cluster_n = 4; }, "cluster sizes must be 1 or 2"},
      {[](ConvSm90Config& c) { c.stages = 1; }, "stages must be 0 (auto) or in [2, 8]"},
      {[](ConvSm90Config& c) { c.stages = 7; }, "7 mainloop stages do not fit"},
  };
  for (const Case& k : cases) {
    ConvSm90Config c;
    k.edit(c);
    const core::Status s = check_conv_sm90(c);
    ASSERT_FALSE(s.is_ok()) << k.reason;
    EXPECT_NE(s.message().find(k.reason), std::string::npos) << s.message();
  }
}

TEST(ConvSm90, UnsupportedClassesHaveNoConfigsAndSayWhy) {
  ConvClass exact;
  exact.dtype = DType::kF32;
  EXPECT_TRUE(conv_sm90_space(exact, RuleSet::kFull).empty());
  EXPECT_NE(check_conv_sm90_class(exact).message().find("tf32"), std::string::npos);
  ConvClass tf32_dgrad = exact;
  tf32_dgrad.math = core::MathMode::kTF32;
  tf32_dgrad.direction = ConvDirection::kBackwardData;
  EXPECT_NE(check_conv_sm90_class(tf32_dgrad).message().find("forward only"), std::string::npos);
  ConvClass wgrad_bias;
  wgrad_bias.direction = ConvDirection::kBackwardWeight;
  wgrad_bias.bias = true;
  EXPECT_NE(check_conv_sm90_class(wgrad_bias).message().find("forward epilogues"),
            std::string::npos);
  ConvClass fp8;
  fp8.dtype = DType::kF8E4M3;
  EXPECT_FALSE(check_conv_sm90_class(fp8).is_ok());
}

TEST(ConvSm90, ParseNameErrors) {
  for (const char* bad :
       {"conv.sm90_implicit_", "conv.direct_x",
        "conv.sm90_implicit_bf16_f32acc_fprop_4d_nobias.none_t128x128x64_c1x1",
        "conv.sm90_implicit_bf16_f32acc_sideways_2d_nobias.none_t128x128x64_c1x1",
        "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t128x128_c1x1",
        "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t0128x128x64_c1x1"}) {
    EXPECT_FALSE(ConvSm90Config::parse_name(bad).has_value()) << bad;
  }
}

TEST(ConvSm90, ClassOfAProblemKeepsTheEpilogueForwardOnly) {
  ops::ConvProblem p;
  p.dtype = DType::kBF16;
  p.bias = true;
  p.activation = ops::Activation::kRelu;
  EXPECT_EQ(conv_class_of(p).name(), "bf16_f32acc_fprop_2d_bias.relu");
  p.direction = ConvDirection::kBackwardWeight;
  EXPECT_EQ(conv_class_of(p).name(), "bf16_f32acc_wgrad_2d_nobias.none");
}

}  // namespace
}  // namespace boo::space
