// conv.sm90_taps (kernels/conv_taps_wgmma.cuh) through the real JIT (nvcc, no GPU): the compiled
// object's host side takes what dispatch's conv_sm90_taps_supports takes and refuses the rest,
// over a battery of edges (rows cut into pieces where whole rows overflow the shared memory,
// dilated reaches, backward data's padding) and a seeded sample of random problems, since
// dispatch spells the kernel's checks again on the host (the tile plan itself both include from
// kernels/conv_taps_plan.cuh); and backward data's workspace holds the
// turned filter. Two small compiles (plain CUDA); skipped where the toolkit is missing. Numerics
// run on the GPU (tests/gpu/conv_taps.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "boo/codegen/conv_codegen.h"
#include "boo/dispatch/conv_args.h"
#include "boo/dispatch/conv_dispatcher.h"
#include "boo/jit/kernel_cache.h"
#include "jit_test_util.h"

namespace boo::jit {
namespace {

using ops::ConvDirection;

// Stand-ins for device buffers: 256-byte aligned, never dereferenced (nothing is launched).
char* const kBase = reinterpret_cast<char*>(uintptr_t{1} << 30);
dispatch::ConvPointers pointers() {
  return {kBase, kBase + (uintptr_t{1} << 28), kBase + (uintptr_t{2} << 28),
          kBase + (uintptr_t{3} << 28)};
}

// A channels-last 2D bf16 problem.
ops::ConvProblem nhwc(ConvDirection d, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                      int64_t r, int64_t s, int64_t pad_h, int64_t pad_w, int64_t dil_h = 1,
                      int64_t dil_w = 1) {
  ops::ConvProblem p;
  p.spatial_dims = 2;
  p.n = n;
  p.c = c;
  p.k = k;
  p.input = {h, w};
  p.filter = {r, s};
  p.stride = {1, 1};
  p.padding = {pad_h, pad_w};
  p.dilation = {dil_h, dil_w};
  p.direction = d;
  p.dtype = core::DType::kBF16;
  p.in_layout = p.fil_layout = p.out_layout = core::Layout::kChannelsLast;
  return p;
}

class ConvTapsKernelTest : public boo::testing::RealCompilerTest {
 protected:
  ConvTapsKernelTest() : RealCompilerTest("conv_taps_kernel") {}

  std::shared_ptr<const LoadedKernel> compile_taps(ConvDirection d) {
    space::ConvClass cls;
    cls.dtype = core::DType::kBF16;
    cls.direction = d;
    return compile(codegen::conv_sm90_taps_source(cls));
  }

