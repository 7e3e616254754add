#include "boo/jit/kernel_cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "jit_test_util.h"

namespace boo::jit {
namespace {

namespace fs = std::filesystem;
using boo::testing::count_lines;
using boo::testing::fake_compiler;
using boo::testing::fake_source;

class KernelCacheTest : public boo::testing::FakeCompilerTest {
 protected:
  KernelCache make_cache(bool allow_compile = true) {
    CacheOptions o;
    o.root = root_ + "/cache";
    o.allow_compile = allow_compile;
    return KernelCache(o, fake_compiler());
  }
  int compiles() const { return count_lines(log_); }
};

TEST_F(KernelCacheTest, CompilesOnceThenMemoryThenDisk) {
  KernelCache cache = make_cache();
  const codegen::KernelSource src = fake_source("gemm.test_a");
  CacheOutcome how{};
  ::testing::internal::CaptureStderr();
  auto k = cache.get(src, &how);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(k.has_value()) << k.status().to_string();
  EXPECT_EQ(how, CacheOutcome::kCompiled);
  EXPECT_EQ((*k)->name, "gemm.test_a");
  EXPECT_NE(err.find("compiled gemm.test_a in "), std::string::npos) << err;  // one log line
  EXPECT_EQ(compiles(), 1);
  ASSERT_TRUE(cache.get(src, &how).has_value());
  EXPECT_EQ(how, CacheOutcome::kMemory);
  KernelCache other = make_cache();  // another process: the object is on disk
  ASSERT_TRUE(other.get(src, &how).has_value());
  EXPECT_EQ(how, CacheOutcome::kDisk);
  EXPECT_EQ(compiles(), 1);
  // Every artefact sits beside the object.
  const EntryPaths p = cache.paths(src);
  for (const std::string& f : {p.object(), p.source(), p.command(), p.log(), p.metadata()}) {
    EXPECT_TRUE(fs::exists(f)) << f;
  }
  EXPECT_NE(p.dir.find("/sm_90a/gemm.test_a"), std::string::npos) << p.dir;
}

TEST_F(KernelCacheTest, AKernelThatSpillsIsNamedOnceWhenCompiled) {
  KernelCache cache = make_cache();
  const codegen::KernelSource src = fake_source("gemm.test_spills", "// SPILL_REGISTERS");
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.ensure_compiled(src).has_value());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("gemm.test_spills spills registers to local memory (ptxas: 824 bytes of "
                     "spill stores, 600 of spill loads, in 1 function; log: "),
            std::string::npos)
      << err;
  std::ifstream meta(cache.paths(src).metadata());
  std::string json((std::istreambuf_iterator<char>(meta)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"spill_store_bytes\": 824"), std::string::npos) << json;
  // Found on disk later: no second warning.
  KernelCache other = make_cache();
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(other.ensure_compiled(src).has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("spills"), std::string::npos);
  // A kernel that does not spill says nothing of spills, and records none.
  const codegen::KernelSource clean = fake_source("gemm.test_clean");
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.ensure_compiled(clean).has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("spills"), std::string::npos);
  std::ifstream clean_meta(cache.paths(clean).metadata());
  std::string clean_json((std::istreambuf_iterator<char>(clean_meta)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(clean_json.find("\"spill_store_bytes\": 0"), std::string::npos) << clean_json;
}

TEST_F(KernelCacheTest, AKernelWhoseMmasPtxasWaitsForIsNamedOnceWhenCompiled) {
  KernelCache cache = make_cache();
  const codegen::KernelSource src = fake_source("gemm.test_waits", "// MMA_WAIT");
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.ensure_compiled(src).has_value());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("gemm.test_waits waits for its warpgroup MMAs where ptxas made it (1 place "
                     "in the compile log; log: "),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("spills"), std::string::npos) << err;
  KernelCache other = make_cache();  // found on disk later: no second warning
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(other.ensure_compiled(src).has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("warpgroup"), std::string::npos);
  const codegen::KernelSource clean = fake_source("gemm.test_no_waits");
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.ensure_compiled(clean).has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("warpgroup"), std::string::npos);
}

