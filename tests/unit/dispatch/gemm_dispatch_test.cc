// Dispatch without a GPU: ranking, candidate order (tuning DB, heuristic, fallback), moving on
// after a failed compile, forced configs, plan caching — with the fake compiler building stub
// kernel objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "../jit/jit_test_util.h"
#include "boo/dispatch/context.h"
#include "boo/dispatch/gemm_dispatcher.h"
#include "boo/dispatch/tuning_db.h"
#include "boo/space/gemm_sm90.h"

namespace boo::dispatch {
namespace {

namespace fs = std::filesystem;

ops::GemmProblem aligned(int64_t m, int64_t n, int64_t k) {
  ops::GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.trans_a = ops::Transpose::kT;
  p.lda = k;
  p.ldb = k;
  p.ldc = p.ldd = m;
  p.a_type = p.b_type = p.c_type = p.d_type = p.bias_type = core::DType::kBF16;
  return p;
}

// The same with A and B stored MN-major (nt: a weight gradient's operands).
ops::GemmProblem aligned_nt(int64_t m, int64_t n, int64_t k) {
  ops::GemmProblem p = aligned(m, n, k);
  p.trans_a = ops::Transpose::kN;
  p.trans_b = ops::Transpose::kT;
  p.lda = m;
  p.ldb = n;
  return p;
}

// The default rule set's first gemm.sm90 config for `p` and its explanation (a default config and
// no explanation, with a test failure, where none ranks or its name does not parse).
std::pair<space::GemmSm90Config, std::string> default_pick(const ops::GemmProblem& p) {
  const auto ranked = make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault);
  EXPECT_FALSE(ranked.empty());
  if (ranked.empty()) return {};
  auto c = space::GemmSm90Config::parse_name(ranked.front().config);
  EXPECT_TRUE(c.has_value()) << ranked.front().config;
  if (!c.has_value()) return {};
  return {*c, ranked.front().why};
}

// Each config of a ranking is listed once.
void expect_each_config_once(const std::vector<Candidate>& ranked) {
  std::set<std::string> names;
  for (const Candidate& c : ranked) EXPECT_TRUE(names.insert(c.config).second) << c.config;
}

class DispatchTest : public boo::testing::FakeCacheTest {};

TEST_F(DispatchTest, AlignedProblemGoesToSm90ThenFallbackLast) {
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  std::vector<std::string> notes;
  auto c = d.candidates(aligned(4096, 4096, 4096), &notes);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  ASSERT_GE(c->size(), 2u);
  EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90");
  EXPECT_NE(c->front().reason.find("heuristic: predicted"), std::string::npos);
  EXPECT_EQ(c->back().algorithm->name(), "gemm.fallback");
  EXPECT_LE(c->size(), 4u);  // three heuristic attempts, then the fallback
}

TEST_F(DispatchTest, UnalignedProblemGoesToThePaddedSm90) {
  // An lm-head GEMM: M = 50257 makes D's leading dimension odd; A and B are aligned.
  ops::GemmProblem p = aligned(50257, 64, 768);
  p.ldc = p.ldd = 50257;
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  std::vector<std::string> notes;
  auto c = d.candidates(p, &notes);
  ASSERT_TRUE(c.has_value());
  ASSERT_GE(c->size(), 2u);
  EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90_unaligned");
  EXPECT_EQ(c->front().config.rfind("gemm.sm90_unaligned_", 0), 0u);
  // Only D is misaligned, and a persistent kernel of this plain class writes it in place
  // (space::gemm_sm90_direct_d): nothing is copied.
  EXPECT_NE(c->front().reason.find("0 padded copies, 0.0 MB, 0.0 us; D written in place"),
            std::string::npos)
      << c->front().reason;
  EXPECT_EQ(c->back().algorithm->name(), "gemm.fallback");
  bool said = false;
  for (const std::string& n : notes)
    said |= n.find("gemm.sm90 does not apply") != std::string::npos;
  EXPECT_TRUE(said);
  // An aligned problem is not padded.
  notes.clear();
  auto a = d.candidates(aligned(4096, 4096, 4096), &notes);
  ASSERT_TRUE(a.has_value());
  for (const GemmCandidate& x : *a) EXPECT_NE(x.algorithm->name(), "gemm.sm90_unaligned");
  said = false;
  for (const std::string& n : notes)
    said |= n.find("gemm.sm90_unaligned does not apply") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(DispatchTest, MisalignedPointersSkipTma) {
  const ops::GemmProblem p = aligned(1024, 1024, 1024);
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  std::vector<std::string> notes;
  auto c = d.candidates(p, &notes, /*aligned_pointers=*/false);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90_unaligned");
  for (const GemmCandidate& x : *c) EXPECT_NE(x.algorithm->name(), "gemm.sm90");
  // Plans for the two pointer classes are kept apart.
  auto aligned_plan = d.plan(p);
  auto misaligned_plan = d.plan(p, /*aligned_pointers=*/false);
  ASSERT_TRUE(aligned_plan.has_value()) << aligned_plan.status().message();
  ASSERT_TRUE(misaligned_plan.has_value()) << misaligned_plan.status().message();
  EXPECT_EQ((*aligned_plan)->algorithm, "gemm.sm90");
  EXPECT_EQ((*misaligned_plan)->algorithm, "gemm.sm90_unaligned");
  GemmPointers ptrs;
  char* base = reinterpret_cast<char*>(uintptr_t{1} << 20);
  ptrs.a = ptrs.b = ptrs.d = base;
  EXPECT_TRUE(ptrs.aligned_16());
  ptrs.b = base + 2;
  EXPECT_FALSE(ptrs.aligned_16());
}

TEST_F(DispatchTest, Fp8GoesToSm90OnlyWhenKMajor) {
  ops::GemmProblem p = aligned(2048, 1024, 4096);
  p.a_type = core::DType::kF8E4M3;
  p.b_type = core::DType::kF8E5M2;
  p.scale_a = p.scale_b = ops::ScaleMode::kScalar;
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  auto c = d.candidates(p, nullptr);
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90");
  EXPECT_NE(c->front().config.find("fp8e4m3.fp8e5m2"), std::string::npos);
  EXPECT_NE(c->front().config.find("_scaled_"), std::string::npos);
  p.trans_a = ops::Transpose::kN;
  p.lda = p.m;
  std::vector<std::string> notes;
  auto nn = d.candidates(p, &notes);
  ASSERT_TRUE(nn.has_value());
  for (const GemmCandidate& x : *nn) EXPECT_NE(x.algorithm->name(), "gemm.sm90");
  bool said = false;
  for (const std::string& n : notes) said |= n.find("fp8 warpgroup MMA") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(DispatchTest, Tf32OperandsThatAreNotKMajorAreTransposedForTheSm90) {
  // fp32 GEMMs in tf32 with an M-major A or an N-major B: warpgroup MMA reads tf32 K-major only,
  // so gemm.sm90_unaligned copies those operands K-major (they went to gemm.fallback, 30x
  // slower than cuBLASLt, until 2026-11-28).
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  struct Layout {
    ops::Transpose ta, tb;
    const char* copies;
  };
  for (const Layout& l : {Layout{ops::Transpose::kN, ops::Transpose::kN, "1 padded copies (1 "},
                          Layout{ops::Transpose::kN, ops::Transpose::kT, "2 padded copies (2 "},
                          Layout{ops::Transpose::kT, ops::Transpose::kT, "1 padded copies (1 "}}) {
    ops::GemmProblem p = aligned(4096, 4096, 4096);
    p.a_type = p.b_type = p.c_type = p.d_type = core::DType::kF32;
    p.math = core::MathMode::kTF32;
    p.trans_a = l.ta;
    p.trans_b = l.tb;
    std::vector<std::string> notes;
    auto c = d.candidates(p, &notes);
    ASSERT_TRUE(c.has_value()) << c.status().message();
    EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90_unaligned") << p.key();
    EXPECT_NE(c->front().reason.find(l.copies), std::string::npos) << c->front().reason;
    EXPECT_NE(c->front().reason.find("transposed K-major"), std::string::npos);
    EXPECT_EQ(c->back().algorithm->name(), "gemm.fallback");
    bool said = false;
    for (const std::string& n : notes)
      said |= n.find("copies the others K-major") != std::string::npos;
    EXPECT_TRUE(said) << p.key();
  }
  // TN is K-major: gemm.sm90 in place, nothing transposed.
  ops::GemmProblem tn = aligned(4096, 4096, 4096);
  tn.a_type = tn.b_type = tn.c_type = tn.d_type = core::DType::kF32;
  tn.math = core::MathMode::kTF32;
  auto c = d.candidates(tn, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90");
}

TEST_F(DispatchTest, PlanCompilesTheTopCandidateAndIsCached) {
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  const ops::GemmProblem p = aligned(1024, 1024, 1024);
  auto plan = d.plan(p);
  ASSERT_TRUE(plan.has_value()) << plan.status().message();
  EXPECT_EQ((*plan)->algorithm, "gemm.sm90");
  EXPECT_EQ(boo::testing::count_lines(log_), 1);
  auto again = d.plan(p);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *plan);  // the same plan object: no second choice, no compile
  EXPECT_EQ(boo::testing::count_lines(log_), 1);
  bool chose = false;
  for (const std::string& e : (*plan)->explanation) chose |= e.rfind("chose gemm.sm90_", 0) == 0;
  EXPECT_TRUE(chose);
}

TEST_F(DispatchTest, FailedCompileMovesOnToTheNextCandidate) {
  setenv("BOO_FAKE_NVCC_FAIL", "gemm.sm90_", 1);  // every sm90 instance fails to compile
  GemmDispatcher d(*cache_, nullptr, DeviceModel{});
  ::testing::internal::CaptureStderr();
  auto plan = d.plan(aligned(512, 512, 512));
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(plan.has_value()) << plan.status().message();
  EXPECT_EQ((*plan)->algorithm, "gemm.fallback");
  int skipped = 0;
  for (const std::string& e : (*plan)->explanation) skipped += e.rfind("skipped", 0) == 0;
  EXPECT_EQ(skipped, 3);
  // Each failed compile is said on stderr (the fallback can be far slower), once per config.
  size_t warnings = 0;
  for (size_t at = err.find("did not compile; dispatch takes the next candidate");
       at != std::string::npos; at = err.find("did not compile; dispatch", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 3u) << err;
  ::testing::internal::CaptureStderr();
  GemmDispatcher again(*cache_, nullptr, DeviceModel{});
  ASSERT_TRUE(again.plan(aligned(512, 512, 512)).has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("did not compile"), std::string::npos);
}

TEST_F(DispatchTest, TuningDbRowComesFirst) {
  const ops::GemmProblem p = aligned(2048, 2048, 2048);
  space::GemmSm90Config cfg;
  cfg.cls = space::gemm_class_of(p);
  cfg.tile_n = 256;
  const std::string db_path = root_ + "/db.jsonl";
  {
    std::ofstream out(db_path);
    TuningRow row;
    row.key = p.key();
    row.algorithm = "gemm.sm90";
    row.config = cfg.name();
    row.time_us = 100;
    out << TuningDb::to_json_line(row) << "\n";
  }
  auto db = TuningDb::load({db_path});
  ASSERT_TRUE(db.has_value()) << db.status().message();
  GemmDispatcher d(*cache_, &*db, DeviceModel{});
  auto c = d.candidates(p, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->front().config, cfg.name());
  EXPECT_EQ(c->front().reason, "tuning DB row");
}

TEST_F(DispatchTest, ForcedConfig) {
  DispatchOptions o;
  space::GemmSm90Config cfg;
  cfg.cls = space::gemm_class_of(aligned(256, 256, 256));
  o.force_config = cfg.name();
  GemmDispatcher d(*cache_, nullptr, DeviceModel{}, o);
  auto c = d.candidates(aligned(256, 256, 256), nullptr);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ(c->front().config, cfg.name());
  // A gemm.sm90_unaligned name also starts with "gemm.sm90_": the longer name wins.
  ops::GemmProblem odd = aligned(255, 256, 256);
  odd.ldc = odd.ldd = 255;
  cfg.unaligned = true;
  DispatchOptions u;
  u.force_config = cfg.name();
  GemmDispatcher du(*cache_, nullptr, DeviceModel{}, u);
  auto cu = du.candidates(odd, nullptr);
  ASSERT_TRUE(cu.has_value()) << cu.status().message();
  EXPECT_EQ(cu->front().algorithm->name(), "gemm.sm90_unaligned");
  // A config of another class (here fp16 for a bf16 problem) is refused, not run.
  space::GemmSm90Config fp16 = cfg;
  fp16.unaligned = false;
  fp16.cls.a = fp16.cls.b = fp16.cls.d = core::DType::kF16;
  DispatchOptions other;
  other.force_config = fp16.name();
  GemmDispatcher d3(*cache_, nullptr, DeviceModel{}, other);
  auto mismatch = d3.candidates(aligned(256, 256, 256), nullptr);
  ASSERT_FALSE(mismatch.has_value());
  EXPECT_NE(mismatch.status().message().find("not a config of this problem's class"),
            std::string::npos)
      << mismatch.status().message();
  // A name of the right class that does not parse (the launch order left off) is refused with
  // the parser's reason, before anything is compiled.
  DispatchOptions clipped;
  const std::string full = space::GemmSm90Config{cfg.cls}.name();
  clipped.force_config = full.substr(0, full.rfind("_sw"));
  GemmDispatcher d4(*cache_, nullptr, DeviceModel{}, clipped);
  auto refused = d4.candidates(aligned(256, 256, 256), nullptr);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.status().message().find("--config gemm.sm90 config"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("sw<N>.r<h|m|n>"), std::string::npos)
      << refused.status().message();
  DispatchOptions bad;
  bad.force_config = "gemm.nothing_x";
  GemmDispatcher d2(*cache_, nullptr, DeviceModel{}, bad);
  EXPECT_FALSE(d2.candidates(aligned(256, 256, 256), nullptr).has_value());
}

TEST(Heuristic, SmallOutputLongKPrefersSplittingK) {
  GemmDispatcher* unused = nullptr;
  (void)unused;
  const ops::GemmProblem p = aligned(256, 256, 65536);
  auto algo = make_gemm_sm90();
  const auto ranked = algo->rank(p, DeviceModel{}, space::RuleSet::kDefault);
  ASSERT_FALSE(ranked.empty());
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_NE(best->scheduler, space::GemmScheduler::kPersistent) << ranked.front().config;
}

TEST(Heuristic, FewTilesOverAVeryLongKTakeParallelSplitK) {
  // A 1x1 convolution's backward weight (128 x 384 over N*H*W = 147456, nt): CUTLASS's split-K
  // and stream-K hand partials on one after another (98.8 us against cuDNN's 59.1 on an H100,
  // bench/results/2026-11-23-conv-stages-h100.md); parallel split-K fills the GPU with slices.
  const ops::GemmProblem p = aligned_nt(128, 384, 147456);
  const DeviceModel d;
  const auto ranked = make_gemm_sm90()->rank(p, d, space::RuleSet::kDefault);
  ASSERT_FALSE(ranked.empty());
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->scheduler, space::GemmScheduler::kSplitKParallel) << ranked.front().config;
  EXPECT_EQ(best->splits, parallel_splits_for(p, *best, d));
  EXPECT_EQ(p.k % (best->splits * 8), 0) << best->splits;
  const int64_t tiles =
      (p.m + best->tile_m - 1) / best->tile_m * ((p.n + best->tile_n - 1) / best->tile_n);
  EXPECT_LE(tiles * best->splits, d.sm_count);
  EXPECT_NE(ranked.front().why.find("slices of K"), std::string::npos) << ranked.front().why;
  // Batched problems, and problems whose tiles fill the GPU, never rank it.
  for (ops::GemmProblem q : {aligned(256, 256, 65536), aligned(4096, 4096, 4096)}) {
    if (q.m == 256) {
      q.batch = 2;
      q.stride_a = q.m * q.k;
      q.stride_b = q.n * q.k;
      q.stride_c = q.stride_d = q.m * q.n;
    }
    for (const Candidate& c : make_gemm_sm90()->rank(q, d, space::RuleSet::kDefault)) {
      EXPECT_EQ(c.config.find("psplitk"), std::string::npos) << c.config;
    }
  }
}

TEST(Heuristic, LargeSquareProblemUsesLargeTiles) {
  const ops::GemmProblem p = aligned(8192, 8192, 8192);
  const auto ranked = make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault);
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_GE(best->tile_m * best->tile_n, 128 * 128) << ranked.front().config;
  // Predictions are positive and no faster than the compute floor.
  EXPECT_GT(ranked.front().predicted_us, p.flops() / 989.4e12 * 1e6);
}

// Strips of 8 tiles where A and B overflow the L2 over several waves, raster order where they
// fit (H100, 2026-11-26: 14336x8192x4096 1268.7 -> 1225.9 us in strips of 8; 512x512x128 batch
// 96, a 4x4 grid, 29.0 -> 38.5 us).
TEST(Heuristic, TileStripsWhereTheOperandsOverflowTheL2) {
  auto front = [](const ops::GemmProblem& p) {
    auto best = space::GemmSm90Config::parse_name(
        make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault).front().config);
    EXPECT_TRUE(best.has_value());
    return best.has_value() ? *best : space::GemmSm90Config{};
  };
  EXPECT_EQ(front(aligned(14336, 8192, 4096)).swizzle, 8);
  EXPECT_EQ(front(aligned(4096, 8192, 14336)).swizzle, 8);
  EXPECT_EQ(front(aligned(3072, 4096, 768)).swizzle, 1);
  ops::GemmProblem batched = aligned(512, 512, 128);
  batched.batch = 96;
  batched.stride_a = batched.stride_b = 512 * 128;
  batched.stride_c = batched.stride_d = 512 * 512;
  EXPECT_EQ(front(batched).swizzle, 1);
  // A small L2 makes the same mid-size problem overflow it.
  DeviceModel small_l2;
  small_l2.l2_bytes = 4 << 20;
  auto ranked =
      make_gemm_sm90()->rank(aligned(3072, 4096, 768), small_l2, space::RuleSet::kDefault);
  EXPECT_NE(ranked.front().config.find("_sw8."), std::string::npos) << ranked.front().config;
}

// Without strips the launch order keeps the short side's operand in the L2: where that operand
// fits in half of it, strips lose (H200, 2026-11-30: 11008x2048x4096, B 16.8 MB, 290.8 us in
// strips of 8, 256.5 in strips of 1).
TEST(Heuristic, NoStripsWhereTheShortSidesOperandStaysInTheL2) {
  const auto ranked =
      make_gemm_sm90()->rank(aligned(11008, 2048, 4096), DeviceModel{}, space::RuleSet::kDefault);
  ASSERT_FALSE(ranked.empty());
  EXPECT_NE(ranked.front().config.find("_sw1."), std::string::npos) << ranked.front().config;
  // A grid that strips of 8 do not pad: B of 16.8 MB stays in the L2, B of 67 MB does not.
  const auto fits =
      make_gemm_sm90()->rank(aligned(12288, 2048, 4096), DeviceModel{}, space::RuleSet::kDefault);
  EXPECT_NE(fits.front().config.find("_sw1."), std::string::npos) << fits.front().config;
  const auto deep =
      make_gemm_sm90()->rank(aligned(12288, 2048, 16384), DeviceModel{}, space::RuleSet::kDefault);
  EXPECT_NE(deep.front().config.find("_sw8."), std::string::npos) << deep.front().config;
}

// CUTLASS pads both sides of the grid to the strip times the cluster and runs the padding
// (H200, 2026-11-30: 4096x14336x8192 on 128x256 tiles in 1x2 clusters, 56 tiles across padded
// to 64: 1470-1481 us in strips of 8, 1208 in strips of 1).
TEST(Heuristic, StripsThatPadTheGridCostThePaddingTiles) {
  const ops::GemmProblem p = aligned_nt(4096, 14336, 8192);
  const DeviceModel d;
  auto predict = [&](const char* tile) {
    auto c = space::GemmSm90Config::parse_name(
        std::string("gemm.sm90_bf16.bf16.void.bf16_f32acc_nt_nobias.none_") + tile + ".rh");
    EXPECT_TRUE(c.has_value()) << tile;
    return c.has_value() ? predict_gemm_sm90_us(p, *c, d) : 0.0;
  };
  const double padded = predict("t128x256x64_c1x2_coop_persistent_sw8");
  const double unpadded = predict("t128x256x64_c2x1_coop_persistent_sw8");
  // 32 x 64 tiles run against 32 x 56: about 8/7 of the time.
  EXPECT_GT(padded, 1.1 * unpadded) << padded << " " << unpadded;
  // 256x128 tiles in 1x2 clusters: 112 tiles across, a multiple of 16, no padding.
  EXPECT_LT(predict("t256x128x64_c1x2_coop_persistent_sw8"), 1.02 * unpadded);
  const auto ranked = make_gemm_sm90()->rank(p, d, space::RuleSet::kDefault);
  EXPECT_EQ(ranked.front().config.find("t128x256x64_c1x2"), std::string::npos)
      << ranked.front().config;
}

// Stream-K pays an epilogue for every tile an SM finishes: over a batch of many tiles with a
// short K it loses to persistent tiles (H200, 2026-11-30: 2048x2048x128 batch 32, 149.6 us in
// stream-K units, 100.5 on persistent pingpong tiles).
TEST(Heuristic, ManyShortTilesRunPersistentNotStreamK) {
  ops::GemmProblem p = aligned(2048, 2048, 128);
  p.batch = 32;
  p.stride_a = p.stride_b = 2048 * 128;
  p.stride_c = p.stride_d = 2048 * 2048;
  const auto ranked = make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault);
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->scheduler, space::GemmScheduler::kPersistent) << ranked.front().config;
}

