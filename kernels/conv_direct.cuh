// conv.direct: the always-correct convolution (DESIGN.md §3). Any layout (element strides of
// BooConvArgs), fp32 / fp16 / bf16, groups (depthwise included), stride, padding, dilation,
// 1D/2D/3D, all three directions, bias and activation in the forward pass; products are exact
// fp32 FMAs summed in fp32 whatever the class's math mode. It is the reference the fast
// algorithms fall back to, so it stays simple:
//   forward:         one thread per y element, loops over the filter taps and the group's C/G
//                    input channels;
//   backward data:   one thread per dx element, loops over the taps that hit an output
//                    position (in + pad - tap * dilation divisible by the stride) and the
//                    group's K/G output channels;
//   backward weight: one block per dw element (per up to 32 of them that differ in the input
//                    channel when x is channels-last), its threads stride over the
//                    N * output-spatial reduction, then a fixed-order shared-memory tree sums
//                    the partials (deterministic: same bits every run of the same arguments;
//                    the chunking, and so the summation order, follows x's layout).
// Every output element is written (zero where no tap contributes). No workspace.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>

#include "activation.cuh"
#include "conv_common.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

constexpr int kDirectThreads = 256;
// Grid-stride loops cover anything beyond this many blocks.
constexpr int64_t kDirectMaxBlocks = int64_t{1} << 20;

// A linear index split into (outer, channel, s0, s1, s2) where (s0, s1, s2) is the D, H, W
// position. The order decides which neighbouring threads touch neighbouring memory: channels
// innermost for channels-last tensors, W innermost otherwise. Index is uint32_t when every count
// fits, since 64-bit divisions cost several times as much and run once per element.
struct DirectCoords {
  int64_t outer, channel, s0, s1, s2;
};

template <class Index>
__device__ __forceinline__ DirectCoords direct_split(int64_t linear, Index channels, Index e0,
                                                     Index e1, Index e2, bool channels_inner) {
  Index i = static_cast<Index>(linear);
  DirectCoords c;
  Index ch = 0;
  if (channels_inner) {
    ch = i % channels;
    i /= channels;
  }
  const Index s2 = i % e2;
  i /= e2;
  const Index s1 = i % e1;
  i /= e1;
  const Index s0 = i % e0;
  i /= e0;
  if (!channels_inner) {
    ch = i % channels;
    i /= channels;
  }
  c.outer = static_cast<int64_t>(i);
  c.channel = static_cast<int64_t>(ch);
  c.s0 = static_cast<int64_t>(s0);
  c.s1 = static_cast<int64_t>(s1);
  c.s2 = static_cast<int64_t>(s2);
  return c;
}

// 16 bytes of elements, loaded as one vector.
template <class T>
struct alignas(16) DirectVector {
  T v[16 / sizeof(T)];
};

