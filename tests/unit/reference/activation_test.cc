// reference::apply_activation against published values and independent closed forms.
#include "boo/reference/activation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "boo/ops/activation.h"

namespace boo::reference {
namespace {

using ops::Activation;

constexpr double kPi = 3.14159265358979323846;

// Independent formulas, written from the definitions (not from the implementation).
double Expected(Activation a, double x) {
  switch (a) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0.0 ? x : 0.0;
    case Activation::kGelu:
      return x * 0.5 * std::erfc(-x / std::sqrt(2.0));  // x * Phi(x)
    case Activation::kGeluTanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x)));
    case Activation::kSilu:
      return x * (1.0 / (1.0 + std::exp(-x)));
    case Activation::kSigmoid:
      return std::exp(x) / (1.0 + std::exp(x));
    case Activation::kTanh:
      return (std::exp(2.0 * x) - 1.0) / (std::exp(2.0 * x) + 1.0);
    case Activation::kRelu6:
      return x < 0.0 ? 0.0 : (x > 6.0 ? 6.0 : x);
  }
  return NAN;
}

TEST(ActivationRefTest, KnownValues) {
  // Values from an independent evaluation (Python's math module).
  struct Case {
    Activation a;
    double x;
    double want;
  };
  const Case cases[] = {
      {Activation::kNone, -3.25, -3.25},
      {Activation::kRelu, -2.0, 0.0},
      {Activation::kRelu, 2.5, 2.5},
      {Activation::kRelu6, -1.0, 0.0},
      {Activation::kRelu6, 3.5, 3.5},
      {Activation::kRelu6, 7.0, 6.0},
      {Activation::kRelu6, 6.0, 6.0},
      {Activation::kGelu, 0.0, 0.0},
      {Activation::kGelu, 1.0, 0.8413447460685429},
      {Activation::kGelu, -0.5, -0.15426876936299344},
      {Activation::kGelu, 2.0, 1.9544997361036416},
      {Activation::kGeluTanh, 1.0, 0.8411919906082768},
      {Activation::kGeluTanh, -0.5, -0.15428599017485606},
      {Activation::kGeluTanh, 2.0, 1.954597694087775},
      {Activation::kSilu, 0.0, 0.0},
      {Activation::kSilu, 1.0, 0.7310585786300049},
      {Activation::kSilu, -0.5, -0.1887703343990727},
      {Activation::kSigmoid, 0.0, 0.5},
      {Activation::kSigmoid, 2.0, 0.8807970779778823},
      {Activation::kSigmoid, -0.5, 0.3775406687981454},
      {Activation::kTanh, 1.0, 0.7615941559557649},
      {Activation::kTanh, -0.5, -0.46211715726000974},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(apply_activation(c.a, c.x), c.want, 1e-15 * (1.0 + std::fabs(c.want)))
        << ops::activation_name(c.a) << "(" << c.x << ")";
  }
}

TEST(ActivationRefTest, MatchesIndependentFormulasOnAGrid) {
  for (Activation a : ops::kAllActivations) {
    for (double x = -9.0; x <= 9.0; x += 0.125) {
      EXPECT_NEAR(apply_activation(a, x), Expected(a, x), 1e-14 * (1.0 + std::fabs(x)))
          << ops::activation_name(a) << "(" << x << ")";
    }
  }
}

TEST(ActivationRefTest, LimitsAndSymmetries) {
  // Far tails: gelu and silu tend to relu, sigmoid to a step, tanh to sign.
  for (Activation a : {Activation::kGelu, Activation::kGeluTanh, Activation::kSilu}) {
    EXPECT_NEAR(apply_activation(a, 40.0), 40.0, 1e-12) << ops::activation_name(a);
    EXPECT_NEAR(apply_activation(a, -40.0), 0.0, 1e-12) << ops::activation_name(a);
  }
  EXPECT_NEAR(apply_activation(Activation::kSigmoid, 40.0), 1.0, 1e-15);
  EXPECT_NEAR(apply_activation(Activation::kSigmoid, -40.0), 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(apply_activation(Activation::kTanh, 40.0), 1.0);
  EXPECT_DOUBLE_EQ(apply_activation(Activation::kTanh, -40.0), -1.0);
  for (double x : {0.1, 0.7, 1.9, 4.2}) {
    // sigmoid(-x) = 1 - sigmoid(x); tanh is odd; gelu(x) - gelu(-x) = x.
    EXPECT_NEAR(apply_activation(Activation::kSigmoid, -x),
                1.0 - apply_activation(Activation::kSigmoid, x), 1e-15);
    EXPECT_NEAR(apply_activation(Activation::kTanh, -x), -apply_activation(Activation::kTanh, x),
                1e-15);
    EXPECT_NEAR(apply_activation(Activation::kGelu, x) - apply_activation(Activation::kGelu, -x), x,
                1e-14);
    EXPECT_NEAR(
        apply_activation(Activation::kGeluTanh, x) - apply_activation(Activation::kGeluTanh, -x), x,
        1e-14);
    EXPECT_NEAR(apply_activation(Activation::kSilu, x) - apply_activation(Activation::kSilu, -x), x,
                1e-14);
  }
}

TEST(ActivationRefTest, NamesRoundTrip) {
  for (Activation a : ops::kAllActivations) {
    const auto back = ops::activation_from_name(ops::activation_name(a));
    ASSERT_TRUE(back.has_value()) << ops::activation_name(a);
    EXPECT_EQ(*back, a);
  }
}

}  // namespace
}  // namespace boo::reference
