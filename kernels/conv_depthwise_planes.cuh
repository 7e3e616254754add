// conv.depthwise's plane kernel: forward depthwise convolutions on packed NCHW (NCW, NCDHW)
// tensors, read and written in place with no layout copies: PyTorch's default layout. It takes
// "same" filters along W (3, 5, 7 or 9 wide, stride 1, no dilation, padding (F - 1) / 2) with W
// a multiple of a 16-byte vector, any multiplier, and any size, stride, padding and dilation
// along H and D. Other NCHW problems go through the channels-last copies
// (ConvChannelsLastRunner) to the row kernel.
//
// In NCHW each channel is a plane, so a depthwise convolution is one small 2D convolution per
// plane. A thread owns kV outputs along W (one 16-byte vector: 8 of a 16-bit type, 4 fp32) of
// planes_rows() output rows: per filter row and output row it loads the three aligned input vectors
// around them (the middle one and its neighbours, which hold the taps' halo; neighbouring lanes
// load the same vectors, which L1 serves), widens the elements the taps reach once, and multiplies
// them by the filter row, read from global memory (every lane of a plane reads the same taps). Sums
// run over the taps in a fixed order: deterministic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_depthwise_vector.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// BOO_DEPTHWISE_PLANES=0 (through BOO_NVCC_FLAGS) turns the plane kernel off, for measuring.
#ifndef BOO_DEPTHWISE_PLANES
#define BOO_DEPTHWISE_PLANES 1
#endif
constexpr int kPlanesThreads = 256;
// Output rows per thread (the filter row is read once for all of them): 4 for 16-bit 3-wide
// filters, else 2. On an H100 (bench/results/2026-11-27-conv-depthwise-planes-h100.md, rows 1 /
// 2 / 4): the public bf16 3x3 81.0 / 79.1 / 70.9 us, a bf16 7x7 74.3 / 68.2 / 74.6, an fp32
// 3x3 107.5 / 82.4 / 101.0. BOO_DEPTHWISE_PLANES_ROWS=N (through BOO_NVCC_FLAGS) sets every
// case's, for measuring.
__host__ __device__ constexpr int planes_rows(int element_bytes, int64_t f) {
#ifdef BOO_DEPTHWISE_PLANES_ROWS
  return (void)element_bytes, (void)f, BOO_DEPTHWISE_PLANES_ROWS;
#else
  return element_bytes == 2 && f == 3 ? 4 : 2;
#endif
}

// A thread's outputs along W: one 16-byte vector.
template <class T>
constexpr int kPlanesVector = 16 / static_cast<int>(sizeof(T));

