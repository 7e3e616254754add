// conv.grouped, first version: a grouped convolution (1 < G) is the dense convolution whose
// filter is block-diagonal, zero outside each group's K/G x C/G block. ConvGroupDenseRunner
// expands the filter into such a dense K x R x S x C filter in the workspace and runs the dense
// problem (groups = 1) on the inner runner (conv.sm90_implicit behind ConvChannelsLastRunner,
// which relays x and y and pads channels). Forward and backward data read the expanded filter;
// backward weight writes the dense dw into the workspace and the diagonal blocks are copied out.
// The tensor cores do G times the grouped problem's work (the zeros), so this pays where the
// groups are few or CUDA-core kernels are slow (ResNeXt's G = 32 of 8 channels each).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "conv_common.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// One thread per element of the dense filter (packed K, D, H, W, C) when `expand`, else per
// element of the grouped filter (K, C/G, D, H, W in the caller's strides): expand writes
// dense = grouped inside the diagonal blocks and 0 elsewhere; !expand copies the diagonal blocks
// of dense out to grouped.
template <class T>
__global__ void __launch_bounds__(256)
    conv_group_filter_kernel(T* __restrict__ grouped, T* __restrict__ dense, BooConvArgs a,
                             bool expand, int64_t total) {
  const int64_t cg = a.c / a.groups, kg = a.k / a.groups;
  const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    int64_t k, c, tap;
    if (expand) {  // i over (k, tap, c) with c fastest, c the dense channel
      c = i % a.c;
      tap = (i / a.c) % taps;
      k = i / (a.c * taps);
    } else {  // i over (k, c, tap) with tap fastest, c the group's channel
      tap = i % taps;
      c = (i / taps) % cg;
      k = i / (taps * cg);
      c += (k / kg) * cg;  // the dense channel
    }
    const int64_t t2 = tap % a.filter[2];
    const int64_t t1 = (tap / a.filter[2]) % a.filter[1];
    const int64_t t0 = tap / (a.filter[2] * a.filter[1]);
    const int64_t g_addr = k * a.w_stride[0] + (c % cg) * a.w_stride[1] + t0 * a.w_stride[2] +
                           t1 * a.w_stride[3] + t2 * a.w_stride[4];
    const int64_t d_addr = (k * taps + tap) * a.c + c;
    if (expand) {
      dense[d_addr] = c / cg == k / kg ? grouped[g_addr] : T(0);
    } else {
      grouped[g_addr] = dense[d_addr];
    }
  }
}

template <class Inner, class T>
struct ConvGroupDenseRunner {
  struct Plan {
    bool valid = false;
    int64_t filter_bytes = 0;  // the dense filter's slot, from offset 0
    int64_t inner_bytes = 0;
    int64_t total = 0;
    BooConvArgs inner{};
  };

  static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }

  static const char* reject(const BooConvArgs& a) {
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups < 2) return "the dense expansion is for grouped convolutions (groups > 1)";
    if (a.n < 1 || a.c < 1 || a.k < 1 || a.c % a.groups != 0 || a.k % a.groups != 0) {
      return "C and K must be positive multiples of the groups";
    }
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr) return "a tensor pointer is null";
    return nullptr;
  }

  static int64_t dense_elements(const BooConvArgs& a) {
    return a.k * a.c * a.filter[0] * a.filter[1] * a.filter[2];
  }

  static Plan make_plan(const BooConvArgs& a, char* base) {
    Plan p;
    if (reject(a) != nullptr) return p;
    p.valid = true;
    p.filter_bytes = round_up(dense_elements(a) * static_cast<int64_t>(sizeof(T)), 256);
    p.inner = a;
    p.inner.groups = 1;
    p.inner.w = base;
    // Packed K, D, H, W, C strides in the (K, C, D, H, W) order of BooConvArgs.
    p.inner.w_stride[1] = 1;
    p.inner.w_stride[4] = a.c;
    p.inner.w_stride[3] = a.c * a.filter[2];
    p.inner.w_stride[2] = p.inner.w_stride[3] * a.filter[1];
    p.inner.w_stride[0] = p.inner.w_stride[2] * a.filter[0];
    p.inner_bytes = Inner::workspace(p.inner);
    p.total = p.filter_bytes + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) return reject_verdict(r, why, len);
    return Inner::supports(make_plan(a, planning_workspace()).inner, why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    return planned_workspace(make_plan(a, planning_workspace()));
  }

  static cudaError_t launch(const BooConvArgs& a, void* dense, bool expand, cudaStream_t s) {
    const int64_t total = expand ? dense_elements(a) : dense_elements(a) / a.groups;
    const unsigned grid = conv_copy_grid(total);
    conv_group_filter_kernel<T>
        <<<grid, 256, 0, s>>>(static_cast<T*>(a.w), static_cast<T*>(dense), a, expand, total);
    return cudaGetLastError();
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    char* base = static_cast<char*>(ws);
    const Plan p = make_plan(a, base);  // invalid (inner_bytes 0) when rejected
    const int32_t ready =
        conv_wrapper_ready(reject(a), p.inner_bytes, "the inner kernel rejects the dense problem",
                           base, p.total, ws_bytes, why, len);
    if (ready != BOO_OK) return ready;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const bool weight_out = a.direction == BOO_CONV_BACKWARD_WEIGHT;
    if (!a.dry_run && !weight_out) {
      if (const cudaError_t e = launch(a, base, true, s); e != cudaSuccess) {
        return cuda_result(e, why, len);
      }
    }
    void* inner_ws = p.inner_bytes > 0 ? base + p.filter_bytes : nullptr;
    const int32_t rc = Inner::run(p.inner, inner_ws, p.inner_bytes, stream, why, len);
    if (rc != BOO_OK || a.dry_run || !weight_out) return rc;
    return cuda_result(launch(a, base, false, s), why, len);
  }
};

}  // namespace boo_kernels
