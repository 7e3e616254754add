// conv.pointwise: forward 1x1 convolutions (stride 1, no padding, groups 1) with few channels,
// C and K at most kPointwiseMaxChannels, which tensor-core GEMM tiles waste (C = 35: a 35-wide K
// loop in 32-wide k-blocks, 35 outputs in a 64-wide tile, and copies to pad both to 8). Each
// output pixel is the product of its C input channels with the K x C filter, so the kernels
// stream pixels: blocks stage tiles of 256 pixels' channels in shared memory, multiply them by
// the filter (16-bit types: mma.sync over rows padded to 16 channels; fp32: a pixel per thread,
// CUDA-core FMAs with the filter read from shared memory four outputs at a time), add bias,
// apply the activation, and send the tile back out through shared memory. The target is the
// memory floor: x read once, y written once.
//
// ConvPointwiseRunner is the inner runner of ConvChannelsLastRunner (conv_relayout.cuh): x and
// y arrive packed channels-last with 16-byte aligned pointers, so they are P x C and P x K
// matrices (P = N x spatial). Sums over the channels run in a fixed order: deterministic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"

namespace boo_kernels {

constexpr int kPointwiseMaxChannels = 64;
constexpr int kPointwiseThreads = 256;  // one pixel per thread per tile
constexpr int kPointwiseBlocksPerSm = 3;

// Copies `count` elements between global and shared memory, both 16-byte aligned (a tile starts
// 256 pixels into a packed tensor with a 16-byte aligned base, and after the 16-byte multiples
// of the filter and bias in shared memory): 16-byte vectors, up to four per thread in flight,
// then the tail element by element. Element-wise copies had one load latency per element per
// thread (C = 35: 35 latencies per tile).
template <class T>
__device__ __forceinline__ void copy_tile(T* __restrict__ dst, const T* __restrict__ src,
                                          int count) {
  constexpr int kPer = 16 / sizeof(T);
  const int vectors = count / kPer;
  const uint4* s4 = reinterpret_cast<const uint4*>(src);
  uint4* d4 = reinterpret_cast<uint4*>(dst);
  int i = threadIdx.x;
  for (; i + 3 * kPointwiseThreads < vectors; i += 4 * kPointwiseThreads) {
    uint4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = s4[i + j * kPointwiseThreads];
#pragma unroll
    for (int j = 0; j < 4; ++j) d4[i + j * kPointwiseThreads] = v[j];
  }
  for (; i < vectors; i += kPointwiseThreads) d4[i] = s4[i];
  for (int e = vectors * kPer + threadIdx.x; e < count; e += kPointwiseThreads) dst[e] = src[e];
}

// dst[i] = value(i) for i < count (at most kPer * kPointwiseThreads): each thread computes all of
// its values, their global loads in flight together, before it stores any. Staging the filter one
// load at a time cost each block a load latency per element (18 at C = K = 64): 5 to 8 us of
// fixed cost on small problems (bench/results/2026-11-25-conv-pointwise-h100.md).
template <int kPer, class D, class F>
__device__ __forceinline__ void fill_in_flight(D* __restrict__ dst, int count, F value) {
  D v[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int i = threadIdx.x + j * kPointwiseThreads;
    if (i < count) v[j] = value(i);
  }
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int i = threadIdx.x + j * kPointwiseThreads;
    if (i < count) dst[i] = v[j];
  }
}

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
  fill_in_flight<(kPointwiseMaxChannels * kK + kPointwiseThreads - 1) / kPointwiseThreads>(
      filter, c_count * kK, [&](int i) {
        const int c = i / kK, k = i % kK;
        return k < k_count ? to_float(w[k * a.w_stride[0] + c * a.w_stride[1]]) : 0.0f;
      });
  for (int k = threadIdx.x; k < kK; k += kPointwiseThreads) {
    bias[k] = kHasBias && k < k_count ? to_float(static_cast<const T*>(a.bias)[k]) : 0.0f;
  }
  const float4* filter4 = reinterpret_cast<const float4*>(filter);
  for (int64_t p0 = static_cast<int64_t>(blockIdx.x) * kPointwiseThreads; p0 < pixels;
       p0 += static_cast<int64_t>(gridDim.x) * kPointwiseThreads) {
    const int rows =
        pixels - p0 < kPointwiseThreads ? static_cast<int>(pixels - p0) : kPointwiseThreads;
    // The tile's x: rows x C elements, contiguous in x and in the tile.
    copy_tile(tile, x + p0 * c_count, rows * c_count);
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
    copy_tile(y + p0 * k_count, tile, rows * k_count);
    __syncthreads();  // the tile is free for the next pixels
  }
}