// CUTLASS's stream-K runs all but the last full wave data-parallel and shares the rest: it pays
// where the last wave is at most half full (H200, 2026-11-30: 14336x8192x4096, 27.15 waves of
// 128x256 tiles, 1194.0 us against 1204.6 persistent; 11008x2048x4096, 5.21 waves, 241.7
// against 253.9) and not where it is fuller (8192x4096x28672, 7.76 waves: 2365.2 against
// 2348.4).
TEST(Heuristic, StreamKWhereTheLastWaveIsAtMostHalfFull) {
  const auto scheduler_of = [](int64_t m, int64_t n, int64_t k) {
    const auto ranked =
        make_gemm_sm90()->rank(aligned(m, n, k), DeviceModel{}, space::RuleSet::kDefault);
    auto best = space::GemmSm90Config::parse_name(ranked.front().config);
    EXPECT_TRUE(best.has_value());
    return best.has_value() ? best->scheduler : space::GemmScheduler::kSplitK;
  };
  EXPECT_EQ(scheduler_of(14336, 8192, 4096), space::GemmScheduler::kStreamK);
  EXPECT_EQ(scheduler_of(11008, 2048, 4096), space::GemmScheduler::kStreamK);
  EXPECT_EQ(scheduler_of(8192, 4096, 28672), space::GemmScheduler::kPersistent);
  EXPECT_EQ(scheduler_of(8192, 8192, 8192), space::GemmScheduler::kPersistent);  // 15.52 waves
}

