// conv.depthwise (DESIGN.md §3): forward depthwise convolution, G = C and K = m C (channel
// multiplier m >= 1), 1D/2D/3D, any stride, padding and dilation, fp32 / fp16 / bf16, bias and
// activation fused. Direct, with the memory floor as the target (x read once, y written once;
// the filter is small and stays on chip).
//
// The forward pass is ConvDepthwiseForwardRunner (conv_depthwise_planes.cuh): its plane kernel
// takes packed NCHW tensors as they are where it applies; everything else goes to
// ConvDepthwiseRunner as the inner runner of ConvChannelsLastRunner (conv_relayout.cuh), so x
// and y arrive channels-last (C, K contiguous) with 16-byte aligned pointers; other layouts are
// copied on the GPU first. Three kernels:
//   - the row kernel (conv_depthwise_rows.cuh), first where it applies: multiplier 1 (or 2 with
//     3- and 5-wide filters), 8-byte channel vectors, filters 3, 5, 7 or 9 wide with stride 1
//     or 2 along W;
//   - the tiled kernel (conv_depthwise_tile_kernel), when C and K are multiples of a 16-byte
//     vector and the window fits shared memory: blocks stage an input window and compute a
//     tile of output pixels from shared memory;
//   - the strip kernel (conv_depthwise_strip_kernel), for everything else (C = 3, 5, 35, ...,
//     multipliers that do not divide the block's channels, huge windows): threads walk output
//     strips along W, reading x through L1.
// All three sum fp32 products over the taps in a fixed order: deterministic.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_depthwise_planes.cuh"
#include "conv_depthwise_rolling.cuh"
#include "conv_depthwise_rows.cuh"
#include "conv_depthwise_vector.cuh"
#include "conv_relayout.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"

namespace boo_kernels {

constexpr int kDepthwiseThreads = 256;
// The strip kernel: output positions along W per thread; channel threads per block.
constexpr int kDepthwiseOutputs = 4;
constexpr int kDepthwiseMaxChannelThreads = 32;
constexpr int64_t kDepthwiseMaxShared = 96 * 1024;  // the staged filter's bytes at most
constexpr int64_t kDepthwiseMaxBlocks = int64_t{1} << 20;
// The tiled kernel: 16-byte channel vectors per pixel, threads, output pixels per thread and
// per block (a TH x TW tile), and its shared-memory budget for the input window and the
// filter.
// Tuning macros (BOO_NVCC_FLAGS=-DNAME=VALUE, for experiments): pixels per thread and the
// launch bound's blocks per SM.
#ifndef BOO_DEPTHWISE_PIXELS
#define BOO_DEPTHWISE_PIXELS 4
#endif
#ifndef BOO_DEPTHWISE_BLOCKS
#define BOO_DEPTHWISE_BLOCKS 3
#endif
constexpr int kTileVectors = 4;
constexpr int kTileThreads = 256;
constexpr int kTilePixelsPerThread = BOO_DEPTHWISE_PIXELS;
constexpr int kTileBlocksPerSm = BOO_DEPTHWISE_BLOCKS;
constexpr int kTilePixels = kTileThreads / kTileVectors * kTilePixelsPerThread;
constexpr int64_t kTileMaxShared = 96 * 1024;

// kVec channels of x at xp (the pixel's channel 0): one vector load at channel k0 when `vector`
// (m = 1, so the input channel is the output channel), else element by element, output channel
// k0 + e reading input channel (k0 + e) / m.
template <class T, int kVec>
__device__ __forceinline__ void depthwise_load(const T* xp, int64_t k0, int64_t mult,
                                               int64_t channel_stride, bool vector,
                                               DepthwiseVector<T, kVec>& out) {
  if (vector) {
    out = *reinterpret_cast<const DepthwiseVector<T, kVec>*>(xp + k0);
  } else {
#pragma unroll
    for (int e = 0; e < kVec; ++e) out.v[e] = xp[(k0 + e) / mult * channel_stride];
  }
}

// Both kernels' filter in shared memory: the taps of the `width` output channels from k_base as
// fp32, dst[tap][channel] (zeros past K), staged by the block's `threads` threads (this one is
// `tid`). The caller synchronizes before reading it.
template <class T>
__device__ __forceinline__ void stage_depthwise_filter(float* dst, const BooConvArgs& a,
                                                       int64_t k_base, int width, int tid,
                                                       int threads) {
  const T* __restrict__ w = static_cast<const T*>(a.w);
  // (At most kDepthwiseMaxShared / 4 values: int indices.)
  const int f1 = static_cast<int>(a.filter[1]);
  const int f2 = static_cast<int>(a.filter[2]);
  const int taps = static_cast<int>(a.filter[0]) * f1 * f2;
  for (int i = tid; i < taps * width; i += threads) {
    const int t = i / width;
    const int64_t k = k_base + i % width;
    const int r2 = t % f2;
    const int r1 = t / f2 % f1;
    const int r0 = t / (f1 * f2);
    dst[i] = k < a.k ? to_float(w[k * a.w_stride[0] + r0 * a.w_stride[2] + r1 * a.w_stride[3] +
                                  r2 * a.w_stride[4]])
                     : 0.0f;
  }
}

// The strip kernel, the tiled kernel's fallback: any channel count, width, stride and dilation.
// A block takes blockDim.x vectors of kVec output channels (16 bytes, or single channels when K
// is not a multiple of a vector) and stages their filter taps in shared memory as fp32,
// [tap][channel]. Its blockDim.y rows of threads take work items: an output strip of
// kDepthwiseOutputs positions along W at (n, d, h). Threads of a row read neighbouring channels
// of one pixel (whole lines per warp), one load per tap and output (L1 serves the repeats).
template <class T, bool kHasBias, int kAct, int kVec>
__global__ void __launch_bounds__(kDepthwiseThreads)
    conv_depthwise_strip_kernel(BooConvArgs a, int64_t items, int64_t strips) {
  extern __shared__ float depthwise_filter[];  // [tap][blockDim.x * kVec]
  const T* __restrict__ x = static_cast<const T*>(a.x);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int64_t mult = a.k / a.c;
  const int width = static_cast<int>(blockDim.x) * kVec;  // channels of the block
  const int64_t k_base = static_cast<int64_t>(blockIdx.y) * width;
  const int threads = static_cast<int>(blockDim.x * blockDim.y);
  const int tid = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  stage_depthwise_filter<T>(depthwise_filter, a, k_base, width, tid, threads);
  __syncthreads();
  const int64_t k0 = k_base + static_cast<int64_t>(threadIdx.x) * kVec;
  if (k0 >= a.k) return;  // (after the block's only barrier)
  const float* my_filter = depthwise_filter + threadIdx.x * kVec;
  float bias[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    bias[e] = kHasBias ? to_float(static_cast<const T*>(a.bias)[k0 + e]) : 0.0f;
  }
  const bool x_vector = kVec > 1 && mult == 1;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; item < items;
       item += step) {
    int64_t rest = item;
    const int64_t strip = rest % strips;
    rest /= strips;
    const int64_t o1 = rest % a.out[1];
    rest /= a.out[1];
    const int64_t o0 = rest % a.out[0];
    const int64_t n = rest / a.out[0];
    const int64_t o2_first = strip * kDepthwiseOutputs;
    float acc[kDepthwiseOutputs][kVec] = {};
    const T* xn = x + n * a.x_stride[0];
    for (int64_t r0 = 0; r0 < a.filter[0]; ++r0) {
      const int64_t i0 = o0 * a.stride[0] - a.pad[0] + r0 * a.dilation[0];
      if (i0 < 0 || i0 >= a.in[0]) continue;
      for (int64_t r1 = 0; r1 < a.filter[1]; ++r1) {
        const int64_t i1 = o1 * a.stride[1] - a.pad[1] + r1 * a.dilation[1];
        if (i1 < 0 || i1 >= a.in[1]) continue;
        const T* xrow = xn + i0 * a.x_stride[2] + i1 * a.x_stride[3];
        const float* frow = my_filter + (r0 * a.filter[1] + r1) * a.filter[2] * width;
        {
          for (int64_t r2 = 0; r2 < a.filter[2]; ++r2) {
            float f[kVec];
#pragma unroll
            for (int e = 0; e < kVec; ++e) f[e] = frow[r2 * width + e];
#pragma unroll
            for (int j = 0; j < kDepthwiseOutputs; ++j) {
              const int64_t i2 = (o2_first + j) * a.stride[2] - a.pad[2] + r2 * a.dilation[2];
              if (i2 < 0 || i2 >= a.in[2]) continue;
              DepthwiseVector<T, kVec> xv;
              depthwise_load<T, kVec>(xrow + i2 * a.x_stride[4], k0, mult, a.x_stride[1], x_vector,
                                      xv);
#pragma unroll
              for (int e = 0; e < kVec; ++e) acc[j][e] = fmaf(to_float(xv.v[e]), f[e], acc[j][e]);
            }
          }
        }
      }
    }
    T* yrow = y + n * a.y_stride[0] + o0 * a.y_stride[2] + o1 * a.y_stride[3];
#pragma unroll
    for (int j = 0; j < kDepthwiseOutputs; ++j) {
      const int64_t o2 = o2_first + j;
      if (o2 >= a.out[2]) continue;
      DepthwiseVector<T, kVec> out;
#pragma unroll
      for (int e = 0; e < kVec; ++e) out.v[e] = from_float<T>(activate<kAct>(acc[j][e] + bias[e]));
      *reinterpret_cast<DepthwiseVector<T, kVec>*>(yrow + o2 * a.y_stride[4] + k0) = out;
    }
  }
}

