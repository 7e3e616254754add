// GEMM reference against hand-computed products and a naive triple loop over logical matrices
// (column-major buffers with padded leading dimensions, batches, broadcasts and the epilogue).
#include "boo/reference/gemm_ref.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "boo/ops/activation.h"
#include "boo/ops/gemm_problem.h"

namespace boo::reference {
namespace {

using ops::Activation;
using ops::GemmProblem;
using ops::Transpose;

constexpr double kSentinel = 777.0;  // D elements outside the M x N x batch entries

// A logical rows x cols matrix.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;  // row-major
  double& operator()(int64_t i, int64_t j) { return v[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

Mat RandomMat(int64_t rows, int64_t cols, Rng& rng) {
  Mat m{rows, cols, std::vector<double>(rows * cols)};
  for (double& x : m.v) x = rng.uniform(-1.0, 1.0);
  return m;
}

// Stores `op` (the matrix the product uses) column-major at `offset`: as is, or as its transpose
// when `trans` (then the buffer holds op^T, whose element (j, i) is op(i, j)).
void Store(const Mat& op, bool trans, int64_t ld, int64_t offset, std::vector<double>& buf) {
  for (int64_t i = 0; i < op.rows; ++i) {
    for (int64_t j = 0; j < op.cols; ++j) {
      buf.at(offset + (trans ? j + i * ld : i + j * ld)) = op(i, j);
    }
  }
}

double Act(Activation a, double x) {
  switch (a) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0 ? x : 0;
    case Activation::kGelu:
      return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case Activation::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case Activation::kSilu:
      return x / (1 + std::exp(-x));
    case Activation::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kRelu6:
      return x < 0 ? 0 : (x > 6 ? 6 : x);
  }
  return NAN;
}

struct Options {
  double scale_a = 1.0, scale_b = 1.0;
  uint64_t seed = 1;
};

// Builds random logical operands for `p`, runs the reference, and checks D element by element
// against the definition evaluated with a naive triple loop; also that nothing outside D's
// M x N x batch entries is written.
void CheckAgainstNaive(const GemmProblem& p, const Options& o = {}) {
  SCOPED_TRACE(p.key());
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().to_string();
  Rng rng(o.seed);
  std::vector<Mat> a, b, c;
  for (int64_t i = 0; i < p.batch; ++i) {
    // A stride of 0 broadcasts one matrix to every batch.
    a.push_back(i > 0 && p.stride_a == 0 ? a[0] : RandomMat(p.m, p.k, rng));
    b.push_back(i > 0 && p.stride_b == 0 ? b[0] : RandomMat(p.k, p.n, rng));
    c.push_back(i > 0 && p.stride_c == 0 ? c[0] : RandomMat(p.m, p.n, rng));
  }
  const Mat bias = RandomMat(1, p.m, rng);
  const Mat alpha_vector = RandomMat(1, p.m, rng);

  // Padding elements are NaN: reading one would poison the result.
  HostTensor ta = make_vector(p.a_type, gemm_operand_elements(p, 'A'));
  HostTensor tb = make_vector(p.b_type, gemm_operand_elements(p, 'B'));
  HostTensor tc = make_vector(p.c_type, gemm_operand_elements(p, 'C'));
  HostTensor td = make_vector(p.d_type, gemm_operand_elements(p, 'D'));
  ta.data.assign(ta.data.size(), NAN);
  tb.data.assign(tb.data.size(), NAN);
  tc.data.assign(tc.data.size(), NAN);
  td.data.assign(td.data.size(), kSentinel);
  for (int64_t i = 0; i < p.batch; ++i) {
    Store(a[i], p.trans_a == Transpose::kT, p.lda, i * p.stride_a, ta.data);
    Store(b[i], p.trans_b == Transpose::kT, p.ldb, i * p.stride_b, tb.data);
    Store(c[i], false, p.ldc, i * p.stride_c, tc.data);
  }
  HostTensor tbias = make_vector(p.bias_type, p.m);
  HostTensor tav = make_vector(core::DType::kF32, p.m);
  tbias.data = bias.v;
  tav.data = alpha_vector.v;

  GemmOperands in;
  in.a = &ta;
  in.b = &tb;
  in.c = p.reads_c() ? &tc : nullptr;
  in.bias = p.bias ? &tbias : nullptr;
  in.alpha_vector = p.alpha_vector ? &tav : nullptr;
  in.scale_a = o.scale_a;
  in.scale_b = o.scale_b;
  ASSERT_TRUE(gemm(p, in, td).is_ok());

  std::vector<bool> written(td.data.size(), false);
  for (int64_t bi = 0; bi < p.batch; ++bi) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double acc = 0.0;
        for (int64_t l = 0; l < p.k; ++l) acc += a[bi](i, l) * b[bi](l, j);
        const double alpha = p.alpha * (p.alpha_vector ? alpha_vector.v[i] : 1.0);
        double v = alpha * o.scale_a * o.scale_b * acc;
        if (p.beta != 0.0) v += p.beta * c[bi](i, j);
        if (p.bias) v += bias.v[i];
        const double want = Act(p.activation, v);
        const int64_t at = bi * p.stride_d + i + j * p.ldd;
        written[at] = true;
        ASSERT_NEAR(td.data[at], want, 1e-13 * (1.0 + std::fabs(want)))
            << "batch " << bi << " (" << i << ", " << j << ")";
      }
    }
  }
  for (size_t i = 0; i < td.data.size(); ++i) {
    if (!written[i]) {
      ASSERT_EQ(td.data[i], kSentinel) << "D[" << i << "] overwritten";
    }
  }
}

