// `boo cache status|list|clear` end to end: the built binary on a cache folder whose entries the
// test writes as KernelCache lays them out (<root>/<arch>/<kernel>/<hash>.*). No GPU, no nvcc.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace boo::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kOld[] = "0000000000000001";
constexpr char kNew[] = "0000000000000002";
constexpr char kBad[] = "00000000000000ff";

int count_matching(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  int n = 0;
  for (const std::string& line : lines_of(text)) n += std::regex_match(line, re) ? 1 : 0;
  return n;
}

class CacheCliTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "boo_cache_cli_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    root_ = (dir_ / "cache").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // `boo <args>` with the cache chosen by `env` (NAME=value words) and nothing inherited.
  RunResult run(const std::vector<std::string>& args, std::vector<std::string> env = {}) {
    std::vector<std::string> all = {
        "-u", "BOO_CACHE_DIR", "-u", "XDG_CACHE_HOME", "-u", "BOO_CACHE_ON", "BOO_CPU_THREADS=2"};
    for (std::string& e : env) all.push_back(std::move(e));
    return run_boo(args, dir_, all);
  }
  RunResult run_cache(const std::vector<std::string>& args) {
    return run(args, {"BOO_CACHE_DIR=" + root_});
  }

  std::string stem(const std::string& kernel, const std::string& hash) const {
    return root_ + "/sm_90a/" + kernel + "/" + hash;
  }
  // An entry as a successful compile leaves it; `days` old.
  void add_compiled(const std::string& kernel, const std::string& hash, double days = 0) {
    const std::string s = stem(kernel, hash);
    fs::create_directories(fs::path(s).parent_path());
    write_file(s + ".so", std::string(4000, 'x'));
    write_file(s + ".cu", "// name: " + kernel + "\n");
    write_file(s + ".cmd", "nvcc -o " + s + ".so " + s + ".cu\n");
    write_file(s + ".log", "");
    write_file(s + ".json", "{\"name\": \"" + kernel + "\"}\n");
    write_file(s + ".lock", "");
    age(s, days);
  }
  // An entry as a failed compile leaves it.
  void add_failed(const std::string& kernel, const std::string& hash, double days = 0) {
    const std::string s = stem(kernel, hash);
    fs::create_directories(fs::path(s).parent_path());
    write_file(s + ".cu", "// name: " + kernel + "\n");
    write_file(s + ".log", s + ".cu(1): error: planted compile failure\n");
    write_file(s + ".failed", "exit status 1\nlog: " + s + ".log\n" + s +
                                  ".cu(1): error: planted compile failure\n");
    age(s, days);
  }
  void age(const std::string& s, double days) {
    const auto then =
        fs::file_time_type::clock::now() - std::chrono::duration_cast<fs::file_time_type::duration>(
                                               std::chrono::duration<double>(days * 86400.0));
    for (const char* ext : {".so", ".cu", ".cmd", ".log", ".json", ".failed"}) {
      if (fs::exists(s + ext)) fs::last_write_time(s + ext, then);
    }
  }
  void populate() {
    add_compiled("gemm.test_old", kOld, 10);
    add_compiled("gemm.test_new", kNew);
    add_failed("gemm.test_bad", kBad, 1);
  }

  fs::path dir_;
  std::string root_;
};