// kVector: x and w are channels-contiguous with 16-byte aligned channel runs (see
// ConvDirectRunner::vector_forward), so the channel loop reads 16 bytes at a time. Same
// products in the same order as the scalar loop: the result is bit-identical.
template <class T, bool kHasBias, int kAct, bool kVector, class Index>
__global__ void __launch_bounds__(kDirectThreads)
    conv_direct_fprop_kernel(BooConvArgs a, int64_t total, bool channels_inner) {
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int64_t cg = a.c / a.groups;
  const int64_t kg = a.k / a.groups;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const DirectCoords o = direct_split<Index>(
        i, static_cast<Index>(a.k), static_cast<Index>(a.out[0]), static_cast<Index>(a.out[1]),
        static_cast<Index>(a.out[2]), channels_inner);
    const int64_t n = o.outer;
    const int64_t k = o.channel;
    const T* xn = x + n * a.x_stride[0] + (k / kg) * cg * a.x_stride[1];
    const T* wk = w + k * a.w_stride[0];
    float acc = 0.0f;
    for (int64_t r0 = 0; r0 < a.filter[0]; ++r0) {
      const int64_t i0 = o.s0 * a.stride[0] - a.pad[0] + r0 * a.dilation[0];
      if (i0 < 0 || i0 >= a.in[0]) continue;
      for (int64_t r1 = 0; r1 < a.filter[1]; ++r1) {
        const int64_t i1 = o.s1 * a.stride[1] - a.pad[1] + r1 * a.dilation[1];
        if (i1 < 0 || i1 >= a.in[1]) continue;
        for (int64_t r2 = 0; r2 < a.filter[2]; ++r2) {
          const int64_t i2 = o.s2 * a.stride[2] - a.pad[2] + r2 * a.dilation[2];
          if (i2 < 0 || i2 >= a.in[2]) continue;
          const T* xp = xn + i0 * a.x_stride[2] + i1 * a.x_stride[3] + i2 * a.x_stride[4];
          const T* wp = wk + r0 * a.w_stride[2] + r1 * a.w_stride[3] + r2 * a.w_stride[4];
          if constexpr (kVector) {
            // Lanes of a warp hold neighbouring K in channels-last layouts: their filter rows
            // are far apart, and one 16-byte load per lane instead of 8 (or 4) scalar ones
            // cuts the L1 wavefronts that bound this loop.
            constexpr int kLanes = 16 / static_cast<int>(sizeof(T));
            for (int64_t cc = 0; cc < cg; cc += kLanes) {
              const DirectVector<T> xv = *reinterpret_cast<const DirectVector<T>*>(xp + cc);
              const DirectVector<T> wv = *reinterpret_cast<const DirectVector<T>*>(wp + cc);
#pragma unroll
              for (int j = 0; j < kLanes; ++j) {
                acc = fmaf(to_float(xv.v[j]), to_float(wv.v[j]), acc);
              }
            }
          } else {
            for (int64_t cc = 0; cc < cg; ++cc) {
              acc = fmaf(to_float(xp[cc * a.x_stride[1]]), to_float(wp[cc * a.w_stride[1]]), acc);
            }
          }
        }
      }
    }
    if constexpr (kHasBias) acc += to_float(static_cast<const T*>(a.bias)[k]);
    y[n * a.y_stride[0] + k * a.y_stride[1] + o.s0 * a.y_stride[2] + o.s1 * a.y_stride[3] +
      o.s2 * a.y_stride[4]] = from_float<T>(activate<kAct>(acc));
  }
}

template <class T, class Index>
__global__ void __launch_bounds__(kDirectThreads)
    conv_direct_dgrad_kernel(BooConvArgs a, int64_t total, bool channels_inner) {
  const T* __restrict__ dy = static_cast<const T*>(a.y);
  const T* __restrict__ w = static_cast<const T*>(a.w);
  T* __restrict__ dx = static_cast<T*>(a.x);
  const int64_t cg = a.c / a.groups;
  const int64_t kg = a.k / a.groups;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const DirectCoords p = direct_split<Index>(
        i, static_cast<Index>(a.c), static_cast<Index>(a.in[0]), static_cast<Index>(a.in[1]),
        static_cast<Index>(a.in[2]), channels_inner);
    const int64_t n = p.outer;
    const int64_t c = p.channel;
    const int64_t k0 = (c / cg) * kg;
    const T* dyn = dy + n * a.y_stride[0] + k0 * a.y_stride[1];
    const T* wc = w + k0 * a.w_stride[0] + (c % cg) * a.w_stride[1];
    float acc = 0.0f;
    // Tap r reaches output o when p + pad - r * dilation = o * stride with 0 <= o < out.
    for (int64_t r0 = 0; r0 < a.filter[0]; ++r0) {
      const int64_t t0 = p.s0 + a.pad[0] - r0 * a.dilation[0];
      if (t0 < 0) break;  // t only decreases with r
      if (t0 % a.stride[0] != 0 || t0 / a.stride[0] >= a.out[0]) continue;
      for (int64_t r1 = 0; r1 < a.filter[1]; ++r1) {
        const int64_t t1 = p.s1 + a.pad[1] - r1 * a.dilation[1];
        if (t1 < 0) break;
        if (t1 % a.stride[1] != 0 || t1 / a.stride[1] >= a.out[1]) continue;
        for (int64_t r2 = 0; r2 < a.filter[2]; ++r2) {
          const int64_t t2 = p.s2 + a.pad[2] - r2 * a.dilation[2];
          if (t2 < 0) break;
          if (t2 % a.stride[2] != 0 || t2 / a.stride[2] >= a.out[2]) continue;
          const T* dyp = dyn + (t0 / a.stride[0]) * a.y_stride[2] +
                         (t1 / a.stride[1]) * a.y_stride[3] + (t2 / a.stride[2]) * a.y_stride[4];
          const T* wp = wc + r0 * a.w_stride[2] + r1 * a.w_stride[3] + r2 * a.w_stride[4];
          for (int64_t kk = 0; kk < kg; ++kk) {
            acc = fmaf(to_float(dyp[kk * a.y_stride[1]]), to_float(wp[kk * a.w_stride[0]]), acc);
          }
        }
      }
    }
    dx[n * a.x_stride[0] + c * a.x_stride[1] + p.s0 * a.x_stride[2] + p.s1 * a.x_stride[3] +
       p.s2 * a.x_stride[4]] = from_float<T>(acc);
  }
}

