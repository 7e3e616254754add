// Convolution reference on random data, over 1D/2D/3D problems with groups, stride, padding,
// dilation and every layout combination:
//   - the forward pass equals a direct evaluation of the definition written here;
//   - <fwd(x, w), dy> == <x, bwd_data(dy, w)> == <w, bwd_weight(x, dy)> (adjoint identities);
//   - results depend only on the logical data, not on the layouts.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "boo/core/layout.h"
#include "boo/ops/conv_problem.h"
#include "boo/reference/conv_ref.h"
#include "ref_test_util.h"

namespace boo::reference {
namespace {

using core::Layout;
using ops::ConvProblem;
using testing::ForEachIndex;
using testing::LogicalCopy;
using testing::LogicalDot;
using testing::LogicalMaxDiff;

struct Geometry {
  std::string name;
  int dims;
  int64_t n, c, k, groups;
  std::vector<int64_t> input, filter, stride, padding, dilation;
};

const Geometry kGeometries[] = {
    {"conv1d_stride2_pad2", 1, 2, 3, 4, 1, {9}, {3}, {2}, {2}, {1}},
    {"conv1d_depthwise_dil2", 1, 1, 4, 4, 4, {8}, {3}, {1}, {1}, {2}},
    {"conv2d_g2_mixed", 2, 2, 4, 6, 2, {6, 5}, {3, 2}, {2, 1}, {1, 2}, {1, 2}},
    {"conv2d_depthwise_mult2", 2, 1, 3, 6, 3, {5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
    {"conv2d_pointwise", 2, 2, 2, 3, 1, {4, 3}, {1, 1}, {1, 1}, {0, 0}, {1, 1}},
    {"conv2d_big_pad", 2, 1, 2, 2, 1, {3, 3}, {4, 4}, {1, 2}, {3, 3}, {1, 1}},
    {"conv3d_g2", 3, 1, 2, 4, 2, {4, 3, 5}, {2, 2, 3}, {1, 2, 1}, {1, 0, 2}, {1, 1, 2}},
    {"conv3d_depthwise", 3, 2, 2, 2, 2, {3, 4, 4}, {3, 1, 2}, {2, 2, 2}, {2, 0, 1}, {1, 1, 1}},
};

struct Param {
  std::string name;
  ConvProblem p;
};

std::vector<Param> Params() {
  const Layout layouts[] = {Layout::kChannelsFirst, Layout::kChannelsLast};
  std::vector<Param> out;
  for (const Geometry& g : kGeometries) {
    for (Layout in : layouts) {
      for (Layout fil : layouts) {
        for (Layout o : layouts) {
          ConvProblem p;
          p.spatial_dims = g.dims;
          p.n = g.n;
          p.c = g.c;
          p.k = g.k;
          p.groups = g.groups;
          p.input = g.input;
          p.filter = g.filter;
          p.stride = g.stride;
          p.padding = g.padding;
          p.dilation = g.dilation;
          p.in_layout = in;
          p.fil_layout = fil;
          p.out_layout = o;
          out.push_back({g.name + "_" + core::layout_name(in, g.dims) + "_" +
                             core::layout_name(fil, g.dims) + "_" + core::layout_name(o, g.dims),
                         p});
        }
      }
    }
  }
  return out;
}

HostTensor Random(const core::TensorDesc& desc, uint64_t seed) {
  HostTensor t = make_host_tensor(desc);
  fill_uniform(t, seed);
  return t;
}

// NaN everywhere, so that an element the reference fails to write shows up.
HostTensor Poisoned(const core::TensorDesc& desc) {
  HostTensor t = make_host_tensor(desc);
  t.data.assign(t.data.size(), NAN);
  return t;
}

// sum over logical indices of |a[i] b[i]|: the scale of the rounding error of <a, b>.
double AbsDot(const HostTensor& a, const HostTensor& b) {
  double s = 0.0;
  ForEachIndex(a.desc.dims,
               [&](const std::vector<int64_t>& i) { s += std::fabs(a.at(i) * b.at(i)); });
  return s;
}

// The definition: y[n, k, o] = sum_{cc, r} x[n, g(k) C/G + cc, o s - p + r d] w[k, cc, r], with
// out-of-range input positions reading zero.
HostTensor NaiveForward(const ConvProblem& p, const HostTensor& x, const HostTensor& w) {
  HostTensor y = make_host_tensor(p.y_desc());
  const int64_t cg = p.c / p.groups;
  const int64_t kg = p.k / p.groups;
  std::vector<int64_t> wdims = p.w_desc().dims;
  wdims.erase(wdims.begin());  // [C/G, filter...]
  ForEachIndex(y.desc.dims, [&](const std::vector<int64_t>& yi) {
    double acc = 0.0;
    ForEachIndex(wdims, [&](const std::vector<int64_t>& wi) {
      std::vector<int64_t> xi = {yi[0], (yi[1] / kg) * cg + wi[0]};
      for (int d = 0; d < p.spatial_dims; ++d) {
        const int64_t pos = yi[2 + d] * p.stride[d] - p.padding[d] + wi[1 + d] * p.dilation[d];
        if (pos < 0 || pos >= p.input[d]) return;
        xi.push_back(pos);
      }
      std::vector<int64_t> full = {yi[1]};
      full.insert(full.end(), wi.begin(), wi.end());
      acc += x.at(xi) * w.at(full);
    });
    y.at(yi) = acc;
  });
  return y;
}

class ConvRefAdjointTest : public ::testing::TestWithParam<Param> {};

TEST_P(ConvRefAdjointTest, ForwardMatchesDefinition) {
  const ConvProblem& p = GetParam().p;
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().to_string();
  const HostTensor x = Random(p.x_desc(), 1);
  const HostTensor w = Random(p.w_desc(), 2);
  HostTensor y = Poisoned(p.y_desc());
  ASSERT_TRUE(conv_forward(p, x, w, nullptr, y).is_ok());
  const HostTensor want = NaiveForward(p, x, w);
  EXPECT_LE(LogicalMaxDiff(y, want), 1e-13);
}

TEST_P(ConvRefAdjointTest, AdjointIdentities) {
  const ConvProblem& p = GetParam().p;
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().to_string();
  const HostTensor x = Random(p.x_desc(), 1);
  const HostTensor w = Random(p.w_desc(), 2);
  const HostTensor dy = Random(p.y_desc(), 3);
  HostTensor y = Poisoned(p.y_desc());
  HostTensor dx = Poisoned(p.x_desc());
  HostTensor dw = Poisoned(p.w_desc());
  ASSERT_TRUE(conv_forward(p, x, w, nullptr, y).is_ok());
  ASSERT_TRUE(conv_backward_data(p, dy, w, dx).is_ok());
  ASSERT_TRUE(conv_backward_weight(p, x, dy, dw).is_ok());
  const double fwd = LogicalDot(y, dy);
  const double bwd = LogicalDot(x, dx);
  const double wrw = LogicalDot(w, dw);
  // <y, dy> is a sum of products x w dy; its terms bound the rounding error of every form.
  const double scale = AbsDot(y, dy) + AbsDot(x, dx) + AbsDot(w, dw);
  ASSERT_GT(scale, 0.0);
  EXPECT_TRUE(std::isfinite(fwd) && std::isfinite(bwd) && std::isfinite(wrw));
  EXPECT_NEAR(fwd, bwd, 1e-10 * scale) << "<fwd(x,w),dy> vs <x,bwd_data(dy,w)>";
  EXPECT_NEAR(fwd, wrw, 1e-10 * scale) << "<fwd(x,w),dy> vs <w,bwd_weight(x,dy)>";
}

TEST_P(ConvRefAdjointTest, LayoutInvariance) {
  const ConvProblem& p = GetParam().p;
  ConvProblem base = p;  // the same problem, every tensor channels-first
  base.in_layout = base.fil_layout = base.out_layout = Layout::kChannelsFirst;
  ASSERT_TRUE(p.validate().is_ok());
  ASSERT_TRUE(base.validate().is_ok());
  const HostTensor x0 = Random(base.x_desc(), 7);
  const HostTensor w0 = Random(base.w_desc(), 8);
  const HostTensor dy0 = Random(base.y_desc(), 9);
  HostTensor x = make_host_tensor(p.x_desc());
  HostTensor w = make_host_tensor(p.w_desc());
  HostTensor dy = make_host_tensor(p.y_desc());
  LogicalCopy(x0, x);
  LogicalCopy(w0, w);
  LogicalCopy(dy0, dy);

  HostTensor y0 = Poisoned(base.y_desc()), y = Poisoned(p.y_desc());
  HostTensor dx0 = Poisoned(base.x_desc()), dx = Poisoned(p.x_desc());
  HostTensor dw0 = Poisoned(base.w_desc()), dw = Poisoned(p.w_desc());
  ASSERT_TRUE(conv_forward(base, x0, w0, nullptr, y0).is_ok());
  ASSERT_TRUE(conv_forward(p, x, w, nullptr, y).is_ok());
  ASSERT_TRUE(conv_backward_data(base, dy0, w0, dx0).is_ok());
  ASSERT_TRUE(conv_backward_data(p, dy, w, dx).is_ok());
  ASSERT_TRUE(conv_backward_weight(base, x0, dy0, dw0).is_ok());
  ASSERT_TRUE(conv_backward_weight(p, x, dy, dw).is_ok());
  EXPECT_LE(LogicalMaxDiff(y, y0), 1e-13);
  EXPECT_LE(LogicalMaxDiff(dx, dx0), 1e-13);
  EXPECT_LE(LogicalMaxDiff(dw, dw0), 1e-13);
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvRefAdjointTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace boo::reference
