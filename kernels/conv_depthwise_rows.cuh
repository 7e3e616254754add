// conv.depthwise's row kernel: forward depthwise convolutions whose filter is 3, 5, 7 or 9 taps
// wide with stride 1 or 2 and no dilation along W (any height and depth, stride, padding and
// dilation along them), multiplier 1 (or 2 with 3- and 5-wide filters), output channels in
// 8-byte vectors. The common case: MobileNet, EfficientNet and ConvNeXt layers and their
// backward data.
//
// A thread owns P output pixels along W of one output row (rows_outputs: 16 for filters at
// least 5 wide with stride 1, else 8) and one 8-byte vector of output channels (V = 4 for 16-bit
// types, 2 for fp32) and keeps their sums in registers. For each filter row it loads the (P - 1) S
// + F input columns its outputs reach, all in flight at once, widens each to fp32 once and
// multiplies it by every tap that reaches it, the filter row in registers: per input element one
// conversion and F / S FMAs. The tiled kernel, which read every tap's operand from shared memory
// with its own addressing, issued about 88 instructions per output channel and was bound by them
// (ncu, 2026-11-27-conv-depthwise-ncu-h100.txt).
//
// A block holds the filter of its channels (fp32, [vector][tap][lane]) in shared memory and takes
// the rows of one strip of P columns: threads of a row are the channel vectors
// (whole pixels per warp: coalesced), and vertically neighbouring threads read the same input
// rows, which L1 serves. Sums run over the taps in a fixed order: deterministic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_depthwise_vector.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// BOO_DEPTHWISE_ROWS=0 (through BOO_NVCC_FLAGS) turns the row kernel off, for measuring.
#ifndef BOO_DEPTHWISE_ROWS
#define BOO_DEPTHWISE_ROWS 1
#endif
// The span is loaded as 32-bit words (DepthwiseWords: one instruction an element to zero or
// widen, against three for 16-bit elements) for filters 3 to 7 wide, and as elements for 9-wide
// ones. H200, 2026-11-28 (bench/results/2026-11-28-memory-lines-h200.md, two rounds each): 3x3
// stride 2 67.1 against 74.6 us, 5x5 43.9 against 51.4, 7x7 56.0 against 72.5, multiplier 2
// 84.0 against 92.1, the public 3x3 56.8 in the public list (58.8 in the call before); but the
// 1D 1x9 layer 119.3 against 113.0. BOO_DEPTHWISE_ROWS_WORDS=0 loads elements everywhere, for
// measuring.
#ifndef BOO_DEPTHWISE_ROWS_WORDS
#define BOO_DEPTHWISE_ROWS_WORDS 1
#endif
#ifndef BOO_DEPTHWISE_ROWS_BLOCKS
#define BOO_DEPTHWISE_ROWS_BLOCKS 3
#endif
constexpr int kRowsThreads = 256;
// Output pixels along W per thread: 16 for filters at least 5 wide with stride 1 (in one call
// on an H100: 5x5 59.5 -> 53.5 us, 1x9 148.0 -> 118.0), else 8 (16 made the public 3x3 and a
// stride-2 3x3 5-6% slower; 4 was slower on all but stride 2:
// bench/results/2026-11-27-conv-depthwise-rows-h100.md).
// BOO_DEPTHWISE_ROWS_OUTPUTS=N (through BOO_NVCC_FLAGS) sets every width's, for measuring.
__host__ __device__ constexpr int rows_outputs(int64_t f, int64_t s) {
#ifdef BOO_DEPTHWISE_ROWS_OUTPUTS
  return (void)f, (void)s, BOO_DEPTHWISE_ROWS_OUTPUTS;
#else
  return f >= 5 && s == 1 ? 16 : 8;
#endif
}
constexpr int kRowsMaxVectors = 64;            // channel vectors per block at most
constexpr int64_t kRowsMaxShared = 96 * 1024;  // the staged filter's bytes at most

// A thread's output channels: an 8-byte vector.
template <class T>
constexpr int kRowsVector = 8 / static_cast<int>(sizeof(T));

