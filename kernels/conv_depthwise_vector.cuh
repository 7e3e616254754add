// conv.depthwise's channel vector: kVec channels of T in one aligned struct, shared by its
// kernels (conv_depthwise.cuh, conv_depthwise_rows.cuh, conv_depthwise_planes.cuh). load() and
// store() move it as one global access: assigning the struct through a pointer compiled to
// element-wise or 4-byte accesses (2-byte stores, which ncu showed using a quarter of each
// sector a request, in the first row kernel: bench/results/2026-11-27-conv-depthwise-rows-h100.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "convert.cuh"

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

  // Zeros, and the channels as fp32 element by element (DepthwiseWords' interface, for measuring
  // the row kernel with -DBOO_DEPTHWISE_ROWS_WORDS=0).
  static __device__ __forceinline__ DepthwiseVector zero() {
    DepthwiseVector r;
#pragma unroll
    for (int e = 0; e < kVec; ++e) r.v[e] = from_float<T>(0.0f);
    return r;
  }
  __device__ __forceinline__ void widen(float (&out)[kVec]) const {
#pragma unroll
    for (int e = 0; e < kVec; ++e) out[e] = to_float(v[e]);
  }

  // One store of 4, 8 or 16 bytes.
  __device__ __forceinline__ void store(T* p) const {
    static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16,
                  "store() writes 4-, 8- or 16-byte vectors");
    uint32_t w[kBytes / 4];
    memcpy(w, this, sizeof(w));
    if constexpr (kBytes == 4) {
      asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(w[0]) : "memory");
    } else if constexpr (kBytes == 8) {
      asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");
    } else {
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w[0]), "r"(w[1]),
                   "r"(w[2]), "r"(w[3])
                   : "memory");
    }
  }
};

// kVec channels of T (4 or 8 bytes) held as 32-bit words, for loads that are widened to fp32
// at once. Zeroing a word and widening bf16 by a shift or a mask cost one instruction each; the
// 16-bit elements of DepthwiseVector cost three per element (zero, extract, shift: PRMT, PRMT,
// IMAD.U32 in the row kernel's SASS, 120 of its 297 instructions a filter row; ncu on the
// public 3x3 layer, bench/results/2026-11-28-memory-lines-h200.md: ALU the busiest pipe).
template <class T, int kVec>
struct DepthwiseWords {
  static constexpr int kBytes = kVec * static_cast<int>(sizeof(T));
  static_assert(kBytes == 4 || kBytes == 8, "DepthwiseWords holds 4 or 8 bytes");
  static constexpr int kWords = kBytes / 4;
  unsigned w[kWords];

  // One read-only load of kBytes.
  static __device__ __forceinline__ DepthwiseWords load(const T* p) {
    DepthwiseWords r;
    if constexpr (kWords == 2) {
      const uint2 u = __ldg(reinterpret_cast<const uint2*>(p));
      r.w[0] = u.x;
      r.w[1] = u.y;
    } else {
      r.w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
    }
    return r;
  }

  // Zeros: +0 in every type.
  static __device__ __forceinline__ DepthwiseWords zero() {
    DepthwiseWords r;
#pragma unroll
    for (int i = 0; i < kWords; ++i) r.w[i] = 0u;
    return r;
  }

  // The channels as fp32 (exact for every T).
  __device__ __forceinline__ void widen(float (&out)[kVec]) const {
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      if constexpr (std::is_same_v<T, float>) {
        out[i] = __uint_as_float(w[i]);
      } else {
        const float2 pair = widen_pair<T>(w[i]);
        out[2 * i] = pair.x;
        out[2 * i + 1] = pair.y;
      }
    }
  }
};

}  // namespace boo_kernels