// Serial split-K's slices add their partials up one after another and its workspace reset does
// not overlap the streaming: over a deep K, parallel slices win (H200, 2026-11-30: 512x512x65536
// in 8 serial slices 69.1 us, in 8 parallel slices 50.5).
TEST(Heuristic, DeepKOverFewTilesTakesParallelSlices) {
  const auto ranked =
      make_gemm_sm90()->rank(aligned(512, 512, 65536), DeviceModel{}, space::RuleSet::kDefault);
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->scheduler, space::GemmScheduler::kSplitKParallel) << ranked.front().config;
}

// Pairs of CTAs (clusters) on batches of few tiles each lose to single CTAs; on batches of many
// tiles they may still win (H100, 2026-11-26: 512x512x128 batch 96 26.8 us alone, 29.1 paired).
TEST(Heuristic, BatchesOfFewTilesRunWithoutClusters) {
  for (auto [mn, k, batch] :
       {std::tuple<int64_t, int64_t, int64_t>{512, 128, 96}, {256, 64, 256}, {384, 64, 64}}) {
    ops::GemmProblem p = aligned(mn, mn, k);
    p.batch = batch;
    p.stride_a = p.stride_b = mn * k;
    p.stride_c = p.stride_d = mn * mn;
    auto ranked = make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault);
    auto best = space::GemmSm90Config::parse_name(ranked.front().config);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->cluster_m * best->cluster_n, 1)
        << mn << " batch " << batch << ": " << ranked.front().config;
  }
}

// A 64-row tile streams the wide operand of a 64-row problem as fast as a 128-row one, without
// computing 64 rows of padding (H100, 2026-11-26: the 1x1 convolution GEMM 64 x 200704 x 256
// on t64x128x64 at 44.1 us, on t128x128x64 at 50.0 us).
TEST(Heuristic, SixtyFourRowProblemsTakeSixtyFourRowTiles) {
  auto ranked =
      make_gemm_sm90()->rank(aligned(64, 200704, 256), DeviceModel{}, space::RuleSet::kDefault);
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->tile_m, 64) << ranked.front().config;
}