template <class T, bool kHasBias, int kAct, int kF>
__global__ void __launch_bounds__(kPlanesThreads)
    conv_depthwise_planes_kernel(BooConvArgs a, int threads, int strips) {
  constexpr int kV = kPlanesVector<T>;
  using Vec = DepthwiseVector<T, kV>;
  constexpr int kPad = (kF - 1) / 2;
  constexpr int kPlanesRows = planes_rows(static_cast<int>(sizeof(T)), kF);
  // The window: the vectors left of, at and right of the thread's outputs, 3 kV elements from
  // ow0 - kV; output j's tap t reads element kV - kPad + j + t.
  constexpr int kFirst = kV - kPad, kLast = 2 * kV - 1 + kF - 1 - kPad;
  // The thread's coordinates by 32-bit divisions (fits() keeps every count below 2^31; 64-bit
  // ones cost about as much as the thread's taps): output rows oh0 .. oh0 + kPlanesRows - 1.
  const int g = static_cast<int>(blockIdx.x) * kPlanesThreads + static_cast<int>(threadIdx.x);
  if (g >= threads) return;
  int rest = g / strips;
  const int ow0 = (g - rest * strips) * kV;
  const int groups = (static_cast<int>(a.out[1]) + kPlanesRows - 1) / kPlanesRows;
  const int out0 = static_cast<int>(a.out[0]), kk = static_cast<int>(a.k);
  const int64_t oh0 = static_cast<int64_t>(rest % groups) * kPlanesRows;
  rest /= groups;
  const int64_t o0 = rest % out0;
  rest /= out0;
  const int64_t k = rest % kk;
  const int64_t n = rest / kk;
  const int64_t c = k / (kk / static_cast<int>(a.c));
  const T* xp = static_cast<const T*>(a.x) + n * a.x_stride[0] + c * a.x_stride[1] + ow0;
  const T* wk = static_cast<const T*>(a.w) + k * a.w_stride[0];
  const bool has_left = ow0 > 0, has_right = ow0 + kV < a.in[2];
  float acc[kPlanesRows][kV];
#pragma unroll
  for (int q = 0; q < kPlanesRows; ++q) {
#pragma unroll
    for (int j = 0; j < kV; ++j) acc[q][j] = 0.0f;
  }
  for (int r0 = 0; r0 < static_cast<int>(a.filter[0]); ++r0) {
    const int64_t i0 = o0 * a.stride[0] - a.pad[0] + r0 * a.dilation[0];
    if (i0 < 0 || i0 >= a.in[0]) continue;
    for (int r1 = 0; r1 < static_cast<int>(a.filter[1]); ++r1) {
      const T* wr = wk + r0 * a.w_stride[2] + r1 * a.w_stride[3];
      float f[kF];
#pragma unroll
      for (int t = 0; t < kF; ++t) f[t] = to_float(__ldg(wr + t * a.w_stride[4]));
#pragma unroll
      for (int q = 0; q < kPlanesRows; ++q) {
        const int64_t i1 = (oh0 + q) * a.stride[1] - a.pad[1] + r1 * a.dilation[1];
        if (i1 < 0 || i1 >= a.in[1]) continue;
        const T* row = xp + i0 * a.x_stride[2] + i1 * a.x_stride[3];
        Vec part[3];
        part[1] = Vec::load(row);
#pragma unroll
        for (int e = 0; e < kV; ++e) part[0].v[e] = part[2].v[e] = from_float<T>(0.0f);
        if (has_left) part[0] = Vec::load(row - kV);
        if (has_right) part[2] = Vec::load(row + kV);
        float win[3 * kV];
#pragma unroll
        for (int i = kFirst; i <= kLast; ++i) win[i] = to_float(part[i / kV].v[i % kV]);
#pragma unroll
        for (int j = 0; j < kV; ++j) {
#pragma unroll
          for (int t = 0; t < kF; ++t) acc[q][j] = fmaf(win[kFirst + j + t], f[t], acc[q][j]);
        }
      }
    }
  }
  const float bias = kHasBias ? to_float(static_cast<const T*>(a.bias)[k]) : 0.0f;
  T* y = static_cast<T*>(a.y) + n * a.y_stride[0] + k * a.y_stride[1] + o0 * a.y_stride[2] + ow0;
#pragma unroll
  for (int q = 0; q < kPlanesRows; ++q) {
    if (oh0 + q >= a.out[1]) break;
    Vec out;
#pragma unroll
    for (int j = 0; j < kV; ++j) out.v[j] = from_float<T>(activate<kAct>(acc[q][j] + bias));
    out.store(y + (oh0 + q) * a.y_stride[3]);
  }
}

// The plane kernel's launch: which problems it takes, in their callers' layout.
template <class T, bool kHasBias, int kAct>
struct DepthwisePlanes {
  static constexpr int kV = kPlanesVector<T>;

  // Packed NCHW: planes of D x H x W per channel, channels per image. The strides of unit
  // extents are whatever the caller set (the ABI gives a 2D problem's depth the batch stride);
  // the kernel never multiplies them by anything but 0.
  static bool packed_planes(const int64_t stride[5], int64_t n, int64_t channels,
                            const int64_t e[3]) {
    const int64_t plane = e[0] * e[1] * e[2];
    return stride[4] == 1 && (e[1] == 1 || stride[3] == e[2]) &&
           (e[0] == 1 || stride[2] == e[1] * e[2]) && (channels == 1 || stride[1] == plane) &&
           (n == 1 || stride[0] == channels * plane);
  }

