// Layer norm reference against statistics computed here, hand values, invariances and central
// finite differences of an independent forward pass (for the backward pass).
#include "boo/reference/layernorm_ref.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "boo/ops/layernorm_problem.h"

namespace boo::reference {
namespace {

using ops::LayerNormProblem;

LayerNormProblem Problem(std::vector<int64_t> shape, int normalized_dim, bool affine,
                         double eps = 1e-5, uint8_t parts = ops::kLayerNormForward) {
  LayerNormProblem p;
  p.shape = std::move(shape);
  p.normalized_dim = normalized_dim;
  p.affine = affine;
  p.eps = eps;
  p.parts = parts;
  return p;
}

HostTensor Random(int64_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  HostTensor t = make_vector(core::DType::kF32, n);
  fill_uniform(t, seed, lo, hi);
  return t;
}

// Welford's running mean and variance (population): a different algorithm from the two-pass one.
void RowStats(const double* x, int64_t n, double& mean, double& var) {
  mean = 0.0;
  double m2 = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double delta = x[i] - mean;
    mean += delta / static_cast<double>(i + 1);
    m2 += delta * (x[i] - mean);
  }
  var = m2 / static_cast<double>(n);
}

// L = sum(dy * y) with y computed here from the definition.
double Loss(const LayerNormProblem& p, const std::vector<double>& x, const std::vector<double>& w,
            const std::vector<double>& b, const std::vector<double>& dy) {
  const int64_t rows = p.rows(), cols = p.cols();
  double loss = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0.0, var = 0.0;
    RowStats(x.data() + r * cols, cols, mean, var);
    for (int64_t c = 0; c < cols; ++c) {
      double y = (x[r * cols + c] - mean) / std::sqrt(var + p.eps);
      if (p.affine) y = y * w[c] + b[c];
      loss += dy[r * cols + c] * y;
    }
  }
  return loss;
}

struct Forward {
  HostTensor y;
  std::vector<double> mean, rstd;
};

Forward RunForward(const LayerNormProblem& p, const HostTensor& x, const HostTensor* w,
                   const HostTensor* b) {
  Forward f{make_vector(p.dtype, p.rows() * p.cols()), {}, {}};
  f.y.data.assign(f.y.data.size(), NAN);
  EXPECT_TRUE(p.validate().is_ok());
  EXPECT_TRUE(layernorm_forward(p, x, w, b, f.y, f.mean, f.rstd).is_ok());
  return f;
}

TEST(LayerNormRefTest, HandComputedRow) {
  // x = [1 2 3 4]: mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
  const LayerNormProblem p = Problem({1, 4}, 1, /*affine=*/false, /*eps=*/0.0);
  HostTensor x = make_vector(core::DType::kF32, 4);
  x.data = {1, 2, 3, 4};
  const Forward f = RunForward(p, x, nullptr, nullptr);
  ASSERT_EQ(f.mean.size(), 1u);
  EXPECT_DOUBLE_EQ(f.mean[0], 2.5);
  EXPECT_DOUBLE_EQ(f.rstd[0], 1.0 / std::sqrt(1.25));
  const double s = std::sqrt(1.25);
  EXPECT_DOUBLE_EQ(f.y.data[0], -1.5 / s);
  EXPECT_DOUBLE_EQ(f.y.data[1], -0.5 / s);
  EXPECT_DOUBLE_EQ(f.y.data[2], 0.5 / s);
  EXPECT_DOUBLE_EQ(f.y.data[3], 1.5 / s);
  // With eps = 0.25: rstd = 1 / sqrt(1.5).
  const Forward g = RunForward(Problem({1, 4}, 1, false, 0.25), x, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(g.rstd[0], 1.0 / std::sqrt(1.5));
  EXPECT_DOUBLE_EQ(g.y.data[3], 1.5 / std::sqrt(1.5));
}

TEST(LayerNormRefTest, StatisticsAndNormalizedRows) {
  for (double eps : {0.0, 1e-5, 0.5}) {
    for (int dim : {0, 1, 2}) {
      const LayerNormProblem p = Problem({4, 3, 5}, dim, false, eps);
      const int64_t rows = p.rows(), cols = p.cols();
      ASSERT_EQ(rows * cols, 60);
      const HostTensor x = Random(60, 21, -2.0, 3.0);
      const Forward f = RunForward(p, x, nullptr, nullptr);
      ASSERT_EQ(static_cast<int64_t>(f.mean.size()), rows);
      ASSERT_EQ(static_cast<int64_t>(f.rstd.size()), rows);
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0.0, var = 0.0;
        RowStats(x.data.data() + r * cols, cols, mean, var);
        EXPECT_NEAR(f.mean[r], mean, 1e-14);
        EXPECT_NEAR(f.rstd[r], 1.0 / std::sqrt(var + eps), 1e-12 * f.rstd[r]);
        // Each normalized row has mean 0 and variance var / (var + eps).
        double ymean = 0.0, yvar = 0.0;
        RowStats(f.y.data.data() + r * cols, cols, ymean, yvar);
        EXPECT_NEAR(ymean, 0.0, 1e-14);
        EXPECT_NEAR(yvar, var / (var + eps), 1e-13);
      }
    }
  }
}

