// Config fields (space/config_fields.h): the keys and values listings print, that they tell
// every config of a space apart as names do, and the representative classes listings use.
#include "boo/space/config_fields.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace boo::space {
namespace {

using core::DType;

std::string value_of(const ConfigFields& f, const std::string& key) {
  for (const auto& [k, v] : f) {
    if (k == key) return v;
  }
  return "<missing " + key + ">";
}

std::vector<std::string> keys_of(const ConfigFields& f) {
  std::vector<std::string> keys;
  for (const auto& kv : f) keys.push_back(kv.first);
  return keys;
}

TEST(ConfigFields, GemmSm90ConfigInNameOrder) {
  auto c = GemmSm90Config::parse_name(
      "gemm.sm90_bf16.bf16.bf16.bf16_f32acc_nt_bias.fp32.gelu-tanh_t128x256x64_c2x1_coop_"
      "splitk4_sw8.rn");
  ASSERT_TRUE(c.has_value()) << c.status().message();
  const ConfigFields f = config_fields(*c);
  EXPECT_EQ(keys_of(f),
            (std::vector<std::string>{"algorithm", "types", "math", "trans", "bias", "act", "alpha",
                                      "scale", "tile", "cluster", "schedule", "scheduler",
                                      "operands", "splits", "swizzle", "raster"}));
  EXPECT_EQ(format_fields(f),
            "algorithm=gemm.sm90 types=bf16.bf16.bf16.bf16 math=f32acc trans=nt bias=fp32 "
            "act=gelu-tanh alpha=scalar scale=none tile=128x256x64 cluster=2x1 schedule=coop "
            "scheduler=splitk operands=as-given splits=4 swizzle=8 raster=along-n");
  c->unaligned = true;
  c->schedule = GemmSchedule::kPingpong;
  c->scheduler = GemmScheduler::kStreamK;
  c->raster = GemmRaster::kAlongM;
  const ConfigFields g = config_fields(*c);
  EXPECT_EQ(value_of(g, "algorithm"), "gemm.sm90_unaligned");
  EXPECT_EQ(value_of(g, "schedule"), "pingpong");
  EXPECT_EQ(value_of(g, "scheduler"), "streamk");
  EXPECT_EQ(value_of(g, "raster"), "along-m");
  c->unaligned = false;
  c->scheduler = GemmScheduler::kPersistent;
  c->swap_ab = true;
  EXPECT_EQ(value_of(config_fields(*c), "operands"), "swapped");
}

TEST(ConfigFields, GemmClassEpilogueFields) {
  GemmClass c;
  c.a = c.b = DType::kF8E4M3;
  c.d = DType::kF16;
  c.has_c = true;
  c.alpha_vector = true;
  c.scaled = true;
  const ConfigFields f = gemm_class_fields(c);
  EXPECT_EQ(value_of(f, "types"), "fp8e4m3.fp8e4m3.fp16.fp16");
  EXPECT_EQ(value_of(f, "bias"), "none");
  EXPECT_EQ(value_of(f, "alpha"), "per-row");
  EXPECT_EQ(value_of(f, "scale"), "per-tensor");
  EXPECT_EQ(config_fields("gemm.fallback", c).front(),
            (std::pair<std::string, std::string>{"algorithm", "gemm.fallback"}));
  EXPECT_EQ(config_fields("gemm.fallback", c).size(), f.size() + 1);
}

TEST(ConfigFields, SkinnyNarrowSideAndSplits) {
  GemmSkinnyConfig c;
  c.narrow_m = true;
  EXPECT_EQ(value_of(config_fields(c), "algorithm"), "gemm.skinny");
  EXPECT_EQ(value_of(config_fields(c), "narrow"), "m");
  EXPECT_EQ(value_of(config_fields(c), "splits"), "auto");
  c.narrow_m = false;
  c.splits = 8;
  EXPECT_EQ(value_of(config_fields(c), "narrow"), "n");
  EXPECT_EQ(value_of(config_fields(c), "loop"), "split");
  EXPECT_EQ(value_of(config_fields(c), "splits"), "8");
  c.stream = true;
  c.splits = 4;
  EXPECT_EQ(value_of(config_fields(c), "loop"), "stream");
  EXPECT_EQ(value_of(config_fields(c), "warps"), "4");
}

TEST(ConfigFields, ConvDirectionsAndEpilogue) {
  ConvSm90Config c;
  c.tile_m = 64;
  c.tile_n = 256;
  c.cls.bias = true;
  c.cls.activation = ops::Activation::kGeluTanh;
  EXPECT_EQ(format_fields(config_fields(c)),
            "algorithm=conv.sm90_implicit dtype=bf16 math=f32acc direction=fprop dims=2 "
            "bias=per-channel act=gelu-tanh schedule=basic tile=64x256x64 cluster=1x1");
  c.schedule = ConvSchedule::kCooperative;
  c.tile_m = 128;
  EXPECT_EQ(value_of(config_fields(c), "schedule"), "coop_persistent");
  ConvClass d;
  d.direction = ops::ConvDirection::kBackwardData;
  d.spatial_dims = 3;
  EXPECT_EQ(value_of(conv_class_fields(d), "direction"), "dgrad");
  EXPECT_EQ(value_of(conv_class_fields(d), "dims"), "3");
  d.direction = ops::ConvDirection::kBackwardWeight;
  EXPECT_EQ(value_of(config_fields("conv.direct", d), "direction"), "wgrad");
  EXPECT_EQ(value_of(config_fields("conv.direct", d), "algorithm"), "conv.direct");
}

// The fields spell a config as completely as its name: distinct names, distinct fields.
TEST(ConfigFields, TellEveryConfigOfTheFullSpacesApart) {
  std::set<std::string> names, fields;
  for (const GemmClass& cls : representative_gemm_classes()) {
    // The full gemm.sm90 space of one class (4700 configs) has every raster and swizzle; all
    // twelve would take seconds under the sanitizers.
    const RuleSet sm90_rules =
        cls == representative_gemm_classes().front() ? RuleSet::kFull : RuleSet::kTiny;
    for (GemmSm90Config c : gemm_sm90_space(cls, sm90_rules)) {
      for (bool unaligned : {false, true}) {
        c.unaligned = unaligned;
        names.insert(c.name());
        fields.insert(format_fields(config_fields(c)));
      }
    }
    for (bool narrow_m : {false, true}) {
      for (const GemmSkinnyConfig& c : gemm_skinny_space(cls, narrow_m, RuleSet::kFull)) {
        names.insert(c.name());
        fields.insert(format_fields(config_fields(c)));
      }
    }
  }
  for (const ConvClass& cls : representative_conv_classes()) {
    for (const ConvSm90Config& c : conv_sm90_space(cls, RuleSet::kFull)) {
      names.insert(c.name());
      fields.insert(format_fields(config_fields(c)));
    }
  }
  EXPECT_GT(names.size(), 9000u);
  EXPECT_EQ(fields.size(), names.size());
}

TEST(RepresentativeClasses, AreTheDocumentedSetAndValidForEveryAlgorithm) {
  const std::vector<GemmClass> gemm = representative_gemm_classes();
  ASSERT_EQ(gemm.size(), 12u);
  std::set<std::string> names;
  for (const GemmClass& c : gemm) {
    names.insert(c.name());
    EXPECT_EQ(*GemmClass::parse_name(c.name()), c);
    EXPECT_TRUE(check_gemm_sm90_class(c).is_ok()) << c.name();
    EXPECT_TRUE(check_gemm_skinny_class(c).is_ok()) << c.name();
    EXPECT_FALSE(gemm_sm90_space(c, RuleSet::kTiny).empty()) << c.name();
  }
  EXPECT_EQ(names.size(), gemm.size());
  for (const char* t : {"bf16", "fp16"}) {
    const std::string p = std::string(t) + "." + t + ".void." + t + "_f32acc_";
    for (const char* trans : {"tn", "nn", "nt", "tt"}) {
      EXPECT_TRUE(names.count(p + trans + "_nobias.none")) << p + trans;
    }
    EXPECT_TRUE(names.count(p + "tn_bias." + t + ".relu")) << p;
  }
  EXPECT_TRUE(names.count("fp32.fp32.void.fp32_tf32_tn_nobias.none"));
  EXPECT_TRUE(names.count("fp8e4m3.fp8e4m3.void.bf16_f32acc_tn_nobias.none_scaled"));

  const std::vector<ConvClass> conv = representative_conv_classes();
  ASSERT_EQ(conv.size(), 9u);
  std::set<std::string> conv_names;
  for (const ConvClass& c : conv) {
    conv_names.insert(c.name());
    EXPECT_EQ(*ConvClass::parse_name(c.name()), c);
    EXPECT_TRUE(check_conv_sm90_class(c).is_ok()) << c.name();
    EXPECT_FALSE(conv_sm90_space(c, RuleSet::kTiny).empty()) << c.name();
  }
  for (const char* t : {"bf16", "fp16"}) {
    for (const char* d : {"fprop", "dgrad", "wgrad"}) {
      EXPECT_TRUE(conv_names.count(std::string(t) + "_f32acc_" + d + "_2d_nobias.none"));
    }
    EXPECT_TRUE(conv_names.count(std::string(t) + "_f32acc_fprop_2d_bias.relu"));
  }
  EXPECT_TRUE(conv_names.count("fp32_tf32_fprop_2d_nobias.none"));
}

}  // namespace
}  // namespace boo::space
