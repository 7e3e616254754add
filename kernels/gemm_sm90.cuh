// Glue between boo's C entry ABI (abi.h) and a CUTLASS 3 sm90 GEMM (GemmUniversalAdapter over a
// TMA warp-specialized kernel). Generated translation units define the CUTLASS types and expand
// BOO_GEMM_SM90_ENTRY_POINTS once. Host code of CUTLASS (TMA descriptors) lives in the object.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>

// Every warpgroup MMA width (conv_sm90.cuh says why).
#ifndef CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#endif
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/kernel/tile_scheduler_params.h"
#include "cutlass_launch.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// Fills the dynamic entries of a CuTe stride (static _1 entries stay as they are).
template <class Stride>
Stride make_dynamic_stride(int64_t s0, int64_t s1, int64_t s2) {
  Stride s{};
  if constexpr (!cute::is_static_v<cute::remove_cvref_t<decltype(cute::get<0>(s))>>) {
    cute::get<0>(s) = s0;
  }
  if constexpr (!cute::is_static_v<cute::remove_cvref_t<decltype(cute::get<1>(s))>>) {
    cute::get<1>(s) = s1;
  }
  if constexpr (!cute::is_static_v<cute::remove_cvref_t<decltype(cute::get<2>(s))>>) {
    cute::get<2>(s) = s2;
  }
  return s;
}

// kBiasPadded: the caller pads the bias buffer to a multiple of 16 bytes (gemm_padded.cuh), so
// any M is fine for it. kSwapAB: the kernel computes D^T = op(B)^T op(A)^T over the problem N x M
// (its A is op(B)^T, its B op(A)^T, its D row-major); kAlignA and kAlignB are the problem's.
// kDirectD: the epilogue writes D and reads C element by element (no TMA): any pointer and
// leading dimension (gemm_padded.cuh's InnerDirect).
template <class Gemm, bool kHasC, bool kHasBias, bool kScaled, bool kStreamK, int kAlignA,
          int kAlignB, int kAlignD, bool kBiasPadded = false, bool kSwapAB = false,
          bool kDirectD = false>
struct GemmSm90Runner {
  static_assert(!kSwapAB || (!kHasBias && !kStreamK), "swapped operands: no bias, persistent");
  using Kernel = typename Gemm::GemmKernel;
  using Arguments = typename Gemm::Arguments;
  using Params = typename Kernel::Params;
  using ElementA = typename Gemm::ElementA;
  using ElementB = typename Gemm::ElementB;
  using ElementD = typename Gemm::ElementD;
  using StrideA = typename Kernel::StrideA;
  using StrideB = typename Kernel::StrideB;
  using StrideC = typename Kernel::StrideC;
  using StrideD = typename Kernel::StrideD;

