// conv.pointwise: forward 1x1 convolutions (stride 1, no padding, groups 1) with few channels,
// C and K at most kPointwiseMaxChannels, which tensor-core tiles waste (C = 35: a 35-wide K loop
// in 32-wide k-blocks, 35 outputs in a 64-wide tile, and copies to pad both to 8). Each output
// pixel is the product of its C input channels with the K x C filter, so the kernel streams
// pixels: blocks stage a tile of pixels' channels in shared memory (coalesced, any channel
// count), each thread multiplies one pixel by the filter (fp32 FMAs, the filter read from shared
// memory four outputs at a time), adds bias, applies the activation, and the tile goes back
// out through shared memory. The target is the memory floor: x read once, y written once.
//
// ConvPointwiseRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x and
// y arrive packed channels-last, so they are P x C and P x K matrices (P = N x spatial).
// Products are summed over the channels in order: deterministic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

constexpr int kPointwiseMaxChannels = 64;
constexpr int kPointwiseThreads = 256;  // one pixel per thread per tile
constexpr int kPointwiseBlocksPerSm = 3;

// kK: K rounded up to a multiple of 8 (the accumulators a thread keeps); the filter sits in
// shared memory as fp32 [C][kK] (zero past K), the bias as fp32 [kK], then the pixel tile
// (kPointwiseThreads rows of max(C, K) elements: x's channels, later y's).
template <class T, int kK, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kPointwiseThreads, kPointwiseBlocksPerSm)
    conv_pointwise_kernel(BooConvArgs a, int64_t pixels) {
  extern __shared__ float4 shared4[];
  float* filter = reinterpret_cast<float*>(shared4);
  float* bias = filter + a.c * kK;
  T* tile = reinterpret_cast<T*>(bias + kK);
  const int c_count = static_cast<int>(a.c), k_count = static_cast<int>(a.k);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  for (int i = threadIdx.x; i < c_count * kK; i += kPointwiseThreads) {
    const int c = i / kK, k = i % kK;
    filter[i] = k < k_count ? to_float(w[k * a.w_stride[0] + c * a.w_stride[1]]) : 0.0f;
  }
  for (int k = threadIdx.x; k < kK; k += kPointwiseThreads) {
    bias[k] = kHasBias && k < k_count ? to_float(static_cast<const T*>(a.bias)[k]) : 0.0f;
  }
  const float4* filter4 = reinterpret_cast<const float4*>(filter);
  for (int64_t p0 = static_cast<int64_t>(blockIdx.x) * kPointwiseThreads; p0 < pixels;
       p0 += static_cast<int64_t>(gridDim.x) * kPointwiseThreads) {
    const int rows =
        pixels - p0 < kPointwiseThreads ? static_cast<int>(pixels - p0) : kPointwiseThreads;
    // The tile's x: rows x C elements, contiguous in x and in the tile.
    const T* xt = x + p0 * c_count;
    for (int i = threadIdx.x; i < rows * c_count; i += kPointwiseThreads) tile[i] = xt[i];
    __syncthreads();  // (the first time also the filter and the bias)
    float acc[kK];
#pragma unroll
    for (int k = 0; k < kK; ++k) acc[k] = bias[k];
    if (threadIdx.x < rows) {
      const T* px = tile + threadIdx.x * c_count;
#pragma unroll 2
      for (int c = 0; c < c_count; ++c) {
        const float v = to_float(px[c]);
#pragma unroll
        for (int k = 0; k < kK; k += 4) {
          const float4 f = filter4[(c * kK + k) / 4];
          acc[k] += v * f.x;
          acc[k + 1] += v * f.y;
          acc[k + 2] += v * f.z;
          acc[k + 3] += v * f.w;
        }
      }
    }
    __syncthreads();  // every thread has read its pixel: the tile takes y's channels
    if (threadIdx.x < rows) {
      T* py = tile + threadIdx.x * k_count;
#pragma unroll
      for (int k = 0; k < kK; ++k) {
        if (k < k_count) py[k] = from_float<T>(activate<kAct>(acc[k]));
      }
    }
    __syncthreads();
    T* yt = y + p0 * k_count;
    for (int i = threadIdx.x; i < rows * k_count; i += kPointwiseThreads) yt[i] = tile[i];
    __syncthreads();  // the tile is free for the next pixels
  }
}