TEST(LayerNormRefTest, AffineAppliesWeightAndBias) {
  const LayerNormProblem plain = Problem({3, 2, 4}, 1, false);
  const LayerNormProblem affine = Problem({3, 2, 4}, 1, true);
  const HostTensor x = Random(24, 1);
  const HostTensor w = Random(8, 2);
  const HostTensor b = Random(8, 3);
  const Forward f0 = RunForward(plain, x, nullptr, nullptr);
  const Forward f1 = RunForward(affine, x, &w, &b);
  EXPECT_EQ(f0.mean, f1.mean);
  EXPECT_EQ(f0.rstd, f1.rstd);
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      const double want = f0.y.data[r * 8 + c] * w.data[c] + b.data[c];
      EXPECT_NEAR(f1.y.data[r * 8 + c], want, 1e-15);
    }
  }
}

TEST(LayerNormRefTest, InvariantToShiftAndPositiveScale) {
  // With eps = 0, normalizing a x + c (a > 0) gives the same rows as normalizing x.
  const LayerNormProblem p = Problem({5, 6}, 1, false, 0.0);
  const HostTensor x = Random(30, 4);
  HostTensor z = x;
  for (double& v : z.data) v = 3.5 * v - 7.0;
  const Forward fx = RunForward(p, x, nullptr, nullptr);
  const Forward fz = RunForward(p, z, nullptr, nullptr);
  for (size_t i = 0; i < fx.y.data.size(); ++i) EXPECT_NEAR(fx.y.data[i], fz.y.data[i], 1e-13);
  for (size_t r = 0; r < fx.mean.size(); ++r) {
    EXPECT_NEAR(fz.mean[r], 3.5 * fx.mean[r] - 7.0, 1e-13);
    EXPECT_NEAR(fz.rstd[r], fx.rstd[r] / 3.5, 1e-13 * fx.rstd[r]);
  }
}

struct BackwardCase {
  int64_t rows, cols;
  bool affine;
};

class LayerNormRefBackwardTest : public ::testing::TestWithParam<BackwardCase> {};