  // Why these arguments cannot run here, or nullptr.
  static const char* reject(const BooGemmArgs& a) {
    constexpr int64_t kMaxInt = 0x7fffffff;
    if (a.m > kMaxInt || a.n > kMaxInt || a.k > kMaxInt || a.batch > kMaxInt) {
      return "M, N, K and batch must be below 2^31";
    }
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) return "empty problem";
    auto misaligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) % 16) != 0; };
    if (misaligned(a.a) || misaligned(a.b) ||
        (!kDirectD && (misaligned(a.d) || (kHasC && misaligned(a.c))))) {
      return "operands must be 16-byte aligned";
    }
    if (a.lda % kAlignA || a.ldb % kAlignB || a.ldd % kAlignD || (kHasC && a.ldc % kAlignD)) {
      return "leading dimensions must be multiples of 16 bytes";
    }
    if (a.batch > 1 && (a.stride_a % kAlignA || a.stride_b % kAlignB || a.stride_d % kAlignD ||
                        (kHasC && a.stride_c % kAlignD))) {
      return "batch strides must be multiples of 16 bytes";
    }
    if constexpr (kHasBias) {
      if (a.bias == nullptr) return "this kernel needs a bias vector";
      // The bias is read in 16-byte vectors predicated on their first element: a length that
      // is not a multiple of 16 bytes would read past its end.
      using ElementBias =
          cute::remove_cvref_t<decltype(*std::declval<Arguments>().epilogue.thread.bias_ptr)>;
      if (misaligned(a.bias) || (!kBiasPadded && (a.m * sizeof(ElementBias)) % 16 != 0)) {
        return "the bias vector must be 16-byte aligned and a multiple of 16 bytes long";
      }
    }
    if (kScaled && a.alpha_scale == nullptr) return "this kernel needs the scaleA*scaleB scalar";
    if (!kHasC && a.beta != 0.0f) return "this kernel has no C operand (beta must be 0)";
    return nullptr;
  }

  // The kernel's problem shape (M, N, K, batch): N x M with swapped operands.
  static cute::Shape<int, int, int, int> kernel_shape(int64_t m, int64_t n, int64_t k,
                                                      int64_t batch) {
    return {static_cast<int>(kSwapAB ? n : m), static_cast<int>(kSwapAB ? m : n),
            static_cast<int>(k), static_cast<int>(batch)};
  }

  static Arguments make_arguments(const BooGemmArgs& a) {
    // op(A) is M x K: column-major (N) has M-stride 1, K-stride lda; T swaps them.
    const int64_t a_rows = a.trans_a ? a.lda : 1, a_k = a.trans_a ? 1 : a.lda;
    // CUTLASS 3 sees B as N x K: stored K x N (N) has N-stride ldb, K-stride 1.
    const int64_t b_rows = a.trans_b ? 1 : a.ldb, b_k = a.trans_b ? a.ldb : 1;
    // D is column-major (M-stride 1, N-stride ldd); swapped, the kernel's D is D^T: its M-stride
    // is ldd and its N-stride 1 (make_dynamic_stride sets only the dynamic entries).
    const StrideC sc = kSwapAB ? make_dynamic_stride<StrideC>(a.ldc, 1, a.stride_c)
                               : make_dynamic_stride<StrideC>(1, a.ldc, a.stride_c);
    const StrideD sd = kSwapAB ? make_dynamic_stride<StrideD>(a.ldd, 1, a.stride_d)
                               : make_dynamic_stride<StrideD>(1, a.ldd, a.stride_d);
    Arguments args{};
    args.mode = a.batch > 1 ? cutlass::gemm::GemmUniversalMode::kBatched
                            : cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = kernel_shape(a.m, a.n, a.k, a.batch);
    if constexpr (kSwapAB) {
      args.mainloop.ptr_A = static_cast<const ElementA*>(a.b);
      args.mainloop.dA = make_dynamic_stride<StrideA>(b_rows, b_k, a.stride_b);
      args.mainloop.ptr_B = static_cast<const ElementB*>(a.a);
      args.mainloop.dB = make_dynamic_stride<StrideB>(a_rows, a_k, a.stride_a);
    } else {
      args.mainloop.ptr_A = static_cast<const ElementA*>(a.a);
      args.mainloop.dA = make_dynamic_stride<StrideA>(a_rows, a_k, a.stride_a);
      args.mainloop.ptr_B = static_cast<const ElementB*>(a.b);
      args.mainloop.dB = make_dynamic_stride<StrideB>(b_rows, b_k, a.stride_b);
    }
    auto& thread = args.epilogue.thread;
    thread.alpha = a.alpha;
    thread.beta = kHasC ? a.beta : 0.0f;
    if constexpr (kHasBias) {
      using ElementBias = cute::remove_cvref_t<decltype(*thread.bias_ptr)>;
      thread.bias_ptr = static_cast<const ElementBias*>(a.bias);
    }
    if constexpr (kScaled) thread.scale_a_ptr = a.alpha_scale;
    if constexpr (kHasC) {
      args.epilogue.ptr_C = static_cast<const typename Gemm::ElementC*>(a.c);
    }
    args.epilogue.dC = sc;
    args.epilogue.ptr_D = static_cast<ElementD*>(a.d);
    args.epilogue.dD = sd;
    args.hw_info.device_id = a.device;
    args.hw_info.sm_count = a.sm_count;
    // Tile order: swizzled strips keep a wave's operands in L2; raster along M or N.
    using Raster = decltype(args.scheduler.raster_order);
    args.scheduler.max_swizzle_size = a.swizzle > 0 ? a.swizzle : 1;
    args.scheduler.raster_order = a.raster == 1   ? Raster::AlongM
                                  : a.raster == 2 ? Raster::AlongN
                                                  : Raster::Heuristic;
    if constexpr (kStreamK) {
      using Mode = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90StreamKParams::
          DecompositionMode;
      args.scheduler.splits = a.splits > 1 ? a.splits : 1;
      args.scheduler.decomposition_mode = a.splits > 1 ? Mode::SplitK : Mode::StreamK;
    }
    return args;
  }

  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    // CUTLASS's can_implement also asks the contiguous extent of each operand (K of a K-major
    // A, M of D) to be a multiple of 16 bytes. TMA needs only 16-byte aligned addresses and
    // strides (checked above) and clips its boxes at any extent, so the remaining checks run
    // on extents rounded up to 16; the GPU tests cover odd M, N and K.
    Arguments args = make_arguments(a);
    auto up16 = [](int64_t x) { return static_cast<int>((x + 15) / 16 * 16); };
    args.problem_shape = kernel_shape(up16(a.m), up16(a.n), up16(a.k), a.batch);
    if (Gemm::can_implement(args) != cutlass::Status::kSuccess) {
      write_why(why, len, "CUTLASS can_implement rejected the problem");
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }

  static int64_t workspace(const BooGemmArgs& a) {
    if (reject(a) != nullptr) return -1;
    return static_cast<int64_t>(Gemm::get_workspace_size(make_arguments(a)));
  }

  // `dependent`: a programmatic dependent launch (gemm_padded.cuh, after its copies; the kernel
  // must be compiled with CUTLASS_ENABLE_GDC_FOR_SM90 so that its loads wait for them).
  static int32_t run(const BooGemmArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len, bool dependent = false) {
    static CutlassParamsCache<BooGemmArgs, Params> cache;
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    std::lock_guard<std::mutex> lock(cache.mu);
    const bool hit = cache.matches(a, ws);
    // Stream-K and split-K keep state in the workspace: it is initialized for every launch.
    if (!hit || kStreamK) {
      const Arguments args = make_arguments(a);
      const int32_t rc = prepare_cutlass_workspace<Gemm, Kernel>(args, ws, ws_bytes, s, why, len);
      if (rc != BOO_OK) return rc;
      if (!hit) cache.store(a, ws, Kernel::to_underlying_arguments(args, ws));
    }
    return launch_cutlass<Gemm, Kernel>(cache.params, cache.smem_set, a.dry_run != 0, s, why, len,
                                        dependent);
  }
};

}  // namespace boo_kernels