// 96-wide tiles fix a partly idle last wave of 128-wide ones: the GEMM of the public 7x7 1x1
// K = 2048 convolution (400 tiles of 128x128, 528 of 128x96: 18.0 -> 16.5 us on an H200) takes
// them; where 128-wide tiles fit in one wave the default rule set leaves them out (960 x 1088 x
// 1000 measured 0.93x on them), and the full rule set keeps them for tuning.
TEST(Heuristic, NinetySixWideTilesWhereTheyFillTheLastWave) {
  const auto ranked =
      make_gemm_sm90()->rank(aligned(2048, 3136, 512), DeviceModel{}, space::RuleSet::kDefault);
  auto best = space::GemmSm90Config::parse_name(ranked.front().config);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->tile_n, 96) << ranked.front().config;
  const auto wide = [](const std::vector<Candidate>& list) {
    return std::count_if(list.begin(), list.end(), [](const Candidate& c) {
      return c.config.find("x96x") != std::string::npos;
    });
  };
  const ops::GemmProblem one_wave = aligned(1024, 1088, 1024);
  EXPECT_EQ(wide(make_gemm_sm90()->rank(one_wave, DeviceModel{}, space::RuleSet::kDefault)), 0);
  EXPECT_GT(wide(make_gemm_sm90()->rank(one_wave, DeviceModel{}, space::RuleSet::kFull)), 0);
}

// 160-wide tiles fill more of the last wave where 128- and 256-wide ones leave it partly idle
// (H200, 2026-12-02: 3984 x 3166 x 520 37.7 -> 34.4 us on 128x160 cooperative tiles, 1792 x 1424
// x 3584 36.5 -> 29.6, 320 x 4008 x 7232 44.0 -> 40.2 on 64x160 pingpong); large GEMMs whose
// 128- and 256-wide tiles fill their waves keep them.
TEST(Heuristic, OneSixtyWideTilesWhereTheyFillMoreOfTheLastWave) {
  const auto best_n = [](const ops::GemmProblem& p) {
    const auto ranked = make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault);
    auto best = space::GemmSm90Config::parse_name(ranked.front().config);
    return best.has_value() ? best->tile_n : -1;
  };
  EXPECT_EQ(best_n(aligned(3984, 3166, 520)), 160);
  EXPECT_EQ(best_n(aligned(1792, 1424, 3584)), 160);
  EXPECT_EQ(best_n(aligned(320, 4008, 7232)), 160);
  EXPECT_NE(best_n(aligned(4096, 8192, 4096)), 160);
  EXPECT_NE(best_n(aligned(2048, 3136, 512)), 160);  // the 7x7 1x1's 96-wide tiles stay
}

// Over N of 65 to 112 the default rule set's 128-wide tiles narrow to N rounded up to 16
// (16032 x 109 x 16384: 132.3 us on t128x112x64 pingpong, 136.7 on t128x128x64; H200,
// 2026-12-02; 12288 x 96 x 12288: 81.5 against 92.2, 2026-12-03); N = 64 and N = 113 keep 128,
// and so do operands that need padded copies, and tf32 and fp8 (not measured); the full rule set
// (for tuning) has both widths, and a width it lists already (96) once.
TEST(Heuristic, TilesNarrowToNOfSixtyFiveToOneTwelve) {
  const auto widths = [](const std::vector<Candidate>& list) {
    std::set<int> out;
    for (const Candidate& c : list) {
      auto cfg = space::GemmSm90Config::parse_name(c.config);
      if (cfg.has_value()) out.insert(cfg->tile_n);
    }
    return out;
  };
  const auto rank = [](const ops::GemmProblem& p, space::RuleSet rules) {
    return make_gemm_sm90()->rank(p, DeviceModel{}, rules);
  };
  for (const auto& [n, fitted] : {std::pair<int64_t, int>{65, 80},
                                  {80, 80},
                                  {81, 96},
                                  {96, 96},
                                  {97, 112},
                                  {109, 112},
                                  {112, 112}}) {
    const auto ranked = rank(aligned(16032, n, 16384), space::RuleSet::kDefault);
    auto best = space::GemmSm90Config::parse_name(ranked.front().config);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->tile_n, fitted) << n << ": " << ranked.front().config;
    // The driver's explanation says why the tile is not 128 wide.
    EXPECT_NE(ranked.front().why.find("tile " + std::to_string(fitted) +
                                      " wide for N = " + std::to_string(n)),
              std::string::npos)
        << ranked.front().why;
    EXPECT_EQ(widths(ranked).count(128), 0u) << n;
    // 128-row tiles 96 wide rank although they fill less than a wave (the rule set's own 96-wide
    // tiles rank only for a wave's tail): they are the fitted 128-wide tiles.
    if (fitted == 96) {
      EXPECT_TRUE(std::any_of(ranked.begin(), ranked.end(), [](const Candidate& c) {
        return c.config.find("_t128x96x64_c1x1_pingpong_persistent_") != std::string::npos;
      })) << n;
    }
    expect_each_config_once(ranked);
  }
  for (int64_t n : {64, 113}) {
    const auto w = widths(rank(aligned(16032, n, 16384), space::RuleSet::kDefault));
    EXPECT_EQ(w.count(80) + w.count(112), 0u) << n;
    EXPECT_EQ(w.count(128), 1u) << n;
  }
  // B N-major: its tiles 80 or 112 wide would be staged in a 32-byte swizzle (14336 x 72 x 14336:
  // 148.4-148.7 us on t128x80, 124.6-125.0 on t128x128; H200, 2026-12-03).
  for (int64_t n : {72, 104}) {
    ops::GemmProblem n_major = aligned(14336, n, 14336);
    n_major.trans_b = ops::Transpose::kT;
    n_major.ldb = n;
    const auto w = widths(rank(n_major, space::RuleSet::kDefault));
    EXPECT_EQ(w.count(80) + w.count(112), 0u) << n;
    EXPECT_EQ(w.count(128), 1u) << n;
  }
  for (const auto& [n, fitted] : {std::pair<int64_t, int>{109, 112}, {90, 96}, {72, 80}}) {
    const auto listed = rank(aligned(16032, n, 16384), space::RuleSet::kFull);
    const auto full = widths(listed);
    EXPECT_EQ(full.count(fitted), 1u) << n;
    EXPECT_EQ(full.count(128), 1u) << n;
    expect_each_config_once(listed);
  }
  for (core::DType t : {core::DType::kF32, core::DType::kF8E4M3}) {
    ops::GemmProblem other = aligned(16032, 109, 16384);
    other.a_type = other.b_type = t;
    if (t == core::DType::kF32) {
      other.c_type = other.d_type = other.bias_type = t;
      other.math = core::MathMode::kTF32;
    }
    const auto ranked = rank(other, space::RuleSet::kDefault);
    ASSERT_FALSE(ranked.empty()) << core::dtype_name(t);
    const auto w = widths(ranked);
    EXPECT_EQ(w.count(112), 0u) << core::dtype_name(t);
    EXPECT_EQ(w.count(128), 1u) << core::dtype_name(t);
  }
  ops::GemmProblem padded = aligned(16032, 109, 16384);
  padded.ldb = 16385;  // B's columns not 16-byte aligned: gemm.sm90_unaligned's copies
  const auto copied =
      make_gemm_sm90_unaligned()->rank(padded, DeviceModel{}, space::RuleSet::kDefault);
  ASSERT_FALSE(copied.empty());
  EXPECT_EQ(widths(copied).count(112), 0u);
}