// The block's filter as fp32, [channel vector][tap][kV] (zeros past K): a thread's taps are
// contiguous, read at constant offsets, and threads' strides of taps * kV words are odd
// multiples of 16 bytes for every odd tap count (no bank conflicts). A thread stages one
// channel's taps, walking them by counters (divisions per element cost the 3x3 public layer
// about a fifth of its instructions).
template <class T, int kV, int kF>
__device__ __forceinline__ void stage_rows_filter(float* dst, const BooConvArgs& a, int64_t k_base,
                                                  int width, int taps) {
  const T* __restrict__ w = static_cast<const T*>(a.w);
  for (int kl = static_cast<int>(threadIdx.x); kl < width; kl += static_cast<int>(blockDim.x)) {
    const int64_t k = k_base + kl;
    float* d = dst + kl / kV * taps * kV + kl % kV;
    if (k >= a.k) {
      for (int t = 0; t < taps; ++t) d[t * kV] = 0.0f;
      continue;
    }
    const T* wk = w + k * a.w_stride[0];
    for (int r0 = 0; r0 < static_cast<int>(a.filter[0]); ++r0) {
      for (int r1 = 0; r1 < static_cast<int>(a.filter[1]); ++r1, d += kF * kV) {
        const T* wr = wk + r0 * a.w_stride[2] + r1 * a.w_stride[3];
#pragma unroll
        for (int r2 = 0; r2 < kF; ++r2) d[r2 * kV] = to_float(wr[r2 * a.w_stride[4]]);
      }
    }
  }
}