TEST_P(LayerNormRefBackwardTest, MatchesFiniteDifferences) {
  const BackwardCase bc = GetParam();
  const uint8_t parts = bc.affine
                            ? ops::kLayerNormDx | ops::kLayerNormDweight | ops::kLayerNormDbias
                            : ops::kLayerNormDx;
  const LayerNormProblem p = Problem({bc.rows, bc.cols}, 1, bc.affine, 1e-5, parts);
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().to_string();
  const int64_t n = bc.rows * bc.cols;
  const HostTensor x = Random(n, 31, -1.0, 2.0);
  const HostTensor dy = Random(n, 32);
  const HostTensor w = Random(bc.cols, 33, 0.5, 1.5);
  const HostTensor b = Random(bc.cols, 34);
  const Forward f = RunForward(Problem({bc.rows, bc.cols}, 1, bc.affine), x,
                               bc.affine ? &w : nullptr, bc.affine ? &b : nullptr);
  HostTensor dx = make_vector(p.dtype, n);
  HostTensor dw = make_vector(p.dtype, bc.cols);
  HostTensor db = make_vector(p.dtype, bc.cols);
  dx.data.assign(n, NAN);
  ASSERT_TRUE(layernorm_backward(p, dy, x, f.mean, f.rstd, bc.affine ? &w : nullptr, &dx,
                                 bc.affine ? &dw : nullptr, bc.affine ? &db : nullptr)
                  .is_ok());

  constexpr double kH = 1e-6;
  std::vector<double> xs = x.data, ws = w.data, bs = b.data;
  auto check = [&](std::vector<double>& var, const std::vector<double>& got, const char* name) {
    for (size_t i = 0; i < var.size(); ++i) {
      const double saved = var[i];
      var[i] = saved + kH;
      const double up = Loss(p, xs, ws, bs, dy.data);
      var[i] = saved - kH;
      const double down = Loss(p, xs, ws, bs, dy.data);
      var[i] = saved;
      const double fd = (up - down) / (2 * kH);
      EXPECT_NEAR(got[i], fd, 1e-6 * (1.0 + std::fabs(fd))) << name << "[" << i << "]";
    }
  };
  check(xs, dx.data, "dx");
  if (bc.affine) {
    check(ws, dw.data, "dweight");
    check(bs, db.data, "dbias");
  }

  // Shifting a row of x changes nothing, so every row of dx sums to 0.
  for (int64_t r = 0; r < bc.rows; ++r) {
    double sum = 0.0, scale = 0.0;
    for (int64_t c = 0; c < bc.cols; ++c) {
      sum += dx.data[r * bc.cols + c];
      scale += std::fabs(dx.data[r * bc.cols + c]);
    }
    EXPECT_NEAR(sum, 0.0, 1e-14 * (1.0 + scale)) << "row " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormRefBackwardTest,
                         ::testing::Values(BackwardCase{3, 5, false}, BackwardCase{3, 5, true},
                                           BackwardCase{3, 7, false}, BackwardCase{3, 7, true},
                                           BackwardCase{1, 2, true}, BackwardCase{4, 1, true}));

TEST(LayerNormRefTest, BackwardComputesOnlyRequestedParts) {
  const LayerNormProblem p = Problem({2, 3}, 1, true, 1e-5, ops::kLayerNormDbias);
  const HostTensor x = Random(6, 41);
  const HostTensor dy = Random(6, 42);
  const HostTensor w = Random(3, 43);
  const HostTensor b = Random(3, 44);
  const Forward f = RunForward(Problem({2, 3}, 1, true), x, &w, &b);
  HostTensor db = make_vector(p.dtype, 3);
  ASSERT_TRUE(layernorm_backward(p, dy, x, f.mean, f.rstd, nullptr, nullptr, nullptr, &db).is_ok());
  for (int64_t c = 0; c < 3; ++c) EXPECT_DOUBLE_EQ(db.data[c], dy.data[c] + dy.data[3 + c]);
}

TEST(LayerNormRefTest, RejectsMissingOperands) {
  const LayerNormProblem p = Problem({2, 3}, 1, true);
  const HostTensor x = Random(6, 1);
  HostTensor y = make_vector(p.dtype, 6);
  std::vector<double> mean, rstd;
  EXPECT_FALSE(layernorm_forward(p, x, nullptr, nullptr, y, mean, rstd).is_ok());
  HostTensor short_y = make_vector(p.dtype, 5);
  const HostTensor w = Random(3, 2);
  EXPECT_FALSE(layernorm_forward(p, x, &w, &w, short_y, mean, rstd).is_ok());
}

}  // namespace
}  // namespace boo::reference