// Deep-K GEMMs with N of 48-96 and more tiles than a wave: tiles that split N stream A from DRAM
// once per tile across N (12288 x 96 x 12288: 138-143 us on t128x32 tiles, 92.2 on t128x128;
// 20480 x 80 x 8192: 157-162 against 128.4; H200, 2026-12-03), so the pick's tiles span N and
// the split configs' explanations say why they rank lower. One wave of split tiles shares A in
// the L2 (8192 x 128 x 16384 on 128 t128x64 tiles: 71.5 us, cuBLASLt 72.0) and keeps its pick.
TEST(Heuristic, DeepNarrowGemmsTakeTilesSpanningN) {
  const auto rank = [](const ops::GemmProblem& p) {
    return make_gemm_sm90()->rank(p, DeviceModel{}, space::RuleSet::kDefault);
  };
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{12288, 96, 12288},
                                {20480, 80, 8192},
                                {12288, 64, 12288},
                                {16384, 48, 8192}}) {
    const auto ranked = rank(aligned(m, n, k));
    ASSERT_FALSE(ranked.empty()) << m << "x" << n;
    auto best = space::GemmSm90Config::parse_name(ranked.front().config);
    ASSERT_TRUE(best.has_value());
    EXPECT_GE(best->tile_n, n) << m << "x" << n << "x" << k << ": " << ranked.front().config;
    bool explained = false;
    for (const Candidate& c : ranked) {
      auto cfg = space::GemmSm90Config::parse_name(c.config);
      if (!cfg.has_value() || cfg->tile_n >= n || cfg->swap_ab) continue;
      const std::string times = std::to_string((n + cfg->tile_n - 1) / cfg->tile_n);
      EXPECT_NE(c.why.find("A streamed from DRAM " + times + " times (tiles split N)"),
                std::string::npos)
          << c.config << ": " << c.why;
      EXPECT_GT(c.predicted_us, ranked.front().predicted_us) << c.config;
      explained = true;
    }
    EXPECT_TRUE(explained) << m << "x" << n << ": no config splits N";
  }
  const auto one_wave = rank(aligned(8192, 128, 16384));
  ASSERT_FALSE(one_wave.empty());
  EXPECT_NE(one_wave.front().config.find("_t128x64x64_"), std::string::npos)
      << one_wave.front().config;
  EXPECT_EQ(one_wave.front().why.find("streamed from DRAM"), std::string::npos)
      << one_wave.front().why;
}

// Far fewer tiles than SMs and a long K loop: narrow tiles that split N load A's rows once per
// tile across N at their pipeline's rate, L2 hits included, so parallel split-K over tiles
// spanning N (or half of it) ranks first (H200, 2026-12-03: 2048 x 65 x 16384 44.4 us on
// t128x16, 24.8 on t64x80 in 4 slices; 1536 x 112 x 12288 29.9 against 18.0). Short K loops keep
// their narrow tiles (512 x 512 x 1000: t128x32 in 1x2 clusters 8.7 us, 10.4-11.1 on the t128x64
// the term would pick without the bound).
TEST(Heuristic, FewTileDeepKGemmsSplitKOverTilesSpanningN) {
  const auto best = [](const ops::GemmProblem& p) { return default_pick(p).first; };
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{2048, 65, 16384},
                                {1536, 112, 12288},
                                {1024, 96, 8192},
                                {2048, 128, 8192}}) {
    const space::GemmSm90Config c = best(aligned(m, n, k));
    EXPECT_EQ(c.scheduler, space::GemmScheduler::kSplitKParallel)
        << m << "x" << n << ": " << c.name();
  }
  const space::GemmSm90Config short_k = best(aligned(512, 512, 1000));
  EXPECT_EQ(short_k.tile_n, 32) << short_k.name();
  EXPECT_EQ(short_k.scheduler, space::GemmScheduler::kPersistent) << short_k.name();
}

// Rows that start off 128-byte lines (K = 4104 bf16) make the L2 reads of a re-read operand
// dear, and a cluster that multicasts it pays (8192 x 100 x 4104 +bias +gelu on an H200: 39.6 us
// on 64x112 tiles alone, 28.4 in 2x1 clusters); with K = 4096 the pick shares nothing. Batched
// problems and gemm.sm90_unaligned's padded operands are modelled as before.
TEST(Heuristic, RowsOffCacheLinesTakeMulticastClusters) {
  const auto best = default_pick;
  ops::GemmProblem off = aligned(8192, 100, 4104);
  off.bias = true;
  off.activation = ops::Activation::kGeluTanh;
  const auto [c_off, why_off] = best(off);
  EXPECT_GT(c_off.cluster_m * c_off.cluster_n, 1) << c_off.name();
  EXPECT_NE(why_off.find("rows of A and B off 128-byte lines"), std::string::npos) << why_off;
  ops::GemmProblem on = off;
  on.k = on.lda = on.ldb = 4096;
  const auto [c_on, why_on] = best(on);
  EXPECT_EQ(c_on.cluster_m * c_on.cluster_n, 1) << c_on.name();
  EXPECT_EQ(why_on.find("128-byte lines"), std::string::npos) << why_on;
  // Only the leading dimension differs: an off-line one costs more alone, not in a batch.
  space::GemmSm90Config alone = c_on;
  alone.cls = space::gemm_class_of(off);
  ops::GemmProblem padded_ld = off;
  padded_ld.lda = padded_ld.ldb = 4160;
  EXPECT_GT(predict_gemm_sm90_us(off, alone, DeviceModel{}),
            predict_gemm_sm90_us(padded_ld, alone, DeviceModel{}));
  off.batch = padded_ld.batch = 2;
  off.stride_a = padded_ld.stride_a = 8192LL * 4160;
  off.stride_b = padded_ld.stride_b = 100LL * 4160;
  EXPECT_EQ(predict_gemm_sm90_us(off, alone, DeviceModel{}),
            predict_gemm_sm90_us(padded_ld, alone, DeviceModel{}));
}

// An MN-major operand whose rows start off 128-byte lines (B N-major with N = 72: rows of 144
// bytes) over a long K loop is multicast in 2x1 clusters (H200, 2026-12-04: 14336 x 72 x 14336
// 124.6 -> 110.2 us); with K = 2048 (fp16 8192 x 80: 15.8 -> 16.5 us) the cluster is left out.
TEST(Heuristic, MnMajorRowsOffCacheLinesTakeMulticastOverLongK) {
  ops::GemmProblem p = aligned(14336, 72, 14336);
  p.trans_b = ops::Transpose::kT;
  p.ldb = 72;
  const space::GemmSm90Config long_k = default_pick(p).first;
  EXPECT_EQ(long_k.cluster_m, 2) << long_k.name();
  ops::GemmProblem short_k = aligned(8192, 80, 2048);
  short_k.a_type = short_k.b_type = short_k.c_type = short_k.d_type = short_k.bias_type =
      core::DType::kF16;
  short_k.trans_b = ops::Transpose::kT;
  short_k.ldb = 80;
  const space::GemmSm90Config c = default_pick(short_k).first;
  EXPECT_EQ(c.cluster_m * c.cluster_n, 1) << c.name();
}

// Over few rows (M of 33-127) and a wide N, every tile across N re-reads A's rows from the L2
// at the same k-block: over a long K the pick keeps those readers few (wide tiles, A multicast
// in 1x2 clusters, split-K to fill the GPU), whether A is M- or K-major (H200, 2026-12-04:
// 72 x 4096 x 12288 fp16 50.7 -> 34.8 us, its K-major twin 74.8 -> 35.0 on 64 and 128 readers
// before). Over K = 2048 the term is left out.
TEST(Heuristic, FewRowsOfASharedByFewTilesOverLongK) {
  const auto readers = [](const space::GemmSm90Config& c, int64_t n) {
    return (n + c.tile_n - 1) / c.tile_n / c.cluster_n;
  };
  for (const bool m_major : {true, false}) {
    ops::GemmProblem p = aligned(72, 4096, 12288);
    p.a_type = p.b_type = p.c_type = p.d_type = p.bias_type = core::DType::kF16;
    if (m_major) {
      p.trans_a = ops::Transpose::kN;
      p.lda = 72;
    }
    const space::GemmSm90Config c = default_pick(p).first;
    EXPECT_LE(readers(c, p.n), 16) << c.name();
    EXPECT_EQ(c.tile_m, 128) << c.name();  // one tile spans M: B is read once
    ops::GemmProblem short_k = p;
    short_k.k = 2048;
    short_k.ldb = 2048;
    if (!m_major) short_k.lda = 2048;
    const space::GemmSm90Config s = default_pick(short_k).first;
    EXPECT_GT(readers(s, p.n), 16) << s.name();
  }
}

