// The host side of the convolution numerics (tune/conv_operands.h): the §8 tolerance per dtype
// and math, the gate's verdicts (shared with GEMMs through judge_numerics), which tensor each
// direction computes, and the logical order of output copies. The GPU side runs on the device
// (`boo driver --verify`).
#include "boo/tune/conv_operands.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "boo/core/layout.h"
#include "boo/ops/gemm_problem.h"
#include "boo/reference/conv_ref.h"
#include "boo/reference/host_tensor.h"
#include "boo/tune/gemm_operands.h"

namespace boo::tune {
namespace {

using core::DType;
using core::Layout;
using core::MathMode;
using ops::ConvDirection;
using ops::ConvProblem;
using reference::ErrorStats;

ErrorStats Err(double rel, int64_t nonfinite = 0) {
  ErrorStats e;
  e.rel_fro = rel;
  e.nonfinite = nonfinite;
  e.count = 100;
  return e;
}

ConvProblem Conv(DType t, MathMode m = MathMode::kF32) {
  ConvProblem p;
  p.n = 2;
  p.c = 4;
  p.k = 6;
  p.groups = 2;
  p.input = {5, 7};
  p.filter = {3, 2};
  p.stride = {2, 1};
  p.padding = {1, 0};
  p.dilation = {1, 2};
  p.dtype = t;
  p.math = m;
  return p;
}

TEST(ConvTolerance, PerDtypeAndMath) {
  EXPECT_DOUBLE_EQ(conv_tolerance(Conv(DType::kBF16)), 1e-2);
  EXPECT_DOUBLE_EQ(conv_tolerance(Conv(DType::kF16)), 5e-3);
  EXPECT_DOUBLE_EQ(conv_tolerance(Conv(DType::kF32, MathMode::kTF32)), 1e-3);
  EXPECT_DOUBLE_EQ(conv_tolerance(Conv(DType::kF32, MathMode::kF32)), 1e-5);
  // The tolerance depends on precision only, not on the direction or layout.
  ConvProblem p = Conv(DType::kF16);
  p.direction = ConvDirection::kBackwardWeight;
  p.in_layout = Layout::kChannelsLast;
  EXPECT_DOUBLE_EQ(conv_tolerance(p), 5e-3);
}

TEST(JudgeConv, PassesWithinTolerance) {
  const ConvNumerics n = judge_conv(Conv(DType::kBF16), Err(3e-3), std::nullopt, "cpu fp64");
  EXPECT_TRUE(n.passed);
  EXPECT_DOUBLE_EQ(n.tolerance, 1e-2);
  EXPECT_EQ(n.reference, "cpu fp64");
  EXPECT_DOUBLE_EQ(n.boo.rel_fro, 3e-3);
  EXPECT_FALSE(n.vendor.has_value());
  EXPECT_EQ(n.verdict, "error 0.003 within 0.01");
}

TEST(JudgeConv, FailsAboveTolerance) {
  const ConvNumerics n =
      judge_conv(Conv(DType::kF32, MathMode::kF32), Err(2e-5), std::nullopt, "gpu fp64-acc");
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.verdict, "error 2e-05 above the tolerance 1e-05");
  // The same error passes under tf32 math.
  EXPECT_TRUE(judge_conv(Conv(DType::kF32, MathMode::kTF32), Err(2e-5), std::nullopt, "r").passed);
  // Exactly at the tolerance passes.
  EXPECT_TRUE(judge_conv(Conv(DType::kF16), Err(5e-3), std::nullopt, "r").passed);
}

TEST(JudgeConv, FailsOnNonFiniteOutputs) {
  // Unwritten (NaN-poisoned) or overflowing outputs fail whatever the error of the others.
  const ConvNumerics n = judge_conv(Conv(DType::kBF16), Err(INFINITY, 7), Err(1e-3), "cpu fp64");
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.verdict, "7 NaN/Inf or unwritten outputs");
  EXPECT_FALSE(judge_conv(Conv(DType::kBF16), Err(0.0, 1), std::nullopt, "r").passed);
  // A NaN error (never below any tolerance) fails too.
  EXPECT_FALSE(judge_conv(Conv(DType::kBF16), Err(std::numeric_limits<double>::quiet_NaN()),
                          std::nullopt, "r")
                   .passed);
}