// The tiled kernel (any stride and dilation; the common case): a block takes a TH x TW tile of
// output pixels at (n, d) (TH * TW <= kTilePixels) and kTileVectors vectors of kVec output
// channels (CB channels), reading input channels [c_lo, c_lo + CB / m).
//   1. All threads stage the block's filter taps in shared memory ([tap][CB], fp32) and, for
//      each filter depth tap, the input window the tile reads ([IH][IW][CB / m], as T, zeros
//      outside the input) with cp.async, 16 bytes a copy, the whole window in flight at once
//      (a load-then-store loop kept one load in flight per thread: the public MobileNetV2 layer
//      took 154.6 against 118.3 us, bench/results/2026-11-27-conv-depthwise-cpasync-h100.md).
//   2. Each thread computes one channel vector of kTilePixelsPerThread pixels (tile pixels
//      P = p + j * kTileThreads / kTileVectors) over the taps from shared memory in a fixed
//      order (deterministic): every filter tap is read once for all of them. Then bias,
//      activation and 16-byte stores.
// Neighbouring tiles read the same halo pixels, which L2 serves: HBM sees x about once.
template <class T, bool kHasBias, int kAct, int kVec>
__global__ void __launch_bounds__(kTileThreads, kTileBlocksPerSm)
    conv_depthwise_tile_kernel(BooConvArgs a, int th, int tw, int tiles_w, int ih, int iw) {
  static_assert(sizeof(T) * kVec == 16, "the tiled kernel copies 16-byte vectors");
  extern __shared__ float4 tile_shared[];
  constexpr int kCB = kTileVectors * kVec;  // output channels of the block
  constexpr int kSlots = kTileThreads / kTileVectors;
  const int mult = static_cast<int>(a.k / a.c);
  const int cbin = kCB / mult;  // input channels of the block
  const int f1 = static_cast<int>(a.filter[1]);
  const int f2 = static_cast<int>(a.filter[2]);
  const int taps2 = f1 * f2;
  const int taps = static_cast<int>(a.filter[0]) * taps2;
  float* filter = reinterpret_cast<float*>(tile_shared);  // [tap][kCB]
  T* window = reinterpret_cast<T*>(filter + taps * kCB);  // [ih][iw][cbin]
  const T* __restrict__ x = static_cast<const T*>(a.x);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int tid = static_cast<int>(threadIdx.x);
  const int64_t k_base = static_cast<int64_t>(blockIdx.y) * kCB;
  const int64_t c_lo = k_base / mult;
  const int64_t o0 = blockIdx.z % a.out[0];
  const int64_t n = blockIdx.z / a.out[0];
  const int64_t oh0 = static_cast<int64_t>(blockIdx.x / tiles_w) * th;
  const int64_t ow0 = static_cast<int64_t>(blockIdx.x % tiles_w) * tw;
  stage_depthwise_filter<T>(filter, a, k_base, kCB, tid, kTileThreads);
  // This thread's outputs: channel vector q of tile pixels p + j * kSlots.
  const int q = tid % kTileVectors;
  const int p = tid / kTileVectors;
  const int64_t k0 = k_base + q * kVec;
  int base[kTilePixelsPerThread];  // window offset (elements) of each pixel's first tap
  bool live[kTilePixelsPerThread];
#pragma unroll
  for (int j = 0; j < kTilePixelsPerThread; ++j) {
    const int pix = p + j * kSlots;
    const int ph = pix / tw;
    const int pw = pix % tw;
    live[j] = ph < th && oh0 + ph < a.out[1] && ow0 + pw < a.out[2] && k0 < a.k;
    // (A pixel that is not stored reads the window's first pixel: no read leaves the window.)
    base[j] =
        (live[j]
             ? (ph * static_cast<int>(a.stride[1]) * iw + pw * static_cast<int>(a.stride[2])) * cbin
             : 0) +
        (mult == 1 ? q * kVec : 0);
  }
  // With m > 1, output channel k0 + e reads the block's input channel (q * kVec + e) / m.
  int in_channel[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) in_channel[e] = (q * kVec + e) / mult;
  float acc[kTilePixelsPerThread][kVec] = {};
  const int vectors_per_pixel = cbin / kVec;  // cbin is a multiple of kVec (see tiled())
  const int window_vectors = ih * iw * vectors_per_pixel;
  const int64_t h_first = oh0 * a.stride[1] - a.pad[1];
  const int64_t w_first = ow0 * a.stride[2] - a.pad[2];
  const int tap_h = static_cast<int>(a.dilation[1]) * iw * cbin;  // window step of r1
  const int tap_w = static_cast<int>(a.dilation[2]) * cbin;       // window step of r2
  for (int r0 = 0; r0 < static_cast<int>(a.filter[0]); ++r0) {
    const int64_t i0 = o0 * a.stride[0] - a.pad[0] + r0 * a.dilation[0];
    if (i0 < 0 || i0 >= a.in[0]) continue;  // (uniform over the block)
    __syncthreads();  // the previous depth tap's window is consumed (and the filter staged)
    const T* xd = x + n * a.x_stride[0] + i0 * a.x_stride[2] + c_lo;
    for (int v = tid; v < window_vectors; v += kTileThreads) {
      const int pix = v / vectors_per_pixel;
      const int cv = v - pix * vectors_per_pixel;
      const int row = pix / iw;
      const int64_t hh = h_first + row;
      const int64_t ww = w_first + (pix - row * iw);
      const bool inside =
          hh >= 0 && hh < a.in[1] && ww >= 0 && ww < a.in[2] && c_lo + cv * kVec < a.c;
      // (Outside the input: zero bytes read from x itself, the vector zero-filled.)
      cp_async_16(window + v * kVec,
                  inside ? xd + hh * a.x_stride[3] + ww * a.x_stride[4] + cv * kVec : x,
                  inside ? 16 : 0);
    }
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    const float* ft = filter + r0 * taps2 * kCB + q * kVec;
    for (int r1 = 0; r1 < f1; ++r1) {
      for (int r2 = 0; r2 < f2; ++r2, ft += kCB) {
        float f[kVec];
#pragma unroll
        for (int e = 0; e < kVec; e += 4) {
          const float4 v4 = *reinterpret_cast<const float4*>(ft + e);
          f[e] = v4.x;
          f[e + 1] = v4.y;
          f[e + 2] = v4.z;
          f[e + 3] = v4.w;
        }
        const int offset = r1 * tap_h + r2 * tap_w;
#pragma unroll
        for (int j = 0; j < kTilePixelsPerThread; ++j) {
          const T* px = window + base[j] + offset;
          if (mult == 1) {
            const DepthwiseVector<T, kVec> v =
                *reinterpret_cast<const DepthwiseVector<T, kVec>*>(px);
#pragma unroll
            for (int e = 0; e < kVec; ++e) acc[j][e] = fmaf(to_float(v.v[e]), f[e], acc[j][e]);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
              acc[j][e] = fmaf(to_float(px[in_channel[e]]), f[e], acc[j][e]);
            }
          }
        }
      }
    }
  }
  float bias[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    bias[e] = kHasBias && k0 < a.k ? to_float(static_cast<const T*>(a.bias)[k0 + e]) : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < kTilePixelsPerThread; ++j) {
    if (!live[j]) continue;
    const int pix = p + j * kSlots;
    DepthwiseVector<T, kVec> out;
#pragma unroll
    for (int e = 0; e < kVec; ++e) out.v[e] = from_float<T>(activate<kAct>(acc[j][e] + bias[e]));
    *reinterpret_cast<DepthwiseVector<T, kVec>*>(y + n * a.y_stride[0] + o0 * a.y_stride[2] +
                                                 (oh0 + pix / tw) * a.y_stride[3] +
                                                 (ow0 + pix % tw) * a.y_stride[4] + k0) = out;
  }
}

