// `boo preload` with the fake compiler (no GPU, no CUDA compile): progress and summary, a second
// run that compiles nothing, and a failed compile reported with the kernel name and its log
// while the next candidate is compiled instead.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"

namespace boo::cli {
namespace {

namespace fs = std::filesystem;

class PreloadCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = fs::temp_directory_path() / ("boo_preload_cli_" + std::to_string(getpid()));
    fs::create_directories(scratch_);
    write_file(scratch_ / "cmds.txt",
               "- {function: matmul, M: 256, N: 256, K: 256, lda: 256, ldb: 256, ldc: 256, "
               "ldd: 256, transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}\n"
               // (Stride 2: the implicit GEMM's config first; conv.sm90_taps takes stride 1.)
               "convbfp16 -n 2 -c 16 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1 "
               "--in_layout NHWC --out_layout NHWC --fil_layout NHWC\n");
  }
  void TearDown() override { fs::remove_all(scratch_); }
  // The fake compiler and a kernel cache of the test's own under the scratch directory.
  std::vector<std::string> fake_env(const std::string& cache,
                                    const std::vector<std::string>& extra_env = {}) const {
    std::vector<std::string> env = {std::string("BOO_NVCC=") + BOO_FAKE_NVCC,
                                    "BOO_CACHE_DIR=" + (scratch_ / cache).string()};
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    return env;
  }
  RunResult preload(const std::string& cache, const std::vector<std::string>& extra_env = {}) {
    const std::vector<std::string> env = fake_env(cache, extra_env);
    return run_boo({"preload", "-j", "2", "--commands-file", (scratch_ / "cmds.txt").string()},
                   scratch_, env);
  }
  fs::path scratch_;
};

TEST_F(PreloadCliTest, CompilesOnceThenFindsEverythingCached) {
  const RunResult first = preload("cache");
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("boo preload: 2 problems"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("[2/2 "), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("elapsed, ~"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("compiled 2, already cached 0, failed 0"), std::string::npos)
      << first.err;
  const RunResult second = preload("cache");
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("compiled 0, already cached 2, failed 0"), std::string::npos)
      << second.err;
}

