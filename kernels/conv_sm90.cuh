// Glue between boo's C entry ABI (BooConvArgs) and a CUTLASS 3 sm90 implicit-GEMM convolution
// (ConvUniversalAdapter over KernelImplicitTmaWarpSpecializedSm90). Generated translation units
// define the CUTLASS types and wrap this runner in ConvChannelsLastRunner (conv_relayout.cuh),
// which hands it packed channels-last tensors.
//
// What CUTLASS 4.2 computes per direction (conv/convnd_problem_shape.hpp):
//   forward        A = x  (NDHWC, im2col TMA)  B = w (KTRSC)        D = y  (NZPQK)
//   backward data  A = dy (NZPQK, im2col TMA)  B = w (KTRSC)        D = dx (NDHWC)
//   backward wgt   A = dy (NZPQK)              B = x (NDHWC, im2col) D = dw (KTRSC)
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <mutex>

// Without this CUTLASS takes the warpgroup MMA's N from its default shapes (256, 192, 128, 96, 64,
// 32, 16, 8) only: a 128x160 tile ran as five N = 32 MMAs a k-step, each reading A from shared
// memory again (ncu, H200: 1.6x the instructions, L1 85% busy, 40.3 us against 35.2 on 128x192
// tiles; bench/results/2026-11-28-weak-lines-h200.md). With it, 160 and 224 take one MMA. This
// header comes first in every conv.sm90_implicit source (conv_sm90_persistent.cuh after it).
#ifndef CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#endif
#include "cute/tensor.hpp"
#include "cutlass/conv/convnd_problem_shape.hpp"
#include "cutlass/conv/device/conv_universal_adapter.hpp"
#include "cutlass/cutlass.h"
#include "cutlass_launch.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// The Params an exact-padding runner keeps: a call's stride phases (4 for stride 2 in 2D).
constexpr int kDgradCachedPhases = 9;

// Whether an (N, C, D, H, W)-ordered tensor with these extents and element strides is packed
// channels-last (C fastest, then W, H, D, N). Strides of extent-1 dims never matter.
inline bool packed_channels_last(const int64_t extent[5], const int64_t stride[5]) {
  static constexpr int kOrder[5] = {1, 4, 3, 2, 0};  // C, W, H, D, N: innermost first
  int64_t expect = 1;
  for (int i : kOrder) {
    if (extent[i] > 1 && stride[i] != expect) return false;
    expect *= extent[i];
  }
  return true;
}

// kExactPadding (the stride phases of conv_dgrad_phases.cuh): `pad` is the lower padding and the
// upper padding is what makes the output extent `out` (the phases' plan keeps both >= 0); the
// last few arguments' Params are kept (a call runs several phases).
template <class Conv, int kDirection, int kDims, bool kHasBias, bool kExactPadding = false>
struct ConvSm90Runner {
  using Kernel = typename Conv::ConvKernel;
  using Arguments = typename Conv::Arguments;
  using Params = typename Kernel::Params;
  using ProblemShape = typename Kernel::ProblemShape;
  using ElementA = typename Conv::ElementA;
  using ElementB = typename Conv::ElementB;
  using ElementD = typename Conv::ElementD;
  using StrideD = typename Kernel::StrideD;
  static constexpr int kRankT = kDims + 2;

