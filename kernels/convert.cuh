// Element conversions to and from fp32 on the device for every input and output type of boo's
// own kernels (fp32, fp16, bf16, fp8 e4m3/e5m2), round to nearest even.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace boo_kernels {

template <class T>
__device__ __forceinline__ float to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float to_float<__half>(__half v) {
  return __half2float(v);
}

template <class T>
__device__ __forceinline__ T from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}

// A 32-bit word of two 16-bit elements (the first in the low half) as fp32, exactly: bf16 by a
// shift and a mask (one instruction each, where a cvt of each half also extracts it), fp16 by
// one paired conversion.
template <class T>
__device__ __forceinline__ float2 widen_pair(uint32_t u) {
  static_assert(sizeof(T) == 2, "widen_pair takes two 16-bit elements");
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
  } else {
    __half2 h;
    memcpy(&h, &u, 4);
    return __half22float2(h);
  }
}

}  // namespace boo_kernels
