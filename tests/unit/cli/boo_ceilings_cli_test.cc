// `boo ceilings` without a GPU (CI) and with bad sizes: a clear error naming what is wrong,
// never a crash. Its measurements run on the device machine (scripts/device-run.sh ceilings).
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace boo::cli {
namespace {

class CeilingsCliTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "boo_ceilings_cli_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  RunResult run(const std::vector<std::string>& args) { return run_boo(args, dir_); }

  std::filesystem::path dir_;
};

TEST_F(CeilingsCliTest, WithoutAGpuSaysSoAndFails) {
  const RunResult r = run({"ceilings", "--read-mb", "1", "--iter", "3"});
  if (r.err.find("no usable CUDA GPU") == std::string::npos) {
    GTEST_SKIP() << "this machine has a GPU";
  }
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("boo ceilings: error: no usable CUDA GPU"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("boo parse"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CeilingsCliTest, BadSizesAndSampleCountsNameTheFlag) {
  for (const char* bad : {"0", "-4", "abc", "2e6"}) {
    const RunResult r = run({"ceilings", "--read-mb", "16", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--read-mb"), std::string::npos) << bad << ": " << r.err;
  }
  const RunResult r = run({"ceilings", "--iter", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--iter"), std::string::npos) << r.err;
}

TEST_F(CeilingsCliTest, HelpNamesTheMeasurements) {
  const RunResult r = run({"ceilings", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--read-mb"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cold L2"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace boo::cli
