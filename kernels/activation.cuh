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
  // silu and sigmoid divide by the fast reciprocal (2 ulp): the IEEE division, 128 of them a
  // thread a tile, took an fp16 64x64 convolution with silu on conv.sm90_taps from 14.6 us
  // without an epilogue to 22.9; the fast one measured 23.5 -> 18.3 us there (H100,
  // bench/results/2026-11-27-conv-implicit-k64-h100.md). Where e^-x overflows the quotient is
  // 0, the limit of both.
  if constexpr (kKind == 4) return __fdividef(x, 1.0f + __expf(-x));
  if constexpr (kKind == 5) return __fdividef(1.0f, 1.0f + __expf(-x));
  if constexpr (kKind == 6) return tanhf(x);
  if constexpr (kKind == 7) return fminf(fmaxf(x, 0.0f), 6.0f);
  return x;
}

}  // namespace boo_kernels
