// Elementwise activations fused into epilogues (conv forward, GEMM). Computed in fp32 (fp64 in
// references) before the final conversion to the output type.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace boo::ops {

enum class Activation : uint8_t {
  kNone,
  kRelu,
  kGelu,      // exact: x * Phi(x) with the erf (PyTorch's default gelu)
  kGeluTanh,  // tanh approximation (PyTorch approximate='tanh'; hipBLASLt's and cuBLASLt's GELU)
  kSilu,      // x * sigmoid(x) (a.k.a. swish)
  kSigmoid,
  kTanh,
  kRelu6,
};

inline constexpr Activation kAllActivations[] = {
    Activation::kNone, Activation::kRelu,    Activation::kGelu, Activation::kGeluTanh,
    Activation::kSilu, Activation::kSigmoid, Activation::kTanh, Activation::kRelu6};

// "none", "relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "relu6".
std::string_view activation_name(Activation a);
std::optional<Activation> activation_from_name(std::string_view name);

}  // namespace boo::ops