TEST_F(PreloadCliTest, FailedCompileNamesKernelAndLogAndMovesOn) {
  const RunResult r = preload("cache_fail", {"BOO_FAKE_NVCC_FAIL=conv.sm90_implicit"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("FAILED conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(log: "), std::string::npos) << r.err;
  // conv.direct, the next candidate, is compiled instead: no problem is left without a kernel.
  EXPECT_NE(r.err.find("compiled conv.direct_bf16_f32acc_fprop_2d_nobias.none"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; 0 problems without a kernel"), std::string::npos) << r.err;
  // The fallback round's progress count starts again: a line says why, before it.
  const size_t round2 = r.err.find("kernels failed to compile so far; round 2: the next candidate");
  EXPECT_NE(round2, std::string::npos) << r.err;
  EXPECT_LT(round2, r.err.find("compiled conv.direct_")) << r.err;
}

TEST_F(PreloadCliTest, KernelsThatSpillAreNamedAndFailOnlyWhenAsked) {
  const std::vector<std::string> env =
      fake_env("cache_spill", {"BOO_FAKE_NVCC_SPILL=conv.sm90_implicit"});
  const std::vector<std::string> args = {"preload", "-j", "2", "--commands-file",
                                         (scratch_ / "cmds.txt").string()};
  const RunResult r = run_boo(args, scratch_, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find("boo preload: warning: conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" spills registers to local memory (ptxas: 824 bytes of spill stores, 600 "
                       "of spill loads, in 1 function)"),
            std::string::npos)
      << r.err;
  // The GEMM's kernel compiled without spills.
  EXPECT_EQ(r.err.find("warning: gemm."), std::string::npos) << r.err;
  // From the cache, with --fail-on-spills: the same kernel, now an error and exit 1.
  std::vector<std::string> strict = args;
  strict.insert(strict.begin() + 1, "--fail-on-spills");
  const RunResult again = run_boo(strict, scratch_, env);
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_NE(again.err.find("compiled 0, already cached 2, failed 0"), std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("boo preload: error: conv.sm90_implicit_"), std::string::npos)
      << again.err;
}

TEST_F(PreloadCliTest, KernelsWhoseMmasPtxasWaitsForAreNamedAndFailOnlyWhenAsked) {
  const std::vector<std::string> env =
      fake_env("cache_mma_wait", {"BOO_FAKE_NVCC_MMA_WAIT=conv.sm90_implicit"});
  const std::vector<std::string> args = {
      "preload", "--fail-on-spills", "-j",
      "2",       "--commands-file",  (scratch_ / "cmds.txt").string()};
  const RunResult r = run_boo(args, scratch_, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;  // --fail-on-spills: not a spill
  EXPECT_NE(
      r.err.find("boo preload: warning: conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" waits for its warpgroup MMAs where ptxas made it (1 place in the compile "
                       "log)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("warning: gemm."), std::string::npos) << r.err;
  // From the cache, with --fail-on-mma-waits: an error and exit 1.
  std::vector<std::string> strict = args;
  strict.insert(strict.begin() + 1, "--fail-on-mma-waits");
  const RunResult again = run_boo(strict, scratch_, env);
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_NE(again.err.find("boo preload: error: conv.sm90_implicit_"), std::string::npos)
      << again.err;
}

TEST_F(PreloadCliTest, CompilesTheLayerNormKernelDispatchRunsFirst) {
  // One kernel per problem: the first of dispatch's candidates (the rest only if it fails).
  write_file(scratch_ / "ln.txt",
             "layernormbfp16 -X 8x4096 -o 1 -e 1e-05 -m 1 -F 1\n"
             "layernormbfp16 -X 8x4096 -o 1 -e 1e-05 -m 1 -F 14\n");
  const std::vector<std::string> env = fake_env("ln_cache");
  const RunResult r = run_boo(
      {"preload", "-j", "2", "--commands-file", (scratch_ / "ln.txt").string()}, scratch_, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("boo preload: 2 problems"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("compiled layernorm.rowwise_bf16_fwd_"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("compiled layernorm.rowwise_bf16_bwd_"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("compiled 2, already cached 0, failed 0; 0 problems without a kernel"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace boo::cli

namespace boo::cli {
namespace {

TEST_F(PreloadCliTest, ListTopShowsMoreLayerNormConfigsAndRuleSetIsChecked) {
  write_file(scratch_ / "ln_top.txt", "layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 1\n");
  // No tuning DB rows: the list is the heuristic's.
  const std::vector<std::string> env = fake_env("ln_top_cache", {"BOO_TUNING_SPEC_PATH="});
  const auto listed = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"preload", "--list", "--commands-file",
                                     (scratch_ / "ln_top.txt").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_boo(args, scratch_, env);
  };
  const auto configs = [](const std::string& out) {
    int n = 0;
    for (const std::string& line : lines_of(out)) {
      n += line.find("layernorm.rowwise_bf16_fwd_") != std::string::npos ? 1 : 0;
    }
    return n;
  };
  const RunResult one = listed({});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(configs(one.out), 1) << one.out;
  const RunResult top = listed({"--rule-set", "full", "--top", "5"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_GT(configs(top.out), configs(one.out)) << top.out;
  EXPECT_EQ(configs(top.out), 5) << top.out;
  const RunResult bogus = listed({"--rule-set", "bogus"});
  EXPECT_EQ(bogus.exit_code, 2) << bogus.err;
  EXPECT_NE(bogus.err.find("--rule-set"), std::string::npos) << bogus.err;
}

}  // namespace
}  // namespace boo::cli

namespace boo::cli {
namespace {

TEST_F(PreloadCliTest, AMisspeltGemmConfigOfAConvolutionIsAnErrorThatSaysWhy) {
  write_file(scratch_ / "1x1.txt",
             "convbfp16 -n 2 -c 64 -H 8 -W 8 -k 64 -y 1 -x 1 -F 1 --in_layout NHWC "
             "--out_layout NHWC --fil_layout NHWC\n");
  const std::vector<std::string> env = fake_env("misspelt");
  // The launch order (`_sw1.rh`) left off, as `--list` prints kernel names.
  const RunResult r = run_boo(
      {"preload", "--list", "--config",
       "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x128x64_c1x1_pingpong_persistent",
       "--commands-file", (scratch_ / "1x1.txt").string()},
      scratch_, env);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("boo: error: conv2d_bf16_f32acc_fwd_n2c64h8w8_k64y1x1"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("sw<N>.r<h|m|n>"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace boo::cli