TEST_F(KernelCacheTest, EntryPointsAreCallable) {
  KernelCache cache = make_cache();
  auto k = cache.get(fake_source("gemm.test_calls"));
  ASSERT_TRUE(k.has_value());
  char why[64] = {0};
  EXPECT_EQ((*k)->supports(nullptr, why, sizeof(why)), BOO_OK);
  EXPECT_EQ((*k)->workspace(nullptr), 0);
  EXPECT_EQ((*k)->run(nullptr, nullptr, 0, nullptr, why, sizeof(why)), BOO_OK);
}

TEST_F(KernelCacheTest, HashCoversSourceAndToolchain) {
  KernelCache cache = make_cache();
  const auto a = cache.paths(fake_source("gemm.x", "one"));
  const auto b = cache.paths(fake_source("gemm.x", "two"));
  EXPECT_EQ(a.dir, b.dir);
  EXPECT_NE(a.stem, b.stem);
  CompilerOptions other = fake_compiler();
  other.flags.push_back("-O0");
  CacheOptions o;
  o.root = root_ + "/cache";
  KernelCache c2(o, other);
  EXPECT_NE(c2.paths(fake_source("gemm.x", "one")).stem, a.stem);
}

TEST_F(KernelCacheTest, CorruptObjectIsDeletedAndRebuilt) {
  const codegen::KernelSource src = fake_source("gemm.test_corrupt");
  // Build it without loading it into this process (dlopen would then return the loaded copy).
  KernelCache cache = make_cache();
  ASSERT_TRUE(cache.ensure_compiled(src).has_value());
  const std::string object = cache.paths(src).object();
  {
    // Replaced by a new file (a new inode), as a crashed writer or a bad disk would leave it;
    // writing into the loaded object in place would pull the pages from under this process.
    std::ofstream out(object + ".planted", std::ios::binary);
    out << "\x7f"
           "ELF truncated";
  }
  fs::rename(object + ".planted", object);
  ::testing::internal::CaptureStderr();
  auto k = cache.get(src);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(k.has_value()) << k.status().to_string();
  EXPECT_EQ(compiles(), 2);
  EXPECT_NE(err.find("unusable"), std::string::npos) << err;
}

TEST_F(KernelCacheTest, ObjectWithAnotherNameIsRebuilt) {
  KernelCache cache = make_cache();
  const codegen::KernelSource src = fake_source("gemm.test_name");
  const auto p = cache.paths(src);
  fs::create_directories(p.dir);
  // A valid object that answers with another kernel's name (a stale or foreign file).
  KernelCache scratch = make_cache();
  auto other = scratch.get(fake_source("gemm.someone_else"));
  ASSERT_TRUE(other.has_value());
  fs::copy_file((*other)->path, p.object());
  ::testing::internal::CaptureStderr();
  auto k = cache.get(src);
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(k.has_value()) << k.status().to_string();
  EXPECT_EQ((*k)->name, "gemm.test_name");
}

TEST_F(KernelCacheTest, FailedCompileIsRememberedWithItsLog) {
  KernelCache cache = make_cache();
  const codegen::KernelSource src = fake_source("gemm.test_fail", "FAIL_COMPILE");
  ::testing::internal::CaptureStderr();
  auto k = cache.get(src);
  ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(k.has_value());
  EXPECT_NE(k.status().message().find("planted compile failure"), std::string::npos)
      << k.status().message();
  EXPECT_NE(k.status().message().find(".log"), std::string::npos);
  EXPECT_TRUE(fs::exists(cache.paths(src).failed()));
  EXPECT_EQ(compiles(), 1);
  KernelCache again = make_cache();
  auto k2 = again.get(src);
  ASSERT_FALSE(k2.has_value());
  EXPECT_NE(k2.status().message().find("failed before"), std::string::npos);
  EXPECT_EQ(compiles(), 1);  // not retried
}

TEST_F(KernelCacheTest, JitOffUsesOnlyTheCache) {
  KernelCache off = make_cache(/*allow_compile=*/false);
  auto k = off.get(fake_source("gemm.test_nojit"));
  ASSERT_FALSE(k.has_value());
  EXPECT_NE(k.status().message().find("BOO_JIT=0"), std::string::npos);
  EXPECT_EQ(compiles(), 0);
  KernelCache on = make_cache();
  ASSERT_TRUE(on.get(fake_source("gemm.test_nojit")).has_value());
  KernelCache off2 = make_cache(false);
  EXPECT_TRUE(off2.get(fake_source("gemm.test_nojit")).has_value());
}