// kAct: ops::Activation as int. Forward (backward data through ConvDepthwiseDgradRunner below);
// the inner runner of ConvChannelsLastRunner.
template <class T, bool kHasBias, int kAct>
struct ConvDepthwiseRunner {
  static constexpr int kVector = 16 / static_cast<int>(sizeof(T));

  // Channels per thread: a 16-byte vector when K allows it (then, with m = 1, C = K too),
  // else one.
  static int vector_of(const BooConvArgs& a) { return a.k % kVector == 0 ? kVector : 1; }

  // Channel threads per block: at most 32, fewer when the staged taps would not fit.
  static int channel_threads(const BooConvArgs& a, int vec) {
    const int64_t vectors = (a.k + vec - 1) / vec;
    int64_t t = vectors < kDepthwiseMaxChannelThreads ? vectors : kDepthwiseMaxChannelThreads;
    const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
    while (t > 1 && taps * t * vec * 4 > kDepthwiseMaxShared) t /= 2;
    return static_cast<int>(t);
  }

  static int64_t shared_bytes(const BooConvArgs& a, int vec) {
    return a.filter[0] * a.filter[1] * a.filter[2] * channel_threads(a, vec) * vec * 4;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (a.direction != BOO_CONV_FORWARD) {
      write_why(why, len, "conv.depthwise runs the forward pass only");
      return BOO_UNSUPPORTED;
    }
    if (a.c < 1 || a.groups != a.c || a.k < a.c || a.k % a.c != 0) {
      write_why(why, len, "conv.depthwise needs groups = C and K a multiple of C");
      return BOO_UNSUPPORTED;
    }
    if (const char* e = conv_geometry_error(a)) {
      write_why(why, len, e);
      return BOO_UNSUPPORTED;
    }
    if (a.x_stride[1] != 1 || a.y_stride[1] != 1) {
      write_why(why, len, "conv.depthwise needs channels-last x and y");
      return BOO_UNSUPPORTED;
    }
    if (kHasBias && a.bias == nullptr) {
      write_why(why, len, "the kernel adds a bias but the bias pointer is missing");
      return BOO_UNSUPPORTED;
    }
    const int vec = vector_of(a);
    if (shared_bytes(a, vec) > kDepthwiseMaxShared) {
      write_why(why, len, "conv.depthwise: the filter has too many taps for shared memory");
      return BOO_UNSUPPORTED;
    }
    const int64_t strips = (a.out[2] + kDepthwiseOutputs - 1) / kDepthwiseOutputs;
    if ((a.k + vec - 1) / vec / channel_threads(a, vec) > 65535 ||
        a.n * a.out[0] * a.out[1] > INT64_MAX / strips) {
      write_why(why, len, "conv.depthwise: too many channels or output rows");
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }

  static int64_t workspace(const BooConvArgs& a) {
    return supports(a, nullptr, 0) == BOO_OK ? 0 : -1;
  }

  template <int kVec>
  static cudaError_t launch_strips(const BooConvArgs& a, cudaStream_t s) {
    const int cx = channel_threads(a, kVec);
    const int rows = kDepthwiseThreads / cx;
    const int64_t strips = (a.out[2] + kDepthwiseOutputs - 1) / kDepthwiseOutputs;
    const int64_t items = a.n * a.out[0] * a.out[1] * strips;
    int64_t bx = (items + rows - 1) / rows;
    if (bx > kDepthwiseMaxBlocks) bx = kDepthwiseMaxBlocks;
    const int64_t by = ((a.k + kVec - 1) / kVec + cx - 1) / cx;
    const int64_t smem = shared_bytes(a, kVec);
    auto kernel = conv_depthwise_strip_kernel<T, kHasBias, kAct, kVec>;
    if (smem > 48 * 1024) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
      if (e != cudaSuccess) return e;
    }
    kernel<<<dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by)), dim3(cx, rows),
             static_cast<size_t>(smem), s>>>(a, items, strips);
    return cudaGetLastError();
  }

  // The tiled kernel's tile: TH x TW output pixels (TH * TW = kTilePixels, TH at most the
  // output height) and the input window it reads.
  struct Tile {
    int th = 0, tw = 0, ih = 0, iw = 0;
    int64_t tiles_w = 0, tiles = 0, shared = 0;
  };

  static Tile shape(const BooConvArgs& a, int th, int tw) {
    Tile t;
    t.th = th;
    t.tw = tw;
    t.ih = static_cast<int>((t.th - 1) * a.stride[1] + (a.filter[1] - 1) * a.dilation[1] + 1);
    t.iw = static_cast<int>((t.tw - 1) * a.stride[2] + (a.filter[2] - 1) * a.dilation[2] + 1);
    t.tiles_w = (a.out[2] + t.tw - 1) / t.tw;
    t.tiles = (a.out[1] + t.th - 1) / t.th * t.tiles_w;
    const int64_t cb = kTileVectors * kVector;
    t.shared = a.filter[0] * a.filter[1] * a.filter[2] * cb * 4 +
               static_cast<int64_t>(t.ih) * t.iw * (cb / (a.k / a.c)) * sizeof(T);
    return t;
  }

  // TH = 8 rows (fewer when the output is lower) of kTilePixels / TH pixels; fewer rows while
  // the window does not fit the budget (strides and dilations widen it).
  static Tile tile_of(const BooConvArgs& a) {
    int th = a.out[1] < 8 ? static_cast<int>(a.out[1]) : 8;
    const int tw = kTilePixels / th;
    Tile t = shape(a, th, tw);
    while (t.shared > kTileMaxShared && th > 1) {
      th /= 2;
      t = shape(a, th, tw);
    }
    return t;
  }

  // Whether the tiled kernel takes the problem: channel vectors of 16 bytes in x and y (C and
  // K multiples of kVector), the multiplier dividing the block's channels into whole vectors,
  // and a window and filter that fit its shared-memory budget (the filter and stride sizes
  // are checked before anything is multiplied, so no product overflows).
  static bool tiled(const BooConvArgs& a) {
    constexpr int64_t cb = kTileVectors * kVector;
    const int64_t mult = a.k / a.c;
    if (a.c % kVector != 0 || a.k % kVector != 0 || cb % mult != 0 || (cb / mult) % kVector != 0) {
      return false;
    }
    for (int i = 1; i < 3; ++i) {
      if (a.filter[i] > 64 || a.stride[i] > 64 || a.dilation[i] > 64) return false;
    }
    if (a.filter[0] > 64) return false;
    const Tile t = tile_of(a);
    return t.shared <= kTileMaxShared && t.tiles <= 0x7fffffff && a.n * a.out[0] <= 65535 &&
           (a.k + cb - 1) / cb <= 65535;
  }

  static cudaError_t launch_tiles(const BooConvArgs& a, cudaStream_t s) {
    const Tile t = tile_of(a);
    constexpr int64_t cb = kTileVectors * kVector;
    const dim3 grid(static_cast<unsigned>(t.tiles), static_cast<unsigned>((a.k + cb - 1) / cb),
                    static_cast<unsigned>(a.n * a.out[0]));
    auto kernel = conv_depthwise_tile_kernel<T, kHasBias, kAct, kVector>;
    if (t.shared > 48 * 1024) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(t.shared));
      if (e != cudaSuccess) return e;
    }
    kernel<<<grid, kTileThreads, static_cast<size_t>(t.shared), s>>>(
        a, t.th, t.tw, static_cast<int>(t.tiles_w), t.ih, t.iw);
    return cudaGetLastError();
  }

  static int32_t run(const BooConvArgs& a, void*, int64_t, void* stream, char* why, int32_t len) {
    if (supports(a, why, len) != BOO_OK) return BOO_UNSUPPORTED;
    if (a.dry_run) return BOO_OK;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    using Rolling = DepthwiseRolling<T, kHasBias, kAct>;
    using Rows = DepthwiseRows<T, kHasBias, kAct>;
    const cudaError_t e = Rolling::fits(a)          ? Rolling::launch(a, s)
                          : Rows::fits(a)           ? Rows::launch(a, s)
                          : tiled(a)                ? launch_tiles(a, s)
                          : vector_of(a) == kVector ? launch_strips<kVector>(a, s)
                                                    : launch_strips<1>(a, s);
    return cuda_result(e, why, len);
  }
};

