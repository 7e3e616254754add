// boo's own activations (activation.cuh) as CUTLASS epilogue functors, for the activations
// where CUTLASS's cost more than they need: its SiLu and Sigmoid divide by IEEE division after
// an accurate expf, per output element; boo's use __expf and the fast division (2 ulp), as
// boo's own kernels do (bench/results/2026-11-27-conv-implicit-k64-h100.md). The sm90
// epilogue visitors apply a functor to fragments (cutlass::Array), and its Arguments-less form
// to single values.
#pragma once

#include "activation.cuh"
#include "cutlass/array.h"

namespace boo_kernels {

template <int kKind, class T>
struct CutlassActivation {
  static const bool kIsHeavy = true;
  CUTLASS_HOST_DEVICE T operator()(T const& x) const {
#if defined(__CUDA_ARCH__)
    return T(activate<kKind>(static_cast<float>(x)));
#else
    return x;  // (epilogues run on the device only)
#endif
  }
};

template <int kKind, class T, int N>
struct CutlassActivation<kKind, cutlass::Array<T, N>> {
  static const bool kIsHeavy = true;
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& v) const {
    cutlass::Array<T, N> out;
    CutlassActivation<kKind, T> f;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) out[i] = f(v[i]);
    return out;
  }
};

template <class T>
using CutlassSiLu = CutlassActivation<4, T>;
template <class T>
using CutlassSigmoid = CutlassActivation<5, T>;

}  // namespace boo_kernels
