// Problem data: the named inputs and outputs of every family and direction, the generated values
// (rounded to their dtype, in [-1, 1], deterministic per seed) and run_reference's outputs
// against direct evaluations written here.
#include "boo/reference/problem_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/ops/problem.h"
#include "boo/reference/gemm_ref.h"

namespace boo::reference {
namespace {

using core::DType;
using ops::ConvDirection;
using ops::ConvProblem;
using ops::GemmProblem;
using ops::LayerNormProblem;
using ops::Transpose;

std::vector<std::string> Names(const std::vector<NamedTensor>& v) {
  std::vector<std::string> names;
  for (const NamedTensor& t : v) names.push_back(t.name);
  return names;
}

ProblemData Make(const ops::Problem& p, uint64_t seed = 1) {
  auto data = make_inputs(p, seed);
  EXPECT_TRUE(data.has_value()) << data.status().to_string();
  return data.has_value() ? std::move(data).value() : ProblemData{};
}

ConvProblem Conv1d(ConvDirection dir, bool bias) {
  ConvProblem p;
  p.spatial_dims = 1;
  p.n = 2;
  p.c = 3;
  p.k = 4;
  p.input = {7};
  p.filter = {3};
  p.stride = {2};
  p.padding = {1};
  p.dilation = {1};
  p.direction = dir;
  p.bias = bias;
  p.dtype = DType::kBF16;
  p.in_layout = core::Layout::kChannelsLast;
  return p;
}

GemmProblem Gemm() {
  GemmProblem p;
  p.m = 3;
  p.n = 4;
  p.k = 5;
  p.trans_a = Transpose::kT;
  p.lda = 6;
  p.ldb = 7;
  p.ldc = 4;
  p.ldd = 5;
  p.batch = 2;
  p.stride_a = 40;
  p.stride_b = 0;
  p.stride_c = 17;
  p.stride_d = 23;
  p.a_type = p.b_type = DType::kF16;
  p.c_type = p.d_type = DType::kF16;
  return p;
}

LayerNormProblem LayerNorm(bool affine, uint8_t parts) {
  LayerNormProblem p;
  p.shape = {2, 3, 4};
  p.normalized_dim = 1;
  p.affine = affine;
  p.parts = parts;
  p.dtype = DType::kBF16;
  return p;
}

using NameList = std::vector<std::string>;

TEST(ProblemDataTest, ConvNamesPerDirection) {
  const ConvProblem fwd = Conv1d(ConvDirection::kForward, true);
  ProblemData d = Make(fwd);
  EXPECT_EQ(Names(d.inputs), (NameList{"x", "w", "bias"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"y"}));
  EXPECT_EQ(d.input("x")->desc, fwd.x_desc());
  EXPECT_EQ(d.input("w")->desc, fwd.w_desc());
  EXPECT_EQ(d.input("bias")->data.size(), 4u);
  EXPECT_EQ(d.output("y")->desc, fwd.y_desc());
  EXPECT_EQ(d.output("nope"), nullptr);
  EXPECT_EQ(Names(Make(Conv1d(ConvDirection::kForward, false)).inputs), (NameList{"x", "w"}));

  const ConvProblem bwd = Conv1d(ConvDirection::kBackwardData, false);
  d = Make(bwd);
  EXPECT_EQ(Names(d.inputs), (NameList{"dy", "w"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"dx"}));
  EXPECT_EQ(d.input("dy")->desc, bwd.y_desc());
  EXPECT_EQ(d.output("dx")->desc, bwd.x_desc());

  const ConvProblem wrw = Conv1d(ConvDirection::kBackwardWeight, false);
  d = Make(wrw);
  EXPECT_EQ(Names(d.inputs), (NameList{"x", "dy"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"dw"}));
  EXPECT_EQ(d.output("dw")->desc, wrw.w_desc());
}

TEST(ProblemDataTest, GemmNamesAndPackedOutput) {
  GemmProblem p = Gemm();
  ProblemData d = Make(p);
  EXPECT_EQ(Names(d.inputs), (NameList{"A", "B"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"D"}));
  EXPECT_EQ(static_cast<int64_t>(d.input("A")->data.size()), gemm_operand_elements(p, 'A'));
  EXPECT_EQ(static_cast<int64_t>(d.input("B")->data.size()), gemm_operand_elements(p, 'B'));
  EXPECT_EQ(d.output("D")->desc.dims, (std::vector<int64_t>{2, 4, 3}));  // [batch, N, M]
  EXPECT_EQ(d.output("D")->desc.strides, (std::vector<int64_t>{12, 3, 1}));
  EXPECT_EQ(d.output("D")->data.size(), 24u);
  EXPECT_EQ(d.scale_a, 1.0);
  EXPECT_EQ(d.scale_b, 1.0);

  p.beta = 0.5;
  p.bias = true;
  p.alpha_vector = true;
  d = Make(p);
  EXPECT_EQ(Names(d.inputs), (NameList{"A", "B", "C", "bias", "alpha_vector"}));
  EXPECT_EQ(static_cast<int64_t>(d.input("C")->data.size()), gemm_operand_elements(p, 'C'));
  EXPECT_EQ(d.input("bias")->data.size(), 3u);
  EXPECT_EQ(d.input("alpha_vector")->data.size(), 3u);
}

TEST(ProblemDataTest, LayerNormNames) {
  EXPECT_EQ(Names(Make(LayerNorm(true, ops::kLayerNormForward)).inputs),
            (NameList{"x", "weight", "bias"}));
  ProblemData d = Make(LayerNorm(false, ops::kLayerNormForward));
  EXPECT_EQ(Names(d.inputs), (NameList{"x"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"y", "mean", "rstd"}));
  EXPECT_EQ(d.output("y")->data.size(), 24u);
  EXPECT_EQ(d.output("mean")->data.size(), 2u);
  EXPECT_EQ(d.output("rstd")->data.size(), 2u);

  d = Make(LayerNorm(true, ops::kLayerNormDx | ops::kLayerNormDweight | ops::kLayerNormDbias));
  EXPECT_EQ(Names(d.inputs), (NameList{"x", "weight", "bias", "dy"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"dx", "dweight", "dbias"}));
  EXPECT_EQ(d.output("dweight")->data.size(), 12u);
  EXPECT_EQ(Names(Make(LayerNorm(true, ops::kLayerNormDweight)).outputs), (NameList{"dweight"}));
  EXPECT_EQ(Names(Make(LayerNorm(true, ops::kLayerNormDbias)).outputs), (NameList{"dbias"}));
  d = Make(LayerNorm(false, ops::kLayerNormDx));
  EXPECT_EQ(Names(d.inputs), (NameList{"x", "dy"}));
  EXPECT_EQ(Names(d.outputs), (NameList{"dx"}));
}

std::vector<ops::Problem> Samples() {
  GemmProblem g = Gemm();
  g.beta = 1.0;
  g.bias = true;
  g.bias_type = DType::kF32;
  g.alpha_vector = true;
  GemmProblem fp8 = g;
  fp8.a_type = DType::kF8E4M3;
  fp8.b_type = DType::kF8E5M2;
  fp8.c_type = fp8.d_type = DType::kBF16;
  fp8.scale_a = fp8.scale_b = ops::ScaleMode::kScalar;
  ConvProblem conv16 = Conv1d(ConvDirection::kForward, true);
  conv16.dtype = DType::kF16;
  return {Conv1d(ConvDirection::kForward, true),
          Conv1d(ConvDirection::kBackwardData, false),
          Conv1d(ConvDirection::kBackwardWeight, false),
          conv16,
          g,
          fp8,
          LayerNorm(true, ops::kLayerNormForward),
          LayerNorm(true, 14)};
}

TEST(ProblemDataTest, InputsAreRoundedAndInRange) {
  for (const ops::Problem& p : Samples()) {
    const ProblemData d = Make(p, 7);
    for (const NamedTensor& t : d.inputs) {
      const DType dt = t.tensor.desc.dtype;
      bool varied = false;
      for (double v : t.tensor.data) {
        ASSERT_EQ(core::round_to(dt, v), v) << ops::key(p) << " " << t.name;
        ASSERT_GE(v, -1.0) << t.name;
        ASSERT_LE(v, 1.0) << t.name;
        varied |= v != t.tensor.data[0];
      }
      EXPECT_TRUE(varied || t.tensor.data.size() < 2) << ops::key(p) << " " << t.name;
    }
    for (const NamedTensor& t : d.outputs) {
      EXPECT_EQ(static_cast<int64_t>(t.tensor.data.size()), t.tensor.desc.span_elements());
    }
  }
  // The operand types are the problem's.
  const ProblemData d = Make(Samples()[5]);
  EXPECT_EQ(d.input("A")->desc.dtype, DType::kF8E4M3);
  EXPECT_EQ(d.input("B")->desc.dtype, DType::kF8E5M2);
  EXPECT_EQ(d.input("C")->desc.dtype, DType::kBF16);
  EXPECT_GE(d.scale_a, 0.5);
  EXPECT_LE(d.scale_a, 2.0);
  EXPECT_EQ(core::round_to(DType::kF32, d.scale_b), d.scale_b);
}

TEST(ProblemDataTest, SeedsAreDeterministicAndDistinct) {
  for (const ops::Problem& p : Samples()) {
    const ProblemData a = Make(p, 5);
    const ProblemData b = Make(p, 5);
    const ProblemData c = Make(p, 6);
    ASSERT_EQ(Names(a.inputs), Names(c.inputs));
    for (size_t i = 0; i < a.inputs.size(); ++i) {
      EXPECT_EQ(a.inputs[i].tensor.data, b.inputs[i].tensor.data) << a.inputs[i].name;
      EXPECT_NE(a.inputs[i].tensor.data, c.inputs[i].tensor.data) << a.inputs[i].name;
    }
    // Different inputs of one problem are independent: neither starts with the other's values.
    for (size_t i = 0; i < a.inputs.size(); ++i) {
      for (size_t j = i + 1; j < a.inputs.size(); ++j) {
        const std::vector<double>& u = a.inputs[i].tensor.data;
        const std::vector<double>& v = a.inputs[j].tensor.data;
        const size_t n = std::min(u.size(), v.size());
        EXPECT_FALSE(std::equal(u.begin(), u.begin() + n, v.begin()))
            << a.inputs[i].name << " and " << a.inputs[j].name;
      }
    }
  }
}

TEST(ProblemDataTest, GemmReferenceMatchesNaiveLoop) {
  for (Transpose ta : {Transpose::kN, Transpose::kT}) {
    for (Transpose tb : {Transpose::kN, Transpose::kT}) {
      GemmProblem p = Gemm();
      p.trans_a = ta;
      p.trans_b = tb;
      p.beta = -0.5;
      p.alpha = 1.5;
      p.bias = true;
      p.alpha_vector = tb == Transpose::kT;
      p.activation = ops::Activation::kRelu;
      p.a_type = p.b_type = DType::kF8E4M3;
      p.scale_a = ops::ScaleMode::kScalar;
      p.scale_b = ops::ScaleMode::kScalar;
      ASSERT_TRUE(p.validate().is_ok()) << p.validate().to_string();
      ProblemData d = Make(p, 3);
      ASSERT_TRUE(run_reference(p, d).is_ok());
      const auto& A = d.input("A")->data;
      const auto& B = d.input("B")->data;
      const auto& C = d.input("C")->data;
      const auto& D = d.output("D")->data;
      for (int64_t b = 0; b < p.batch; ++b) {
        for (int64_t i = 0; i < p.m; ++i) {
          for (int64_t j = 0; j < p.n; ++j) {
            double acc = 0.0;
            for (int64_t l = 0; l < p.k; ++l) {
              const double a = ta == Transpose::kN ? A[b * p.stride_a + i + l * p.lda]
                                                   : A[b * p.stride_a + l + i * p.lda];
              const double bb = tb == Transpose::kN ? B[b * p.stride_b + l + j * p.ldb]
                                                    : B[b * p.stride_b + j + l * p.ldb];
              acc += a * bb;
            }
            double alpha = p.alpha;
            if (p.alpha_vector) alpha *= d.input("alpha_vector")->data[i];
            double v = alpha * d.scale_a * d.scale_b * acc +
                       p.beta * C[b * p.stride_c + i + j * p.ldc] + d.input("bias")->data[i];
            v = v > 0 ? v : 0;
            EXPECT_NEAR(D[(b * p.n + j) * p.m + i], v, 1e-13) << b << " " << i << " " << j;
          }
        }
      }
    }
  }
}

TEST(ProblemDataTest, ConvForwardReferenceMatchesDirectSum) {
  const ConvProblem p = Conv1d(ConvDirection::kForward, true);  // x NWC, w and y NCW
  ProblemData d = Make(p, 9);
  ASSERT_TRUE(run_reference(p, d).is_ok());
  const HostTensor& x = *d.input("x");
  const HostTensor& w = *d.input("w");
  const HostTensor& y = *d.output("y");
  const int64_t out = p.output()[0];
  ASSERT_EQ(out, 4);
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t k = 0; k < p.k; ++k) {
      for (int64_t o = 0; o < out; ++o) {
        double acc = d.input("bias")->data[k];
        for (int64_t c = 0; c < p.c; ++c) {
          for (int64_t r = 0; r < p.filter[0]; ++r) {
            const int64_t i = o * 2 - 1 + r;
            if (i >= 0 && i < p.input[0])
              acc += x.data[(n * 7 + i) * 3 + c] * w.data[(k * 3 + c) * 3 + r];
          }
        }
        EXPECT_NEAR(y.data[(n * 4 + k) * out + o], acc, 1e-13);
      }
    }
  }
}

