// gemm.sm90_unaligned through the real JIT (nvcc and CUTLASS, no GPU): the compiled object's
// host side plans the padded copies (kernels/gemm_padded.cuh) from the leading dimensions and
// the pointers, and sizes its workspace from them. About a minute of nvcc; skipped where the
// toolkit or CUTLASS is missing.
#include <gtest/gtest.h>

#include <filesystem>

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

TEST(PaddedKernel, PlansCopiesOfTheOperandsTmaCannotAddress) {
  auto compiler = CompilerOptions::from_environment();
  if (!compiler) GTEST_SKIP() << compiler.status().message();
  const std::string root = boo::testing::make_temp_dir("padded_kernel");
  CacheOptions o;
  o.root = root;
  KernelCache cache(o, *compiler);
  space::GemmSm90Config c;
  c.cls = space::sample_gemm_classes().front();
  c.cls.trans_a = ops::Transpose::kT;  // bf16 TN, no C, no bias
  c.tile_m = 128;
  c.tile_n = 64;
  c.schedule = space::GemmSchedule::kPingpong;
  c.unaligned = true;
  auto src = codegen::gemm_sm90_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  auto kernel = cache.get(*src);
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
  auto c_src = codegen::gemm_sm90_source(with_c);
  ASSERT_TRUE(c_src.has_value()) << c_src.status().message();
  auto c_kernel = cache.get(*c_src);
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
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace boo::jit
