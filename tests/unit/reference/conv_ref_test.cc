// Convolution reference on tiny problems whose outputs are worked out by hand, the fused
// bias + activation epilogue against independent activation formulas, and transposed problems.
#include "boo/reference/conv_ref.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "boo/core/layout.h"
#include "boo/ops/activation.h"
#include "boo/ops/conv_problem.h"
#include "boo/reference/problem_data.h"
#include "ref_test_util.h"

namespace boo::reference {
namespace {

using core::Layout;
using ops::Activation;
using ops::ConvDirection;
using ops::ConvProblem;
using testing::ForEachIndex;

constexpr Layout kLayouts[] = {Layout::kChannelsFirst, Layout::kChannelsLast};

// A problem with `dims` spatial dims: stride 1, padding 0, dilation 1 unless changed.
ConvProblem Problem(int dims, int64_t n, int64_t c, int64_t k, std::vector<int64_t> input,
                    std::vector<int64_t> filter) {
  ConvProblem p;
  p.spatial_dims = dims;
  p.n = n;
  p.c = c;
  p.k = k;
  p.input = std::move(input);
  p.filter = std::move(filter);
  p.stride.assign(dims, 1);
  p.padding.assign(dims, 0);
  p.dilation.assign(dims, 1);
  return p;
}

// A tensor for `desc` holding `values` in logical row-major order (whatever its layout).
HostTensor Tensor(const core::TensorDesc& desc, const std::vector<double>& values) {
  HostTensor t = make_host_tensor(desc);
  EXPECT_EQ(static_cast<int64_t>(values.size()), desc.element_count());
  size_t next = 0;
  ForEachIndex(desc.dims, [&](const std::vector<int64_t>& i) { t.at(i) = values.at(next++); });
  return t;
}

// The logical values of `t` in row-major order.
std::vector<double> Values(const HostTensor& t) {
  std::vector<double> v;
  ForEachIndex(t.desc.dims, [&](const std::vector<int64_t>& i) { v.push_back(t.at(i)); });
  return v;
}

HostTensor Filled(const core::TensorDesc& desc, double value) {
  HostTensor t = make_host_tensor(desc);
  t.data.assign(t.data.size(), value);
  return t;
}

struct HandCase {
  std::string name;
  ConvProblem p;
  std::vector<double> x, w, bias, y;
};

std::vector<double> Iota(int n, double first = 1.0) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

std::vector<HandCase> HandCases() {
  std::vector<HandCase> cases;
  // x = [1 2 3; 4 5 6; 7 8 9], w = [1 2; 3 4].
  ConvProblem p = Problem(2, 1, 1, 1, {3, 3}, {2, 2});
  cases.push_back({"stride1", p, Iota(9), {1, 2, 3, 4}, {}, {37, 47, 67, 77}});
  p.stride = {2, 2};
  p.padding = {1, 1};
  cases.push_back({"stride2_pad1", p, Iota(9), {1, 2, 3, 4}, {}, {4, 18, 36, 77}});
  p.stride = {1, 1};
  p.padding = {0, 0};
  p.dilation = {2, 2};
  cases.push_back({"dilation2", p, Iota(9), {1, 2, 3, 4}, {}, {64}});
  // A 3x3 all-ones filter with padding 1: each output is the sum of its 3x3 neighbourhood.
  p = Problem(2, 1, 1, 1, {3, 3}, {3, 3});
  p.padding = {1, 1};
  cases.push_back({"pad1_box",
                   p,
                   Iota(9),
                   std::vector<double>(9, 1.0),
                   {},
                   {12, 21, 16, 27, 45, 33, 24, 39, 28}});
  // Strides differ per dim (outermost first): rows 0 and 2, every column.
  p = Problem(2, 1, 1, 1, {3, 3}, {1, 1});
  p.stride = {2, 1};
  cases.push_back({"stride2x1", p, Iota(9), {1}, {}, {1, 2, 3, 7, 8, 9}});
  // Groups 2, 1D: output 0 sees channels 0-1, output 1 channels 2-3.
  p = Problem(1, 1, 4, 2, {3}, {2});
  p.groups = 2;
  cases.push_back({"groups2", p, Iota(12), {1, 0, 0, 1, 1, 1, -1, 0}, {}, {6, 8, 5, 6}});
  // Batch 2, two input channels, pointwise filter [1, 10].
  p = Problem(1, 2, 2, 1, {2}, {1});
  cases.push_back({"batch2", p, Iota(8), {1, 10}, {}, {31, 42, 75, 86}});
  // Bias + relu, two output channels: pre-activations -11 -13 -17 -19 (+15) and 12 16 24 28 (-20).
  p = Problem(2, 1, 1, 2, {3, 3}, {2, 2});
  p.bias = true;
  p.activation = Activation::kRelu;
  cases.push_back(
      {"bias_relu", p, Iota(9), {1, -2, 3, -4, 1, 1, 1, 1}, {15, -20}, {4, 2, 0, 0, 0, 0, 4, 8}});
  // 3D, 1x1x1 filter of weight 2 and stride 2 on 3x3x3 values 0..26: picks d, h, w in {0, 2}.
  p = Problem(3, 1, 1, 1, {3, 3, 3}, {1, 1, 1});
  p.stride = {2, 2, 2};
  cases.push_back({"conv3d_stride2", p, Iota(27, 0.0), {2}, {}, {0, 4, 12, 16, 36, 40, 48, 52}});
  return cases;
}

TEST(ConvRefTest, HandComputedForwardInEveryLayout) {
  for (const HandCase& hc : HandCases()) {
    for (Layout in : kLayouts) {
      for (Layout fil : kLayouts) {
        for (Layout out : kLayouts) {
          ConvProblem p = hc.p;
          p.in_layout = in;
          p.fil_layout = fil;
          p.out_layout = out;
          ASSERT_TRUE(p.validate().is_ok()) << hc.name << ": " << p.validate().to_string();
          const HostTensor x = Tensor(p.x_desc(), hc.x);
          const HostTensor w = Tensor(p.w_desc(), hc.w);
          HostTensor bias = make_vector(p.dtype, p.k);
          if (p.bias) bias.data = hc.bias;
          HostTensor y = Filled(p.y_desc(), NAN);
          ASSERT_TRUE(conv_forward(p, x, w, p.bias ? &bias : nullptr, y).is_ok()) << hc.name;
          EXPECT_EQ(Values(y), hc.y) << hc.name << " " << p.key();
        }
      }
    }
  }
}

TEST(ConvRefTest, HandComputedBackward1d) {
  // x = [1 2 3], w = [1 2], dy = [1 10].
  struct Case {
    int64_t stride, pad;
    std::vector<double> dx, dw;
  };
  // Stride 1: y0 = x0 + 2 x1, y1 = x1 + 2 x2. Stride 2, pad 1: y0 = 2 x0, y1 = x1 + 2 x2.
  for (const Case& c : {Case{1, 0, {1, 12, 20}, {21, 32}}, Case{2, 1, {2, 10, 20}, {20, 31}}}) {
    for (Layout layout : kLayouts) {
      ConvProblem p = Problem(1, 1, 1, 1, {3}, {2});
      p.stride = {c.stride};
      p.padding = {c.pad};
      p.in_layout = p.fil_layout = p.out_layout = layout;
      ASSERT_TRUE(p.validate().is_ok());
      const HostTensor x = Tensor(p.x_desc(), {1, 2, 3});
      const HostTensor w = Tensor(p.w_desc(), {1, 2});
      const HostTensor dy = Tensor(p.y_desc(), {1, 10});
      HostTensor dx = Filled(p.x_desc(), NAN);
      HostTensor dw = Filled(p.w_desc(), NAN);
      ASSERT_TRUE(conv_backward_data(p, dy, w, dx).is_ok());
      ASSERT_TRUE(conv_backward_weight(p, x, dy, dw).is_ok());
      EXPECT_EQ(Values(dx), c.dx) << "stride " << c.stride;
      EXPECT_EQ(Values(dw), c.dw) << "stride " << c.stride;
    }
  }
}

TEST(ConvRefTest, HandComputedBackwardGroups) {
  // The groups2 forward case: y0 = x0[o] + x1[o+1], y1 = x2[o] + x2[o+1] - x3[o].
  ConvProblem p = Problem(1, 1, 4, 2, {3}, {2});
  p.groups = 2;
  ASSERT_TRUE(p.validate().is_ok());
  const HostTensor x = Tensor(p.x_desc(), Iota(12));
  const HostTensor w = Tensor(p.w_desc(), {1, 0, 0, 1, 1, 1, -1, 0});
  const HostTensor dy = Tensor(p.y_desc(), {1, 2, 3, 5});
  HostTensor dx = Filled(p.x_desc(), NAN);
  HostTensor dw = Filled(p.w_desc(), NAN);
  ASSERT_TRUE(conv_backward_data(p, dy, w, dx).is_ok());
  ASSERT_TRUE(conv_backward_weight(p, x, dy, dw).is_ok());
  // dx0 = [1 2 0], dx1 = [0 1 2], dx2 = [3, 3 + 5, 5], dx3 = [-3, -5, 0].
  EXPECT_EQ(Values(dx), (std::vector<double>{1, 2, 0, 0, 1, 2, 3, 8, 5, -3, -5, 0}));
  // dw[k][cc][r] = sum_o x[group(k) + cc][o + r] dy[k][o]: x0 = 1 2 3, x1 = 4 5 6, x2 = 7 8 9,
  // x3 = 10 11 12; dy0 = 1 2, dy1 = 3 5.
  EXPECT_EQ(Values(dw), (std::vector<double>{5, 8, 14, 17, 61, 69, 85, 93}));
}

// Independent activation formulas (see the activation tests for their values).
double Act(Activation a, double x) {
  constexpr double kPi = 3.14159265358979323846;
  switch (a) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0 ? x : 0;
    case Activation::kGelu:
      return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Activation::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
    case Activation::kSilu:
      return x / (1 + std::exp(-x));
    case Activation::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kRelu6:
      return std::min(std::max(x, 0.0), 6.0);
  }
  return NAN;
}

TEST(ConvRefTest, BiasAndEveryActivation) {
  ConvProblem base = Problem(2, 2, 3, 4, {5, 4}, {3, 3});
  base.padding = {1, 1};
  base.out_layout = Layout::kChannelsLast;
  ASSERT_TRUE(base.validate().is_ok());
  HostTensor x = make_host_tensor(base.x_desc());
  HostTensor w = make_host_tensor(base.w_desc());
  HostTensor bias = make_vector(base.dtype, base.k);
  fill_uniform(x, 11, -2.0, 2.0);
  fill_uniform(w, 12, -2.0, 2.0);
  fill_uniform(bias, 13);
  HostTensor plain = Filled(base.y_desc(), NAN);
  ASSERT_TRUE(conv_forward(base, x, w, nullptr, plain).is_ok());
  // The data reaches both relu6 bends.
  double lo = 0, hi = 0;
  for (double v : plain.data) lo = std::min(lo, v), hi = std::max(hi, v);
  ASSERT_LT(lo, -1.0);
  ASSERT_GT(hi, 7.0);
  for (Activation a : ops::kAllActivations) {
    ConvProblem p = base;
    p.bias = true;
    p.activation = a;
    ASSERT_TRUE(p.validate().is_ok());
    HostTensor y = Filled(p.y_desc(), NAN);
    ASSERT_TRUE(conv_forward(p, x, w, &bias, y).is_ok());
    ForEachIndex(y.desc.dims, [&](const std::vector<int64_t>& i) {
      const double want = Act(a, plain.at(i) + bias.data[i[1]]);
      EXPECT_NEAR(y.at(i), want, 1e-13 * (1 + std::fabs(want))) << ops::activation_name(a);
    });
  }
}

TEST(ConvRefTest, ActivationWithoutBias) {
  ConvProblem p = Problem(1, 1, 2, 2, {4}, {2});
  p.activation = Activation::kRelu;
  ASSERT_TRUE(p.validate().is_ok());
  const HostTensor x = Tensor(p.x_desc(), {1, -1, 2, 0, 0, 1, 0, -3});
  const HostTensor w = Tensor(p.w_desc(), {1, 0, 0, 1, -1, 0, 0, -1});
  HostTensor y = Filled(p.y_desc(), NAN);
  ASSERT_TRUE(conv_forward(p, x, w, nullptr, y).is_ok());
  // Channel 0: x0[o] + x1[o + 1] = 2, -1, -1; channel 1 is its negation.
  EXPECT_EQ(Values(y), (std::vector<double>{2, 0, 0, 0, 1, 1}));
}

TEST(ConvRefTest, TransposedIsTheMirroredBackwardData) {
  ConvProblem plain = Problem(2, 2, 4, 6, {5, 6}, {3, 2});
  plain.groups = 2;
  plain.stride = {2, 2};
  plain.padding = {1, 1};
  plain.direction = ConvDirection::kBackwardData;
  plain.in_layout = Layout::kChannelsLast;
  ConvProblem trans = plain;
  trans.transposed = true;
  ASSERT_TRUE(plain.validate().is_ok());
  ASSERT_TRUE(trans.validate().is_ok());
  HostTensor dy = make_host_tensor(plain.y_desc());
  HostTensor w = make_host_tensor(plain.w_desc());
  fill_uniform(dy, 5);
  fill_uniform(w, 6);
  HostTensor a = Filled(plain.x_desc(), NAN);
  HostTensor b = Filled(trans.x_desc(), NAN);
  ASSERT_TRUE(conv_backward_data(plain, dy, w, a).is_ok());
  ASSERT_TRUE(conv_backward_data(trans, dy, w, b).is_ok());
  EXPECT_EQ(a.data, b.data);
  for (double v : b.data) ASSERT_TRUE(std::isfinite(v));

  // Through the problem-data path: same seed, same inputs, same outputs.
  auto da = make_inputs(ops::Problem(plain), 42);
  auto db = make_inputs(ops::Problem(trans), 42);
  ASSERT_TRUE(da.has_value());
  ASSERT_TRUE(db.has_value());
  ASSERT_TRUE(run_reference(ops::Problem(plain), *da).is_ok());
  ASSERT_TRUE(run_reference(ops::Problem(trans), *db).is_ok());
  ASSERT_NE(da->output("dx"), nullptr);
  ASSERT_NE(db->output("dx"), nullptr);
  EXPECT_EQ(da->output("dx")->data, db->output("dx")->data);
}

TEST(ConvRefTest, RejectsMismatchedTensors) {
  ConvProblem p = Problem(2, 1, 2, 2, {4, 4}, {3, 3});
  ASSERT_TRUE(p.validate().is_ok());
  HostTensor x = make_host_tensor(p.x_desc());
  HostTensor w = make_host_tensor(p.w_desc());
  HostTensor y = make_host_tensor(p.y_desc());
  HostTensor wrong = make_host_tensor(p.y_desc());
  EXPECT_FALSE(conv_forward(p, wrong, w, nullptr, y).is_ok());
  EXPECT_FALSE(conv_backward_data(p, y, x, x).is_ok());
  p.bias = true;
  EXPECT_FALSE(conv_forward(p, x, w, nullptr, y).is_ok());
}

}  // namespace
}  // namespace boo::reference