// The kernel for filter width kF, W stride kS and channel multiplier kM (1 or 2: output
// channel k reads input channel k / kM, so a thread's kV output channels read kV / kM input
// channels). Blocks an SM: 3 (80 registers) where the sums, the span and the filter row fit them
// without spills, 2 for 16 outputs a thread and the 7- and 9-wide filters.
template <class T, bool kHasBias, int kAct, int kF, int kS, int kM>
__global__ void __launch_bounds__(kRowsThreads, kF >= 7 || rows_outputs(kF, kS) > 8
                                                    ? 2
                                                    : BOO_DEPTHWISE_ROWS_BLOCKS)
    conv_depthwise_rows_kernel(BooConvArgs a, int vectors, int th, int tw, int strip_groups) {
  constexpr int kV = kRowsVector<T>;
  constexpr int kIn = kV / kM;
  constexpr int kP = rows_outputs(kF, kS);
  constexpr int kSpan = (kP - 1) * kS + kF;  // input columns a thread's outputs reach
  constexpr bool kWords = BOO_DEPTHWISE_ROWS_WORDS != 0 && kF != 9;
  using Raw = std::conditional_t<kWords, DepthwiseWords<T, kIn>, DepthwiseVector<T, kIn>>;
  extern __shared__ float rows_filter[];  // [vectors][taps][kV]
  const int f1 = static_cast<int>(a.filter[1]);
  const int taps = static_cast<int>(a.filter[0]) * f1 * kF;
  const int64_t k_base = static_cast<int64_t>(blockIdx.y) * vectors * kV;
  stage_rows_filter<T, kV, kF>(rows_filter, a, k_base, vectors * kV, taps);
  __syncthreads();
  // The block: th output rows x tw strips of kP columns of image blockIdx.z (n, o0); the
  // thread: channel vector cv of strip (r % tw) in row (r / tw).
  const int tid = static_cast<int>(threadIdx.x);
  const int cv = tid % vectors;
  const int r = tid / vectors;
  const int64_t k0 = k_base + static_cast<int64_t>(cv) * kV;
  const int tile = static_cast<int>(blockIdx.x);
  const int64_t oh = static_cast<int64_t>(tile / strip_groups) * th + r / tw;
  const int strip = tile % strip_groups * tw + r % tw;
  const int out0 = static_cast<int>(a.out[0]);  // (n out0 <= 65535)
  const int64_t o0 = static_cast<int>(blockIdx.z) % out0;
  const int64_t n = static_cast<int>(blockIdx.z) / out0;
  if (r >= th * tw || k0 >= a.k || oh >= a.out[1] || int64_t{strip} * kP >= a.out[2]) {
    return;  // (after the block's only barrier)
  }
  const int ow0 = strip * kP;
  const int iw0 = ow0 * kS - static_cast<int>(a.pad[2]);
  const unsigned in2 = static_cast<unsigned>(a.in[2]);
  const int64_t xs4 = a.x_stride[4];
  // The thread's input row at its first span column (which may lie left of the image: only
  // columns inside it are read).
  const T* xn = static_cast<const T*>(a.x) + n * a.x_stride[0] + k0 / kM + iw0 * xs4;
  float acc[kP][kV];
#pragma unroll
  for (int j = 0; j < kP; ++j) {
#pragma unroll
    for (int e = 0; e < kV; ++e) acc[j][e] = 0.0f;
  }
  const float* ft = rows_filter + cv * taps * kV;  // advances a filter row at a time
  for (int r0 = 0; r0 < static_cast<int>(a.filter[0]); ++r0) {
    const int64_t i0 = o0 * a.stride[0] - a.pad[0] + r0 * a.dilation[0];
    if (i0 < 0 || i0 >= a.in[0]) {
      ft += f1 * kF * kV;
      continue;
    }
    for (int r1 = 0; r1 < f1; ++r1, ft += kF * kV) {
      const int64_t i1 = oh * a.stride[1] - a.pad[1] + r1 * a.dilation[1];
      if (i1 < 0 || i1 >= a.in[1]) continue;
      const T* p = xn + i0 * a.x_stride[2] + i1 * a.x_stride[3];
      Raw raw[kSpan];
#pragma unroll
      for (int c = 0; c < kSpan; ++c, p += xs4) {
        raw[c] = static_cast<unsigned>(iw0 + c) < in2 ? Raw::load(p) : Raw::zero();
      }
      float f[kF][kV];
#pragma unroll
      for (int t = 0; t < kF; ++t) {
#pragma unroll
        for (int e = 0; e < kV; ++e) f[t][e] = ft[t * kV + e];
      }
#pragma unroll
      for (int c = 0; c < kSpan; ++c) {
        float v[kIn];
        raw[c].widen(v);
        // Output j takes column c at tap t = c - j S: for each output, taps in ascending order.
#pragma unroll
        for (int t = 0; t < kF; ++t) {
          if (c < t || (c - t) % kS != 0 || (c - t) / kS >= kP) continue;
          const int j = (c - t) / kS;
#pragma unroll
          for (int e = 0; e < kV; ++e) acc[j][e] = fmaf(v[e / kM], f[t][e], acc[j][e]);
        }
      }
    }
  }
  float bias[kV];
#pragma unroll
  for (int e = 0; e < kV; ++e) {
    bias[e] = kHasBias ? to_float(static_cast<const T*>(a.bias)[k0 + e]) : 0.0f;
  }
  T* y = static_cast<T*>(a.y) + n * a.y_stride[0] + o0 * a.y_stride[2] + oh * a.y_stride[3] + k0 +
         ow0 * a.y_stride[4];
#pragma unroll
  for (int j = 0; j < kP; ++j) {
    if (ow0 + j >= a.out[2]) break;
    DepthwiseVector<T, kV> out;
#pragma unroll
    for (int e = 0; e < kV; ++e) out.v[e] = from_float<T>(activate<kAct>(acc[j][e] + bias[e]));
    out.store(y + j * a.y_stride[4]);
  }
}

// The row kernel's launch: which problems it takes and its grid.
template <class T, bool kHasBias, int kAct>
struct DepthwiseRows {
  static constexpr int kV = kRowsVector<T>;

  struct Plan {
    int vectors = 0, chunks = 0, th = 0, tw = 0;
    int64_t strip_groups = 0, tiles = 0, shared = 0;
  };

  // Channel vectors per block: all of them where there are at most kRowsMaxVectors, else the
  // fewest equal chunks of at most that many. The block's other dimension, 256 / vectors
  // threads, goes down the output rows (neighbours share input rows through L1), and along W
  // where the output is lower than that (1D).
  static Plan plan_of(const BooConvArgs& a) {
    Plan p;
    const int64_t vectors = a.k / kV;
    const int64_t chunks = (vectors + kRowsMaxVectors - 1) / kRowsMaxVectors;
    p.vectors = static_cast<int>((vectors + chunks - 1) / chunks);
    p.chunks = static_cast<int>((vectors + p.vectors - 1) / p.vectors);
    const int rows = kRowsThreads / p.vectors;
    p.th = static_cast<int>(a.out[1] < rows ? a.out[1] : rows);
    p.tw = rows / p.th;
    const int64_t outputs = rows_outputs(a.filter[2], a.stride[2]);
    const int64_t strips = (a.out[2] + outputs - 1) / outputs;
    p.strip_groups = (strips + p.tw - 1) / p.tw;
    p.tiles = (a.out[1] + p.th - 1) / p.th * p.strip_groups;
    p.shared = a.filter[0] * a.filter[1] * a.filter[2] * p.vectors * kV * 4;
    return p;
  }