TEST(JudgeConv, VendorRatio) {
  const ConvProblem p = Conv(DType::kBF16);
  // Within tolerance but more than twice the vendor's error: fails.
  ConvNumerics n = judge_conv(p, Err(5e-3), Err(2e-3), "cpu fp64");
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.verdict, "error 0.005 above twice the vendor's 0.002");
  ASSERT_TRUE(n.vendor.has_value());
  EXPECT_DOUBLE_EQ(n.vendor->rel_fro, 2e-3);
  // Up to twice the vendor's error passes.
  n = judge_conv(p, Err(4e-3), Err(2e-3), "cpu fp64");
  EXPECT_TRUE(n.passed);
  EXPECT_EQ(n.verdict, "error 0.004 within 0.01 and twice the vendor's");
  // Better than the vendor passes.
  EXPECT_TRUE(judge_conv(p, Err(1e-3), Err(2e-3), "r").passed);
  // A vendor with NaN/Inf outputs sets no bar.
  EXPECT_TRUE(judge_conv(p, Err(5e-3), Err(INFINITY, 3), "r").passed);
  // Errors at rounding-noise level (<= 1e-6) never fail on the ratio, even against an exact
  // vendor.
  EXPECT_TRUE(judge_conv(Conv(DType::kF32), Err(8e-7), Err(0.0), "r").passed);
  EXPECT_FALSE(judge_conv(Conv(DType::kF32), Err(3e-6), Err(1e-6), "r").passed);
  // The tolerance is checked first: above it, the verdict names the tolerance.
  n = judge_conv(p, Err(2e-2), Err(1.5e-2), "r");
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.verdict, "error 0.02 above the tolerance 0.01");
}

TEST(JudgeConv, SameGateAsGemm) {
  // Equal tolerances give equal verdicts: the two ops share one gate.
  ops::GemmProblem g;
  g.a_type = g.b_type = g.c_type = g.d_type = DType::kBF16;
  const ConvProblem p = Conv(DType::kBF16);
  ASSERT_DOUBLE_EQ(gemm_tolerance(g), conv_tolerance(p));
  for (const auto& [boo, vendor] : {std::pair{Err(3e-3), std::optional<ErrorStats>{}},
                                    std::pair{Err(5e-3), std::optional{Err(2e-3)}},
                                    std::pair{Err(2e-2), std::optional<ErrorStats>{}},
                                    std::pair{Err(INFINITY, 2), std::optional<ErrorStats>{}}}) {
    const Numerics a = judge_gemm(g, boo, vendor, "r");
    const Numerics b = judge_conv(p, boo, vendor, "r");
    EXPECT_EQ(a.passed, b.passed);
    EXPECT_EQ(a.verdict, b.verdict);
  }
  EXPECT_EQ(judge_numerics(0.5, Err(0.25), std::nullopt, "x").verdict, "error 0.25 within 0.5");
}

TEST(ConvOutputDesc, IsTheTensorTheDirectionComputes) {
  ConvProblem p = Conv(DType::kF16);
  p.in_layout = Layout::kChannelsLast;
  p.fil_layout = Layout::kChannelsFirst;
  p.out_layout = Layout::kChannelsLast;
  p.direction = ConvDirection::kForward;
  EXPECT_EQ(conv_output_desc(p), p.y_desc());
  EXPECT_EQ(conv_output_desc(p).dims, (std::vector<int64_t>{2, 6, 3, 5}));
  p.direction = ConvDirection::kBackwardData;
  EXPECT_EQ(conv_output_desc(p), p.x_desc());
  EXPECT_EQ(conv_output_desc(p).dims, (std::vector<int64_t>{2, 4, 5, 7}));
  p.direction = ConvDirection::kBackwardWeight;
  EXPECT_EQ(conv_output_desc(p), p.w_desc());
  EXPECT_EQ(conv_output_desc(p).dims, (std::vector<int64_t>{6, 2, 3, 2}));
}

