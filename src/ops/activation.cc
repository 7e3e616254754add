#include "boo/ops/activation.h"

namespace boo::ops {

std::string_view activation_name(Activation a) {
  switch (a) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kGelu:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kTanh:
      return "tanh";
    case Activation::kRelu6:
      return "relu6";
  }
  return "?";
}

std::optional<Activation> activation_from_name(std::string_view name) {
  for (Activation a : kAllActivations) {
    if (activation_name(a) == name) return a;
  }
  return std::nullopt;
}

}  // namespace boo::ops
