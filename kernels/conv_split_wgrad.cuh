// conv.split_wgrad: backward weight whose K x (filter taps x C) output has too few tiles to fill
// the GPU (a 3x3 layer of 64 channels: 9 tiles of 64 x 64 for 132 SMs) splits its reduction over
// the images. Each of kSplits slices of the batch runs the inner backward-weight kernel into its
// own fp32 dw in the workspace, the slices on their own streams so that they run side by side,
// and a reduction sums the slices in a fixed order (deterministic) into dw in its element type.
//
// The inner runner takes packed channels-last x and dy with 16-byte aligned pointers (conv.
// sm90_implicit's ConvSm90Runner with an fp32 epilogue) and writes fp32 dw packed as K, D, H, W, C;
// codegen wraps this runner in ConvChannelsLastRunner for the caller's layouts.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>

#include "conv_common.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// dw(k, c, t) = sum over the slices of ws[slice][k, t, c] in slice order; dw in the caller's
// (K, C, D, H, W) strides, ws packed K, taps, C per slice.
template <class T>
__global__ void __launch_bounds__(256)
    conv_split_reduce_kernel(const float* __restrict__ ws, T* __restrict__ dw, BooConvArgs a,
                             int splits, int64_t total) {
  const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const int64_t c = i % a.c;
    const int64_t tap = (i / a.c) % taps;
    const int64_t k = i / (a.c * taps);
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += ws[s * total + i];
    const int64_t t2 = tap % a.filter[2];
    const int64_t t1 = (tap / a.filter[2]) % a.filter[1];
    const int64_t t0 = tap / (a.filter[2] * a.filter[1]);
    dw[k * a.w_stride[0] + c * a.w_stride[1] + t0 * a.w_stride[2] + t1 * a.w_stride[3] +
       t2 * a.w_stride[4]] = static_cast<T>(sum);
  }
}

// The side streams of one process: created once, on the device of the first call. A call on
// another device runs its slices one after another on the caller's stream.
template <int kSplits>
struct SplitStreams {
  std::mutex mu;
  bool made = false;
  int device = -1;
  cudaStream_t stream[kSplits] = {};
  cudaEvent_t fork = nullptr;
  cudaEvent_t join[kSplits] = {};

  bool ready(int dev) {
    if (made) return dev == device;
    made = true;
    if (cudaGetDevice(&device) != cudaSuccess || device != dev) return false;
    bool ok = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) == cudaSuccess;
    for (int i = 0; i < kSplits && ok; ++i) {
      ok = cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking) == cudaSuccess &&
           cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming) == cudaSuccess;
    }
    if (!ok) device = -1;
    return ok;
  }
};

template <class Inner, class T, int kSplits>
struct ConvSplitWgradRunner {
  static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
  static int64_t dw_elements(const BooConvArgs& a) {
    return a.k * a.c * a.filter[0] * a.filter[1] * a.filter[2];
  }
  // The slice of images s covers: [first, first + count).
  static void slice(const BooConvArgs& a, int s, int64_t& first, int64_t& count) {
    const int64_t base = a.n / kSplits, extra = a.n % kSplits;
    first = s * base + (s < extra ? s : extra);
    count = base + (s < extra ? 1 : 0);
  }

  static const char* reject(const BooConvArgs& a) {
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.direction != BOO_CONV_BACKWARD_WEIGHT) return "split backward weight only";
    if (a.groups != 1) return "split backward weight needs one group";
    if (a.n < kSplits) return "fewer images than slices";
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr) return "a tensor pointer is null";
    return nullptr;
  }

  // The inner arguments of slice s, its fp32 dw at `dw`.
  static BooConvArgs inner_args(const BooConvArgs& a, int s, float* dw) {
    int64_t first = 0, count = 0;
    slice(a, s, first, count);
    BooConvArgs in = a;
    in.n = count;
    in.x = static_cast<char*>(a.x) + first * a.x_stride[0] * static_cast<int64_t>(sizeof(T));
    in.y = static_cast<char*>(a.y) + first * a.y_stride[0] * static_cast<int64_t>(sizeof(T));
    in.w = dw;
    // Packed K, D, H, W, C strides in the (K, C, D, H, W) order of BooConvArgs.
    in.w_stride[1] = 1;
    in.w_stride[4] = a.c;
    in.w_stride[3] = a.c * a.filter[2];
    in.w_stride[2] = in.w_stride[3] * a.filter[1];
    in.w_stride[0] = in.w_stride[2] * a.filter[0];
    return in;
  }

  // Workspace: the slices' fp32 dw, then each slice's inner workspace (the largest, kSplits
  // times: the slices run at once).
  static int64_t slices_bytes(const BooConvArgs& a) {
    return round_up(kSplits * dw_elements(a) * static_cast<int64_t>(sizeof(float)), 256);
  }
  static int64_t inner_bytes(const BooConvArgs& a) {
    int64_t most = 0;
    for (int s = 0; s < kSplits; ++s) {
      const int64_t b = Inner::workspace(inner_args(a, s, planning_workspace<float>()));
      if (b < 0) return -1;
      most = b > most ? b : most;
    }
    return round_up(most, 256);
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) return reject_verdict(r, why, len);
    return Inner::supports(inner_args(a, 0, planning_workspace<float>()), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    if (reject(a) != nullptr) return -1;
    const int64_t inner = inner_bytes(a);
    if (inner < 0) return -1;
    return slices_bytes(a) + kSplits * inner;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    static SplitStreams<kSplits> side;
    const char* rejected = reject(a);
    const int64_t inner = rejected == nullptr ? inner_bytes(a) : 0;
    char* base = static_cast<char*>(ws);
    const int32_t ready =
        conv_wrapper_ready(rejected, inner, "the inner kernel rejects a slice", base,
                           slices_bytes(a) + kSplits * inner, ws_bytes, why, len);
    if (ready != BOO_OK) return ready;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    const int64_t total = dw_elements(a);
    float* slices = reinterpret_cast<float*>(base);
    std::lock_guard<std::mutex> lock(side.mu);
    const bool parallel = !a.dry_run && side.ready(a.device);
    if (parallel) {
      if (const cudaError_t e = cudaEventRecord(side.fork, s); e != cudaSuccess) {
        return cuda_result(e, why, len);
      }
    }
    for (int i = 0; i < kSplits; ++i) {
      const cudaStream_t si = parallel ? side.stream[i] : s;
      if (parallel) {
        if (const cudaError_t e = cudaStreamWaitEvent(si, side.fork, 0); e != cudaSuccess) {
          return cuda_result(e, why, len);
        }
      }
      char* inner_ws = inner > 0 ? base + slices_bytes(a) + i * inner : nullptr;
      const int32_t rc =
          Inner::run(inner_args(a, i, slices + i * total), inner_ws, inner, si, why, len);
      if (rc != BOO_OK) return rc;
      if (parallel) {
        cudaError_t e = cudaEventRecord(side.join[i], si);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(s, side.join[i], 0);
        if (e != cudaSuccess) return cuda_result(e, why, len);
      }
    }
    if (a.dry_run) return BOO_OK;
    const unsigned grid = conv_copy_grid(total);
    conv_split_reduce_kernel<T>
        <<<grid, 256, 0, s>>>(slices, static_cast<T*>(a.w), a, kSplits, total);
    return cuda_result(cudaGetLastError(), why, len);
  }
};

}  // namespace boo_kernels