  static bool fits(const BooConvArgs& a) {
    if (!BOO_DEPTHWISE_PLANES || a.direction != BOO_CONV_FORWARD) return false;
    if (a.c < 1 || a.groups != a.c || a.k < a.c || a.k % a.c != 0) return false;
    const int64_t f = a.filter[2];
    if (!(f == 3 || f == 5 || f == 7 || f == 9) || a.stride[2] != 1 || a.dilation[2] != 1 ||
        a.pad[2] != (f - 1) / 2 || a.in[2] % kV != 0 || a.out[2] != a.in[2]) {
      return false;
    }
    if (!packed_planes(a.x_stride, a.n, a.c, a.in) || !packed_planes(a.y_stride, a.n, a.k, a.out)) {
      return false;
    }
    if (a.x == nullptr || a.y == nullptr || a.w == nullptr ||
        reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0) {
      return false;
    }
    if (conv_geometry_error(a) != nullptr || (kHasBias && a.bias == nullptr)) return false;
    // (Thread indices, output rows and columns are ints in the kernel.)
    return threads_of(a) + kPlanesThreads < INT32_MAX && a.out[1] < INT32_MAX / 8 &&
           a.out[2] < INT32_MAX / 2;
  }

  // A thread per planes_rows output rows of one vector.
  static int64_t threads_of(const BooConvArgs& a) {
    const int64_t rows = planes_rows(static_cast<int>(sizeof(T)), a.filter[2]);
    return a.n * a.k * a.out[0] * ((a.out[1] + rows - 1) / rows) * (a.out[2] / kV);
  }

  template <int kF>
  static cudaError_t launch_with(const BooConvArgs& a, cudaStream_t s) {
    const int strips = static_cast<int>(a.out[2] / kV);
    const int64_t threads = threads_of(a);
    const int64_t blocks = (threads + kPlanesThreads - 1) / kPlanesThreads;
    conv_depthwise_planes_kernel<T, kHasBias, kAct, kF>
        <<<static_cast<unsigned>(blocks), kPlanesThreads, 0, s>>>(a, static_cast<int>(threads),
                                                                  strips);
    return cudaGetLastError();
  }

  static cudaError_t launch(const BooConvArgs& a, cudaStream_t s) {
    switch (a.filter[2]) {
      case 3:
        return launch_with<3>(a, s);
      case 5:
        return launch_with<5>(a, s);
      case 7:
        return launch_with<7>(a, s);
      default:
        return launch_with<9>(a, s);
    }
  }
};

// conv.depthwise's forward runner for the caller's tensors: the plane kernel where it takes the
// problem as it is (packed NCHW), else `ChannelsLast` (ConvChannelsLastRunner over
// ConvDepthwiseRunner: copies to channels-last where needed).
template <class ChannelsLast, class T, bool kHasBias, int kAct>
struct ConvDepthwiseForwardRunner {
  using Planes = DepthwisePlanes<T, kHasBias, kAct>;

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    return Planes::fits(a) ? BOO_OK : ChannelsLast::supports(a, why, len);
  }

  // The copies' workspace even where the plane kernel takes the problem: dispatch plans with
  // aligned stand-in pointers, and real ones that are not 16-byte aligned take the copies.
  static int64_t workspace(const BooConvArgs& a) {
    const int64_t copies = ChannelsLast::workspace(a);
    return copies < 0 && Planes::fits(a) ? 0 : copies;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    if (!Planes::fits(a)) return ChannelsLast::run(a, ws, ws_bytes, stream, why, len);
    if (a.dry_run) return BOO_OK;
    return cuda_result(Planes::launch(a, static_cast<cudaStream_t>(stream)), why, len);
  }
};

}  // namespace boo_kernels