// The tensor-core kernel for 16-bit types: mma.sync m16n8k16 with fp32 accumulators. The tile's
// x sits in shared memory as rows of Cs = (C rounded up to 16) + 8 elements (the padding
// columns zero; the extra 8 put the rows of a fragment load in distinct banks), the filter as
// Kp = 8 kN rows of Cs (zero past K and C), the bias as fp32 [Kp], y's tile as rows of K
// elements, and the next tile of x as it arrives (raw). Each warp takes 32 pixels (two m16 tiles)
// over all kN n-tiles. The CUDA-core kernel spent about 1850 instructions per pixel at C = K = 35
// (33.7 us against cuDNN's 30 on the public 128 x 35 x 48 x 32 line, H100); here a pixel costs
// under ten.
template <class T, int kN, bool kHasBias, int kAct>
__global__ void __launch_bounds__(kPointwiseThreads)
    conv_pointwise_mma_kernel(BooConvArgs a, int64_t pixels) {
  extern __shared__ float4 shared4[];
  const int c_count = static_cast<int>(a.c), k_count = static_cast<int>(a.k);
  const int cs = (c_count + 15) / 16 * 16 + 8;
  const int k_steps = (c_count + 15) / 16;
  constexpr int kKp = 8 * kN;
  float* bias = reinterpret_cast<float*>(shared4);
  T* filter = reinterpret_cast<T*>(bias + kKp);  // 16-byte aligned: kKp * 4 is
  T* xs = filter + kKp * cs;                     // cs * 2 is a multiple of 16 bytes
  T* ys = xs + kPointwiseThreads * cs;
  T* raw = ys + kPointwiseThreads * ((k_count + 7) / 8 * 8);  // 16-byte aligned
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  const T zero = from_float<T>(0.0f);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  // x's tiles (rows x C elements, contiguous) come into `raw` by asynchronous 16-byte copies,
  // one tile ahead: the next tile's copies are in flight while the block multiplies the current
  // one and stores it. Then they are spread into rows of cs, shared memory to shared memory.
  constexpr int kPer = 16 / sizeof(T);
  const int64_t step = static_cast<int64_t>(gridDim.x) * kPointwiseThreads;
  const auto rows_at = [&](int64_t p) {
    return pixels - p < kPointwiseThreads ? static_cast<int>(pixels - p) : kPointwiseThreads;
  };
  const auto fetch = [&](int64_t p) {
    const T* src = x + p * c_count;
    const int vectors = rows_at(p) * c_count / kPer;
    for (int i = threadIdx.x; i < vectors; i += kPointwiseThreads) {
      cp_async_16(raw + i * kPer, src + i * kPer, 16);
    }
    cp_async_commit();
  };
  int64_t p0 = static_cast<int64_t>(blockIdx.x) * kPointwiseThreads;
  if (p0 < pixels) fetch(p0);
  // The filter, bias and padding while the first tile is in flight (the bias load too: a
  // thread's value, kKp <= 64 threads).
  const float bias_k = kHasBias && threadIdx.x < k_count
                           ? to_float(static_cast<const T*>(a.bias)[threadIdx.x])
                           : 0.0f;
  constexpr int kMaxRow = kPointwiseMaxChannels + 8;  // cs at C = 64
  fill_in_flight<(kKp * kMaxRow + kPointwiseThreads - 1) / kPointwiseThreads>(
      filter, kKp * cs, [&](int i) {
        const int k = i / cs, c = i - k * cs;
        return k < k_count && c < c_count ? w[k * a.w_stride[0] + c * a.w_stride[1]] : zero;
      });
  if (threadIdx.x < kKp) bias[threadIdx.x] = bias_k;
  // x's padding columns stay zero: the tiles write columns below C only. A row per thread.
  for (int c = c_count; c < cs; ++c) xs[threadIdx.x * cs + c] = zero;
  for (; p0 < pixels; p0 += step) {
    const int rows = rows_at(p0);
    cp_async_wait<0>();
    __syncthreads();  // raw holds the tile (the first time also the filter, bias, padding)
    if (threadIdx.x < rows) {
      // A pixel's row per thread; the tail of a tile whose elements are not whole vectors (the
      // last one only: 256 rows are whole) comes from global memory.
      const int whole = rows * c_count / kPer * kPer;
      const int e0 = threadIdx.x * c_count;
      const T* xt = x + p0 * c_count;
      T* row = xs + threadIdx.x * cs;
      for (int c = 0; c < c_count; ++c) row[c] = e0 + c < whole ? raw[e0 + c] : xt[e0 + c];
    }
    __syncthreads();  // xs holds the tile; raw is free
    if (p0 + step < pixels) fetch(p0 + step);
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      const int r0 = warp * 32 + m * 16;
      if (r0 >= rows) break;
      float acc[kN][4];
#pragma unroll
      for (int n = 0; n < kN; ++n) {
        acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
      }
      const T* xa = xs + (r0 + g) * cs + 2 * t;
      const T* wb = filter + g * cs + 2 * t;
      for (int ks = 0; ks < k_steps; ++ks) {
        uint32_t af[4];
        af[0] = *reinterpret_cast<const uint32_t*>(xa + ks * 16);
        af[1] = *reinterpret_cast<const uint32_t*>(xa + 8 * cs + ks * 16);
        af[2] = *reinterpret_cast<const uint32_t*>(xa + ks * 16 + 8);
        af[3] = *reinterpret_cast<const uint32_t*>(xa + 8 * cs + ks * 16 + 8);
#pragma unroll
        for (int n = 0; n < kN; ++n) {
          uint32_t bf[2];
          bf[0] = *reinterpret_cast<const uint32_t*>(wb + n * 8 * cs + ks * 16);
          bf[1] = *reinterpret_cast<const uint32_t*>(wb + n * 8 * cs + ks * 16 + 8);
          mma_16816<T>(acc[n], af, bf);
        }
      }
      // acc[n]: rows r0 + g and r0 + g + 8, columns 8 n + 2 t and 8 n + 2 t + 1.
#pragma unroll
      for (int n = 0; n < kN; ++n) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = r0 + g + 8 * h;
          if (r >= rows) continue;
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            const int col = 8 * n + 2 * t + j;
            if (col < k_count) {
              ys[r * k_count + col] = from_float<T>(activate<kAct>(acc[n][2 * h + j] + bias[col]));
            }
          }
        }
      }
    }
    __syncthreads();
    copy_tile(y + p0 * k_count, ys, rows * k_count);
    __syncthreads();  // the tiles are free for the next pixels
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
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.pointwise needs packed channels-last x and y";
    }
    if (kHasBias && a.bias == nullptr) {
      return "the kernel adds a bias but the bias pointer is missing";
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0) {
      return "conv.pointwise needs 16-byte aligned x and y";
    }
    return nullptr;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    return reject_verdict(reject(a), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) { return reject(a) == nullptr ? 0 : -1; }

  // kK: K rounded up to 8. 16-bit types run the tensor-core kernel, fp32 the CUDA-core one.
  template <int kK>
  static cudaError_t launch(const BooConvArgs& a, cudaStream_t s) {
    const int64_t pixels = a.n * a.in[0] * a.in[1] * a.in[2];
    size_t smem = 0;
    void (*kernel)(BooConvArgs, int64_t) = nullptr;
    if constexpr (sizeof(T) == 2) {
      const int64_t cs = (a.c + 15) / 16 * 16 + 8;
      smem = static_cast<size_t>(kK * 4 + (kK + kPointwiseThreads) * cs * sizeof(T) +
                                 kPointwiseThreads * (kK + a.c) * sizeof(T));
      kernel = conv_pointwise_mma_kernel<T, kK / 8, kHasBias, kAct>;
    } else {
      const int64_t widest = a.c > a.k ? a.c : a.k;
      smem = static_cast<size_t>((a.c * kK + kK) * 4 + kPointwiseThreads * widest * sizeof(T));
      kernel = conv_pointwise_kernel<T, kK, kHasBias, kAct>;
    }
    if (smem > 48 * 1024) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
      if (e != cudaSuccess) return e;
    }
    const int64_t tiles = (pixels + kPointwiseThreads - 1) / kPointwiseThreads;
    const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
    // One wave of blocks, each looping over tiles (the filter is staged once per block): as
    // many per SM as fit (shared memory, registers).
    int per_sm = 1;
    if (const cudaError_t e =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPointwiseThreads, smem);
        e != cudaSuccess) {
      return e;
    }
    if (per_sm < 1) per_sm = 1;
    const int64_t most = per_sm * sms;
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
