// conv.gemm_1d: the GEMMs a 1D forward convolution maps to (the interior over overlapping
// windows of x, one per edge column) compute what the convolution reference computes, on the
// very same buffers at the mapping's offsets, over filters, paddings and strides; the problems
// it cannot take are refused with the field that stops them.
#include "boo/dispatch/conv_gemm_1d.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "boo/reference/conv_ref.h"
#include "boo/reference/gemm_ref.h"
#include "boo/reference/host_tensor.h"

namespace boo::dispatch {
namespace {

using core::Layout;
using ops::ConvProblem;
using reference::HostTensor;

ConvProblem conv1d(int64_t n, int64_t c, int64_t w, int64_t k, int64_t s, int64_t pad,
                   int64_t stride) {
  ConvProblem p;
  p.spatial_dims = 1;
  p.n = n;
  p.c = c;
  p.k = k;
  p.input = {w};
  p.filter = {s};
  p.stride = {stride};
  p.padding = {pad};
  p.dilation = {1};
  p.in_layout = p.fil_layout = p.out_layout = Layout::kChannelsLast;
  p.dtype = core::DType::kBF16;
  return p;
}

// The buffer from `offset` on, as a 1-D tensor (what the GEMM reference addresses).
HostTensor from(const HostTensor& t, int64_t offset) {
  HostTensor v = reference::make_vector(t.desc.dtype, static_cast<int64_t>(t.data.size()) - offset);
  v.data.assign(t.data.begin() + offset, t.data.end());
  return v;
}

// Runs every GEMM of the mapping with the GEMM reference on its operands' buffers at their
// offsets, each writing its columns of one shared y, and compares y with the convolution
// reference's element by element (every output written exactly once: y starts as NaN).
void expect_same_as_conv(const ConvProblem& p, uint64_t seed) {
  SCOPED_TRACE(p.key());
  auto gemms = conv_as_gemm_1d(p);
  ASSERT_TRUE(gemms.has_value()) << gemms.status().message();
  HostTensor x = reference::make_host_tensor(p.x_desc());
  HostTensor w = reference::make_host_tensor(p.w_desc());
  HostTensor want = reference::make_host_tensor(p.y_desc());
  HostTensor bias = reference::make_vector(p.dtype, p.k);
  reference::fill_uniform(x, seed);
  reference::fill_uniform(w, seed + 1);
  reference::fill_uniform(bias, seed + 2);
  ASSERT_TRUE(reference::conv_forward(p, x, w, p.bias ? &bias : nullptr, want).is_ok());
  HostTensor got = reference::make_host_tensor(p.y_desc());
  std::fill(got.data.begin(), got.data.end(), std::nan(""));
  for (const ConvAsGemm& m : *gemms) {
    ASSERT_TRUE(m.gemm.validate().is_ok()) << m.gemm.validate().message();
    ASSERT_EQ(m.a, 'w');
    ASSERT_EQ(m.b, 'x');
    ASSERT_EQ(m.d, 'y');
    const HostTensor a = from(w, m.a_offset);
    const HostTensor b = from(x, m.b_offset);
    reference::GemmOperands in;
    in.a = &a;
    in.b = &b;
    if (m.gemm.bias) in.bias = &bias;
    ASSERT_LE(reference::gemm_operand_elements(m.gemm, 'A'), static_cast<int64_t>(a.data.size()));
    ASSERT_LE(reference::gemm_operand_elements(m.gemm, 'B'), static_cast<int64_t>(b.data.size()));
    HostTensor d = from(got, m.d_offset);
    ASSERT_LE(reference::gemm_operand_elements(m.gemm, 'D'), static_cast<int64_t>(d.data.size()));
    // Only the GEMM's own columns of each image change.
    HostTensor before = d;
    ASSERT_TRUE(reference::gemm(m.gemm, in, d).is_ok());
    for (int64_t img = 0; img < m.gemm.batch; ++img) {
      for (int64_t col = 0; col < m.gemm.n; ++col) {
        for (int64_t row = 0; row < m.gemm.m; ++row) {
          const int64_t i = img * m.gemm.stride_d + col * m.gemm.ldd + row;
          ASSERT_TRUE(std::isnan(before.data[i])) << "output written twice at " << m.d_offset + i;
          got.data[m.d_offset + i] = d.data[i];
        }
      }
    }
  }
  for (size_t i = 0; i < want.data.size(); ++i) {
    ASSERT_NEAR(got.data[i], want.data[i], 1e-12 * (1.0 + std::fabs(want.data[i])))
        << "element " << i;
  }
}

TEST(ConvGemm1d, FiltersPaddingsAndStridesMatchTheConvolution) {
  uint64_t seed = 1;
  // {W, S, P, u}: the public audio layer's shape small, wide filters, padding up to S - 1,
  // strides below, at and above the filter, odd widths.
  for (auto [w, s, pad, u] : std::vector<std::array<int64_t, 4>>{{17, 3, 1, 1},
                                                                 {16, 3, 0, 1},
                                                                 {19, 7, 3, 1},
                                                                 {23, 5, 4, 1},
                                                                 {20, 4, 1, 2},
                                                                 {21, 3, 1, 2},
                                                                 {25, 2, 1, 3},
                                                                 {13, 1, 0, 1},
                                                                 {9, 9, 4, 1},
                                                                 {31, 5, 2, 4}}) {
    expect_same_as_conv(conv1d(3, 8, w, 16, s, pad, u), seed++);
  }
}

TEST(ConvGemm1d, BiasAndActivationBecomeEveryGemmsEpilogue) {
  ConvProblem p = conv1d(2, 16, 11, 8, 3, 1, 1);
  p.bias = true;
  p.activation = ops::Activation::kSilu;
  expect_same_as_conv(p, 7);
  auto gemms = conv_as_gemm_1d(p);
  ASSERT_TRUE(gemms.has_value());
  ASSERT_EQ(gemms->size(), 3u);  // the interior and one edge column each side
  for (const ConvAsGemm& m : *gemms) {
    EXPECT_TRUE(m.gemm.bias);
    EXPECT_EQ(m.gemm.activation, ops::Activation::kSilu);
  }
}

TEST(ConvGemm1d, TheInteriorReadsOverlappingWindowsInPlace) {
  // The public 1D line: N 32, C 512, W 4096, K 512, 3 taps, padding 1.
  auto gemms = conv_as_gemm_1d(conv1d(32, 512, 4096, 512, 3, 1, 1));
  ASSERT_TRUE(gemms.has_value()) << gemms.status().message();
  ASSERT_EQ(gemms->size(), 3u);
  const ops::GemmProblem& g = gemms->front().gemm;
  EXPECT_EQ(g.m, 512);
  EXPECT_EQ(g.n, 4094);
  EXPECT_EQ(g.k, 3 * 512);
  EXPECT_EQ(g.ldb, 512);
  EXPECT_TRUE(g.b_windows);
  EXPECT_EQ(g.batch, 32);
  EXPECT_EQ(g.stride_b, 4096 * 512);
  EXPECT_EQ(gemms->front().d_offset, 512);
  // B's bytes are the input's, not three copies of it.
  EXPECT_EQ(g.min_bytes(), (512 * 1536 + 32 * (4093 * 512 + 1536) + 32 * 4094 * 512) * 2);
  // A stride at or above the filter has windows that do not overlap: an ordinary GEMM.
  auto strided = conv_as_gemm_1d(conv1d(2, 8, 32, 8, 3, 1, 3));
  ASSERT_TRUE(strided.has_value());
  EXPECT_FALSE(strided->front().gemm.b_windows);
}

TEST(ConvGemm1d, RefusalsNameTheField) {
  struct Case {
    void (*edit)(ConvProblem&);
    const char* why;
  };
  const Case cases[] = {
      {[](ConvProblem& p) { p.dilation = {2}; }, "dilation must be 1"},
      {[](ConvProblem& p) { p.groups = 2; }, "groups must be 1"},
      {[](ConvProblem& p) { p.direction = ops::ConvDirection::kBackwardData; }, "forward only"},
      {[](ConvProblem& p) { p.in_layout = p.out_layout = Layout::kChannelsFirst; },
       "channels-last"},
      {[](ConvProblem& p) { p.c = 12; }, "16-byte vectors"},
      {[](ConvProblem& p) { p.dtype = core::DType::kF32; }, "tf32"},
      {[](ConvProblem& p) { p.padding = {3}; }, "padding only"},
      {[](ConvProblem& p) { p.filter = {21}, p.padding = {10}, p.input = {64}; },
       "edge columns, more than 8"},
      {[](ConvProblem& p) {
         p.spatial_dims = 2, p.input = {4, 16}, p.filter = {1, 3}, p.stride = {1, 1};
         p.padding = {0, 1}, p.dilation = {1, 1};
       },
       "must be 1D"},
  };
  for (const Case& c : cases) {
    ConvProblem p = conv1d(2, 16, 16, 16, 3, 1, 1);
    c.edit(p);
    const core::Status s = conv_gemm_1d_supports(p);
    EXPECT_FALSE(s.is_ok()) << c.why;
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s.message();
    EXPECT_FALSE(conv_as_gemm_1d(p).has_value()) << c.why;
  }
  ConvProblem tf32 = conv1d(2, 16, 16, 16, 3, 1, 1);
  tf32.dtype = core::DType::kF32;
  tf32.math = core::MathMode::kTF32;
  EXPECT_TRUE(conv_gemm_1d_supports(tf32).is_ok());
}

}  // namespace
}  // namespace boo::dispatch