TEST(ProblemDataTest, LayerNormReferenceStatistics) {
  const LayerNormProblem fwd = LayerNorm(false, ops::kLayerNormForward);
  ProblemData d = Make(fwd, 2);
  ASSERT_TRUE(run_reference(fwd, d).is_ok());
  const auto& x = d.input("x")->data;
  for (int64_t r = 0; r < 2; ++r) {
    double mean = 0.0, var = 0.0;
    for (int64_t c = 0; c < 12; ++c) mean += x[r * 12 + c] / 12.0;
    for (int64_t c = 0; c < 12; ++c) var += (x[r * 12 + c] - mean) * (x[r * 12 + c] - mean) / 12;
    EXPECT_NEAR(d.output("mean")->data[r], mean, 1e-14);
    EXPECT_NEAR(d.output("rstd")->data[r], 1.0 / std::sqrt(var + fwd.eps), 1e-12);
    for (int64_t c = 0; c < 12; ++c) {
      EXPECT_NEAR(d.output("y")->data[r * 12 + c], (x[r * 12 + c] - mean) / std::sqrt(var + 1e-5),
                  1e-12);
    }
  }
  // Backward: dbias is the column sum of dy; each row of dx sums to zero.
  const LayerNormProblem bwd = LayerNorm(true, ops::kLayerNormDx | ops::kLayerNormDbias);
  d = Make(bwd, 2);
  ASSERT_TRUE(run_reference(bwd, d).is_ok());
  const auto& dy = d.input("dy")->data;
  for (int64_t c = 0; c < 12; ++c) {
    EXPECT_NEAR(d.output("dbias")->data[c], dy[c] + dy[12 + c], 1e-15);
  }
  for (int64_t r = 0; r < 2; ++r) {
    double sum = 0.0;
    for (int64_t c = 0; c < 12; ++c) sum += d.output("dx")->data[r * 12 + c];
    EXPECT_NEAR(sum, 0.0, 1e-12);
  }
}

TEST(ProblemDataTest, InvalidProblemIsAnError) {
  GemmProblem g = Gemm();
  g.lda = 1;  // too small for K = 5 rows of A^T
  EXPECT_FALSE(make_inputs(g, 1).has_value());
  EXPECT_GT(reference_bytes(Gemm()), 0);
}

}  // namespace
}  // namespace boo::reference