TEST_F(CacheCliTest, StatusShowsRootCountsPerArchAndFailedEntries) {
  populate();
  const RunResult r = run_cache({"cache", "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 6u) << r.out;
  EXPECT_EQ(lines[0], "cache       " + root_ + " (BOO_CACHE_DIR)");
  EXPECT_EQ(lines[1], "persistent  yes");
  EXPECT_TRUE(
      std::regex_match(lines[2], std::regex(R"(entries     2 compiled, 1 failed; [0-9.]+ KB)")))
      << lines[2];
  EXPECT_TRUE(
      std::regex_match(lines[3], std::regex(R"(  sm_90a    2 compiled, 1 failed; [0-9.]+ KB)")))
      << lines[3];
  // The source's folder is cut from the compiler's message: the log line below names it.
  EXPECT_EQ(lines[4], std::string("failed      gemm.test_bad: ") + kBad +
                          ".cu(1): error: planted compile failure");
  EXPECT_EQ(lines[5], "              log " + stem("gemm.test_bad", kBad) + ".log");
}

TEST_F(CacheCliTest, StatusNamesCompiledKernelsThatSpill) {
  populate();
  // What -warn-spills leaves in a compile log (the JIT's flags, compiler.cc).
  write_file(stem("gemm.test_new", kNew) + ".log",
             "ptxas warning : Registers are spilled to local memory in function '_Z1kv', 824 "
             "bytes spill stores, 600 bytes spill loads\n");
  const RunResult r = run_cache({"cache", "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 8u) << r.out;
  EXPECT_EQ(lines[6],
            "spills      gemm.test_new: 824 bytes of spill stores, 600 of spill loads, in 1 "
            "function (ptxas; it may run slower than predicted)");
  EXPECT_EQ(lines[7], "              log " + stem("gemm.test_new", kNew) + ".log");
  // The other compiled entry's empty log says nothing.
  EXPECT_EQ(r.out.find("gemm.test_old:"), std::string::npos) << r.out;
}

TEST_F(CacheCliTest, StatusNamesCompiledKernelsWhoseMmasPtxasWaitsFor) {
  populate();
  // What ptxas printed for a first form of the overlapped fp8 promotion (compile_log.h).
  write_file(stem("gemm.test_new", kNew) + ".log",
             "ptxas info    : (C7517) warpgroup.wait is injected in around line 1652 by compiler "
             "to allow use of registers defined by GMMA in function '_Z1kv'\n");
  const RunResult r = run_cache({"cache", "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 8u) << r.out;
  EXPECT_EQ(lines[6],
            "mma waits   gemm.test_new: 1 place (ptxas; it may run slower than predicted)");
  EXPECT_EQ(lines[7], "              log " + stem("gemm.test_new", kNew) + ".log");
  EXPECT_EQ(r.out.find("spills"), std::string::npos) << r.out;
}

TEST_F(CacheCliTest, StatusFindsTheRootAsTheJitDoes) {
  const std::string xdg = (dir_ / "xdg").string();
  RunResult r = run({"cache", "status"}, {"XDG_CACHE_HOME=" + xdg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out)[0], "cache       " + xdg + "/boo ($XDG_CACHE_HOME/boo)") << r.out;
  EXPECT_NE(r.out.find("entries     none (the folder does not exist yet)"), std::string::npos)
      << r.out;
  const std::string home = (dir_ / "home").string();
  r = run({"cache", "status"}, {"HOME=" + home});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out)[0], "cache       " + home + "/.cache/boo (~/.cache/boo)") << r.out;
  // BOO_CACHE_ON=0: a fresh temporary folder, said so.
  r = run({"cache", "status"}, {"BOO_CACHE_ON=0", "BOO_CACHE_DIR=" + root_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("persistent  no"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("BOO_CACHE_ON=0"), std::string::npos) << r.err;
  // A malformed setting is a usage error naming it.
  r = run({"cache", "status"}, {"BOO_CACHE_ON=maybe"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("BOO_CACHE_ON"), std::string::npos) << r.err;
}

TEST_F(CacheCliTest, ListPrintsOneLinePerEntry) {
  populate();
  RunResult r = run_cache({"cache", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(lines_of(r.out).size(), 3u) << r.out;
  const std::string size = R"(\s+[0-9.]+ K?B)";
  EXPECT_EQ(count_matching(r.out, R"(ok\s+gemm\.test_old)" + size + R"(\s+10 days\s+)" +
                                      stem("gemm.test_old", kOld) + R"(\.so)"),
            1)
      << r.out;
  EXPECT_EQ(count_matching(r.out, R"(ok\s+gemm\.test_new)" + size + R"(\s+[0-9]+ s\s+)" +
                                      stem("gemm.test_new", kNew) + R"(\.so)"),
            1)
      << r.out;
  EXPECT_EQ(count_matching(r.out, R"(failed\s+gemm\.test_bad)" + size + R"(\s+24 h\s+)" +
                                      stem("gemm.test_bad", kBad) + R"(\.log)"),
            1)
      << r.out;
  r = run_cache({"cache", "list", "--failed"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r.out;
  EXPECT_EQ(r.out.rfind("failed ", 0), 0u) << r.out;
}

TEST_F(CacheCliTest, ClearOlderThanRemovesOnlyOldEntries) {
  populate();
  const RunResult r = run_cache({"cache", "clear", "--older-than", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_matching(r.out, R"(removed  ok\s+gemm\.test_old\s.*)"), 1) << r.out;
  const std::string summary = R"(boo cache clear: removed 1 entry \(0 failed\) and 1 empty )"
                              R"(kernel folder from .*; [0-9.]+ KB freed)";
  EXPECT_EQ(count_matching(r.out, summary), 1) << r.out;
  EXPECT_FALSE(fs::exists(fs::path(stem("gemm.test_old", kOld)).parent_path()));
  EXPECT_TRUE(fs::exists(stem("gemm.test_new", kNew) + ".so"));
  EXPECT_TRUE(fs::exists(stem("gemm.test_bad", kBad) + ".failed"));
}

TEST_F(CacheCliTest, ClearFailedAndDryRun) {
  populate();
  RunResult r = run_cache({"cache", "clear", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_matching(r.out, R"(would remove  (ok|failed)\s+gemm\.test_.*)"), 3) << r.out;
  EXPECT_NE(r.out.find("dry run: nothing was deleted"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(stem("gemm.test_old", kOld) + ".so"));
  EXPECT_TRUE(fs::exists(stem("gemm.test_bad", kBad) + ".failed"));

  r = run_cache({"cache", "clear", "--failed"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_matching(r.out, R"(removed  failed\s+gemm\.test_bad\s.*)"), 1) << r.out;
  EXPECT_FALSE(fs::exists(stem("gemm.test_bad", kBad) + ".failed"));
  EXPECT_TRUE(fs::exists(stem("gemm.test_old", kOld) + ".so"));

  r = run_cache({"cache", "clear"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("boo cache clear: removed 2 entries"), std::string::npos) << r.out;
  r = run_cache({"cache", "status"});
  EXPECT_NE(r.out.find("entries     0 compiled, 0 failed; 0 B"), std::string::npos) << r.out;
}

TEST_F(CacheCliTest, ClearRefusesAFolderThatIsNotACache) {
  populate();
  write_file(root_ + "/thesis.tex", "years of work");
  const RunResult r = run_cache({"cache", "clear"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("does not look like a boo kernel cache ('thesis.tex'"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(root_ + "/thesis.tex"));
  EXPECT_TRUE(fs::exists(stem("gemm.test_old", kOld) + ".so"));
  // status still reports, and warns.
  const RunResult s = run_cache({"cache", "status"});
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_NE(s.out.find("thesis.tex"), std::string::npos) << s.out;
}

TEST_F(CacheCliTest, ClearRefusesTheFileSystemRootAndHome) {
  const std::string home = (dir_ / "home").string();
  fs::create_directories(home);
  RunResult r = run({"cache", "clear", "--dry-run"}, {"HOME=" + home, "BOO_CACHE_DIR=" + home});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("home folder"), std::string::npos) << r.err;
  r = run({"cache", "clear", "--dry-run"}, {"BOO_CACHE_DIR=/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("file system root"), std::string::npos) << r.err;
}

TEST_F(CacheCliTest, BadUsageExitsTwoNamingTheFlag) {
  RunResult r = run_cache({"cache", "clear", "--older-than", "-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--older-than"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-1"), std::string::npos) << r.err;
  r = run_cache({"cache", "clear", "--older-than", "soon"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("soon"), std::string::npos) << r.err;
  r = run_cache({"cache"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cache({"cache", "purge"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace boo::cli
