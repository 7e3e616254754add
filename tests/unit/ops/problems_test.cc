#include <gtest/gtest.h>

#include "boo/ops/problem.h"

namespace boo::ops {
namespace {

ConvProblem small_conv() {
  ConvProblem p;
  p.n = 2;
  p.c = 4;
  p.k = 6;
  p.input = {5, 7};
  p.filter = {3, 3};
  p.padding = {1, 0};
  p.stride = {2, 1};
  p.dtype = core::DType::kF16;
  return p;
}

TEST(ConvProblem, OutputFlopsBytes) {
  const ConvProblem p = small_conv();
  ASSERT_TRUE(p.validate().is_ok());
  // H: (5 + 2 - 2 - 1) / 2 + 1 = 3; W: (7 - 3) / 1 + 1 = 5.
  EXPECT_EQ(p.output(), (std::vector<int64_t>{3, 5}));
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 2 * 6 * 3 * 5 * 4 * 9);
  EXPECT_EQ(p.min_bytes(), (2 * 4 * 5 * 7 + 6 * 4 * 9 + 2 * 6 * 3 * 5) * 2);
  EXPECT_EQ(p.key(),
            "conv2d_fp16_f32acc_fwd_n2c4h5w7_k6y3x3_s2x1p1x0d1x1_g1_nchw.nchw.nchw_nobias.none");
  EXPECT_EQ(
      p.to_command(),
      "convfp16 -n 2 -c 4 -H 5 -W 7 -k 6 -y 3 -x 3 -p 1 -q 0 -u 2 -v 1 -l 1 -j 1 -m conv -g 1 "
      "-F 1 --in_layout NCHW --out_layout NCHW --fil_layout NCHW");
}

TEST(ConvProblem, MinBytesCountOnlyTheInputPixelsSomeTapReads) {
  // A 1x1 filter at stride 2 reads one pixel in four (the public ResNet projection measured
  // "127% of the floor" when every pixel of x was counted).
  ConvProblem p;
  p.n = 2;
  p.c = 8;
  p.k = 4;
  p.input = {8, 8};
  p.filter = {1, 1};
  p.stride = {2, 2};
  p.dtype = core::DType::kBF16;
  ASSERT_TRUE(p.validate().is_ok());
  const int64_t w = 4 * 8, y = 2 * 4 * 4 * 4;
  EXPECT_EQ(p.min_bytes(), (2 * 8 * 4 * 4 + w + y) * 2);
  p.direction = ConvDirection::kBackwardWeight;  // x is read: the same pixels
  EXPECT_EQ(p.min_bytes(), (2 * 8 * 4 * 4 + w + y) * 2);
  p.direction = ConvDirection::kBackwardData;  // dx is written whole, zeros included
  EXPECT_EQ(p.min_bytes(), (2 * 8 * 8 * 8 + w + y) * 2);
  // A window that does not fit again leaves the last column unread: W 10, 3 taps, stride 2
  // reach 0..8.
  p.direction = ConvDirection::kForward;
  p.input = {1, 10};
  p.filter = {1, 3};
  ASSERT_TRUE(p.validate().is_ok());
  EXPECT_EQ(p.output(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(p.min_bytes(), (2 * 8 * 9 + 4 * 8 * 3 + 2 * 4 * 4) * 2);
  // Dilated taps with gaps between them: W 10, 2 taps 4 apart, stride 5 read 0, 4, 5 and 9.
  p.filter = {1, 2};
  p.dilation = {1, 4};
  p.stride = {1, 5};
  ASSERT_TRUE(p.validate().is_ok());
  EXPECT_EQ(p.output(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(p.min_bytes(), (2 * 8 * 4 + 4 * 8 * 2 + 2 * 4 * 2) * 2);
  // Padding: the taps past the edges read nothing, every pixel inside is read.
  p = small_conv();
  EXPECT_EQ(p.min_bytes(), (2 * 4 * 5 * 7 + 6 * 4 * 9 + 2 * 6 * 3 * 5) * 2);
}

TEST(ConvProblem, GroupsAndDilationInKeyAndFlops) {
  ConvProblem p = small_conv();
  p.groups = 2;
  p.dilation = {2, 2};
  p.padding = {2, 2};
  ASSERT_TRUE(p.validate().is_ok());
  EXPECT_EQ(p.output(), (std::vector<int64_t>{3, 7}));
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 2 * 6 * 3 * 7 * 2 * 9);  // C / G = 2 per output channel
  EXPECT_NE(p.key().find("_g2_"), std::string::npos);
  EXPECT_NE(p.key().find("d2x2"), std::string::npos);
}

TEST(ConvProblem, ValidateNamesFlags) {
  ConvProblem p = small_conv();
  p.groups = 3;
  EXPECT_NE(p.validate().message().find("-c 4 is not divisible by -g 3"), std::string::npos);
  p = small_conv();
  p.filter = {9, 3};
  EXPECT_NE(p.validate().message().find("output size"), std::string::npos);
  p = small_conv();
  p.bias = true;
  p.direction = ConvDirection::kBackwardWeight;
  EXPECT_NE(p.validate().message().find("-b/--activation"), std::string::npos);
  p = small_conv();
  p.math = core::MathMode::kTF32;
  EXPECT_FALSE(p.validate().is_ok());
}

GemmProblem tn_gemm() {
  GemmProblem g;
  g.m = 64;
  g.n = 32;
  g.k = 16;
  g.trans_a = Transpose::kT;
  g.lda = 16;
  g.ldb = 16;
  g.ldc = g.ldd = 64;
  g.a_type = g.b_type = g.c_type = g.d_type = core::DType::kBF16;
  return g;
}

TEST(GemmProblem, ValidateKeyFlopsBytes) {
  GemmProblem g = tn_gemm();
  ASSERT_TRUE(g.validate().is_ok());
  EXPECT_DOUBLE_EQ(g.flops(), 2.0 * 64 * 32 * 16);
  EXPECT_EQ(g.min_bytes(), (64 * 16 + 16 * 32 + 64 * 32) * 2);
  g.beta = 0.5;
  EXPECT_EQ(g.min_bytes(), (64 * 16 + 16 * 32 + 2 * 64 * 32) * 2);
  EXPECT_NE(g.key().find("_beta0.5_"), std::string::npos);
  g = tn_gemm();
  g.lda = 15;
  EXPECT_NE(g.validate().message().find("lda: must be >= 16 (rows of A = K with transA T)"),
            std::string::npos)
      << g.validate().message();
  g = tn_gemm();
  g.batch = 2;
  g.stride_d = 100;
  EXPECT_NE(g.validate().message().find("stride_d"), std::string::npos);
  g = tn_gemm();
  g.b_type = core::DType::kF16;
  EXPECT_EQ(g.validate().code(), core::StatusCode::kUnsupported);
}

// B as overlapping windows of one buffer (conv.gemm_1d): ldb below K only when asked, and only
// with transB N; its bytes are the buffer's span, not K x N; the key says so.
TEST(GemmProblem, OverlappingWindowsOfB) {
  GemmProblem g = tn_gemm();
  g.ldb = 8;
  EXPECT_NE(g.validate().message().find("ldb"), std::string::npos) << g.validate().message();
  g.b_windows = true;
  ASSERT_TRUE(g.validate().is_ok()) << g.validate().message();
  EXPECT_EQ(g.min_bytes(), (64 * 16 + (8 * 31 + 16) + 64 * 32) * 2);
  EXPECT_NE(g.key().find("_bwindows"), std::string::npos) << g.key();
  EXPECT_NE(g.key(), tn_gemm().key());
  g.trans_b = Transpose::kT;
  g.ldb = 32;
  EXPECT_NE(g.validate().message().find("windows of B need transB N"), std::string::npos)
      << g.validate().message();
}

TEST(GemmProblem, CallCountIsAWeightNotIdentity) {
  GemmProblem a = tn_gemm();
  GemmProblem b = tn_gemm();
  b.call_count = 64;
  EXPECT_EQ(a.key(), b.key());
  EXPECT_EQ(weight(Problem{b}), 64);
}

TEST(LayerNormProblem, RowsColsFlopsBytesValidate) {
  LayerNormProblem l;
  l.dtype = core::DType::kBF16;
  l.shape = {4, 6, 8};
  l.normalized_dim = 1;
  ASSERT_TRUE(l.validate().is_ok());
  EXPECT_EQ(l.rows(), 4);
  EXPECT_EQ(l.cols(), 48);
  // Forward: read x, write y, read weight and bias, write fp32 mean and rstd.
  EXPECT_EQ(l.min_bytes(), 2 * 192 * 2 + 2 * 48 * 2 + 2 * 4 * 4);
  l.parts = kLayerNormForward | kLayerNormDx;
  EXPECT_FALSE(l.validate().is_ok());
  l.parts = kLayerNormDweight;
  l.affine = false;
  EXPECT_NE(l.validate().message().find("-m 1"), std::string::npos);
}

TEST(Roofline, FloorIsTheSlowerCeiling) {
  const Ceilings c = Ceilings::h100_sxm_datasheet();
  GemmProblem big = tn_gemm();
  big.m = big.n = big.k = 8192;
  big.lda = big.ldb = big.ldc = big.ldd = 8192;
  // 2 * 8192^3 FLOP at 989.4 TFLOP/s = 1111.3 us; 3 * 8192^2 * 2 B at 3350 GB/s = 120.2 us.
  EXPECT_NEAR(floor_us(Problem{big}, c), 2.0 * 8192.0 * 8192 * 8192 / 989.4e12 * 1e6, 1e-6);
  LayerNormProblem l;
  l.shape = {8192, 4096};
  EXPECT_NEAR(floor_us(Problem{l}, c), static_cast<double>(l.min_bytes()) / 3350e9 * 1e6, 1e-9);
  EXPECT_EQ(peak_tflops(Problem{l}, c), c.tflops_fp32);
  ConvProblem tf32;
  tf32.math = core::MathMode::kTF32;
  EXPECT_EQ(peak_tflops(Problem{tf32}, c), c.tflops_tf32);
}

TEST(Problem, FamilyNames) {
  EXPECT_EQ(family(Problem{ConvProblem{}}), "conv");
  EXPECT_EQ(family(Problem{GemmProblem{}}), "gemm");
  EXPECT_EQ(family(Problem{LayerNormProblem{}}), "layernorm");
}

}  // namespace
}  // namespace boo::ops