// The model takes the device's SM count where it is known, not its bandwidth or L2 (the model's
// are fitted: an H200's 4814 GB/s picked slower), and BOO_MODEL_BANDWIDTH_GBS over the bandwidth
// (A/B runs of the picks); without either, the H100 SXM's; the variable not a positive integer is
// an error that names it.
TEST(Heuristic, ModelTakesTheDeviceThenTheEnvironment) {
  unsetenv("BOO_MODEL_BANDWIDTH_GBS");
  auto plain = device_model_from_environment(0);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->sm_count, DeviceModel{}.sm_count);
  EXPECT_EQ(plain->bandwidth_gbs, DeviceModel{}.bandwidth_gbs);
  EXPECT_EQ(plain->l2_bytes, DeviceModel{}.l2_bytes);
  auto device = device_model_from_environment(114);  // an H100 PCIe's SM count
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->sm_count, 114);
  EXPECT_EQ(device->bandwidth_gbs, DeviceModel{}.bandwidth_gbs);
  EXPECT_EQ(device->l2_bytes, DeviceModel{}.l2_bytes);
  setenv("BOO_MODEL_BANDWIDTH_GBS", "4800", 1);
  auto h200 = device_model_from_environment(114);
  ASSERT_TRUE(h200.has_value());
  EXPECT_EQ(h200->bandwidth_gbs, 4800.0);
  EXPECT_EQ(h200->sm_count, 114);
  // A memory-bound problem is predicted faster at the higher bandwidth.
  const ops::GemmProblem decode = aligned(8192, 16, 8192);
  const auto at = [&](const DeviceModel& d) {
    return make_gemm_sm90()->rank(decode, d, space::RuleSet::kDefault).front().predicted_us;
  };
  EXPECT_LT(at(*h200), at(*device));
  for (const char* bad : {"fast", "0", "-4800"}) {
    setenv("BOO_MODEL_BANDWIDTH_GBS", bad, 1);
    auto e = device_model_from_environment(0);
    ASSERT_FALSE(e.has_value()) << bad;
    EXPECT_NE(e.status().message().find("BOO_MODEL_BANDWIDTH_GBS"), std::string::npos)
        << e.status().message();
  }
  unsetenv("BOO_MODEL_BANDWIDTH_GBS");
}

TEST(GemmProblemHash, EqualProblemsHashEqual) {
  const GemmProblemHash h;
  ops::GemmProblem a = aligned(64, 64, 64);
  ops::GemmProblem b = a;
  EXPECT_EQ(h(a), h(b));
  b.alpha = 0.5;
  EXPECT_NE(h(a), h(b));
  b = a;
  b.trans_b = ops::Transpose::kT;
  EXPECT_NE(h(a), h(b));
}

TEST(TuningDb, RowsRoundTripAndBadLinesNameTheirPlace) {
  TuningRow r;
  r.key = "k";
  r.algorithm = "gemm.sm90";
  r.config = "c";
  r.time_us = 12.5;
  r.vendor_us = 14;
  r.device = "NVIDIA H100";
  const std::string line = TuningDb::to_json_line(r);
  EXPECT_EQ(line.find("{\"algorithm\""), 0u);  // keys in sorted order
  auto back = TuningDb::parse_json_line(line);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->config, "c");
  EXPECT_DOUBLE_EQ(back->time_us, 12.5);
  const std::string dir = boo::testing::make_temp_dir("db");
  {
    std::ofstream out(dir + "/bad.jsonl");
    out << line << "\n{not json\n";
  }
  auto db = TuningDb::load({dir + "/bad.jsonl"});
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.status().message().find("bad.jsonl:2"), std::string::npos);
  EXPECT_FALSE(TuningDb::load({dir + "/missing.jsonl"}).has_value());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace boo::dispatch

namespace boo::dispatch {
namespace {

// A GEMM dispatcher over a cache that never compiles: the heuristic's ranking only.
struct GemmSkinnyAlgorithmProbe {
  std::unique_ptr<GemmAlgorithm> algorithm = make_gemm_skinny();
};

struct RankingDispatcher {
  static jit::CacheOptions options() {
    jit::CacheOptions o;
    o.root = "/nonexistent";
    return o;
  }
  jit::KernelCache cache{options(), boo::testing::fake_compiler()};
  GemmDispatcher dispatcher{cache, nullptr, DeviceModel{}};
};

TEST(Heuristic, DecodeShapesGoToGemmSkinny) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  // Long K over a narrow output: tile kernels leave most SMs idle or serialize stream-K
  // fixups (measured); the skinny kernel leads, but for a narrow N of 5 to 32, where narrow
  // tiles in parallel split-K stream the large operand faster (256 x 8 x 65536: 19.4 us against
  // 31.3, H100, bench/results/2026-11-24-gemm-psplitk-h100.md).
  for (auto [m, n] : {std::pair<int64_t, int64_t>{8, 256}, {64, 1}, {256, 4}}) {
    ops::GemmProblem p = aligned(m, n, 65536);
    auto c = d.candidates(p, nullptr);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->front().algorithm->name(), "gemm.skinny") << m << "x" << n;
    EXPECT_NE(c->front().config.find(m < n ? "_narrow-m_" : "_narrow-n_"), std::string::npos);
  }
  auto deep = d.candidates(aligned(256, 8, 65536), nullptr);
  ASSERT_TRUE(deep.has_value());
  EXPECT_EQ(deep->front().algorithm->name(), "gemm.sm90");
  EXPECT_NE(deep->front().config.find("x16x128_c1x1_pingpong_psplitk"), std::string::npos)
      << deep->front().config;
  // Wide problems never see it.
  auto wide = d.candidates(aligned(4096, 4096, 4096), nullptr);
  for (const GemmCandidate& c : *wide) EXPECT_NE(c.algorithm->name(), "gemm.skinny");
}

TEST(Heuristic, NarrowColumnsRunTheGemvOrStreamingLoop) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  // Decode shapes with 1 to 4 narrow columns, on either side, lead with gemm.skinny: one column
  // over at most a wave of the GEMV loop's blocks on the GEMV main loop, the rest on the
  // streaming loop, which measured faster than the GEMV loop with 2 and 4 columns (H100,
  // 2026-11-26: 4096 x 2 x 4096 16.6 against 21.5 us, fp16 11008 x 4 x 4096 35.8 against 52.4;
  // bench/results/2026-11-26-gemm-stream-h100.md) and on one column over more than a wave (H200,
  // 2026-11-28: 14336 x 1 x 4096 35.7 against 40.0; 2026-11-28-h200-lists.md).
  for (auto [m, n, k, one] : {std::tuple<int64_t, int64_t, int64_t, bool>{14336, 1, 4096, false},
                              {4096, 1, 14336, false},
                              {1000, 1, 1024, true},
                              {1, 1, 8192, true},
                              {4096, 2, 4096, false},
                              {11008, 4, 4096, false},
                              {3, 5000, 2048, false}}) {
    const ops::GemmProblem p = aligned(m, n, k);
    auto c = d.candidates(p, nullptr);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->front().algorithm->name(), "gemm.skinny") << m << "x" << n << "x" << k;
    EXPECT_EQ(c->front().reason.find("GEMV main loop") != std::string::npos, one)
        << m << "x" << n << "x" << k << ": " << c->front().reason;
    EXPECT_EQ(c->front().config.find("_stream") != std::string::npos, !one)
        << m << "x" << n << "x" << k << ": " << c->front().config;
  }
  // The GEMV loop itself serves the split configs of the decode layouts with at most four
  // columns.
  auto split_gemv = [&](const ops::GemmProblem& p) {
    auto c = d.candidates(p, nullptr);
    EXPECT_TRUE(c.has_value());
    for (const GemmCandidate& x : *c) {
      if (x.config.find("_split") != std::string::npos && x.algorithm->name() == "gemm.skinny") {
        return x.reason.find("GEMV main loop") != std::string::npos;
      }
    }
    return false;
  };
  for (auto [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{1000, 2, 1024}, {777, 4, 4096}, {3, 5000, 2048}}) {
    EXPECT_TRUE(split_gemv(aligned(m, n, k))) << m << "x" << n << "x" << k;
  }
  // Five columns take the tensor-core loop; so do rows too few to fill the GPU over a deep K
  // (K splits over blocks), leading dimensions that are not 16-byte multiples, and other
  // transposes.
  EXPECT_FALSE(split_gemv(aligned(1000, 5, 1024)));
  EXPECT_FALSE(split_gemv(aligned(2, 1, 131072)));
  ops::GemmProblem odd = aligned(1000, 2, 1000);
  odd.lda = odd.ldb = 1001;
  EXPECT_FALSE(split_gemv(odd));
  ops::GemmProblem nn = aligned(1000, 2, 1024);
  nn.trans_a = ops::Transpose::kN;
  nn.lda = 1000;
  EXPECT_FALSE(split_gemv(nn));
}

