// conv.padded_channels for strided forward convolutions with few channels (the C = 3 stem):
// space-to-depth. A stride-s convolution of C channels with an R-tap filter is the stride-1,
// unpadded convolution of s*C channels with a ceil(R/s)-tap filter over the input cut into s x s
// blocks (per spatial dimension):
//   x'[n, i, (a, c)] = x[n, c, s*i + a - pad]          (zero outside the input)
//   w'[k, r', (a, c)] = w[k, c, s*r' + a]                (zero where s*r' + a >= R)
//   y[n, k, p] = sum_{r', a, c} x'[n, p + r', (a, c)] w'[k, r', (a, c)]
// The blocked channels are padded with zeros to a whole k-block of the implicit GEMM
// (kChannels), so that every filter tap's k-block is full: the C = 3, 7x7, stride-2 stem becomes
// 16 taps of 32 channels instead of 49 taps of 3 padded to 8 (mostly zeros in each k-block).
//
// ConvSpaceToDepthRunner writes x' and w' into the workspace from any layout and hands the
// inner runner (conv.sm90_implicit behind ConvChannelsLastRunner, which pads K and relays y)
// the stride-1 problem. Forward only, one group, no dilation.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "conv_common.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// The blocked problem's geometry: per spatial dimension (D, H, W) the block (the stride), the
// blocked filter taps and the blocked input extent; the blocked channel count.
struct SpaceToDepth {
  int64_t block[3];
  int64_t taps[3];    // ceil(R / s)
  int64_t extent[3];  // output extent + taps - 1
  int64_t channels;   // s0 s1 s2 C rounded up to kChannels
};

// One thread per 16-byte vector of the packed channels-last destination: x' (N, D', H', W', C')
// when `filter` is false, w' (K, R'0, R'1, R'2, C') when true. src strides are the caller's, in
// the (N or K, C, D, H, W) order of BooConvArgs. Index: int32_t when every vector and source
// offset fits (several times fewer instructions per element than 64-bit math), else int64_t.
template <class T, class Index>
__global__ void __launch_bounds__(256)
    conv_space_to_depth_kernel(const T* __restrict__ src, T* __restrict__ dst, BooConvArgs a,
                               SpaceToDepth g, bool filter, int64_t vectors) {
  constexpr int kVec = 16 / sizeof(T);
  Index stride[5], dims[3], block[3], base_sub[3], limit[3];
  for (int d = 0; d < 5; ++d)
    stride[d] = static_cast<Index>(filter ? a.w_stride[d] : a.x_stride[d]);
  for (int d = 0; d < 3; ++d) {
    dims[d] = static_cast<Index>(filter ? g.taps[d] : g.extent[d]);
    block[d] = static_cast<Index>(g.block[d]);
    base_sub[d] = static_cast<Index>(filter ? 0 : a.pad[d]);
    limit[d] = static_cast<Index>(filter ? a.filter[d] : a.in[d]);
  }
  const Index channels = static_cast<Index>(a.c);
  const Index per_pixel = static_cast<Index>(g.channels / kVec);
  const Index real = static_cast<Index>(g.block[0] * g.block[1] * g.block[2] * a.c);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += step) {
    Index rest = static_cast<Index>(i) / per_pixel;
    const Index first = (static_cast<Index>(i) - rest * per_pixel) * kVec;
    alignas(16) T out[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) out[j] = T(0);
    if (first < real) {
      Index start[3];  // the source position of the block's first element, per dimension
      for (int d = 2; d >= 0; --d) {
        const Index q = rest / dims[d];
        start[d] = block[d] * (rest - q * dims[d]) - base_sub[d];
        rest = q;
      }
      const Index outer = rest * stride[0];  // n (x') or k (w')
      // The first channel's (block offset, c), then stepped along without divisions.
      Index c = first % channels;
      Index q = first / channels;
      Index off[3];
      for (int d = 2; d >= 0; --d) {
        off[d] = q % block[d];
        q /= block[d];
      }
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        if (first + j < real) {
          bool inside = true;
          Index addr = outer + c * stride[1];
#pragma unroll
          for (int d = 0; d < 3; ++d) {
            const Index u = start[d] + off[d];
            inside = inside && u >= 0 && u < limit[d];
            addr += u * stride[2 + d];
          }
          if (inside) out[j] = src[addr];
          // Next channel: c, then the block offsets W, H, D.
          if (++c == channels) {
            c = 0;
            for (int d = 2; d >= 0; --d) {
              if (++off[d] < block[d]) break;
              off[d] = 0;
            }
          }
        }
      }
    }
    reinterpret_cast<uint4*>(dst)[i] = *reinterpret_cast<const uint4*>(out);
  }
}

template <class Inner, class T, int kChannels>
struct ConvSpaceToDepthRunner {
  struct Plan {
    bool valid = false;
    SpaceToDepth g{};
    int64_t x_elements = 0, w_elements = 0;
    int64_t w_offset = 0, copies = 0, inner_bytes = 0, total = 0;
    BooConvArgs inner{};
  };