// A block computes `chunk` weight elements that differ only in the input channel (chunk is 1
// unless x is contiguous along channels): thread t works on channel t % chunk of the chunk and
// on every (t / chunk)-th reduction element, so lanes of a warp read neighbouring channels of
// one pixel of a channels-last x (one dy value for all), or neighbouring W positions of a
// channels-first x. The partial sums meet in a shared-memory tree over the rows (blockDim.x /
// chunk, a power of 2): the same order every run.
template <class T, class Index>
__global__ void __launch_bounds__(kDirectThreads)
    conv_direct_wgrad_kernel(BooConvArgs a, int64_t work, int64_t reduction, int chunk,
                             bool channels_inner) {
  __shared__ float partial[kDirectThreads];
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ dy = static_cast<const T*>(a.y);
  T* __restrict__ dw = static_cast<T*>(a.w);
  const int64_t cg = a.c / a.groups;
  const int64_t kg = a.k / a.groups;
  const int lane = static_cast<int>(threadIdx.x) % chunk;
  const int row = static_cast<int>(threadIdx.x) / chunk;
  const int rows = static_cast<int>(blockDim.x) / chunk;
  const Index chunks = static_cast<Index>((cg + chunk - 1) / chunk);
  const Index e0 = static_cast<Index>(a.out[0]);
  const Index e1 = static_cast<Index>(a.out[1]);
  const Index e2 = static_cast<Index>(a.out[2]);
  for (int64_t e = blockIdx.x; e < work; e += gridDim.x) {
    const DirectCoords r = direct_split<Index>(e, chunks, static_cast<Index>(a.filter[0]),
                                               static_cast<Index>(a.filter[1]),
                                               static_cast<Index>(a.filter[2]), channels_inner);
    const int64_t k = r.outer;
    const int64_t cc = r.channel * chunk + lane;
    const bool active = cc < cg;
    float acc = 0.0f;
    if (active) {
      const T* xc = x + ((k / kg) * cg + cc) * a.x_stride[1];
      const T* dyk = dy + k * a.y_stride[1];
      for (int64_t j = row; j < reduction; j += rows) {
        // (n, o0, o1, o2) with o2 innermost.
        Index q = static_cast<Index>(j);
        const int64_t o2 = static_cast<int64_t>(q % e2);
        q /= e2;
        const int64_t o1 = static_cast<int64_t>(q % e1);
        q /= e1;
        const int64_t o0 = static_cast<int64_t>(q % e0);
        const int64_t n = static_cast<int64_t>(q / e0);
        const int64_t i0 = o0 * a.stride[0] - a.pad[0] + r.s0 * a.dilation[0];
        const int64_t i1 = o1 * a.stride[1] - a.pad[1] + r.s1 * a.dilation[1];
        const int64_t i2 = o2 * a.stride[2] - a.pad[2] + r.s2 * a.dilation[2];
        if (i0 < 0 || i0 >= a.in[0] || i1 < 0 || i1 >= a.in[1] || i2 < 0 || i2 >= a.in[2]) {
          continue;
        }
        const float xv = to_float(
            xc[n * a.x_stride[0] + i0 * a.x_stride[2] + i1 * a.x_stride[3] + i2 * a.x_stride[4]]);
        const float dyv = to_float(
            dyk[n * a.y_stride[0] + o0 * a.y_stride[2] + o1 * a.y_stride[3] + o2 * a.y_stride[4]]);
        acc = fmaf(xv, dyv, acc);
      }
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = rows / 2; half > 0; half /= 2) {
      if (row < half) partial[threadIdx.x] += partial[threadIdx.x + half * chunk];
      __syncthreads();
    }
    if (row == 0 && active) {
      dw[k * a.w_stride[0] + cc * a.w_stride[1] + r.s0 * a.w_stride[2] + r.s1 * a.w_stride[3] +
         r.s2 * a.w_stride[4]] = from_float<T>(partial[lane]);
    }
    __syncthreads();  // `partial` is reused for the next chunk
  }
}