TEST(LogicalValues, ReadsThroughStridesInRowMajorOrder) {
  // Channels-last [N=2, C=3, H=2, W=2]: element (n, c, h, w) sits at offset ((n*2 + h)*2 + w)*3
  // + c. Storing each offset as the value shows the order logical_values visits.
  const int64_t spatial[] = {2, 2};
  reference::HostTensor t = reference::make_host_tensor(
      core::make_nc_spatial_tensor(DType::kF32, 2, 3, spatial, Layout::kChannelsLast));
  ASSERT_EQ(t.data.size(), 24u);
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<double>(i);
  std::vector<double> want;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 2; ++w)
          want.push_back(static_cast<double>(((n * 2 + h) * 2 + w) * 3 + c));
  EXPECT_EQ(logical_values(t), want);

  // Packed strides: the data itself.
  t.desc.strides = core::packed_strides(t.desc.dims);
  EXPECT_EQ(logical_values(t), t.data);

  // A buffer shorter than the descriptor's span gives nothing rather than reading past it.
  t.data.resize(10);
  EXPECT_TRUE(logical_values(t).empty());
}

TEST(LogicalValues, StridedOutputMatchesPackedOutput) {
  // ConvReference's CPU path writes the reference through packed strides; reading a
  // channels-last result in logical order must give the same values, in every direction.
  for (ConvDirection d :
       {ConvDirection::kForward, ConvDirection::kBackwardData, ConvDirection::kBackwardWeight}) {
    ConvProblem p = Conv(DType::kF32);
    p.spatial_dims = 3;
    p.input = {3, 5, 4};
    p.filter = {2, 3, 1};
    p.stride = {1, 2, 1};
    p.padding = {0, 1, 1};
    p.dilation = {1, 1, 2};
    p.direction = d;
    p.in_layout = p.fil_layout = p.out_layout = Layout::kChannelsLast;
    if (d == ConvDirection::kForward) p.bias = true;
    ASSERT_TRUE(p.validate().is_ok()) << p.validate().to_string();
    reference::HostTensor x = reference::make_host_tensor(p.x_desc());
    reference::HostTensor w = reference::make_host_tensor(p.w_desc());
    reference::HostTensor y = reference::make_host_tensor(p.y_desc());
    reference::HostTensor bias = reference::make_vector(p.dtype, p.k);
    reference::fill_uniform(x, 1);
    reference::fill_uniform(w, 2);
    reference::fill_uniform(y, 3);
    reference::fill_uniform(bias, 4);
    const core::TensorDesc out_desc = conv_output_desc(p);
    reference::HostTensor strided = reference::make_host_tensor(out_desc);
    reference::HostTensor packed = reference::make_host_tensor(
        {out_desc.dtype, out_desc.dims, core::packed_strides(out_desc.dims)});
    for (reference::HostTensor* out : {&strided, &packed}) {
      core::Status st;
      switch (d) {
        case ConvDirection::kForward:
          st = reference::conv_forward(p, x, w, &bias, *out);
          break;
        case ConvDirection::kBackwardData:
          st = reference::conv_backward_data(p, y, w, *out);
          break;
        case ConvDirection::kBackwardWeight:
          st = reference::conv_backward_weight(p, x, y, *out);
          break;
      }
      ASSERT_TRUE(st.is_ok()) << st.to_string();
    }
    EXPECT_NE(strided.data, packed.data) << "channels-last must differ from packed order here";
    EXPECT_EQ(logical_values(strided), packed.data);
  }
}

TEST(ConvOperands, InvalidProblemsFailBeforeTouchingTheGpu) {
  ConvProblem p = Conv(DType::kBF16);
  p.c = 5;  // not divisible by the groups
  auto o = ConvOperands::create(p, 1, nullptr);
  ASSERT_FALSE(o.has_value());
  EXPECT_EQ(o.status().code(), core::StatusCode::kInvalidArgument);
  auto d = download_conv_output(p, nullptr);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.status().code(), core::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace boo::tune