  // The multiplier: 1 or 2 (2 only with 3- and 5-wide filters), else 0.
  static int64_t multiplier(const BooConvArgs& a) {
    if (a.k == a.c) return 1;
    return a.k == 2 * a.c && (a.filter[2] == 3 || a.filter[2] == 5) ? 2 : 0;
  }

  // Multiplier 1 or 2, whole 8-byte vectors of output channels (so whole 8 / m byte vectors of
  // input channels) with aligned pointers and strides, a filter width and W stride the kernel is
  // built for, no W dilation, and a grid that fits.
  static bool fits(const BooConvArgs& a) {
    const int64_t m = multiplier(a);
    if (!BOO_DEPTHWISE_ROWS || m == 0 || a.k % kV != 0 || a.dilation[2] != 1) return false;
    const int64_t f = a.filter[2];
    if (!(f == 3 || f == 5 || f == 7 || f == 9) || !(a.stride[2] == 1 || a.stride[2] == 2) ||
        (f == 9 && a.stride[2] != 1)) {
      return false;
    }
    for (int i = 0; i < 5; ++i) {
      if (i != 1 && (a.x_stride[i] % (kV / m) != 0 || a.y_stride[i] % kV != 0)) return false;
    }
    if (reinterpret_cast<uintptr_t>(a.x) % (8 / m) != 0 ||
        reinterpret_cast<uintptr_t>(a.y) % 8 != 0) {
      return false;
    }
    // (Column indices, padding and output widths are ints in the kernel.)
    if (a.filter[0] > 64 || a.filter[1] > 64 || a.in[2] > INT32_MAX / 4 ||
        a.out[2] > INT32_MAX / 4 || a.pad[2] > INT32_MAX / 4 || a.n * a.out[0] > 65535) {
      return false;
    }
    const Plan p = plan_of(a);
    return p.shared <= kRowsMaxShared && p.tiles <= INT32_MAX && p.chunks <= 65535;
  }

  template <int kF, int kS, int kM>
  static cudaError_t launch_with(const BooConvArgs& a, const Plan& p, cudaStream_t s) {
    auto kernel = conv_depthwise_rows_kernel<T, kHasBias, kAct, kF, kS, kM>;
    if (p.shared > 48 * 1024) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(p.shared));
      if (e != cudaSuccess) return e;
    }
    const dim3 grid(static_cast<unsigned>(p.tiles), static_cast<unsigned>(p.chunks),
                    static_cast<unsigned>(a.n * a.out[0]));
    kernel<<<grid, kRowsThreads, static_cast<size_t>(p.shared), s>>>(
        a, p.vectors, p.th, p.tw, static_cast<int>(p.strip_groups));
    return cudaGetLastError();
  }

  template <int kM>
  static cudaError_t launch_strided(const BooConvArgs& a, const Plan& p, cudaStream_t s) {
    const bool s1 = a.stride[2] == 1;
    switch (a.filter[2]) {
      case 3:
        return s1 ? launch_with<3, 1, kM>(a, p, s) : launch_with<3, 2, kM>(a, p, s);
      case 5:
        return s1 ? launch_with<5, 1, kM>(a, p, s) : launch_with<5, 2, kM>(a, p, s);
      case 7:
        if constexpr (kM == 1) {
          return s1 ? launch_with<7, 1, 1>(a, p, s) : launch_with<7, 2, 1>(a, p, s);
        }
        [[fallthrough]];
      default:
        if constexpr (kM == 1) return launch_with<9, 1, 1>(a, p, s);
        return cudaErrorInvalidValue;  // (fits() lets no other width through)
    }
  }

  static cudaError_t launch(const BooConvArgs& a, cudaStream_t s) {
    const Plan p = plan_of(a);
    return multiplier(a) == 1 ? launch_strided<1>(a, p, s) : launch_strided<2>(a, p, s);
  }
};

}  // namespace boo_kernels
