#include "boo/reference/activation.h"

#include <algorithm>
#include <cmath>

namespace boo::reference {

double apply_activation(ops::Activation a, double x) {
  using ops::Activation;
  switch (a) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return std::max(x, 0.0);
    case Activation::kGelu:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::kGeluTanh: {
      constexpr double kSqrt2OverPi = 0.7978845608028654;
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    }
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kRelu6:
      return std::min(std::max(x, 0.0), 6.0);
  }
  return x;
}

}  // namespace boo::reference