// Backward data of a depthwise convolution with stride 1 and multiplier 1 (K = C): dx is the
// forward depthwise convolution of dy with the filter flipped along every spatial axis and
// padding dilation * (R - 1) - pad. The flip is a pointer at the last tap with negated tap
// strides (the kernels read the filter only through stage_depthwise_filter's strides): no copy
// and no workspace. Also the inner runner of ConvChannelsLastRunner.
template <class T>
struct ConvDepthwiseDgradRunner {
  using Forward = ConvDepthwiseRunner<T, false, 0>;

  static const char* reject(const BooConvArgs& a) {
    if (a.direction != BOO_CONV_BACKWARD_DATA) return "this runner is for backward data";
    if (a.c < 1 || a.groups != a.c || a.k != a.c) {
      return "conv.depthwise backward data needs groups = C = K (multiplier 1)";
    }
    for (int i = 0; i < 3; ++i) {
      if (a.stride[i] != 1) return "conv.depthwise backward data needs stride 1";
      if (a.filter[i] < 1 || a.dilation[i] < 1 || a.pad[i] < 0 ||
          a.pad[i] > a.dilation[i] * (a.filter[i] - 1)) {
        return "conv.depthwise backward data needs padding within the dilated filter";
      }
    }
    return nullptr;
  }