// kDirection: BOO_CONV_*; kHasBias and kAct (ops::Activation as int) apply to the forward pass.
template <class T, int kDirection, bool kHasBias, int kAct>
struct ConvDirectRunner {
  static_assert(kDirection == BOO_CONV_FORWARD || kDirection == BOO_CONV_BACKWARD_DATA ||
                    kDirection == BOO_CONV_BACKWARD_WEIGHT,
                "unknown direction");
  static_assert(kDirection == BOO_CONV_FORWARD || (!kHasBias && kAct == 0),
                "bias and activation belong to the forward pass");

  // The product of positive values, or -1 when it overflows int64.
  static int64_t product(std::initializer_list<int64_t> v) {
    int64_t p = 1;
    for (const int64_t f : v) {
      if (f > INT64_MAX / p) return -1;
      p *= f;
    }
    return p;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (a.direction != kDirection) {
      write_why(why, len, "the kernel was generated for another direction");
      return BOO_UNSUPPORTED;
    }
    if (a.n < 1 || a.c < 1 || a.k < 1 || a.groups < 1 || a.c % a.groups != 0 ||
        a.k % a.groups != 0) {
      write_why(why, len, "N, C, K and groups must be >= 1 with C and K divisible by groups");
      return BOO_UNSUPPORTED;
    }
    if (const char* e = conv_geometry_error(a)) {
      write_why(why, len, e);
      return BOO_UNSUPPORTED;
    }
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr) {
      write_why(why, len, "a tensor pointer is missing");
      return BOO_UNSUPPORTED;
    }
    if (kHasBias && a.bias == nullptr) {
      write_why(why, len, "the kernel adds a bias but the bias pointer is missing");
      return BOO_UNSUPPORTED;
    }
    if (product({a.n, a.c, a.in[0], a.in[1], a.in[2]}) < 0 ||
        product({a.n, a.k, a.out[0], a.out[1], a.out[2]}) < 0 ||
        product({a.k, a.c / a.groups, a.filter[0], a.filter[1], a.filter[2]}) < 0) {
      write_why(why, len, "a tensor has more than 2^63 elements");
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }

  static int64_t workspace(const BooConvArgs& a) {
    return supports(a, nullptr, 0) == BOO_OK ? 0 : -1;
  }

