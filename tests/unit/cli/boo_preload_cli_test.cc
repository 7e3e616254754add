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
               "convbfp16 -n 2 -c 16 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC "
               "--out_layout NHWC --fil_layout NHWC\n");
  }
  void TearDown() override { fs::remove_all(scratch_); }
  RunResult preload(const std::string& cache, const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> env = {std::string("BOO_NVCC=") + BOO_FAKE_NVCC,
                                    "BOO_CACHE_DIR=" + (scratch_ / cache).string()};
    env.insert(env.end(), extra_env.begin(), extra_env.end());
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
}

}  // namespace
}  // namespace boo::cli