  // Why these arguments cannot run here, or nullptr.
  static const char* reject(const BooConvArgs& a) {
    if (a.direction != kDirection) return "this kernel computes another direction";
    if (a.spatial_dims != kDims) return "this kernel has another number of spatial dimensions";
    if (a.groups != 1) return "CUTLASS's sm90 conv has no groups (can_implement: groups > 1)";
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr) return "a tensor pointer is null";
    constexpr int64_t kMaxInt = 0x7fffffff;
    const int64_t sizes[] = {a.n,     a.c,      a.k,      a.in[0], a.in[1],
                             a.in[2], a.out[0], a.out[1], a.out[2]};
    for (int64_t s : sizes) {
      if (s < 1 || s > kMaxInt) return "sizes must be in [1, 2^31)";
    }
    auto misaligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) % 16) != 0; };
    if (misaligned(a.x) || misaligned(a.w) || misaligned(a.y)) {
      return "tensors must be 16-byte aligned (TMA)";
    }
    const int64_t x_ext[5] = {a.n, a.c, a.in[0], a.in[1], a.in[2]};
    const int64_t w_ext[5] = {a.k, a.c, a.filter[0], a.filter[1], a.filter[2]};
    const int64_t y_ext[5] = {a.n, a.k, a.out[0], a.out[1], a.out[2]};
    if (!packed_channels_last(x_ext, a.x_stride) || !packed_channels_last(w_ext, a.w_stride) ||
        !packed_channels_last(y_ext, a.y_stride)) {
      return "tensors must be packed channels-last";
    }
    if (kDirection == BOO_CONV_BACKWARD_DATA &&
        (a.stride[0] != 1 || a.stride[1] != 1 || a.stride[2] != 1)) {
      // CUTLASS 4.2's sm90 dgrad maps dy with a unit traversal stride only; its own testbed
      // runs dgrad without strides (test/unit/conv/device_3x/testbed_conv.hpp).
      return "backward data with a stride above 1 (CUTLASS's sm90 dgrad is unit-stride)";
    }
    if constexpr (kHasBias) {
      if (a.bias == nullptr || misaligned(a.bias)) {
        return "this kernel needs a 16-byte aligned bias vector";
      }
    }
    return nullptr;
  }

  static ProblemShape problem_shape(const BooConvArgs& a) {
    typename ProblemShape::TensorExtent act{}, flt{};
    typename ProblemShape::SpatialExtent pad{}, upper{}, stride{}, dilation{};
    act[0] = static_cast<int>(a.n);
    flt[0] = static_cast<int>(a.k);
    for (int i = 0; i < kDims; ++i) {
      const int from = 3 - kDims + i;  // the last kDims of D, H, W
      act[1 + i] = static_cast<int>(a.in[from]);
      flt[1 + i] = static_cast<int>(a.filter[from]);
      pad[i] = static_cast<int>(a.pad[from]);
      stride[i] = static_cast<int>(a.stride[from]);
      dilation[i] = static_cast<int>(a.dilation[from]);
      upper[i] = kExactPadding ? static_cast<int>((a.out[from] - 1) * a.stride[from] +
                                                  a.dilation[from] * (a.filter[from] - 1) + 1 -
                                                  a.in[from] - a.pad[from])
                               : pad[i];
    }
    act[kRankT - 1] = static_cast<int>(a.c);
    flt[kRankT - 1] = static_cast<int>(a.c);
    return ProblemShape(cutlass::conv::Mode::kCrossCorrelation, act, flt, pad, upper, stride,
                        dilation, 1);
  }

  static Arguments make_arguments(const BooConvArgs& a) {
    const ProblemShape shape = problem_shape(a);
    // The output's strides in the epilogue's modes (cutlass/detail/layout.hpp TagToStrideC):
    // ((W, H, D, N), K) for y and dx, (K, (C, S, R, T)) for dw; the innermost stride is _1.
    StrideD sd{};
    if constexpr (kDirection == BOO_CONV_BACKWARD_WEIGHT) {
      cute::get<0>(sd) = shape.stride_C[0];
      cute::for_each(cute::make_seq<kDims>{},
                     [&](auto i) { cute::get<1, i + 1>(sd) = shape.stride_C[kRankT - 2 - i]; });
    } else {
      cute::for_each(cute::make_seq<kDims + 1>{},
                     [&](auto i) { cute::get<0, i>(sd) = shape.stride_C[kRankT - 2 - i]; });
    }
    const void* pa = kDirection == BOO_CONV_FORWARD ? a.x : a.y;
    const void* pb = kDirection == BOO_CONV_BACKWARD_WEIGHT ? a.x : a.w;
    void* pd = kDirection == BOO_CONV_FORWARD         ? a.y
               : kDirection == BOO_CONV_BACKWARD_DATA ? a.x
                                                      : a.w;
    Arguments args{};
    args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = shape;
    args.mainloop.ptr_A = static_cast<const ElementA*>(pa);
    args.mainloop.ptr_B = static_cast<const ElementB*>(pb);
    auto& thread = args.epilogue.thread;
    thread.alpha = 1.0f;
    thread.beta = 0.0f;
    if constexpr (kHasBias) {
      using ElementBias = cute::remove_cvref_t<decltype(*thread.bias_ptr)>;
      thread.bias_ptr = static_cast<const ElementBias*>(a.bias);
    }
    args.epilogue.ptr_C = nullptr;
    args.epilogue.dC = sd;
    args.epilogue.ptr_D = static_cast<ElementD*>(pd);
    args.epilogue.dD = sd;
    args.hw_info.device_id = a.device;
    args.hw_info.sm_count = a.sm_count;
    return args;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    if (Conv::can_implement(make_arguments(a)) != cutlass::Status::kSuccess) {
      // Channel counts not a multiple of 16 bytes, or TMA im2col limits on padding, corners
      // and filter extent (tight in 3D: padding <= 16, dilated filter < 32).
      write_why(why, len,
                "CUTLASS can_implement rejected the problem (channels not a multiple of 16 "
                "bytes, or padding/filter beyond TMA im2col limits)");
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }

  static int64_t workspace(const BooConvArgs& a) {
    if (reject(a) != nullptr) return -1;
    return static_cast<int64_t>(Conv::get_workspace_size(make_arguments(a)));
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    static CutlassParamsCache<BooConvArgs, Params> caches[kExactPadding ? kDgradCachedPhases : 1];
    static int next = 0;
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    std::lock_guard<std::mutex> lock(caches[0].mu);
    CutlassParamsCache<BooConvArgs, Params>* hit = nullptr;
    for (auto& c : caches) {
      if (c.matches(a, ws)) hit = &c;
    }
    if (hit == nullptr) {
      hit = &caches[next];
      next = (next + 1) % static_cast<int>(sizeof(caches) / sizeof(caches[0]));
    }
    auto& cache = *hit;
    if (!cache.matches(a, ws)) {
      const Arguments args = make_arguments(a);
      const int32_t rc = prepare_cutlass_workspace<Conv, Kernel>(args, ws, ws_bytes, s, why, len);
      if (rc != BOO_OK) return rc;
      cache.store(a, ws, Kernel::to_underlying_arguments(args, ws));
    }
    return launch_cutlass<Conv, Kernel>(cache.params, cache.smem_set, a.dry_run != 0, s, why, len);
  }
};

}  // namespace boo_kernels
