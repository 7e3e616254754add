// conv.gemm_1x1: the GEMM a 1x1 convolution maps to computes what the convolution reference
// computes, on the very same buffers, in every direction, 1D/2D/3D, both layouts; the problems
// it cannot take are refused with the field that stops them.
#include "boo/dispatch/conv_gemm_1x1.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "boo/reference/conv_ref.h"
#include "boo/reference/gemm_ref.h"
#include "boo/reference/host_tensor.h"

namespace boo::dispatch {
namespace {

using core::Layout;
using ops::ConvDirection;
using ops::ConvProblem;
using reference::HostTensor;

ConvProblem one_by_one(int dims, int64_t n, int64_t c, int64_t k, std::vector<int64_t> input,
                       Layout layout, ConvDirection dir) {
  ConvProblem p;
  p.spatial_dims = dims;
  p.n = n;
  p.c = c;
  p.k = k;
  p.input = std::move(input);
  p.filter.assign(dims, 1);
  p.stride.assign(dims, 1);
  p.padding.assign(dims, 0);
  p.dilation.assign(dims, 1);
  p.in_layout = p.fil_layout = p.out_layout = layout;
  p.direction = dir;
  p.dtype = core::DType::kF32;
  return p;
}

// The tensor's buffer as a 1-D tensor (what the GEMM reference addresses).
HostTensor flat(const HostTensor& t) {
  HostTensor v = reference::make_vector(t.desc.dtype, static_cast<int64_t>(t.data.size()));
  v.data = t.data;
  return v;
}

// Runs the convolution reference and the GEMM reference of the mapping on the same inputs and
// compares the outputs element by element.
void expect_same_as_conv(const ConvProblem& p, uint64_t seed) {
  SCOPED_TRACE(p.key());
  auto mapped = conv_as_gemm_1x1(p);
  ASSERT_TRUE(mapped.has_value()) << mapped.status().message();
  ASSERT_TRUE(mapped->gemm.validate().is_ok()) << mapped->gemm.validate().message();
  HostTensor x = reference::make_host_tensor(p.x_desc());
  HostTensor w = reference::make_host_tensor(p.w_desc());
  HostTensor y = reference::make_host_tensor(p.y_desc());
  HostTensor bias = reference::make_vector(p.dtype, p.k);
  reference::fill_uniform(bias, seed + 3);
  HostTensor* out = nullptr;
  switch (p.direction) {
    case ConvDirection::kForward:
      reference::fill_uniform(x, seed);
      reference::fill_uniform(w, seed + 1);
      ASSERT_TRUE(reference::conv_forward(p, x, w, p.bias ? &bias : nullptr, y).is_ok());
      out = &y;
      break;
    case ConvDirection::kBackwardData:
      reference::fill_uniform(y, seed);
      reference::fill_uniform(w, seed + 1);
      ASSERT_TRUE(reference::conv_backward_data(p, y, w, x).is_ok());
      out = &x;
      break;
    case ConvDirection::kBackwardWeight:
      reference::fill_uniform(x, seed);
      reference::fill_uniform(y, seed + 1);
      ASSERT_TRUE(reference::conv_backward_weight(p, x, y, w).is_ok());
      out = &w;
      break;
  }
  auto tensor = [&](char role) -> const HostTensor& {
    return role == 'x' ? x : role == 'w' ? w : y;
  };
  const HostTensor a = flat(tensor(mapped->a));
  const HostTensor b = flat(tensor(mapped->b));
  const HostTensor bias_flat = flat(bias);
  reference::GemmOperands in;
  in.a = &a;
  in.b = &b;
  if (mapped->gemm.bias) in.bias = &bias_flat;
  HostTensor d =
      reference::make_vector(p.dtype, reference::gemm_operand_elements(mapped->gemm, 'D'));
  ASSERT_TRUE(reference::gemm(mapped->gemm, in, d).is_ok());
  ASSERT_EQ(tensor(mapped->d).desc, out->desc);
  ASSERT_GE(d.data.size(), out->data.size());
  for (size_t i = 0; i < out->data.size(); ++i) {
    ASSERT_NEAR(d.data[i], out->data[i], 1e-12 * (1.0 + std::fabs(out->data[i])))
        << "element " << i;
  }
}

TEST(ConvGemm1x1, EveryDirectionDimensionAndLayoutMatchesTheConvolution) {
  const std::vector<std::vector<int64_t>> inputs = {{7}, {3, 5}, {2, 3, 4}};
  uint64_t seed = 1;
  for (int dims = 1; dims <= 3; ++dims) {
    for (Layout layout : {Layout::kChannelsLast, Layout::kChannelsFirst}) {
      for (ConvDirection dir : {ConvDirection::kForward, ConvDirection::kBackwardData,
                                ConvDirection::kBackwardWeight}) {
        // Channels-first backward weight maps for one image only.
        const bool first_wrw =
            layout == Layout::kChannelsFirst && dir == ConvDirection::kBackwardWeight;
        expect_same_as_conv(
            one_by_one(dims, first_wrw ? 1 : 2, 3, 5, inputs[dims - 1], layout, dir), seed++);
      }
    }
  }
}

TEST(ConvGemm1x1, ForwardBiasAndActivationBecomeTheGemmEpilogue) {
  ConvProblem p = one_by_one(2, 2, 4, 6, {3, 3}, Layout::kChannelsLast, ConvDirection::kForward);
  p.bias = true;
  p.activation = ops::Activation::kRelu;
  expect_same_as_conv(p, 42);
  auto g = conv_as_gemm_1x1(p);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->gemm.bias);
  EXPECT_EQ(g->gemm.activation, ops::Activation::kRelu);
  // The channels-last forward GEMM is the layout gemm.sm90 prefers: A and B both K-major.
  EXPECT_EQ(g->gemm.trans_a, ops::Transpose::kT);
  EXPECT_EQ(g->gemm.trans_b, ops::Transpose::kN);
  EXPECT_EQ(g->gemm.m, 6);
  EXPECT_EQ(g->gemm.n, 2 * 3 * 3);
  EXPECT_EQ(g->gemm.k, 4);
}

TEST(ConvGemm1x1, RefusalsNameTheField) {
  struct Case {
    void (*edit)(ConvProblem&);
    const char* why;
  };
  const Case cases[] = {
      {[](ConvProblem& p) {
         p.filter = {3, 3}, p.padding = {1, 1};
       },
       "1x1"},
      {[](ConvProblem& p) {
         p.stride = {2, 2};
       },
       "stride"},
      {[](ConvProblem& p) {
         p.padding = {1, 1};
       },
       "padding"},
      {[](ConvProblem& p) { p.groups = 2; }, "groups"},
      {[](ConvProblem& p) { p.out_layout = Layout::kChannelsFirst; }, "layouts"},
      {[](ConvProblem& p) {
         p.in_layout = p.out_layout = Layout::kChannelsFirst;
         p.bias = true;
       },
       "bias"},
      {[](ConvProblem& p) {
         p.in_layout = p.out_layout = Layout::kChannelsFirst;
         p.direction = ConvDirection::kBackwardWeight;
       },
       "N = 2"},
  };
  for (const Case& c : cases) {
    ConvProblem p = one_by_one(2, 2, 4, 8, {6, 6}, Layout::kChannelsLast, ConvDirection::kForward);
    c.edit(p);
    auto g = conv_as_gemm_1x1(p);
    ASSERT_FALSE(g.has_value()) << c.why;
    EXPECT_NE(g.status().message().find(c.why), std::string::npos) << g.status().message();
  }
}

}  // namespace
}  // namespace boo::dispatch