  // The forward problem that computes dx: dy as its input, dx as its output.
  static BooConvArgs forward_of(const BooConvArgs& a) {
    BooConvArgs f = a;
    f.direction = BOO_CONV_FORWARD;
    f.x = a.y;
    f.y = a.x;
    f.bias = nullptr;
    int64_t last_tap = 0;
    for (int i = 0; i < 3; ++i) {
      f.in[i] = a.out[i];
      f.out[i] = a.in[i];
      f.pad[i] = a.dilation[i] * (a.filter[i] - 1) - a.pad[i];
      last_tap += (a.filter[i] - 1) * a.w_stride[2 + i];
      f.w_stride[2 + i] = -a.w_stride[2 + i];
    }
    for (int i = 0; i < 5; ++i) {
      f.x_stride[i] = a.y_stride[i];
      f.y_stride[i] = a.x_stride[i];
    }
    f.w = a.w == nullptr ? nullptr : static_cast<void*>(static_cast<T*>(a.w) + last_tap);
    return f;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (const int32_t v = reject_verdict(reject(a), why, len); v != BOO_OK) return v;
    return Forward::supports(forward_of(a), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    return supports(a, nullptr, 0) == BOO_OK ? 0 : -1;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    if (const int32_t v = reject_verdict(reject(a), why, len); v != BOO_OK) return v;
    return Forward::run(forward_of(a), ws, ws_bytes, stream, why, len);
  }
};

// Backward weight of a depthwise convolution (G = C, K = m C): dw[k][tap] is the sum over the
// images and output pixels of dy[k] times x[k / m] at the tap's input pixel. Two deterministic
// stages: blocks of 32 channels x 8 pixel rows walk a slice of the output pixels, each thread
// keeping one fp32 sum per tap of its group of taps (blockIdx.z: at most kDepthwiseWgradGroup
// taps per thread, so that any filter keeps the registers of a 3x3 one); the rows are summed in a
// fixed order into an fp32 partial per (slice, channel, tap) in the workspace; a second kernel
// sums the slices in order and writes dw through the filter's strides. Any stride, padding and
// dilation; at most kDepthwiseWgradMaxTaps taps.
// Tuning macros (BOO_NVCC_FLAGS=-DNAME=VALUE, for experiments): channels per thread at most (1
// or 2), and the launch bound's blocks per SM (3: 80 registers without spills).
#ifndef BOO_DEPTHWISE_WGRAD_VECTOR
#define BOO_DEPTHWISE_WGRAD_VECTOR 2
#endif
#ifndef BOO_DEPTHWISE_WGRAD_BLOCKS
#define BOO_DEPTHWISE_WGRAD_BLOCKS 3
#endif
constexpr int kDepthwiseWgradLanes = 32;  // channel slots per block
constexpr int kDepthwiseWgradRows = 8;    // pixel rows per block
constexpr int kDepthwiseWgradGroup = 9;   // taps per thread
constexpr int kDepthwiseWgradMaxTaps = 64;
constexpr int64_t kDepthwiseWgradMinPixels = 8;  // pixels per thread at least, where there are

// A warp's 32 lanes take 32 channels (kV = 1) or 32 pairs (kV = 2) of the same output pixel, so
// every branch on the pixel is uniform across the warp. Each thread walks a contiguous run of its
// slice's pixels, advancing the output coordinates by increments (a division per pixel bounded an
// earlier version). Where the whole filter window lies inside x (most pixels), the group's taps are
// read at offsets computed once per thread, unconditionally and all in flight together; border
// pixels take a checked path. A first version with a branch per tap issued one load latency per
// tap, and one that kept all 64 possible taps per thread spilled: 555 us against cuDNN's 171 on the
// 8 x 144 x 56 x 56 3x3 class (2026-11-24, H100).
template <class T, int kV>
__global__ void __launch_bounds__(kDepthwiseWgradLanes* kDepthwiseWgradRows,
                                  BOO_DEPTHWISE_WGRAD_BLOCKS)
    conv_depthwise_wgrad_partial_kernel(BooConvArgs a, float* __restrict__ partial, int64_t pixels,
                                        int64_t per_slice) {
  constexpr int kG = kDepthwiseWgradGroup;
  using Vec = DepthwiseVector<T, kV>;
  __shared__ float rows[kDepthwiseWgradRows][kDepthwiseWgradLanes * kV];
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ dy = static_cast<const T*>(a.y);
  const int lane = threadIdx.x, row = threadIdx.y;
  // The thread's first channel of dy (kV consecutive ones; with kV > 1 the multiplier is 1, so
  // they are x's channels too).
  const int64_t k = (static_cast<int64_t>(blockIdx.x) * kDepthwiseWgradLanes + lane) * kV;
  const int64_t slice = blockIdx.y;
  // Within an image every size, offset and coordinate fits an int (the runner checks).
  const int in0 = static_cast<int>(a.in[0]), in1 = static_cast<int>(a.in[1]),
            in2 = static_cast<int>(a.in[2]);
  const int out0 = static_cast<int>(a.out[0]), out1 = static_cast<int>(a.out[1]),
            out2 = static_cast<int>(a.out[2]);
  const int d0 = static_cast<int>(a.dilation[0]), d1 = static_cast<int>(a.dilation[1]),
            d2 = static_cast<int>(a.dilation[2]);
  const int xs2 = static_cast<int>(a.x_stride[2]), xs3 = static_cast<int>(a.x_stride[3]),
            xs4 = static_cast<int>(a.x_stride[4]);
  const int f1 = static_cast<int>(a.filter[1]), f2 = static_cast<int>(a.filter[2]);
  const int taps = static_cast<int>(a.filter[0]) * f1 * f2;
  const int t0 = static_cast<int>(blockIdx.z) * kG;  // the group's first tap
  const int count = taps - t0 < kG ? taps - t0 : kG;
  // The first tap's coordinates, and each tap's offset from the window's corner (0 past the
  // group's end: a read of the corner, never summed into a partial), in shared memory: under
  // the register bound the compiler recomputed them for every pixel (about 125 of the fast
  // loop's 300 instructions per pixel, which bound the kernel: ncu, H100, 8 x 144 x 56 x 56).
  const int s0 = t0 / (f1 * f2), s1 = t0 / f2 % f1, s2 = t0 % f2;
  __shared__ int toff[kG];
  if (row == 0 && lane < kG) {
    const int t = t0 + lane;
    toff[lane] =
        lane < count ? t / (f1 * f2) * d0 * xs2 + t / f2 % f1 * d1 * xs3 + t % f2 * d2 * xs4 : 0;
  }
  __syncthreads();
  // The window's corner b lies inside x with the whole window when 0 <= b < hi (unsigned
  // compares: a negative b is out).
  const unsigned hi0 = static_cast<unsigned>(in0 - (static_cast<int>(a.filter[0]) - 1) * d0);
  const unsigned hi1 = static_cast<unsigned>(in1 - (f1 - 1) * d1);
  const unsigned hi2 = static_cast<unsigned>(in2 - (f2 - 1) * d2);
  float acc[kG][kV];
#pragma unroll
  for (int t = 0; t < kG; ++t) {
#pragma unroll
    for (int j = 0; j < kV; ++j) acc[t][j] = 0.0f;
  }
  if (k < a.k) {
    const int64_t c = k / (a.k / a.c);
    const int64_t begin = slice * per_slice;
    const int64_t end = begin + per_slice < pixels ? begin + per_slice : pixels;
    const int64_t per_row = (end - begin + kDepthwiseWgradRows - 1) / kDepthwiseWgradRows;
    const int64_t first = begin + row * per_row;
    const int64_t last = first + per_row < end ? first + per_row : end;
    int o2 = 0, o1 = 0, o0 = 0;
    int64_t n = 0;
    if (first < last) {
      int64_t r = first;
      o2 = static_cast<int>(r % out2);
      r /= out2;
      o1 = static_cast<int>(r % out1);
      r /= out1;
      o0 = static_cast<int>(r % out0);
      n = r / out0;
    }
    const int ys2 = static_cast<int>(a.y_stride[2]), ys3 = static_cast<int>(a.y_stride[3]),
              ys4 = static_cast<int>(a.y_stride[4]);
    const int st0 = static_cast<int>(a.stride[0]), st1 = static_cast<int>(a.stride[1]),
              st2 = static_cast<int>(a.stride[2]);
    const int p0 = static_cast<int>(a.pad[0]), p1 = static_cast<int>(a.pad[1]),
              p2 = static_cast<int>(a.pad[2]);
    // Two walks over the thread's pixels: first those whose window lies inside x, then the
    // border ones, so that the second's bounds arithmetic does not hold registers during the
    // first (occupancy: the kernel waits on loads).
    const auto load = [](const T* p) { return *reinterpret_cast<const Vec*>(p); };
    const auto walk = [&](auto&& body) {
      int w2 = o2, w1 = o1, w0 = o0;
      const T* dyn = dy + n * a.y_stride[0] + k;
      const T* xn = x + n * a.x_stride[0] + c;
      for (int64_t pix = first; pix < last; ++pix) {
        const int b0 = w0 * st0 - p0, b1 = w1 * st1 - p1, b2 = w2 * st2 - p2;
        body(dyn + (w0 * ys2 + w1 * ys3 + w2 * ys4), xn, b0, b1, b2);
        if (++w2 == out2) {
          w2 = 0;
          if (++w1 == out1) {
            w1 = 0;
            if (++w0 == out0) {
              w0 = 0;
              dyn += a.y_stride[0];
              xn += a.x_stride[0];
            }
          }
        }
      }
    };
    const auto inside = [&](int b0, int b1, int b2) {
      return static_cast<unsigned>(b0) < hi0 && static_cast<unsigned>(b1) < hi1 &&
             static_cast<unsigned>(b2) < hi2;
    };
    walk([&](const T* dyp, const T* xn, int b0, int b1, int b2) {
      if (!inside(b0, b1, b2)) return;
      const Vec gv = load(dyp);
      const T* xw = xn + (b0 * xs2 + b1 * xs3 + b2 * xs4);
      Vec v[kG];
#pragma unroll
      for (int t = 0; t < kG; ++t) v[t] = load(xw + toff[t]);
#pragma unroll
      for (int t = 0; t < kG; ++t) {
#pragma unroll
        for (int j = 0; j < kV; ++j) acc[t][j] += to_float(gv.v[j]) * to_float(v[t].v[j]);
      }
    });
    walk([&](const T* dyp, const T* xn, int b0, int b1, int b2) {
      if (inside(b0, b1, b2)) return;
      const Vec gv = load(dyp);
      int q0 = s0, q1 = s1, q2 = s2;
      Vec v[kG];
      bool in[kG];
#pragma unroll
      for (int t = 0; t < kG; ++t) {
        const int i0 = b0 + q0 * d0, i1 = b1 + q1 * d1, i2 = b2 + q2 * d2;
        in[t] = t < count && static_cast<unsigned>(i0) < static_cast<unsigned>(in0) &&
                static_cast<unsigned>(i1) < static_cast<unsigned>(in1) &&
                static_cast<unsigned>(i2) < static_cast<unsigned>(in2);
        v[t] = load(xn + (in[t] ? i0 * xs2 + i1 * xs3 + i2 * xs4 : 0));
        q2 = q2 + 1 == f2 ? 0 : q2 + 1;
        q1 = q2 == 0 ? (q1 + 1 == f1 ? 0 : q1 + 1) : q1;
        q0 = q2 == 0 && q1 == 0 ? q0 + 1 : q0;
      }
#pragma unroll
      for (int t = 0; t < kG; ++t) {
#pragma unroll
        for (int j = 0; j < kV; ++j) {
          acc[t][j] += in[t] ? to_float(gv.v[j]) * to_float(v[t].v[j]) : 0.0f;
        }
      }
    });
  }
  // The rows' sums in a fixed order, one tap at a time (count is the same for every thread).
#pragma unroll
  for (int t = 0; t < kG; ++t) {
    if (t < count) {
#pragma unroll
      for (int j = 0; j < kV; ++j) rows[row][lane * kV + j] = acc[t][j];
      __syncthreads();
      // Row r of the block adds up channel slot lane + 32 r (of 32 kV).
      const int slot = lane + kDepthwiseWgradLanes * row;
      const int64_t kk = static_cast<int64_t>(blockIdx.x) * kDepthwiseWgradLanes * kV + slot;
      if (row < kV && kk < a.k) {
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < kDepthwiseWgradRows; ++i) sum += rows[i][slot];
        partial[(slice * a.k + kk) * taps + t0 + t] = sum;
      }
      __syncthreads();
    }
  }
}

