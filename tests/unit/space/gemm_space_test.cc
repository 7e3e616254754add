#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "boo/space/gemm_class.h"
#include "boo/space/gemm_skinny.h"
#include "boo/space/gemm_sm90.h"

namespace boo::space {
namespace {

TEST(GemmClass, NamesRoundTripForEverySampleClass) {
  std::set<std::string> names;
  for (const GemmClass& c : sample_gemm_classes()) {
    auto back = GemmClass::parse_name(c.name());
    ASSERT_TRUE(back.has_value()) << c.name() << ": " << back.status().message();
    EXPECT_EQ(*back, c) << c.name();
    names.insert(c.name());
  }
  EXPECT_EQ(names.size(), sample_gemm_classes().size());
  GemmClass odd;
  odd.alpha_vector = true;
  odd.scaled = true;
  odd.activation = ops::Activation::kGeluTanh;
  EXPECT_EQ(*GemmClass::parse_name(odd.name()), odd);
}

TEST(GemmClass, ParseRejectsGarbage) {
  for (const char* bad :
       {"", "bf16", "bf16.bf16.void.bf16_f32acc_xx_nobias.none",
        "bf16.bf16.void.bf16_f32acc_tn_nobias.unknown", "bf16.bf16.fp16.bf16_f32acc_tn_nobias.none",
        "bf16.bf16.void.bf16_f32acc_tn_nobias.none_extra"}) {
    EXPECT_FALSE(GemmClass::parse_name(bad).has_value()) << bad;
  }
}

TEST(GemmSm90, EveryConfigOfEveryRuleSetRoundTrips) {
  size_t total = 0;
  for (RuleSet rules : kAllRuleSets) {
    for (const GemmClass& cls : sample_gemm_classes()) {
      for (const GemmSm90Config& c : gemm_sm90_space(cls, rules)) {
        ++total;
        auto back = GemmSm90Config::parse_name(c.name());
        ASSERT_TRUE(back.has_value()) << c.name() << ": " << back.status().message();
        ASSERT_EQ(*back, c) << c.name();
        EXPECT_TRUE(check_gemm_sm90(c).is_ok()) << c.name();
      }
    }
  }
  EXPECT_GT(total, 1000u);
}

TEST(GemmSm90, RuleSetsGrow) {
  const GemmClass bf16 = sample_gemm_classes().front();
  const size_t tiny = gemm_sm90_space(bf16, RuleSet::kTiny).size();
  const size_t def = gemm_sm90_space(bf16, RuleSet::kDefault).size();
  const size_t full = gemm_sm90_space(bf16, RuleSet::kFull).size();
  EXPECT_GE(tiny, 1u);
  EXPECT_LT(tiny, def);
  EXPECT_LT(def, full);
}

GemmSm90Config base() {
  GemmSm90Config c;
  c.cls = sample_gemm_classes().front();  // bf16, N x N
  return c;
}

// A tile of class `cls` (clusters 1x1, persistent), for the validity checks.
GemmSm90Config tile_of(const GemmClass& cls, int m, int n, int k, GemmSchedule schedule) {
  GemmSm90Config c;
  c.cls = cls;
  c.tile_m = m;
  c.tile_n = n;
  c.tile_k = k;
  c.schedule = schedule;
  return c;
}

TEST(GemmSm90, ValidityRulesGiveReasons) {
  struct Case {
    std::function<void(GemmSm90Config&)> edit;
    const char* reason;
  };
  const Case cases[] = {
      {[](GemmSm90Config& c) { c.tile_m = 64; }, "cooperative schedule needs tile M >= 128"},
      {[](GemmSm90Config& c) {
         c.schedule = GemmSchedule::kPingpong;
         c.tile_m = 256;
       },
       "pingpong schedule needs tile M <= 128"},
      {[](GemmSm90Config& c) {
         c.tile_m = 256;
         c.tile_n = 256;
       },
       "128 registers"},
      {[](GemmSm90Config& c) {
         c.schedule = GemmSchedule::kPingpong;
         c.scheduler = GemmScheduler::kStreamK;
       },
       "need the cooperative schedule"},
      {[](GemmSm90Config& c) {
         c.tile_n = 256;
         c.tile_k = 128;
       },
       "shared memory"},
      {[](GemmSm90Config& c) { c.tile_k = 48; }, "TMA swizzle"},
      {[](GemmSm90Config& c) { c.cluster_m = 4; }, "cluster sizes"},
      {[](GemmSm90Config& c) { c.splits = 3; }, "split-K takes"},
      {[](GemmSm90Config& c) { c.tile_n = 100; }, "multiple of 16"},
      {[](GemmSm90Config& c) {
         c.cls.a = c.cls.b = c.cls.d = core::DType::kF32;
         c.cls.math = core::MathMode::kTF32;
         c.cls.trans_a = ops::Transpose::kT;  // K-major: gemm.sm90 in place
         c.cls.has_c = true;
         c.tile_k = 32;
         c.tile_n = 16;
       },
       "fp32 C needs tile N >= 32"},
  };
  EXPECT_TRUE(check_gemm_sm90(base()).is_ok());
  for (const Case& k : cases) {
    GemmSm90Config c = base();
    k.edit(c);
    const core::Status s = check_gemm_sm90(c);
    ASSERT_FALSE(s.is_ok()) << c.name();
    EXPECT_NE(s.message().find(k.reason), std::string::npos) << s.message();
  }
}

TEST(GemmSm90, UnsupportedClassesHaveNoConfigs) {
  GemmClass tf32_nn;
  tf32_nn.a = tf32_nn.b = tf32_nn.d = core::DType::kF32;
  tf32_nn.math = core::MathMode::kTF32;
  tf32_nn.trans_a = ops::Transpose::kN;
  EXPECT_NE(check_gemm_sm90_class(tf32_nn).message().find("K-major"), std::string::npos);
  GemmClass exact = tf32_nn;
  exact.math = core::MathMode::kF32;
  EXPECT_FALSE(check_gemm_sm90_class(exact).is_ok());
  GemmClass avec;
  avec.alpha_vector = true;
  EXPECT_FALSE(check_gemm_sm90_class(avec).is_ok());
}

TEST(GemmSm90, Tf32OperandsThatAreNotKMajorRunBehindTransposedCopies) {
  GemmClass tf32;
  tf32.a = tf32.b = tf32.d = core::DType::kF32;
  tf32.math = core::MathMode::kTF32;
  EXPECT_FALSE(gemm_sm90_transposes(tf32));  // TN: K-major already
  EXPECT_FALSE(gemm_sm90_space(tf32, RuleSet::kDefault).front().unaligned);
  const std::pair<ops::Transpose, ops::Transpose> layouts[] = {
      {ops::Transpose::kN, ops::Transpose::kN},
      {ops::Transpose::kN, ops::Transpose::kT},
      {ops::Transpose::kT, ops::Transpose::kT}};
  for (auto [ta, tb] : layouts) {
    GemmClass c = tf32;
    c.trans_a = ta;
    c.trans_b = tb;
    EXPECT_TRUE(gemm_sm90_transposes(c)) << c.name();
    EXPECT_FALSE(check_gemm_sm90_class(c).is_ok()) << c.name();
    EXPECT_TRUE(check_gemm_sm90_class(c, /*transposed_copies=*/true).is_ok()) << c.name();
    const auto space = gemm_sm90_space(c, RuleSet::kDefault);
    ASSERT_FALSE(space.empty()) << c.name();
    for (const GemmSm90Config& x : space) {
      EXPECT_TRUE(x.unaligned) << x.name();
      EXPECT_FALSE(x.swap_ab) << x.name();
      EXPECT_NE(x.scheduler, GemmScheduler::kSplitKParallel) << x.name();
      GemmSm90Config aligned = x;
      aligned.unaligned = false;
      EXPECT_NE(check_gemm_sm90(aligned).message().find("K-major"), std::string::npos);
    }
  }
  // Only tf32: fp8 and exact fp32 are not transposed.
  GemmClass fp8_nn;
  fp8_nn.a = fp8_nn.b = core::DType::kF8E4M3;
  fp8_nn.trans_a = ops::Transpose::kN;
  EXPECT_FALSE(gemm_sm90_transposes(fp8_nn));
  GemmClass bf16_nn;
  bf16_nn.trans_a = ops::Transpose::kN;
  EXPECT_FALSE(gemm_sm90_transposes(bf16_nn));
}

TEST(GemmSm90, Fp8IsKMajorOnlyWithAWiderOutput) {
  GemmClass fp8;
  fp8.a = core::DType::kF8E4M3;
  fp8.b = core::DType::kF8E5M2;
  fp8.scaled = true;
  EXPECT_TRUE(check_gemm_sm90_class(fp8).is_ok()) << check_gemm_sm90_class(fp8).message();
  const auto space = gemm_sm90_space(fp8, RuleSet::kDefault);
  ASSERT_FALSE(space.empty());
  for (const GemmSm90Config& c : space) EXPECT_EQ(c.tile_k % 128, 0) << c.name();  // 128 B
  // Two sets of accumulators (CUTLASS's accurate fp8 mainloop): at most 96 fp32 a thread, so
  // no 128x256 cooperative or 128x128 pingpong tile (ptxas spilled both).
  for (RuleSet rules : {RuleSet::kDefault, RuleSet::kFull}) {
    for (const GemmSm90Config& c : gemm_sm90_space(fp8, rules)) {
      const int threads = c.schedule == GemmSchedule::kCooperative ? 256 : 128;
      EXPECT_LE(2 * c.tile_m * c.tile_n / threads, 192) << c.name();
    }
  }
  // A 256-deep fp8 k-tile (8 MMAs) is not a divisor of CUTLASS's promotion interval (4 MMAs):
  // its can_implement refuses every problem, so the space has none.
  for (RuleSet rules : {RuleSet::kDefault, RuleSet::kFull}) {
    for (const GemmSm90Config& c : gemm_sm90_space(fp8, rules)) {
      EXPECT_LE(c.tile_k, 128) << c.name();
    }
  }
  GemmSm90Config deep = tile_of(fp8, 128, 128, 256, GemmSchedule::kCooperative);
  EXPECT_NE(check_gemm_sm90(deep).message().find("an fp8 tile K is at most 128"), std::string::npos)
      << check_gemm_sm90(deep).message();
  GemmSm90Config big = tile_of(fp8, 128, 256, 128, GemmSchedule::kCooperative);
  EXPECT_NE(check_gemm_sm90(big).message().find("two sets of fp32 accumulators"), std::string::npos)
      << check_gemm_sm90(big).message();
  big.tile_n = 192;
  EXPECT_TRUE(check_gemm_sm90(big).is_ok()) << check_gemm_sm90(big).message();
  big.tile_n = 128;
  big.schedule = GemmSchedule::kPingpong;
  EXPECT_FALSE(check_gemm_sm90(big).is_ok());
  big.tile_m = 64;
  EXPECT_TRUE(check_gemm_sm90(big).is_ok()) << check_gemm_sm90(big).message();
  GemmClass nn = fp8;
  nn.trans_a = ops::Transpose::kN;
  EXPECT_NE(check_gemm_sm90_class(nn).message().find("K-major"), std::string::npos);
  GemmClass mixed = fp8;
  mixed.b = core::DType::kBF16;
  EXPECT_FALSE(check_gemm_sm90_class(mixed).is_ok());
}

TEST(GemmSm90, NarrowTilesArePersistentAndNotForFp8) {
  // The default rule set has 16- and 32-wide tiles (decode GEMMs), persistent or parallel
  // split-K (CUTLASS's serial split-K and stream-K over them measured slow).
  const GemmClass bf16 = sample_gemm_classes().front();
  int narrow = 0;
  for (const GemmSm90Config& c : gemm_sm90_space(bf16, RuleSet::kDefault)) {
    if (c.tile_n >= 64) continue;
    ++narrow;
    EXPECT_TRUE(c.scheduler == GemmScheduler::kPersistent ||
                c.scheduler == GemmScheduler::kSplitKParallel)
        << c.name();
  }
  EXPECT_GT(narrow, 0);
  // The full rule set also splits K over them (for sweeps).
  bool split = false;
  for (const GemmSm90Config& c : gemm_sm90_space(bf16, RuleSet::kFull)) {
    split = split || (c.tile_n == 16 && c.scheduler == GemmScheduler::kSplitK);
  }
  EXPECT_TRUE(split);
  // fp8 keeps tiles at least 64 wide in both.
  GemmClass fp8;
  fp8.a = fp8.b = core::DType::kF8E4M3;
  fp8.scaled = true;
  for (RuleSet rules : {RuleSet::kDefault, RuleSet::kFull}) {
    for (const GemmSm90Config& c : gemm_sm90_space(fp8, rules)) EXPECT_GE(c.tile_n, 64) << c.name();
  }
  // A forced narrow fp8 tile is valid with a 128-byte K only (CUTLASS refuses 64x16x256, as it
  // refuses every 256-deep fp8 k-tile).
  GemmSm90Config forced = tile_of(fp8, 64, 16, 128, GemmSchedule::kPingpong);
  EXPECT_TRUE(check_gemm_sm90(forced).is_ok()) << check_gemm_sm90(forced).message();
  forced.tile_k = 256;
  EXPECT_NE(check_gemm_sm90(forced).message().find("an fp8 tile K is at most 128"),
            std::string::npos)
      << check_gemm_sm90(forced).message();
}

TEST(GemmSm90, UnalignedNamesRoundTrip) {
  GemmSm90Config c = base();
  c.unaligned = true;
  EXPECT_EQ(c.name().rfind("gemm.sm90_unaligned_bf16", 0), 0u) << c.name();
  EXPECT_EQ(c.kernel_name().rfind("gemm.sm90_unaligned_bf16", 0), 0u);
  auto back = GemmSm90Config::parse_name(c.name());
  ASSERT_TRUE(back.has_value()) << back.status().message();
  EXPECT_EQ(*back, c);
  EXPECT_NE(c.kernel_name(), base().kernel_name());
}

// Swapped operands (GemmSm90Config::swap_ab): "_swap" after the scheduler in the name and the
// kernel's identity; persistent, 16-bit, no bias, aligned only; the default rule set has the
// narrow tiles swapped, and no other.
TEST(GemmSm90, SwappedOperandsNameTheirOwnKernelAndAreNarrowAndPersistent) {
  GemmSm90Config c = base();
  c.tile_m = 64;
  c.tile_n = 16;
  c.tile_k = 128;
  c.schedule = GemmSchedule::kPingpong;
  c.swap_ab = true;
  ASSERT_TRUE(check_gemm_sm90(c).is_ok()) << check_gemm_sm90(c).message();
  EXPECT_NE(c.name().find("_pingpong_persistent_swap_sw1.rh"), std::string::npos) << c.name();
  EXPECT_NE(c.kernel_name().find("_pingpong_persistent_swap"), std::string::npos);
  auto back = GemmSm90Config::parse_name(c.name());
  ASSERT_TRUE(back.has_value()) << back.status().message();
  EXPECT_EQ(*back, c);
  GemmSm90Config plain = c;
  plain.swap_ab = false;
  EXPECT_NE(c.kernel_name(), plain.kernel_name());
  // What it refuses, with the reason.
  const auto refuses = [](GemmSm90Config x) {
    return check_gemm_sm90(x).message().find("swapped operands") != std::string::npos;
  };
  GemmSm90Config biased = c;
  biased.cls.bias = true;
  EXPECT_TRUE(refuses(biased));
  GemmSm90Config unaligned = c;
  unaligned.unaligned = true;
  EXPECT_TRUE(refuses(unaligned));
  GemmSm90Config split = c;
  split.tile_m = 128;
  split.schedule = GemmSchedule::kCooperative;
  split.scheduler = GemmScheduler::kStreamK;
  EXPECT_TRUE(refuses(split));
  GemmSm90Config fp32 = c;
  fp32.cls.a = fp32.cls.b = fp32.cls.d = core::DType::kF32;
  fp32.tile_k = 32;
  if (check_gemm_sm90_class(fp32.cls).is_ok()) {
    EXPECT_TRUE(refuses(fp32));
  }
  // The default rule set: swapped configs only on 16- and 32-wide tiles, persistent.
  int swapped = 0;
  for (const GemmSm90Config& x : gemm_sm90_space(base().cls, RuleSet::kDefault)) {
    if (!x.swap_ab) continue;
    ++swapped;
    EXPECT_LE(x.tile_n, 32) << x.name();
    EXPECT_EQ(x.scheduler, GemmScheduler::kPersistent) << x.name();
  }
  EXPECT_GT(swapped, 0);
  GemmClass with_bias = base().cls;
  with_bias.bias = true;
  with_bias.bias_type = core::DType::kBF16;
  for (const GemmSm90Config& x : gemm_sm90_space(with_bias, RuleSet::kFull)) {
    EXPECT_FALSE(x.swap_ab) << x.name();
  }
}

TEST(GemmSm90, SplitCountsShareOneKernel) {
  GemmSm90Config a = base();
  a.scheduler = GemmScheduler::kSplitK;
  a.splits = 2;
  GemmSm90Config b = a;
  b.splits = 8;
  GemmSm90Config c = a;
  c.scheduler = GemmScheduler::kStreamK;
  c.splits = 1;
  EXPECT_NE(a.name(), b.name());
  EXPECT_EQ(a.kernel_name(), b.kernel_name());
  EXPECT_EQ(a.kernel_name(), c.kernel_name());
  EXPECT_NE(base().kernel_name(), a.kernel_name());
}

TEST(GemmSm90, ParallelSplitKIsItsOwnKernelWithAnyCount) {
  GemmSm90Config a = base();
  a.scheduler = GemmScheduler::kSplitKParallel;
  a.splits = 36;
  EXPECT_TRUE(check_gemm_sm90(a).is_ok()) << check_gemm_sm90(a).message();
  EXPECT_NE(a.name().find("_psplitk36_"), std::string::npos) << a.name();
  auto back = GemmSm90Config::parse_name(a.name());
  ASSERT_TRUE(back.has_value()) << back.status().message();
  EXPECT_EQ(*back, a);
  GemmSm90Config b = a;
  b.splits = 7;
  EXPECT_EQ(a.kernel_name(), b.kernel_name());
  EXPECT_NE(a.kernel_name().find("_psk"), std::string::npos) << a.kernel_name();
  GemmSm90Config serial = a;
  serial.scheduler = GemmScheduler::kSplitK;
  serial.splits = 4;
  EXPECT_NE(a.kernel_name(), serial.kernel_name());
  // The inner kernel is persistent: pingpong is valid too.
  GemmSm90Config ping = a;
  ping.schedule = GemmSchedule::kPingpong;
  ping.tile_m = 128;
  ping.tile_n = 64;
  EXPECT_TRUE(check_gemm_sm90(ping).is_ok()) << check_gemm_sm90(ping).message();
  for (int bad : {0, 1, kMaxParallelSplits + 1}) {
    GemmSm90Config c = a;
    c.splits = bad;
    EXPECT_NE(check_gemm_sm90(c).message().find("parallel split-K 2 to 256"), std::string::npos)
        << bad << ": " << check_gemm_sm90(c).message();
  }
  GemmSm90Config padded = a;
  padded.unaligned = true;
  EXPECT_NE(check_gemm_sm90(padded).message().find("aligned operands only"), std::string::npos);
  EXPECT_FALSE(GemmSm90Config::parse_name(
                   "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x128x64_c1x1_coop_"
                   "psplitk999_sw1.rh")
                   .has_value());
  // Both non-tiny rule sets carry it (the count is set per problem by dispatch).
  for (RuleSet rules : {RuleSet::kDefault, RuleSet::kFull}) {
    size_t parallel = 0;
    for (const GemmSm90Config& c : gemm_sm90_space(base().cls, rules)) {
      parallel += c.scheduler == GemmScheduler::kSplitKParallel;
    }
    EXPECT_GT(parallel, 0u);
  }
}

TEST(GemmSm90, ParallelSplitsCutKExactly) {
  // 147456 = 18432 vectors of 8: the most slices up to 44 that divide it is 36.
  EXPECT_EQ(parallel_splits(147456, 8, 256, 44), 36);
  EXPECT_EQ(parallel_splits(65536, 8, 256, 33), 32);
  // Slices no shorter than min_k: 4096 / 16 = 256.
  EXPECT_EQ(parallel_splits(4096, 8, 256, 132), 16);
  // K not a whole number of vectors, a prime count of vectors, or too short: none.
  EXPECT_EQ(parallel_splits(65537, 8, 64, 64), 0);
  EXPECT_EQ(parallel_splits(8 * 4099, 8, 64, 64), 0);
  EXPECT_EQ(parallel_splits(512, 8, 256, 64), 2);
  EXPECT_EQ(parallel_splits(256, 8, 256, 64), 0);
  EXPECT_EQ(parallel_splits(1 << 30, 8, 64, 100000), kMaxParallelSplits);
}

TEST(GemmSm90, ParseNameErrors) {
  for (const char* bad : {"gemm.sm90_", "gemm.fallback_x",
                          "gemm.sm90_bf16.bf16.void.bf16_f32acc_"
                          "tn_nobias.none_t128x128_c1x1_coop_persistent",
                          "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x128x64_c1x1_"
                          "coop_splitkx"}) {
    EXPECT_FALSE(GemmSm90Config::parse_name(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace boo::space

namespace boo::space {
namespace {

TEST(GemmSkinny, NamesRoundTripAndRules) {
  size_t total = 0;
  for (RuleSet rules : kAllRuleSets) {
    for (const GemmClass& cls : sample_gemm_classes()) {
      for (bool narrow_m : {false, true}) {
        for (const GemmSkinnyConfig& c : gemm_skinny_space(cls, narrow_m, rules)) {
          ++total;
          auto back = GemmSkinnyConfig::parse_name(c.name());
          ASSERT_TRUE(back.has_value()) << c.name() << ": " << back.status().message();
          EXPECT_EQ(*back, c);
          EXPECT_EQ(c.kernel_name().find("_split"), std::string::npos);
          // The streaming loop: 16-bit and fp8 inputs only, its own kernel.
          if (c.stream) {
            EXPECT_NE(cls.a, core::DType::kF32) << c.name();
            EXPECT_NE(c.kernel_name().find("_stream"), std::string::npos);
          }
        }
      }
    }
  }
  EXPECT_GT(total, 200u);
  GemmSkinnyConfig c;
  c.splits = 8;
  EXPECT_NE(c.name().find("_narrow-n_split8"), std::string::npos);
  c.splits = 65;
  EXPECT_FALSE(check_gemm_skinny(c).is_ok());
  GemmClass mixed;
  mixed.b = core::DType::kF16;
  EXPECT_FALSE(check_gemm_skinny_class(mixed).is_ok());
  GemmClass fp8;
  fp8.a = core::DType::kF8E4M3;
  fp8.b = core::DType::kF8E5M2;
  EXPECT_TRUE(check_gemm_skinny_class(fp8).is_ok());
  EXPECT_FALSE(GemmSkinnyConfig::parse_name("gemm.skinny_x_narrow-q_splitauto").has_value());
  // The streaming loop's names: warps per row tile auto, 1, 2, 4 or 8.
  GemmSkinnyConfig s;
  s.stream = true;
  EXPECT_NE(s.name().find("_narrow-n_streamauto"), std::string::npos) << s.name();
  EXPECT_EQ(s.kernel_name().substr(s.kernel_name().size() - 16), "_narrow-n_stream");
  s.splits = 4;
  auto four = GemmSkinnyConfig::parse_name(s.name());
  ASSERT_TRUE(four.has_value()) << four.status().message();
  EXPECT_TRUE(four->stream);
  EXPECT_EQ(four->splits, 4);
  s.splits = 3;
  const auto three = GemmSkinnyConfig::parse_name(s.name());
  ASSERT_FALSE(three.has_value());
  EXPECT_NE(three.status().message().find("1, 2, 4 or 8"), std::string::npos)
      << three.status().message();
  s.splits = 0;
  s.cls.a = s.cls.b = core::DType::kF32;
  EXPECT_FALSE(check_gemm_skinny(s).is_ok());
  EXPECT_FALSE(GemmSkinnyConfig::parse_name("gemm.skinny_bf16.bf16.void.bf16_f32acc_tn_nobias.none_"
                                            "narrow-n_streamx")
                   .has_value());
}

}  // namespace
}  // namespace boo::space
