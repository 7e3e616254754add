// `boo numerics` without a GPU (CI): its usage errors and its clear refusal; the table itself
// runs on the GPU machine (scripts/device-run.sh workloads).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"

namespace boo::cli {
namespace {

namespace fs = std::filesystem;

class NumericsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = fs::temp_directory_path() / ("boo_numerics_cli_" + std::to_string(getpid()));
    fs::create_directories(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }
  RunResult run(const std::vector<std::string>& args) { return run_boo(args, scratch_); }
  fs::path scratch_;
};

const char* kConv =
    "convbfp16 -n 2 -c 16 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC "
    "--out_layout NHWC --fil_layout NHWC";

TEST_F(NumericsCliTest, WithoutAGpuSaysSoAndFails) {
  const RunResult probe = run({"driver", "--backend", "reference", kConv});
  if (probe.err.find("no usable CUDA GPU") == std::string::npos) {
    GTEST_SKIP() << "this machine has a GPU";
  }
  const RunResult r = run({"numerics", kConv});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("boo numerics: needs a GPU"), std::string::npos) << r.err;
  // Layer norms too: boo has GPU kernels for them, checked on the GPU like the other families.
  const RunResult ln = run({"numerics", "layernormbfp16", "-X", "4x33", "-o", "1", "-e", "1e-05",
                            "-m", "1", "-F", "14"});
  EXPECT_EQ(ln.exit_code, 1);
  EXPECT_NE(ln.err.find("boo numerics: needs a GPU"), std::string::npos) << ln.err;
}

TEST_F(NumericsCliTest, BadUsageExitsTwoNamingTheFlag) {
  RunResult r = run({"numerics", "--csv", (scratch_ / "no" / "such" / "dir.csv").string(), kConv});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--csv"), std::string::npos) << r.err;
  r = run({"numerics", "--commands-file", (scratch_ / "missing.txt").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.txt"), std::string::npos) << r.err;
  r = run({"numerics", "--cpu-max-gflop", "-1", kConv});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cpu-max-gflop"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace boo::cli