// dw[k][tap] = the slices' partials summed in a fixed order: blocks of 8 x 128 threads take 8
// consecutive filter elements (one per lane: 32-byte reads), row r adding slices r, r + 128, ...
// in order, then a fixed pairwise tree over the rows. A programmatic dependent launch: its
// blocks wait here for the partial kernel's writes. (A warp per element with its lanes over the
// slices read 32 lines per load: 7.1 us on 1296 elements of 349 slices; 32 elements per block of
// 32 rows filled 41 SMs: 6.3 us; ncu, H100.)
constexpr int kDepthwiseWgradReduceLanes = 8;
constexpr int kDepthwiseWgradReduceRows = 128;
template <class T>
__global__ void __launch_bounds__(kDepthwiseWgradReduceLanes* kDepthwiseWgradReduceRows)
    conv_depthwise_wgrad_reduce_kernel(BooConvArgs a, const float* __restrict__ partial,
                                       int64_t slices) {
  constexpr int kL = kDepthwiseWgradReduceLanes, kR = kDepthwiseWgradReduceRows;
  __shared__ float sums[kR][kL];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  const int64_t f1 = a.filter[1], f2 = a.filter[2];
  const int64_t taps = a.filter[0] * f1 * f2;
  const int64_t total = a.k * taps;
  const int lane = threadIdx.x, row = threadIdx.y;
  T* __restrict__ w = static_cast<T*>(a.w);
  for (int64_t i0 = static_cast<int64_t>(blockIdx.x) * kL; i0 < total;
       i0 += static_cast<int64_t>(gridDim.x) * kL) {
    const int64_t i = i0 + lane;
    float sum = 0.0f;
    if (i < total) {
      int64_t s = row;
      for (; s + 3 * kR < slices; s += 4 * kR) {  // four slices' loads in flight
        const float u0 = partial[s * total + i], u1 = partial[(s + kR) * total + i];
        const float u2 = partial[(s + 2 * kR) * total + i];
        const float u3 = partial[(s + 3 * kR) * total + i];
        sum += u0;
        sum += u1;
        sum += u2;
        sum += u3;
      }
      for (; s < slices; s += kR) sum += partial[s * total + i];
    }
    sums[row][lane] = sum;
    __syncthreads();
#pragma unroll
    for (int half = kR / 2; half > 0; half /= 2) {
      if (row < half) sums[row][lane] += sums[row + half][lane];
      __syncthreads();
    }
    if (row == 0 && i < total) {
      const int64_t k = i / taps, t = i % taps;
      w[k * a.w_stride[0] + (t / (f1 * f2)) * a.w_stride[2] + (t / f2 % f1) * a.w_stride[3] +
        (t % f2) * a.w_stride[4]] = from_float<T>(sums[0][lane]);
    }
    __syncthreads();
  }
}

