// conv.depthwise's channel vector: kVec channels of T in one aligned struct, shared by its
// kernels (conv_depthwise.cuh, conv_depthwise_rows.cuh, conv_depthwise_planes.cuh). load() and
// store() move it as one global access: assigning the struct through a pointer compiled to
// element-wise or 4-byte accesses (2-byte stores, which ncu showed using a quarter of each
// sector a request, in the first row kernel: bench/results/2026-11-27-conv-depthwise-rows-h100.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace boo_kernels {

template <class T, int kVec>
struct alignas(sizeof(T) * kVec) DepthwiseVector {
  static constexpr int kBytes = kVec * static_cast<int>(sizeof(T));
  T v[kVec];

  // One read-only load of 2, 4, 8 or 16 bytes.
  static __device__ __forceinline__ DepthwiseVector load(const T* p) {
    using Word = std::conditional_t<
        kBytes == 16, uint4,
        std::conditional_t<kBytes == 8, uint2,
                           std::conditional_t<kBytes == 4, unsigned, unsigned short>>>;
    const Word u = __ldg(reinterpret_cast<const Word*>(p));
    DepthwiseVector r;
    memcpy(&r, &u, sizeof(u));
    return r;
  }

  // One store of 8 or 16 bytes.
  __device__ __forceinline__ void store(T* p) const {
    static_assert(kBytes == 8 || kBytes == 16, "store() writes 8- or 16-byte vectors");
    uint32_t w[kBytes / 4];
    memcpy(w, this, sizeof(w));
    if constexpr (kBytes == 8) {
      asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");
    } else {
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w[0]), "r"(w[1]),
                   "r"(w[2]), "r"(w[3])
                   : "memory");
    }
  }
};

}  // namespace boo_kernels