  // Whether the forward channel loop can read x and w 16 bytes at a time: both contiguous
  // along channels, every channel run starting 16-byte aligned (pointers, the other strides and
  // C/G multiples of 16 bytes).
  static bool vector_forward(const BooConvArgs& a) {
    constexpr int64_t kLanes = 16 / static_cast<int64_t>(sizeof(T));
    if (a.x_stride[1] != 1 || a.w_stride[1] != 1 || (a.c / a.groups) % kLanes != 0) return false;
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.w) % 16 != 0) {
      return false;
    }
    for (const int i : {0, 2, 3, 4}) {
      if (a.x_stride[i] % kLanes != 0 || a.w_stride[i] % kLanes != 0) return false;
    }
    return true;
  }

  static unsigned blocks_for(int64_t work, int64_t per_block) {
    const int64_t b = (work + per_block - 1) / per_block;
    return static_cast<unsigned>(b < kDirectMaxBlocks ? b : kDirectMaxBlocks);
  }

  static int32_t run(const BooConvArgs& a, void*, int64_t, void* stream, char* why, int32_t len) {
    if (supports(a, why, len) != BOO_OK) return BOO_UNSUPPORTED;
    if (a.dry_run) return BOO_OK;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    // Every count below (and every coordinate split from it) fits 32 bits in practice.
    constexpr int64_t kSmall = int64_t{0xffffffff};
    if constexpr (kDirection == BOO_CONV_FORWARD) {
      const int64_t total = product({a.n, a.k, a.out[0], a.out[1], a.out[2]});
      const bool channels_inner = a.y_stride[1] == 1;
      const unsigned blocks = blocks_for(total, kDirectThreads);
      const bool vector = vector_forward(a);
      if (total <= kSmall && vector) {
        conv_direct_fprop_kernel<T, kHasBias, kAct, true, uint32_t>
            <<<blocks, kDirectThreads, 0, s>>>(a, total, channels_inner);
      } else if (total <= kSmall) {
        conv_direct_fprop_kernel<T, kHasBias, kAct, false, uint32_t>
            <<<blocks, kDirectThreads, 0, s>>>(a, total, channels_inner);
      } else if (vector) {
        conv_direct_fprop_kernel<T, kHasBias, kAct, true, uint64_t>
            <<<blocks, kDirectThreads, 0, s>>>(a, total, channels_inner);
      } else {
        conv_direct_fprop_kernel<T, kHasBias, kAct, false, uint64_t>
            <<<blocks, kDirectThreads, 0, s>>>(a, total, channels_inner);
      }
    } else if constexpr (kDirection == BOO_CONV_BACKWARD_DATA) {
      const int64_t total = product({a.n, a.c, a.in[0], a.in[1], a.in[2]});
      const bool channels_inner = a.x_stride[1] == 1;
      const unsigned blocks = blocks_for(total, kDirectThreads);
      if (total <= kSmall) {
        conv_direct_dgrad_kernel<T, uint32_t>
            <<<blocks, kDirectThreads, 0, s>>>(a, total, channels_inner);
      } else {
        conv_direct_dgrad_kernel<T, uint64_t>
            <<<blocks, kDirectThreads, 0, s>>>(a, total, channels_inner);
      }
    } else {
      const int64_t cg = a.c / a.groups;
      // Channels-last x: a chunk of up to 32 input channels per block (coalesced x, one dy
      // value per warp); otherwise one weight element per block, its lanes along W.
      int chunk = 1;
      if (a.x_stride[1] == 1) {
        while (chunk < 32 && chunk < cg) chunk *= 2;
      }
      const int64_t work =
          product({a.k, (cg + chunk - 1) / chunk, a.filter[0], a.filter[1], a.filter[2]});
      const int64_t reduction = product({a.n, a.out[0], a.out[1], a.out[2]});
      const bool channels_inner = a.w_stride[1] == 1;
      // Fewer threads for short reductions, so that small layers do not idle most lanes; a
      // power of 2 of at least 32, so at least one row of every chunk.
      const int threads = reduction >= 4096   ? kDirectThreads
                          : reduction >= 1024 ? 128
                          : reduction >= 256  ? 64
                                              : 32;
      const unsigned blocks = blocks_for(work, 1);
      if (work <= kSmall && reduction <= kSmall) {
        conv_direct_wgrad_kernel<T, uint32_t>
            <<<blocks, threads, 0, s>>>(a, work, reduction, chunk, channels_inner);
      } else {
        conv_direct_wgrad_kernel<T, uint64_t>
            <<<blocks, threads, 0, s>>>(a, work, reduction, chunk, channels_inner);
      }
    }
    return cuda_result(cudaGetLastError(), why, len);
  }
};

}  // namespace boo_kernels
