// Every line of every shipped workload file parses, validates and round-trips:
// parse(to_command(p)) == p, and keys are unique per distinct problem.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "boo/ops/problem.h"
#include "boo/parse/command_file.h"
#include "boo/parse/registry.h"

namespace boo::parse {
namespace {

class WorkloadFile : public ::testing::TestWithParam<const char*> {};

TEST_P(WorkloadFile, EveryLineParsesAndRoundTrips) {
  const std::string path = std::string(BOO_SOURCE_DIR) + "/bench/workloads/" + GetParam();
  auto file = read_command_file(path);
  ASSERT_TRUE(file.has_value()) << file.status().to_string();
  ASSERT_FALSE(file->entries.empty());
  const Registry registry = make_default_registry();
  std::set<std::string> keys;
  size_t problems = 0;
  for (const CommandEntry& e : file->entries) {
    auto parsed = registry.parse(e.text);
    ASSERT_TRUE(parsed.has_value()) << e.source << ": " << parsed.status().to_string();
    ASSERT_FALSE(parsed->problems.empty()) << e.source;
    for (const ops::Problem& p : parsed->problems) {
      ++problems;
      EXPECT_TRUE(ops::validate(p).is_ok()) << e.source;
      const std::string cmd = ops::to_command(p);
      auto again = registry.parse(cmd);
      ASSERT_TRUE(again.has_value())
          << e.source << ": " << cmd << ": " << again.status().to_string();
      ASSERT_EQ(again->problems.size(), 1u) << cmd;
      EXPECT_EQ(again->problems[0], p) << e.source << "\n  canonical: " << cmd;
      EXPECT_EQ(ops::key(again->problems[0]), ops::key(p));
      EXPECT_GT(ops::flops(p), 0.0);
      EXPECT_GT(ops::min_bytes(p), 0);
      keys.insert(ops::key(p));
    }
  }
  EXPECT_EQ(keys.size(), problems) << "two different lines gave the same key";
}

INSTANTIATE_TEST_SUITE_P(Shipped, WorkloadFile,
                         ::testing::Values("conv_public.txt", "gemm_public.log",
                                           "layernorm_public.txt", "conv_depthwise.txt",
                                           "conv_taps_ab.txt", "conv_models.txt",
                                           "gemm_models.log"));

}  // namespace
}  // namespace boo::parse