// gemm.skinny's streaming loop leads where it measured faster (H100, 2026-11-26: 4096 x 8 x 4096
// 16.8 us against 17.8 on a 64x16 tile; bench/results/2026-11-26-gemm-stream-h100.md), and the
// default rule set leaves it out where it measured slower (16 columns over 117 MB, 24 columns)
// and for layouts it would gather element by element; the full rule set lists it for any
// 16-bit class.
TEST(Heuristic, TheStreamingLoopLeadsWhereItMeasuredFaster) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  auto c = d.candidates(aligned(4096, 8, 4096), nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_NE(c->front().config.find("_narrow-n_streamauto"), std::string::npos) << c->front().config;
  EXPECT_NE(c->front().reason.find("streaming loop"), std::string::npos) << c->front().reason;
  auto has_stream = [&](const ops::GemmProblem& p, space::RuleSet rules) {
    GemmSkinnyAlgorithmProbe probe;
    for (const Candidate& x : probe.algorithm->rank(p, DeviceModel{}, rules)) {
      if (x.config.find("_stream") != std::string::npos) return true;
    }
    return false;
  };
  ops::GemmProblem nn = aligned(4096, 8, 4096);
  nn.trans_a = ops::Transpose::kN;
  nn.lda = 4096;
  for (const ops::GemmProblem& p : {aligned(14336, 16, 4096), aligned(4096, 24, 4096), nn}) {
    EXPECT_FALSE(has_stream(p, space::RuleSet::kDefault)) << p.key();
    EXPECT_TRUE(has_stream(p, space::RuleSet::kFull)) << p.key();
  }
  ops::GemmProblem fp32 = aligned(4096, 8, 4096);
  fp32.a_type = fp32.b_type = fp32.c_type = fp32.d_type = core::DType::kF32;
  EXPECT_FALSE(has_stream(fp32, space::RuleSet::kFull));
}

// fp8 decode GEMMs run the streaming loop, which multiplies e4m3 and e5m2 as loaded (mma.sync's
// k32 fp8 form, 16 of k a vector): gemm.sm90 has no fp8 tile under 64 columns, and on 128x64
// tiles 4096 x 8 x 4096 measured 17.2 us against cuBLASLt's 9.0 (H200, 2026-11-30, bench/
// results/2026-11-30-dispatch-model-h200.md). Its warps a row tile keep one unrolled step of
// 64-deep chunks each; rows that are not whole 16-byte vectors (K = 1000) stay on the split loop.
TEST(Heuristic, Fp8DecodeRunsTheStreamingLoop) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  const auto fp8 = [](int64_t m, int64_t n, int64_t k, core::DType a, core::DType b) {
    ops::GemmProblem p = aligned(m, n, k);
    p.a_type = a;
    p.b_type = b;
    return p;
  };
  const core::DType e4 = core::DType::kF8E4M3, e5 = core::DType::kF8E5M2;
  for (const ops::GemmProblem& p : {fp8(4096, 8, 4096, e4, e4), fp8(4096, 1, 4096, e5, e5),
                                    fp8(14336, 16, 4096, e4, e5), fp8(8, 4096, 4096, e4, e4)}) {
    auto c = d.candidates(p, nullptr);
    ASSERT_TRUE(c.has_value()) << p.key();
    EXPECT_NE(c->front().config.find("gemm.skinny_fp8"), std::string::npos) << c->front().config;
    EXPECT_NE(c->front().config.find("_streamauto"), std::string::npos) << c->front().config;
  }
  // Warps a row tile: 8; with more than 8 columns the fewest whose blocks fill 80% of a wave of
  // 2 x 132 (4096 rows: 8, 256 blocks; 14336 rows: 2, 224 blocks); fewer where a warp's share of
  // K would be under 4 chunks (of 64 for fp8: 4096 x 8 x 512 on 2).
  GemmSkinnyAlgorithmProbe probe;
  const auto warps = [&](const ops::GemmProblem& p) {
    for (const Candidate& x : probe.algorithm->rank(p, DeviceModel{}, space::RuleSet::kDefault)) {
      if (x.config.find("_streamauto") == std::string::npos) continue;
      const size_t at = x.why.find(" warps a row tile");
      const size_t from = x.why.rfind(' ', at - 1) + 1;
      return std::stoi(x.why.substr(from, at - from));
    }
    return 0;
  };
  EXPECT_EQ(warps(fp8(4096, 8, 4096, e4, e4)), 8);
  EXPECT_EQ(warps(fp8(14336, 16, 4096, e4, e4)), 2);
  EXPECT_EQ(warps(fp8(65536, 24, 4096, e4, e4)), 1);
  EXPECT_EQ(warps(fp8(4096, 24, 4096, e4, e4)), 8);
  EXPECT_EQ(warps(fp8(4096, 8, 512, e4, e4)), 2);
  EXPECT_EQ(warps(aligned(4096, 8, 4096)), 8);
  EXPECT_EQ(warps(aligned(28672, 8, 8192)), 8);  // one tile of S: 1 warp measured slower
  // Rows or batch strides that are not whole 16-byte vectors would be gathered byte by byte: the
  // default rule set leaves the streaming loop out.
  ops::GemmProblem odd_batch = fp8(4096, 8, 4096, e4, e4);
  odd_batch.batch = 2;
  odd_batch.stride_a = 4096 * 4096 + 8;
  odd_batch.stride_b = 8 * 4096;
  odd_batch.stride_c = odd_batch.stride_d = 4096 * 8;
  for (const ops::GemmProblem& p : {fp8(777, 13, 1000, e4, e4), odd_batch}) {
    for (const Candidate& x : probe.algorithm->rank(p, DeviceModel{}, space::RuleSet::kDefault)) {
      EXPECT_EQ(x.config.find("_stream"), std::string::npos) << p.key() << ": " << x.config;
    }
  }
}

// With both operands MN-major (NT, the GEMM of a 1x1 backward weight) the split loop gathers its
// columns at about 3 GB/s a block: fp32 16 x 16 x 200704 on 29 blocks measured 333 us (H200,
// bench/results/2026-11-29-forced-lines-h200.md, 5b), which the bandwidth share alone put at 25.
TEST(Heuristic, TheSkinnySplitLoopGathersNtOperandsSlowly) {
  ops::GemmProblem nt;
  nt.m = 16;
  nt.n = 16;
  nt.k = 200704;
  nt.trans_a = ops::Transpose::kN;
  nt.trans_b = ops::Transpose::kT;
  nt.lda = nt.ldb = nt.ldc = nt.ldd = 16;
  nt.a_type = nt.b_type = nt.c_type = nt.d_type = nt.bias_type = core::DType::kF32;
  nt.math = core::MathMode::kTF32;
  GemmSkinnyAlgorithmProbe probe;
  bool split = false;
  for (const Candidate& x : probe.algorithm->rank(nt, DeviceModel{}, space::RuleSet::kDefault)) {
    if (x.config.find("_splitauto") == std::string::npos) continue;
    split = true;
    EXPECT_GT(x.predicted_us, 200.0) << x.config << ": " << x.why;
  }
  EXPECT_TRUE(split);
  // The same shape with K contiguous (TN) keeps the bandwidth share's rate.
  ops::GemmProblem tn = nt;
  tn.trans_a = ops::Transpose::kT;
  tn.trans_b = ops::Transpose::kN;
  tn.lda = tn.ldb = nt.k;
  for (const Candidate& x : probe.algorithm->rank(tn, DeviceModel{}, space::RuleSet::kDefault)) {
    if (x.config.find("_splitauto") != std::string::npos) {
      EXPECT_LT(x.predicted_us, 100.0) << x.why;
    }
  }
}