TEST_F(KernelCacheTest, EightProcessesRacingCompileOnce) {
  setenv("BOO_FAKE_NVCC_SLEEP", "1", 1);
  const codegen::KernelSource src = fake_source("gemm.test_race");
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      KernelCache cache = make_cache();
      auto k = cache.get(src);
      _exit(k.has_value() && (*k)->name == "gemm.test_race" ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(compiles(), 1);
}

TEST(CacheOptions, EnvironmentChoosesTheRoot) {
  setenv("BOO_CACHE_DIR", "/tmp/boo_x", 1);
  EXPECT_EQ(CacheOptions::from_environment()->root, "/tmp/boo_x");
  unsetenv("BOO_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(CacheOptions::from_environment()->root, "/tmp/xdg/boo");
  unsetenv("XDG_CACHE_HOME");
  const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (!home.empty()) {
    EXPECT_EQ(CacheOptions::from_environment()->root, home + "/.cache/boo");
  }
  setenv("BOO_CACHE_ON", "0", 1);
  auto temp = CacheOptions::from_environment();
  ASSERT_TRUE(temp.has_value());
  EXPECT_FALSE(temp->persistent);
  EXPECT_TRUE(fs::is_directory(temp->root));
  setenv("BOO_CACHE_ON", "maybe", 1);
  EXPECT_FALSE(CacheOptions::from_environment().has_value());
  unsetenv("BOO_CACHE_ON");
  setenv("BOO_JIT", "0", 1);
  EXPECT_FALSE(CacheOptions::from_environment()->allow_compile);
  unsetenv("BOO_JIT");
}

TEST(CompilerOptions, CommandAndIdentity) {
  setenv("BOO_NVCC", BOO_FAKE_NVCC, 1);
  auto c = CompilerOptions::from_environment();
  unsetenv("BOO_NVCC");
  ASSERT_TRUE(c.has_value()) << c.status().to_string();  // CUTLASS found by setup.sh
  EXPECT_EQ(c->compiler_version, "CUDA 99.9");           // from the fake's --version
  const auto argv = c->command("k.cu", "k.so");
  EXPECT_EQ(argv.front(), BOO_FAKE_NVCC);
  EXPECT_EQ(argv.back(), "k.cu");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-gencode=arch=compute_90a,code=sm_90a"),
            argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-Xptxas=-warn-spills"), argv.end());
  EXPECT_NE(c->identity().find("cutlass=4.2.0"), std::string::npos) << c->identity();
  setenv("BOO_CUTLASS_DIR", "/nonexistent", 1);
  auto missing = CompilerOptions::from_environment();
  unsetenv("BOO_CUTLASS_DIR");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.status().message().find("BOO_CUTLASS_DIR"), std::string::npos);
}

// BOO_NVCC_FLAGS adds flags after boo's own, and they change the identity (the cache key).
TEST(CompilerOptions, ExtraFlagsFromTheEnvironment) {
  setenv("BOO_NVCC", BOO_FAKE_NVCC, 1);
  auto plain = CompilerOptions::from_environment();
  setenv("BOO_NVCC_FLAGS", " -DBOO_X=3  -Xptxas=-v ", 1);
  auto extra = CompilerOptions::from_environment();
  unsetenv("BOO_NVCC_FLAGS");
  unsetenv("BOO_NVCC");
  ASSERT_TRUE(plain.has_value() && extra.has_value());
  const auto argv = extra->command("k.cu", "k.so");
  const auto x = std::find(argv.begin(), argv.end(), "-DBOO_X=3");
  ASSERT_NE(x, argv.end());
  EXPECT_EQ(*(x + 1), "-Xptxas=-v");
  EXPECT_EQ(extra->flags.size(), plain->flags.size() + 2);  // the blanks make no empty flags
  EXPECT_NE(extra->identity(), plain->identity());
}

}  // namespace
}  // namespace boo::jit