// Also the inner runner of ConvChannelsLastRunner (x and dy channels-last).
template <class T>
struct ConvDepthwiseWgradRunner {
  static const char* reject(const BooConvArgs& a) {
    if (a.direction != BOO_CONV_BACKWARD_WEIGHT) return "this runner is for backward weight";
    if (a.c < 1 || a.groups != a.c || a.k < a.c || a.k % a.c != 0) {
      return "conv.depthwise needs groups = C and K a multiple of C";
    }
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.filter[0] * a.filter[1] * a.filter[2] > kDepthwiseWgradMaxTaps) {
      return "conv.depthwise backward weight: at most 64 filter taps";
    }
    if (a.x_stride[1] != 1 || a.y_stride[1] != 1) {
      return "conv.depthwise needs channels-last x and dy";
    }
    if (a.n * a.out[0] * a.out[1] > INT64_MAX / a.out[2] || a.k > (int64_t{65535} << 5)) {
      return "conv.depthwise: too many channels or output pixels";
    }
    // The kernel's offsets within an image are ints: an image of x or dy (and its padded
    // window) spans fewer than 2^31 elements.
    int64_t x_span = a.c, y_span = a.k;
    for (int i = 0; i < 3; ++i) {
      if (a.x_stride[2 + i] < 0 || a.y_stride[2 + i] < 0) return "conv.depthwise: negative strides";
      x_span += (a.in[i] + a.pad[i] + a.filter[i] * a.dilation[i]) * a.x_stride[2 + i];
      y_span += a.out[i] * a.y_stride[2 + i];
    }
    if (x_span > INT32_MAX || y_span > INT32_MAX) {
      return "conv.depthwise backward weight: an image of x or dy spans 2^31 elements or more";
    }
    return nullptr;
  }

  struct Plan {
    int64_t pixels = 0, slices = 1, per_slice = 0, chunks = 0, groups = 1, bytes = 0;
  };

  // Two channels per thread (one 2-element load per pixel and tap) where the layout allows:
  // multiplier 1 and even channel counts and strides. The pointers' alignment is checked at the
  // launch, which falls back to one channel; the plan (and the workspace) follows the layout.
  static int vector_of(const BooConvArgs& a) {
    bool even = a.k == a.c && a.c % 2 == 0 && a.x_stride[0] % 2 == 0 && a.y_stride[0] % 2 == 0;
    for (int i = 2; i < 5; ++i) even = even && a.x_stride[i] % 2 == 0 && a.y_stride[i] % 2 == 0;
    return even && BOO_DEPTHWISE_WGRAD_VECTOR == 2 ? 2 : 1;
  }

  // Enough slices for one wave of blocks (BOO_DEPTHWISE_WGRAD_BLOCKS per SM: more waves of
  // shorter blocks spent a quarter of the kernel on each block's start and end, and left more
  // partials to add), each thread at least kDepthwiseWgradMinPixels pixels deep where there are
  // that many.
  static Plan plan_of(const BooConvArgs& a) {
    Plan p;
    p.pixels = a.n * a.out[0] * a.out[1] * a.out[2];
    const int64_t per_block = int64_t{kDepthwiseWgradLanes} * vector_of(a);
    p.chunks = (a.k + per_block - 1) / per_block;
    const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
    p.groups = (taps + kDepthwiseWgradGroup - 1) / kDepthwiseWgradGroup;
    const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
    const int64_t wave = BOO_DEPTHWISE_WGRAD_BLOCKS * sms;
    int64_t slices = (wave + p.chunks * p.groups - 1) / (p.chunks * p.groups);
    const int64_t rows = kDepthwiseWgradMinPixels * kDepthwiseWgradRows;
    const int64_t deepest = (p.pixels + rows - 1) / rows;
    if (slices > deepest) slices = deepest;
    if (slices > 65535) slices = 65535;
    if (slices < 1) slices = 1;
    p.per_slice = (p.pixels + slices - 1) / slices;
    p.slices = (p.pixels + p.per_slice - 1) / p.per_slice;
    p.bytes = (p.slices * a.k * taps * 4 + 255) / 256 * 256;
    return p;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    return reject_verdict(reject(a), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    return reject(a) == nullptr ? plan_of(a).bytes : -1;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    const Plan p = reject(a) == nullptr ? plan_of(a) : Plan{};
    const int32_t ready = conv_wrapper_ready(reject(a), 0, "", ws, p.bytes, ws_bytes, why, len);
    if (ready != BOO_OK || a.dry_run) return ready;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    float* partial = static_cast<float*>(ws);
    const dim3 block(kDepthwiseWgradLanes, kDepthwiseWgradRows);
    const auto aligned = [](const void* q) {
      return reinterpret_cast<uintptr_t>(q) % (2 * sizeof(T)) == 0;
    };
    if (vector_of(a) == 2 && aligned(a.x) && aligned(a.y)) {
      const dim3 grid(static_cast<unsigned>(p.chunks), static_cast<unsigned>(p.slices),
                      static_cast<unsigned>(p.groups));
      conv_depthwise_wgrad_partial_kernel<T, 2>
          <<<grid, block, 0, s>>>(a, partial, p.pixels, p.per_slice);
    } else {
      const int64_t chunks = (a.k + kDepthwiseWgradLanes - 1) / kDepthwiseWgradLanes;
      const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(p.slices),
                      static_cast<unsigned>(p.groups));
      conv_depthwise_wgrad_partial_kernel<T, 1>
          <<<grid, block, 0, s>>>(a, partial, p.pixels, p.per_slice);
    }
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_result(e, why, len);
    const int64_t total = a.k * a.filter[0] * a.filter[1] * a.filter[2];
    const int64_t blocks = (total + kDepthwiseWgradReduceLanes - 1) / kDepthwiseWgradReduceLanes;
    const unsigned grid = static_cast<unsigned>(blocks < 8 * 132 ? blocks : 8 * 132);
    return cuda_result(launch_dependent(conv_depthwise_wgrad_reduce_kernel<T>, dim3(grid),
                                        dim3(kDepthwiseWgradReduceLanes, kDepthwiseWgradReduceRows),
                                        s, a, static_cast<const float*>(partial), p.slices),
                       why, len);
  }
};

}  // namespace boo_kernels