template <class T, bool kHasBias, int kAct>
struct ConvPointwiseRunner {
  static const char* reject(const BooConvArgs& a) {
    if (a.direction != BOO_CONV_FORWARD) return "conv.pointwise runs the forward pass only";
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups != 1) return "conv.pointwise needs groups = 1";
    for (int i = 0; i < 3; ++i) {
      if (a.filter[i] != 1 || a.stride[i] != 1 || a.pad[i] != 0) {
        return "conv.pointwise needs a 1x1 filter, stride 1 and no padding";
      }
    }
    if (a.c > kPointwiseMaxChannels || a.k > kPointwiseMaxChannels) {
      return "conv.pointwise takes at most 64 input and 64 output channels";
    }
    // Packed channels-last x and y (what ConvChannelsLastRunner hands over): P x C and P x K.
    const int64_t spatial = a.in[0] * a.in[1] * a.in[2];
    if (a.x_stride[1] != 1 || a.x_stride[4] != a.c || a.x_stride[3] != a.in[2] * a.c ||
        a.x_stride[2] != a.in[1] * a.in[2] * a.c || (a.n > 1 && a.x_stride[0] != spatial * a.c) ||
        a.y_stride[1] != 1 || a.y_stride[4] != a.k || a.y_stride[3] != a.out[2] * a.k ||
        a.y_stride[2] != a.out[1] * a.out[2] * a.k || (a.n > 1 && a.y_stride[0] != spatial * a.k)) {
      return "conv.pointwise needs packed channels-last x and y";
    }
    if (kHasBias && a.bias == nullptr) {
      return "the kernel adds a bias but the bias pointer is missing";
    }
    return nullptr;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    return reject_verdict(reject(a), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) { return reject(a) == nullptr ? 0 : -1; }

  template <int kK>
  static cudaError_t launch(const BooConvArgs& a, cudaStream_t s) {
    const int64_t pixels = a.n * a.in[0] * a.in[1] * a.in[2];
    const int64_t widest = a.c > a.k ? a.c : a.k;
    const size_t smem =
        static_cast<size_t>((a.c * kK + kK) * 4 + kPointwiseThreads * widest * sizeof(T));
    auto kernel = conv_pointwise_kernel<T, kK, kHasBias, kAct>;
    if (smem > 48 * 1024) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
      if (e != cudaSuccess) return e;
    }
    const int64_t tiles = (pixels + kPointwiseThreads - 1) / kPointwiseThreads;
    const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
    const int64_t most = kPointwiseBlocksPerSm * sms * 8;
    const unsigned grid = static_cast<unsigned>(tiles < most ? tiles : most);
    kernel<<<grid, kPointwiseThreads, smem, s>>>(a, pixels);
    return cudaGetLastError();
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    (void)ws;
    (void)ws_bytes;
    if (const int32_t v = reject_verdict(reject(a), why, len); v != BOO_OK) return v;
    if (a.dry_run) return BOO_OK;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    cudaError_t e;
    switch ((a.k + 7) / 8) {
      case 1:
        e = launch<8>(a, s);
        break;
      case 2:
        e = launch<16>(a, s);
        break;
      case 3:
        e = launch<24>(a, s);
        break;
      case 4:
        e = launch<32>(a, s);
        break;
      case 5:
        e = launch<40>(a, s);
        break;
      case 6:
        e = launch<48>(a, s);
        break;
      case 7:
        e = launch<56>(a, s);
        break;
      default:
        e = launch<64>(a, s);
        break;
    }
    return cuda_result(e, why, len);
  }
};

}  // namespace boo_kernels