  // The kernel's verdict on `p` agrees with dispatch's; returns whether it takes it.
  static bool agree(const LoadedKernel& k, const ops::ConvProblem& p, const std::string& what) {
    EXPECT_TRUE(p.validate().is_ok()) << what << ": " << p.validate().message();
    const BooConvArgs a = dispatch::make_conv_args(p, pointers(), 0, 132);
    char why[256] = {0};
    const bool kernel = k.supports(&a, why, sizeof(why)) == BOO_OK;
    const core::Status host = dispatch::conv_sm90_taps_supports(p);
    EXPECT_EQ(kernel, host.is_ok())
        << what << ": kernel says '" << why << "', dispatch says '" << host.message() << "'";
    return kernel;
  }
};

TEST_F(ConvTapsKernelTest, TheKernelAndDispatchTakeTheSameProblems) {
  const auto fwd = compile_taps(ConvDirection::kForward);
  const auto bwd = compile_taps(ConvDirection::kBackwardData);
  ASSERT_NE(fwd, nullptr);
  ASSERT_NE(bwd, nullptr);
  using D = ConvDirection;
  const D f = D::kForward, b = D::kBackwardData;
  struct Case {
    std::string what;
    ops::ConvProblem p;
    bool takes;
  };
  const Case cases[] = {
      {"public 3x3", nhwc(f, 64, 64, 56, 56, 64, 3, 3, 1, 1), true},
      {"224 wide: whole rows overflow, pieces of 112", nhwc(f, 8, 64, 224, 224, 64, 3, 3, 1, 1),
       true},
      {"700 wide: pieces", nhwc(f, 2, 64, 3, 700, 64, 3, 3, 1, 1), true},
      {"K 320", nhwc(f, 2, 64, 24, 24, 320, 3, 3, 1, 1), true},
      {"dilation 3 along W, reach 6", nhwc(f, 4, 64, 27, 31, 64, 3, 3, 2, 3, 2, 3), true},
      {"a 1x9 reaching 56 along W", nhwc(f, 2, 64, 9, 300, 64, 1, 9, 0, 28, 1, 7), true},
      {"a 1x3 reaching 120 along W", nhwc(f, 2, 64, 9, 300, 64, 1, 3, 0, 60, 1, 60), false},
      {"5x5: 25 taps", nhwc(f, 2, 64, 20, 20, 64, 5, 5, 2, 2), false},
      {"C 128", nhwc(f, 2, 128, 20, 20, 64, 3, 3, 1, 1), false},
      {"C 72", nhwc(f, 2, 72, 20, 20, 64, 3, 3, 1, 1), false},
      {"C 36: rows of 72 bytes", nhwc(f, 2, 36, 20, 20, 64, 1, 1, 0, 0), false},
      {"K 96: a half chunk", nhwc(f, 2, 64, 20, 20, 96, 3, 3, 1, 1), true},
      {"K 100", nhwc(f, 2, 64, 20, 20, 100, 3, 3, 1, 1), false},
      {"C 40 K 240 1x1: one row of every pixel", nhwc(f, 64, 40, 28, 28, 240, 1, 1, 0, 0), true},
      {"C 8 K 8 3x3", nhwc(f, 3, 8, 17, 19, 8, 3, 3, 1, 1), true},
      {"C 24 1x1 with padding: planes", nhwc(f, 3, 24, 10, 12, 144, 1, 1, 1, 1), true},
      {"backward data, public", nhwc(b, 64, 64, 56, 56, 64, 3, 3, 1, 1), true},
      {"backward data, C 192", nhwc(b, 5, 192, 19, 21, 64, 3, 3, 1, 1), true},
      {"backward data, no padding (a full convolution)", nhwc(b, 5, 64, 21, 11, 64, 3, 3, 0, 0),
       true},
      {"backward data, padding past the reach", nhwc(b, 2, 64, 20, 20, 64, 3, 3, 3, 1), false},
      {"backward data, K 128", nhwc(b, 2, 64, 20, 20, 128, 3, 3, 1, 1), false},
      {"backward data, K 40 C 24", nhwc(b, 2, 24, 20, 20, 40, 3, 3, 1, 1), true},
      {"backward data, 1x1 K 16 C 96", nhwc(b, 4, 96, 14, 14, 16, 1, 1, 0, 0), true},
      {"backward data, K 20", nhwc(b, 2, 24, 20, 20, 20, 3, 3, 1, 1), false},
  };
  for (const Case& c : cases) {
    const LoadedKernel& k = c.p.direction == f ? *fwd : *bwd;
    EXPECT_EQ(agree(k, c.p, c.what), c.takes) << c.what;
  }
  // Backward data's workspace is the turned filter (K x taps x C elements); forward needs none.
  const ops::ConvProblem turned = nhwc(b, 5, 192, 19, 21, 64, 3, 3, 1, 1);
  BooConvArgs a = dispatch::make_conv_args(turned, pointers(), 0, 132);
  EXPECT_EQ(bwd->workspace(&a), 64 * 9 * 192 * 2);
  char why[256] = {0};
  a.dry_run = 1;
  EXPECT_EQ(bwd->run(&a, nullptr, 0, nullptr, why, sizeof(why)), BOO_ERROR) << why;
  EXPECT_NE(std::string(why).find("workspace"), std::string::npos) << why;
  BooConvArgs forward = dispatch::make_conv_args(cases[0].p, pointers(), 0, 132);
  EXPECT_EQ(fwd->workspace(&forward), 0);
  forward.dry_run = 1;
  EXPECT_EQ(fwd->run(&forward, nullptr, 0, nullptr, why, sizeof(why)), BOO_OK) << why;

  // A seeded sample: widths around the 128- and 256-position edges, heights, filters up to 9
  // taps, dilations and paddings; the two verdicts must match on every one.
  std::mt19937 rng(20261127);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int taken = 0;
  for (int i = 0; i < 300; ++i) {
    const D d = pick(0, 3) == 0 ? b : f;
    const int64_t r = pick(1, 3), s = pick(1, 3);
    const int64_t dil_h = pick(1, 3), dil_w = pick(1, 3);
    const int64_t pad_h = pick(0, static_cast<int>(dil_h * (r - 1) + 1));
    const int64_t pad_w = pick(0, static_cast<int>(dil_w * (s - 1) + 1));
    const int64_t h = pick(static_cast<int>(dil_h * (r - 1) + 1), 70);
    const int64_t w = pick(static_cast<int>(dil_w * (s - 1) + 1), 300);
    const int64_t channels = 8 * pick(1, 24), reduced = 8 * pick(1, 8);
    ops::ConvProblem p =
        d == f ? nhwc(f, pick(1, 4), reduced, h, w, channels, r, s, pad_h, pad_w, dil_h, dil_w)
               : nhwc(b, pick(1, 4), channels, h, w, reduced, r, s, pad_h, pad_w, dil_h, dil_w);
    if (!p.validate().is_ok()) continue;
    taken += agree(d == f ? *fwd : *bwd, p, "sample " + std::to_string(i)) ? 1 : 0;
  }
  EXPECT_GT(taken, 150);  // most of them are the kernel's
}

}  // namespace
}  // namespace boo::jit