GemmProblem Problem(int64_t m, int64_t n, int64_t k, Transpose ta, Transpose tb) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.trans_a = ta;
  p.trans_b = tb;
  p.lda = p.a_rows() + 2;
  p.ldb = p.b_rows() + 1;
  p.ldc = m + 3;
  p.ldd = m + 1;
  return p;
}

TEST(GemmRefTest, HandComputed2x2x2) {
  // A = [1 2; 3 4], B = [5 6; 7 8] column-major; A B = [19 22; 43 50], A^T B = [26 30; 38 44].
  GemmProblem p = Problem(2, 2, 2, Transpose::kN, Transpose::kN);
  p.lda = p.ldb = p.ldc = p.ldd = 2;
  HostTensor a = make_vector(core::DType::kF32, 4);
  HostTensor b = make_vector(core::DType::kF32, 4);
  HostTensor c = make_vector(core::DType::kF32, 4);
  HostTensor d = make_vector(core::DType::kF32, 4);
  a.data = {1, 3, 2, 4};
  b.data = {5, 7, 6, 8};
  c.data = {1, 2, 3, 4};
  GemmOperands in;
  in.a = &a;
  in.b = &b;
  ASSERT_TRUE(gemm(p, in, d).is_ok());
  EXPECT_EQ(d.data, (std::vector<double>{19, 43, 22, 50}));

  p.trans_a = Transpose::kT;
  ASSERT_TRUE(gemm(p, in, d).is_ok());
  EXPECT_EQ(d.data, (std::vector<double>{26, 38, 30, 44}));

  // A B^T = [1*5+2*6 1*7+2*8; 3*5+4*6 3*7+4*8] = [17 23; 39 53].
  p.trans_a = Transpose::kN;
  p.trans_b = Transpose::kT;
  ASSERT_TRUE(gemm(p, in, d).is_ok());
  EXPECT_EQ(d.data, (std::vector<double>{17, 39, 23, 53}));

  // relu(2 A B - C + [10; -100]) with C = [1 3; 2 4]: [47 51; -16 -4] -> [47 51; 0 0].
  p.trans_b = Transpose::kN;
  p.alpha = 2.0;
  p.beta = -1.0;
  p.bias = true;
  p.activation = Activation::kRelu;
  HostTensor bias = make_vector(core::DType::kF32, 2);
  bias.data = {10, -100};
  in.c = &c;
  in.bias = &bias;
  ASSERT_TRUE(gemm(p, in, d).is_ok());
  EXPECT_EQ(d.data, (std::vector<double>{47, 0, 51, 0}));
}

TEST(GemmRefTest, AllTransposeCombinations) {
  for (Transpose ta : {Transpose::kN, Transpose::kT}) {
    for (Transpose tb : {Transpose::kN, Transpose::kT}) {
      CheckAgainstNaive(Problem(3, 4, 5, ta, tb));
      CheckAgainstNaive(Problem(7, 2, 1, ta, tb));
      CheckAgainstNaive(Problem(1, 5, 6, ta, tb));
    }
  }
}

TEST(GemmRefTest, BatchedWithStrides) {
  for (Transpose ta : {Transpose::kN, Transpose::kT}) {
    for (Transpose tb : {Transpose::kN, Transpose::kT}) {
      GemmProblem p = Problem(3, 4, 2, ta, tb);
      p.batch = 3;
      p.beta = 0.5;
      p.stride_a = p.lda * p.a_cols() + 5;
      p.stride_b = p.ldb * p.b_cols() + 1;
      p.stride_c = p.ldc * p.n;
      p.stride_d = p.ldd * p.n + 7;
      CheckAgainstNaive(p);
    }
  }
}

TEST(GemmRefTest, BatchBroadcastsWithStrideZero) {
  GemmProblem p = Problem(4, 3, 5, Transpose::kT, Transpose::kN);
  p.batch = 4;
  p.beta = 1.0;
  p.stride_a = p.lda * p.a_cols();
  p.stride_b = p.ldb * p.b_cols();
  p.stride_c = p.ldc * p.n;
  p.stride_d = p.ldd * p.n;
  GemmProblem broadcast_a = p;
  broadcast_a.stride_a = 0;
  CheckAgainstNaive(broadcast_a);
  GemmProblem broadcast_b = p;
  broadcast_b.stride_b = 0;
  CheckAgainstNaive(broadcast_b);
  GemmProblem broadcast_c = p;
  broadcast_c.stride_c = 0;
  CheckAgainstNaive(broadcast_c);
}

