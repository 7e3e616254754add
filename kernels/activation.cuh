// Activations in fp32 on the device, matching reference/activation.cc's definitions:
// kind 0 none, 1 relu, 2 gelu (erf), 3 gelu_tanh, 4 silu, 5 sigmoid, 6 tanh, 7 relu6
// (the order of ops::Activation).
#pragma once

namespace boo_kernels {

template <int kKind>
__device__ __forceinline__ float activate(float x) {
  if constexpr (kKind == 1) return fmaxf(x, 0.0f);
  if constexpr (kKind == 2) return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  if constexpr (kKind == 3) {
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  }
  if constexpr (kKind == 4) return x / (1.0f + __expf(-x));
  if constexpr (kKind == 5) return 1.0f / (1.0f + __expf(-x));
  if constexpr (kKind == 6) return tanhf(x);
  if constexpr (kKind == 7) return fminf(fmaxf(x, 0.0f), 6.0f);
  return x;
}

}  // namespace boo_kernels