  static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }

  // Why the blocked problem is not this one's, or nullptr.
  static const char* reject(const BooConvArgs& a) {
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.direction != BOO_CONV_FORWARD) return "space-to-depth runs forward convolutions only";
    if (a.groups != 1) return "space-to-depth needs one group";
    if (a.n < 1 || a.c < 1 || a.k < 1) return "sizes must be >= 1";
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr) return "a tensor pointer is null";
    for (int d = 0; d < 3; ++d) {
      if (a.dilation[d] != 1) return "space-to-depth needs a dilation of 1";
      // The output extent the caller gives must be the convolution's.
      if ((a.in[d] + 2 * a.pad[d] - a.filter[d]) / a.stride[d] + 1 != a.out[d] ||
          a.in[d] + 2 * a.pad[d] < a.filter[d]) {
        return "the output extent is not the convolution's";
      }
    }
    return nullptr;
  }

  static Plan make_plan(const BooConvArgs& a, char* base) {
    Plan p;
    if (reject(a) != nullptr) return p;
    p.valid = true;
    int64_t blocks = 1;
    for (int d = 0; d < 3; ++d) {
      p.g.block[d] = a.stride[d];
      p.g.taps[d] = (a.filter[d] + a.stride[d] - 1) / a.stride[d];
      p.g.extent[d] = a.out[d] + p.g.taps[d] - 1;
      blocks *= a.stride[d];
    }
    p.g.channels = round_up(blocks * a.c, kChannels);
    p.x_elements = a.n * p.g.extent[0] * p.g.extent[1] * p.g.extent[2] * p.g.channels;
    p.w_elements = a.k * p.g.taps[0] * p.g.taps[1] * p.g.taps[2] * p.g.channels;
    p.w_offset = round_up(p.x_elements * static_cast<int64_t>(sizeof(T)), 256);
    p.copies = p.w_offset + round_up(p.w_elements * static_cast<int64_t>(sizeof(T)), 256);
    BooConvArgs& in = p.inner;
    in = a;
    in.c = p.g.channels;
    in.x = base;
    in.w = base + p.w_offset;
    for (int d = 0; d < 3; ++d) {
      in.in[d] = p.g.extent[d];
      in.filter[d] = p.g.taps[d];
      in.stride[d] = 1;
      in.pad[d] = 0;
    }
    // Packed channels-last strides of x' (N, C', D', H', W') and w' (K, C', R'...).
    const int64_t cx = p.g.channels;
    in.x_stride[1] = in.w_stride[1] = 1;
    in.x_stride[4] = cx;
    in.x_stride[3] = cx * p.g.extent[2];
    in.x_stride[2] = in.x_stride[3] * p.g.extent[1];
    in.x_stride[0] = in.x_stride[2] * p.g.extent[0];
    in.w_stride[4] = cx;
    in.w_stride[3] = cx * p.g.taps[2];
    in.w_stride[2] = in.w_stride[3] * p.g.taps[1];
    in.w_stride[0] = in.w_stride[2] * p.g.taps[0];
    p.inner_bytes = Inner::workspace(in);
    p.total = p.copies + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) return reject_verdict(r, why, len);
    return Inner::supports(make_plan(a, planning_workspace()).inner, why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    return planned_workspace(make_plan(a, planning_workspace()));
  }

  static cudaError_t launch(const void* src, void* dst, const BooConvArgs& a, const SpaceToDepth& g,
                            bool filter, int64_t elements, cudaStream_t s) {
    const int64_t vectors = elements / (16 / static_cast<int64_t>(sizeof(T)));
    const unsigned grid = conv_copy_grid(vectors);
    // The largest source offset: every extent's last index times its stride.
    const int64_t* stride = filter ? a.w_stride : a.x_stride;
    const int64_t outer_extent = filter ? a.k : a.n;
    const int64_t extent[5] = {outer_extent, a.c, a.in[0], a.in[1], a.in[2]};
    int64_t last = 0;
    for (int d = 0; d < 5; ++d) {
      const int64_t e = filter && d >= 2 ? a.filter[d - 2] : extent[d];
      last += (e - 1) * (stride[d] < 0 ? -stride[d] : stride[d]);
    }
    if (vectors <= int64_t{0x3fffffff} && last <= int64_t{0x3fffffff}) {
      conv_space_to_depth_kernel<T, int32_t><<<grid, 256, 0, s>>>(
          static_cast<const T*>(src), static_cast<T*>(dst), a, g, filter, vectors);
    } else {
      conv_space_to_depth_kernel<T, int64_t><<<grid, 256, 0, s>>>(
          static_cast<const T*>(src), static_cast<T*>(dst), a, g, filter, vectors);
    }
    return cudaGetLastError();
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    char* base = static_cast<char*>(ws);
    const Plan p = make_plan(a, base);  // invalid (inner_bytes 0) when rejected
    const int32_t ready = conv_wrapper_ready(reject(a), p.inner_bytes,
                                             "the inner kernel rejects the space-to-depth problem",
                                             base, p.total, ws_bytes, why, len);
    if (ready != BOO_OK) return ready;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (!a.dry_run) {
      cudaError_t e = launch(a.x, p.inner.x, a, p.g, false, p.x_elements, s);
      if (e == cudaSuccess) e = launch(a.w, p.inner.w, a, p.g, true, p.w_elements, s);
      if (e != cudaSuccess) return cuda_result(e, why, len);
    }
    void* inner_ws = p.inner_bytes > 0 ? base + p.copies : nullptr;
    return Inner::run(p.inner, inner_ws, p.inner_bytes, stream, why, len);
  }
};

}  // namespace boo_kernels