TEST(GemmRefTest, AlphaBetaWithC) {
  for (double alpha : {1.0, -0.75, 0.0}) {
    for (double beta : {0.0, 1.0, -1.5}) {
      GemmProblem p = Problem(5, 3, 4, Transpose::kN, Transpose::kT);
      p.alpha = alpha;
      p.beta = beta;
      CheckAgainstNaive(p);
    }
  }
}

TEST(GemmRefTest, BiasAndEveryActivation) {
  for (Activation act : ops::kAllActivations) {
    GemmProblem p = Problem(6, 5, 7, Transpose::kT, Transpose::kN);
    p.alpha = 3.0;  // spreads the pre-activations so relu6 saturates for some entries
    p.beta = 0.5;
    p.bias = true;
    p.activation = act;
    CheckAgainstNaive(p, {.seed = 3});
    p.bias = false;
    CheckAgainstNaive(p, {.seed = 4});
  }
}

TEST(GemmRefTest, Relu6Saturates) {
  // A = 4 * ones(2x3), B = ones(3x2): every product entry is 12, then relu6 caps it at 6.
  GemmProblem p = Problem(2, 2, 3, Transpose::kN, Transpose::kN);
  p.lda = 2;
  p.ldb = 3;
  p.ldd = 2;
  p.activation = Activation::kRelu6;
  HostTensor a = make_vector(core::DType::kF32, gemm_operand_elements(p, 'A'));
  HostTensor b = make_vector(core::DType::kF32, gemm_operand_elements(p, 'B'));
  HostTensor d = make_vector(core::DType::kF32, gemm_operand_elements(p, 'D'));
  a.data.assign(a.data.size(), 4.0);
  b.data.assign(b.data.size(), 1.0);
  GemmOperands in;
  in.a = &a;
  in.b = &b;
  ASSERT_TRUE(gemm(p, in, d).is_ok());
  EXPECT_EQ(d.data, (std::vector<double>{6, 6, 6, 6}));
}

TEST(GemmRefTest, AlphaVector) {
  GemmProblem p = Problem(4, 3, 2, Transpose::kN, Transpose::kN);
  p.alpha_vector = true;
  p.alpha = 1.0;
  CheckAgainstNaive(p);
  p.alpha = -2.0;  // alpha scales the vector
  p.beta = 1.0;
  p.bias = true;
  CheckAgainstNaive(p);
}

TEST(GemmRefTest, ScalesAAndB) {
  GemmProblem p = Problem(3, 3, 4, Transpose::kT, Transpose::kN);
  p.a_type = p.b_type = core::DType::kF8E4M3;
  p.c_type = p.d_type = core::DType::kBF16;
  p.scale_a = p.scale_b = ops::ScaleMode::kScalar;
  CheckAgainstNaive(p, {.scale_a = 0.5, .scale_b = 3.0});
  p.beta = 1.0;  // the scales apply to the product, not to C
  p.alpha = 2.0;
  CheckAgainstNaive(p, {.scale_a = 1.25, .scale_b = 0.75});
}

TEST(GemmRefTest, OperandElements) {
  GemmProblem p = Problem(3, 4, 5, Transpose::kT, Transpose::kN);  // lda 7, ldb 6, ldc 6, ldd 4
  p.batch = 2;
  p.stride_a = 100;
  p.stride_b = 0;
  p.stride_c = 30;
  p.stride_d = 16;
  // Stored A is K x M = 5 x 3: 7 * 2 + 5 (+ 100 for the second batch).
  EXPECT_EQ(gemm_operand_elements(p, 'A'), 7 * 2 + 5 + 100);
  EXPECT_EQ(gemm_operand_elements(p, 'B'), 6 * 3 + 5);
  EXPECT_EQ(gemm_operand_elements(p, 'C'), 6 * 3 + 3 + 30);
  EXPECT_EQ(gemm_operand_elements(p, 'D'), 4 * 3 + 3 + 16);
}

TEST(GemmRefTest, RejectsShortOperands) {
  GemmProblem p = Problem(3, 4, 5, Transpose::kN, Transpose::kN);
  HostTensor a = make_vector(core::DType::kF32, gemm_operand_elements(p, 'A') - 1);
  HostTensor b = make_vector(core::DType::kF32, gemm_operand_elements(p, 'B'));
  HostTensor d = make_vector(core::DType::kF32, gemm_operand_elements(p, 'D'));
  GemmOperands in;
  in.a = &a;
  in.b = &b;
  EXPECT_FALSE(gemm(p, in, d).is_ok());
  a = make_vector(core::DType::kF32, gemm_operand_elements(p, 'A'));
  EXPECT_TRUE(gemm(p, in, d).is_ok());
  p.beta = 1.0;  // C is now needed
  EXPECT_FALSE(gemm(p, in, d).is_ok());
  p.beta = 0.0;
  p.bias = true;
  EXPECT_FALSE(gemm(p, in, d).is_ok());
}

}  // namespace
}  // namespace boo::reference