// The streaming configs' auto count runs the bulk-copy loop (kernels/gemm_skinny_bulk.cuh) on one
// column over at least 256 KB of R for each block of one wave (two an SM, shared by a batch),
// rows of 2 to 40 KB in whole 16-byte vectors (H200, 2026-11-28: 14336 x 1 x 4096 33.0 us
// against the streaming loop's 35.7, bench/results/2026-11-28-gemv-h200.md; a batch of 2 37.1
// against 38.9 with a wave an entry, bench/results/2026-11-28-memory-lines-h200.md); the
// explanation names the loop that runs.
TEST(Heuristic, OneColumnOverManyBytesTakesTheBulkCopyLoop) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  auto front = [&](const ops::GemmProblem& p) {
    auto c = d.candidates(p, nullptr);
    EXPECT_TRUE(c.has_value());
    return c->front();
  };
  // 8448 x 4096 x 2 bytes is exactly 264 blocks of 256 KB (132 SMs).
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{14336, 1, 4096},
                         {4096, 1, 14336},
                         {8448, 1, 4096},
                         {1, 9001, 8200},
                         {128256, 1, 4096}}) {
    const GemmCandidate c = front(aligned(m, n, k));
    EXPECT_NE(c.config.find("_streamauto"), std::string::npos) << m << "x" << n << "x" << k;
    EXPECT_NE(c.reason.find("bulk-copy loop"), std::string::npos)
        << m << "x" << n << "x" << k << ": " << c.reason;
  }
  // Fewer bytes, two columns, K past 20480 or under 1024, K not a multiple of 8, or a forced
  // warp count: another loop.
  ops::GemmProblem odd = aligned(16411, 1, 4100);
  odd.lda = odd.ldb = 4100;
  for (const ops::GemmProblem& p :
       {aligned(8440, 1, 4096), aligned(4096, 1, 4096), aligned(14336, 2, 4096),
        aligned(2000, 1, 20488), aligned(80000, 1, 1016), odd}) {
    EXPECT_EQ(front(p).reason.find("bulk-copy loop"), std::string::npos) << p.key();
  }
  // A batch shares the wave: 132 blocks for each of two entries, so 4224 rows of 8 KB each
  // (262 KB a block) take the loop and 4096 rows (254 KB) do not; past a wave of entries, one
  // block each.
  auto batched = [&](int64_t m, int64_t batch) {
    ops::GemmProblem p = aligned(m, 1, 4096);
    p.batch = batch;
    p.stride_a = m * 4096;
    p.stride_b = 4096;
    p.stride_c = p.stride_d = m;
    return front(p);
  };
  EXPECT_NE(batched(4224, 2).reason.find("bulk-copy loop, 264 blocks"), std::string::npos)
      << batched(4224, 2).reason;
  EXPECT_EQ(batched(4096, 2).reason.find("bulk-copy loop"), std::string::npos)
      << batched(4096, 2).reason;
  EXPECT_NE(batched(8448, 300).reason.find("bulk-copy loop, 300 blocks"), std::string::npos)
      << batched(8448, 300).reason;
  GemmSkinnyAlgorithmProbe probe;
  for (const Candidate& x :
       probe.algorithm->rank(aligned(14336, 1, 4096), DeviceModel{}, space::RuleSet::kFull)) {
    const bool forced = x.config.find("_stream") != std::string::npos &&
                        x.config.find("_streamauto") == std::string::npos;
    if (forced) {
      EXPECT_EQ(x.why.find("bulk-copy loop"), std::string::npos) << x.config;
    }
    if (x.config.find("_streamauto") != std::string::npos) {
      EXPECT_NE(x.why.find("bulk-copy loop"), std::string::npos) << x.why;
    }
  }
}

TEST(Heuristic, DecodeShapesWithSixteenColumnsTakeANarrowPersistentTile) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  // 14336 x 16 x 4096: a 16-wide tile, persistent (H100, 2026-11-26: 45.7 us against 49.2 on
  // gemm.skinny's streaming loop; bench/results/2026-11-26-gemm-stream-h100.md). At 4096 x 16 x
  // 4096 the two measured within 2% (17.4 and 17.2 us): either may lead.
  auto c = d.candidates(aligned(14336, 16, 4096), nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90");
  EXPECT_NE(c->front().config.find("x16x"), std::string::npos) << c->front().config;
  EXPECT_NE(c->front().config.find("_persistent"), std::string::npos) << c->front().config;
  auto p = d.candidates(aligned(4096, 16, 4096), nullptr);
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->front().config.find("x16x") != std::string::npos ||
              p->front().config.find("_stream") != std::string::npos)
      << p->front().config;
  // Wide problems keep wide tiles.
  auto wide = d.candidates(aligned(4096, 4096, 4096), nullptr);
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->front().config.find("x16x"), std::string::npos) << wide->front().config;
  EXPECT_EQ(wide->front().config.find("x32x"), std::string::npos) << wide->front().config;
  // So does a GEMM with a narrow M and a long N (a 1x1 convolution's, 64 x 200704 x 256): 16-wide
  // tiles would run 95 per SM (measured on an H100 at 77.2 us, 128x128 tiles at 48.8 us).
  auto conv = d.candidates(aligned(64, 200704, 256), nullptr);
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->front().config.find("x16x"), std::string::npos) << conv->front().config;
  EXPECT_EQ(conv->front().config.find("x32x"), std::string::npos) << conv->front().config;
}

// Narrow-M problems (M <= 32 < N) take swapped operands: a narrow tile over M would stream the
// large operand in 16-row slabs (H100, 2026-11-26: 16 x 4096 x 4096 swapped 17.7 us, on 64x16
// tiles unswapped 34.5, on 64x32 21.0; 8 x 2048 x 1024 with C 9.1 against 19.6;
// bench/results/2026-11-26-gemm-swap-h100.md). Narrow-N and wide problems never see them, nor
// does a biased GEMM (its bias runs along M).
TEST(Heuristic, NarrowMProblemsSwapTheirOperands) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{16, 4096, 4096},
                         {24, 3000, 2048},
                         {8, 2048, 1024},
                         {32, 11008, 4096}}) {
    auto c = d.candidates(aligned(m, n, k), nullptr);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->front().algorithm->name(), "gemm.sm90") << m << "x" << n << "x" << k;
    EXPECT_NE(c->front().config.find("_persistent_swap_"), std::string::npos)
        << m << "x" << n << "x" << k << ": " << c->front().config;
  }
  for (auto [m, n] : {std::pair<int64_t, int64_t>{4096, 16}, {4096, 4096}, {64, 200704}}) {
    auto c = d.candidates(aligned(m, n, 4096), nullptr);
    ASSERT_TRUE(c.has_value());
    for (const GemmCandidate& x : *c) {
      EXPECT_EQ(x.config.find("_swap_"), std::string::npos) << m << "x" << n << ": " << x.config;
    }
  }
  ops::GemmProblem biased = aligned(16, 4096, 4096);
  biased.bias = true;
  auto c = d.candidates(biased, nullptr);
  ASSERT_TRUE(c.has_value());
  for (const GemmCandidate& x : *c) EXPECT_EQ(x.config.find("_swap_"), std::string::npos);
}

// An fp32 output of bf16 operands shows how much of K one tensor-core accumulator summed: a
// deep K goes to configs that split it into slices of at most kMaxExactAccumulation (H100:
// 4096 x 20 x 14336 on a persistent 64x16 tile measured 2.07x cuBLASLt's error).
TEST(Heuristic, Fp32OutputsOfADeepKSplitTheAccumulation) {
  RankingDispatcher r;
  GemmDispatcher& d = r.dispatcher;
  ops::GemmProblem p = aligned(4096, 20, 14336);
  p.c_type = p.d_type = core::DType::kF32;
  EXPECT_FALSE(long_accumulation(p, kMaxExactAccumulation));
  EXPECT_TRUE(long_accumulation(p, kMaxExactAccumulation + 1));
  auto c = d.candidates(p, nullptr);
  ASSERT_TRUE(c.has_value());
  // Split K, or gemm.skinny's streaming loop (each warp sums an eighth of K: 1792).
  const std::string& first = c->front().config;
  EXPECT_TRUE(first.find("splitk") != std::string::npos ||
              first.find("_stream") != std::string::npos)
      << first;
  EXPECT_EQ(c->front().reason.find("in one fp32 accumulator"), std::string::npos)
      << c->front().reason;
  EXPECT_NE(c->front().reason.find("heuristic"), std::string::npos);
  // Without the streaming loop's ranking, gemm.sm90 splits K.
  for (const GemmCandidate& x : *c) {
    if (x.algorithm->name() != "gemm.sm90") continue;
    EXPECT_NE(x.config.find("splitk"), std::string::npos) << x.config;
    break;
  }
  // The same problem with a bf16 output (whose rounding hides the sums') and with a K that one
  // accumulator sums exactly enough keep gemm.sm90's persistent narrow tile.
  ops::GemmProblem narrow_out = aligned(4096, 20, 14336);
  ops::GemmProblem short_k = aligned(4096, 20, 8192);
  short_k.c_type = short_k.d_type = core::DType::kF32;
  for (const ops::GemmProblem& q : {narrow_out, short_k}) {
    EXPECT_FALSE(long_accumulation(q, q.k)) << q.key();
    auto e = d.candidates(q, nullptr);
    ASSERT_TRUE(e.has_value());
    for (const GemmCandidate& x : *e) {
      if (x.algorithm->name() != "gemm.sm90") continue;
      EXPECT_NE(x.config.find("_persistent"), std::string::npos) << x.config;
      break;
    }
  }
  // fp32 operands (tf32 math) are not judged by their sums' rounding.
  ops::GemmProblem tf32 = p;
  tf32.a_type = tf32.b_type = core::DType::kF32;
  EXPECT_FALSE(long_accumulation(tf32, tf32.k));
}

}  // namespace
}  // namespace boo::dispatch
