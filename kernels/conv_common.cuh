// What the convolution runners share: the checks of BooConvArgs' geometry that every one of them
// makes before its own, and the one-wave launch of the persistent direct kernels (host code).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "entry_points.cuh"

namespace boo_kernels {

// nullptr when the spatial dimensions, sizes, strides, padding and dilations are valid, else why
// not.
inline const char* conv_geometry_error(const BooConvArgs& a) {
  if (a.spatial_dims < 1 || a.spatial_dims > 3) return "spatial_dims must be 1, 2 or 3";
  for (int i = 0; i < 3; ++i) {
    if (a.in[i] < 1 || a.filter[i] < 1 || a.out[i] < 1 || a.stride[i] < 1 || a.pad[i] < 0 ||
        a.dilation[i] < 1) {
      return "sizes, strides and dilations must be >= 1 and padding >= 0";
    }
  }
  return nullptr;
}

// Whether a tensor of `n` images of `ext` (D, H, W) points and `channels` channels has the
// element strides (N, C, D, H, W) of a packed channels-last layout (N stride free when n = 1).
inline bool packed_channels_last(const int64_t stride[5], const int64_t ext[3], int64_t channels,
                                 int64_t n) {
  return stride[1] == 1 && stride[4] == channels && stride[3] == ext[2] * channels &&
         stride[2] == ext[1] * ext[2] * channels &&
         (n == 1 || stride[0] == ext[0] * ext[1] * ext[2] * channels);
}

// nullptr when a wrapper's workspace at `base` holds the `need` bytes it plans in `have`,
// 16-byte aligned, else why not.
inline const char* conv_workspace_error(const void* base, int64_t need, int64_t have) {
  if (base == nullptr || need > have) return "workspace too small for the wrapper's copies";
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0) return "the workspace is not 16-byte aligned";
  return nullptr;
}

// A wrapper's workspace() from its plan (valid, inner_bytes, total): -1 when the plan is invalid
// or its inner runner refuses the rewritten problem.
template <class Plan>
inline int64_t planned_workspace(const Plan& p) {
  return !p.valid || p.inner_bytes < 0 ? -1 : p.total;
}

// BOO_OK when a wrapper (space-to-depth, the dense group expansion, split backward weight) may
// launch: the arguments are its (`rejected` is null), its inner runner takes the rewritten
// problem (`inner_bytes` >= 0, else `inner_refusal`) and the workspace holds the plan; else the
// return code, with why in `why`.
inline int32_t conv_wrapper_ready(const char* rejected, int64_t inner_bytes,
                                  const char* inner_refusal, const void* base, int64_t need,
                                  int64_t have, char* why, int32_t len) {
  if (rejected != nullptr) {
    write_why(why, len, rejected);
    return BOO_UNSUPPORTED;
  }
  if (inner_bytes < 0) {
    write_why(why, len, inner_refusal);
    return BOO_UNSUPPORTED;
  }
  if (const char* e = conv_workspace_error(base, need, have)) {
    write_why(why, len, e);
    return BOO_ERROR;
  }
  return BOO_OK;
}

// Blocks of 256 threads for a grid-stride loop over `total` items (at most 2^20 blocks).
inline unsigned conv_copy_grid(int64_t total) {
  const int64_t blocks = (total + 255) / 256;
  return static_cast<unsigned>(blocks < (int64_t{1} << 20) ? blocks : int64_t{1} << 20);
}

// Launches a persistent tile kernel (conv.grouped's, conv.padded_channels' and conv.pointwise's
// direct kernels)
// as one wave of blocks: as many per SM as fit at `shared_bytes`, a multiple of `chunks` (block b
// keeps chunk b % chunks), at most one per tile and chunk (`work`).
template <class... Args>
inline int32_t launch_tile_wave(void (*kernel)(Args...), int threads, int shared_bytes,
                                int64_t work, int chunks, int64_t sm_count, void* stream, char* why,
                                int32_t len, Args... args) {
  if (shared_bytes > 48 * 1024) {
    if (const cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
        e != cudaSuccess) {
      return cuda_result(e, why, len);
    }
  }
  int per_sm = 1;
  if (const cudaError_t e =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes);
      e != cudaSuccess) {
    return cuda_result(e, why, len);
  }
  const int64_t wave = static_cast<int64_t>(per_sm > 0 ? per_sm : 1) *
                       (sm_count > 0 ? sm_count : 132) / chunks * chunks;
  const int64_t blocks = work < wave ? work : (wave > chunks ? wave : chunks);
  kernel<<<static_cast<unsigned>(blocks), threads, shared_bytes,
           static_cast<cudaStream_t>(stream)>>>(args...);
  return cuda_result(cudaGetLastError(), why, len);
}

}  // namespace boo_kernels
