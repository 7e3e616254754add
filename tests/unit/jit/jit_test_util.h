// Helpers for tests of the JIT without a GPU or nvcc: a temporary cache root and the fake
// compiler (tests/unit/jit/fake_nvcc.sh) that builds stub kernel objects with the host compiler.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include <memory>

#include "boo/jit/kernel_cache.h"

namespace boo::testing {

inline std::string make_temp_dir(const std::string& tag) {
  std::string templ =
      (std::filesystem::temp_directory_path() / ("boo_" + tag + "_XXXXXX")).string();
  return mkdtemp(templ.data());
}

inline jit::CompilerOptions fake_compiler() {
  jit::CompilerOptions c;
  c.nvcc = BOO_FAKE_NVCC;
  c.compiler_version = "fake 1.0";
  c.cutlass_version = "none";
  return c;
}

inline int count_lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

inline codegen::KernelSource fake_source(const std::string& name, const std::string& extra = "") {
  return {name, "// name: " + name + "\n" + extra + "\n"};
}

// A test in a fresh temporary folder root_ whose fake compiler appends one line per compile to
// log_ (and neither fails nor sleeps unless the test asks).
class FakeCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = make_temp_dir("fake_nvcc");
    log_ = root_ + "/compiles.log";
    setenv("BOO_FAKE_NVCC_LOG", log_.c_str(), 1);
    unsetenv("BOO_FAKE_NVCC_SLEEP");
    unsetenv("BOO_FAKE_NVCC_FAIL");
  }
  void TearDown() override {
    unsetenv("BOO_FAKE_NVCC_LOG");
    unsetenv("BOO_FAKE_NVCC_FAIL");
    std::filesystem::remove_all(root_);
  }
  std::string root_;
  std::string log_;
};

// The same with a kernel cache in root_/cache (the dispatch tests).
class FakeCacheTest : public FakeCompilerTest {
 protected:
  void SetUp() override {
    FakeCompilerTest::SetUp();
    jit::CacheOptions o;
    o.root = root_ + "/cache";
    cache_ = std::make_unique<jit::KernelCache>(o, fake_compiler());
  }
  std::unique_ptr<jit::KernelCache> cache_;
};

// A test through the real JIT (nvcc from the environment, no GPU): a kernel cache in a fresh
// temporary folder root_; skipped where the toolkit is missing (CompilerOptions says why), as the
// README's test machines have it and CI's does.
class RealCompilerTest : public ::testing::Test {
 protected:
  explicit RealCompilerTest(std::string tag) : tag_(std::move(tag)) {}
  void SetUp() override {
    auto compiler = jit::CompilerOptions::from_environment();
    if (!compiler) GTEST_SKIP() << compiler.status().message();
    root_ = make_temp_dir(tag_);
    jit::CacheOptions o;
    o.root = root_;
    cache_ = std::make_unique<jit::KernelCache>(o, *compiler);
  }
  void TearDown() override {
    if (!root_.empty()) std::filesystem::remove_all(root_);
  }
  // A generated kernel (null, with the failure reported, when it fails).
  std::shared_ptr<const jit::LoadedKernel> compile(
      const core::Expected<codegen::KernelSource>& src) {
    EXPECT_TRUE(src.has_value()) << src.status().message();
    if (!src.has_value()) return nullptr;
    auto kernel = cache_->get(*src);
    EXPECT_TRUE(kernel.has_value()) << kernel.status().message();
    return kernel.has_value() ? *kernel : nullptr;
  }

  std::string tag_;
  std::string root_;
  std::unique_ptr<jit::KernelCache> cache_;
};

}  // namespace boo::testing
