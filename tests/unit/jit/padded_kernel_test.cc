// gemm.sm90_unaligned through the real JIT (nvcc and CUTLASS, no GPU): the compiled object's
// host side plans the padded copies (kernels/gemm_padded.cuh) from the leading dimensions and
// the pointers, and sizes its workspace from them. About a minute of nvcc; skipped where the
// toolkit or CUTLASS is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "boo/codegen/gemm_codegen.h"
#include "boo/jit/kernel_cache.h"
#include "boo/space/gemm_sm90.h"
#include "jit_test_util.h"

namespace boo::jit {
namespace {

BooGemmArgs lm_head_args(char* base) {
  BooGemmArgs a{};
  a.m = 50257;  // D's leading dimension is odd
  a.n = 64;
  a.k = 256;
  a.batch = 1;
  a.trans_a = 1;
  a.lda = a.k;
  a.ldb = a.k;
  a.ldc = a.ldd = a.m;
  a.alpha = 1.0f;
  a.splits = a.swizzle = 1;
  a.sm_count = 132;
  a.a = a.b = a.d = base;
  return a;
}

int64_t round256(int64_t x) { return (x + 255) / 256 * 256; }

// A kernel cache in a fresh folder, and gemm.sm90_unaligned's bf16 TN kernel on 128x64
// pingpong tiles (no C, no bias) through it.
class PaddedKernel : public ::testing::Test {
 protected:
  // The cache, nvcc given `flag` too where it is not empty; false (and the test skipped) where
  // the toolkit or CUTLASS is missing.
  bool make_cache(const std::string& flag = "") {
    auto compiler = CompilerOptions::from_environment();
    if (!compiler) {
      skipped_ = compiler.status().message();
      return false;
    }
    if (!flag.empty()) compiler->flags.push_back(flag);
    root_ = boo::testing::make_temp_dir("padded_kernel");
    CacheOptions o;
    o.root = root_;
    cache_ = std::make_unique<KernelCache>(o, *compiler);
    return true;
  }
  static space::GemmSm90Config tn_config() {
    space::GemmSm90Config c;
    c.cls = space::sample_gemm_classes().front();
    c.cls.trans_a = ops::Transpose::kT;  // bf16 TN, no C, no bias
    c.tile_m = 128;
    c.tile_n = 64;
    c.schedule = space::GemmSchedule::kPingpong;
    c.unaligned = true;
    return c;
  }
  core::Expected<std::shared_ptr<const LoadedKernel>> compile(const space::GemmSm90Config& c) {
    auto src = codegen::gemm_sm90_source(c);
    if (!src.has_value()) return src.status();
    return cache_->get(*src);
  }
  void TearDown() override {
    if (!root_.empty()) std::filesystem::remove_all(root_);
  }
  std::string skipped_;

 private:
  std::string root_;
  std::unique_ptr<KernelCache> cache_;
};

TEST_F(PaddedKernel, PlansCopiesOfTheOperandsTmaCannotAddress) {
  if (!make_cache()) GTEST_SKIP() << skipped_;
  const space::GemmSm90Config c = tn_config();
  auto kernel = compile(c);
  ASSERT_TRUE(kernel.has_value()) << kernel.status().message();
  char* base = reinterpret_cast<char*>(uintptr_t{1} << 20);
  char why[256] = {0};

  // Only D is misaligned, and this kernel (persistent, no C, bias or activation) writes it in
  // place (space::gemm_sm90_direct_d): nothing is copied, also with D's pointer one element off.
  BooGemmArgs a = lm_head_args(base);
  ASSERT_EQ((*kernel)->supports(&a, why, sizeof(why)), BOO_OK) << why;
  EXPECT_EQ((*kernel)->workspace(&a), 0);
  a.d = base + 2;
  ASSERT_EQ((*kernel)->supports(&a, why, sizeof(why)), BOO_OK) << why;
  EXPECT_EQ((*kernel)->workspace(&a), 0);

  // A's pointer one element off: A (K x M, ld 256) is copied.
  a.a = base + 2;
  EXPECT_EQ((*kernel)->workspace(&a), round256(256LL * 50257 * 2));

  // With C (beta != 0) the kernel copies D: 50304 (50257 rounded to 64, a 128-byte line) x 64
  // bf16.
  space::GemmSm90Config with_c = c;
  with_c.cls.has_c = true;
  auto c_kernel = compile(with_c);
  ASSERT_TRUE(c_kernel.has_value()) << c_kernel.status().message();
  BooGemmArgs ac = lm_head_args(base);
  ac.c = base;
  ac.beta = 0.5f;
  ASSERT_EQ((*c_kernel)->supports(&ac, why, sizeof(why)), BOO_OK) << why;
  const int64_t d_bytes = round256(50304LL * 64 * 2);
  EXPECT_EQ((*c_kernel)->workspace(&ac), 2 * d_bytes);  // C and D

  // Everything aligned: nothing to copy; the inner kernel runs in place.
  BooGemmArgs aligned = lm_head_args(base);
  aligned.m = 50264;
  aligned.ldc = aligned.ldd = 50264;
  EXPECT_EQ((*kernel)->workspace(&aligned), 0);

  // Odd K with aligned leading dimensions runs on TMA without copies (CUTLASS's extent check
  // is relaxed to what TMA needs).
  BooGemmArgs odd_k = aligned;
  odd_k.k = 255;
  ASSERT_EQ((*kernel)->supports(&odd_k, why, sizeof(why)), BOO_OK) << why;
  EXPECT_EQ((*kernel)->workspace(&odd_k), 0);
}

// Built with BOO_GEMM_CPASYNC_BYTES=8 (a measuring macro), the inner kernel's cp.async mainloop
// reads A and B in place where their rows are whole 8-byte vectors: K = 4100 bf16 needs no copy
// of A or B, where the TMA build copies both. K = 4102 is refused (the mainloop would read past
// its vectors), not run.
TEST_F(PaddedKernel, TheCpAsyncBuildReadsEightByteRowsInPlace) {
  if (!make_cache("-DBOO_GEMM_CPASYNC_BYTES=8")) GTEST_SKIP() << skipped_;
  auto kernel = compile(tn_config());
  ASSERT_TRUE(kernel.has_value()) << kernel.status().message();
  char* base = reinterpret_cast<char*>(uintptr_t{1} << 20);
  char why[256] = {0};
  BooGemmArgs a = lm_head_args(base);
  a.m = 8192;
  a.n = 100;
  a.k = a.lda = a.ldb = 4100;  // rows of 8200 bytes: 8-byte vectors, not 16
  a.ldc = a.ldd = a.m;
  a.b = base + 8192 * 4104 * 2;
  a.d = base + 2 * 8192 * 4104 * 2;
  ASSERT_EQ((*kernel)->supports(&a, why, sizeof(why)), BOO_OK) << why;
  EXPECT_EQ((*kernel)->workspace(&a), 0);  // nothing copied
  BooGemmArgs odd = a;
  odd.k = odd.lda = odd.ldb = 4102;  // 8204-byte rows: copied, but K is not whole vectors
  EXPECT_NE((*kernel)->supports(&odd, why, sizeof(why)), BOO_OK);
  EXPECT_NE(std::string(why).find("cp.async"), std::string::npos) << why;
}

}  // namespace
}  // namespace boo::jit
