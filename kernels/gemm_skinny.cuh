// gemm.skinny: GEMMs with N <= 32 (or M <= 32), the decode shapes. They stream one large operand
// once and multiply it by a narrow one (at most 32 columns), so the target is the memory floor,
// not the tensor-core peak. Configs `_stream*` (kStream) run the streaming loop of
// gemm_skinny_stream.cuh: R straight into mma.sync fragments, K shared by the warps of a block,
// no split across blocks; `_streamauto` runs the bulk-copy loop of gemm_skinny_bulk.cuh
// instead where `bulk` says so (one column of S over many bytes of R). Otherwise the runner picks
// one of three main loops:
//
// - decode layouts (16-bit inputs of one type, both operands contiguous in K), no K split:
//   with at most kGemvCols columns of S, the GEMV loop of gemm_skinny_gemv.cuh, warps
//   streaming whole rows of R straight into registers, no tensor cores;
// - other decode layouts (more columns, or rows too few to fill the GPU over a deep K, or a K
//   split asked for): the 4-stage cp.async pipeline of gemm_skinny_kernel.cuh, K split over
//   blocks;
// - every other layout and type (fp8, fp32, transposed or unaligned operands): its loop that
//   gathers the next tile in registers, K split over blocks.
//
// Canonical problem: O = R S, rows x cols (cols <= 32), per batch. Without `kSwapped`
// (N <= 32): R = op(A), S = op(B), O = D. With it (M <= 32): R = op(B)^T, S = op(A)^T,
// O = D^T.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "entry_points.cuh"
#include "gemm_skinny_bulk.cuh"
#include "gemm_skinny_gemv.cuh"
#include "gemm_skinny_kernel.cuh"
#include "gemm_skinny_stream.cuh"

namespace boo_kernels {

template <class Kernel>
__global__ void __launch_bounds__(kSkinnyThreads, kSkinnyBlocksPerSm)
    gemm_skinny_kernel(SkinnyView v, BooGemmArgs a) {
  Kernel::run(v, a);
}

template <class Kernel>
__global__ void __launch_bounds__(kSkinnyThreads, kSkinnyPipelinedBlocksPerSm)
    gemm_skinny_pipelined_kernel(SkinnyView v, BooGemmArgs a) {
  Kernel::run_pipelined(v, a);
}

template <class TR, class TS, class TD, class TBias, int kAct, bool kHasC, bool kHasBias,
          bool kAlphaVector, bool kSwapped, bool kStream = false>
struct GemmSkinnyRunner {
  static constexpr bool kMma = !std::is_same_v<TR, float> && !std::is_same_v<TS, float>;
  using Kernel =
      SkinnyKernel<TR, TS, TD, TBias, kAct, kHasC, kHasBias, kAlphaVector, kSwapped, kMma>;
  static constexpr bool kPipelinable =
      kMma && std::is_same_v<TR, typename Kernel::MT> && std::is_same_v<TS, typename Kernel::MT>;
  using Stream = SkinnyStream<Kernel, TR, TS>;

  // Both operands contiguous in K with 16-byte rows: the cp.async main loop (when the pointers
  // are 16-byte aligned too). Decided from the layout alone, so that the split count (and the
  // workspace) does not depend on the pointers.
  static bool pipelined_layout(const SkinnyView& v) {
    constexpr int64_t kV = Kernel::kVec;
    return kPipelinable && v.r_ks == 1 && v.r_rs % kV == 0 && (v.batch == 1 || v.r_bs % kV == 0) &&
           v.s_ks == 1 && v.s_ss % kV == 0 && (v.batch == 1 || v.s_bs % kV == 0);
  }

  static int64_t slices(const SkinnyView& v) {
    return (v.rows + kSkinnyRows - 1) / kSkinnyRows * v.batch;
  }

  static const char* reject(const BooGemmArgs& a) {
    const SkinnyView v = make_skinny_view<kSwapped>(a);
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) return "empty problem";
    if (v.cols > kSkinnyCols) return "gemm.skinny: the narrow side is above 32";
    if (a.batch > 65535) return "gemm.skinny: batch above 65535";
    if ((v.rows + (kStream ? 15 : kSkinnyRows - 1)) / (kStream ? 16 : kSkinnyRows) > 0x7fffffff) {
      return "gemm.skinny: too many rows";
    }
    if constexpr (kStream) {
      if (a.splits != 0 && a.splits != 1 && a.splits != 2 && a.splits != 4 && a.splits != 8) {
        return "gemm.skinny: warps per row tile of the streaming loop must be 1, 2, 4 or 8";
      }
    } else if (a.splits > 1 && slices(v) > BOO_SEMAPHORE_COUNT) {
      return "gemm.skinny: too many row blocks to split K";
    }
    if ((kHasBias && a.bias == nullptr) || (kHasC && a.c == nullptr && a.beta != 0.0f) ||
        (kAlphaVector && a.alpha_vector == nullptr)) {
      return "a bias, C or alpha vector pointer is missing";
    }
    return nullptr;
  }

  static int64_t per_split(const SkinnyView& v, int64_t splits) {
    return ((v.k + splits - 1) / splits + kSkinnySplitQuantum - 1) / kSkinnySplitQuantum *
           kSkinnySplitQuantum;
  }

  // Splits of K: the count whose blocks best fill whole waves of resident blocks (ties to fewer
  // splits), each split at least one quantum deep, the last block's reduction bounded.
  static int64_t splits_for(const SkinnyView& v, const BooGemmArgs& a) {
    if (a.splits > 0) return a.splits;
    const int64_t n = slices(v);
    if (n > BOO_SEMAPHORE_COUNT) return 1;
    const int64_t per_sm = pipelined_layout(v) ? kSkinnyPipelinedBlocksPerSm : kSkinnyBlocksPerSm;
    const int64_t slots = per_sm * static_cast<int64_t>(a.sm_count > 0 ? a.sm_count : 132);
    int64_t most = (v.k + kSkinnySplitQuantum - 1) / kSkinnySplitQuantum;
    const int64_t reduce_cap = kSkinnyMostPartials / (kSkinnyRows * v.cols);
    if (most > reduce_cap) most = reduce_cap;
    int64_t best = 1;
    double best_fill = -1.0;
    for (int64_t s = 1; s <= most; ++s) {
      if ((v.k + per_split(v, s) - 1) / per_split(v, s) != s) continue;
      const int64_t blocks = n * s;
      const int64_t waves = (blocks + slots - 1) / slots;
      const double fill = static_cast<double>(blocks) / static_cast<double>(waves * slots);
      if (fill > best_fill + 0.01) {
        best = s;
        best_fill = fill;
      }
    }
    return best;
  }

  // Warps per row of the GEMV (a power of two, at most a block): about one unrolled step of K
  // each, so that blocks are short and the last wave ends evenly; more while the rows leave the
  // GPU short of kGemvWarpsPerSm warps per SM, as long as each warp keeps a vector per lane.
  static int gemv_warps_per_row(const SkinnyView& v, const BooGemmArgs& a) {
    constexpr int64_t kVectorElems = 32 * Kernel::kVec;
    constexpr int64_t kStepElems = kVectorElems * kGemvUnroll * kGemvSteps;
    const int64_t wanted =
        kGemvWarpsPerSm * static_cast<int64_t>(a.sm_count > 0 ? a.sm_count : 132);
    int per_row = 1;
    while (per_row < kGemvWarps &&
           (v.k / (2 * per_row) >= kStepElems ||
            (v.rows * v.batch * per_row < wanted && v.k / (2 * per_row) >= kVectorElems))) {
      per_row *= 2;
    }
    return per_row;
  }

  // The GEMV main loop: the decode layouts with at most kGemvCols columns of S, unless the
  // config asks for K splits, or the rows are too few to fill the GPU and K is deep (then the
  // warps of a block would stream long rows one latency at a time: K splits over blocks run
  // instead). Decided from the layout alone (see pipelined_layout).
  // dispatch::GemmSkinnyAlgorithm mirrors this rule.
  static bool gemv(const SkinnyView& v, const BooGemmArgs& a) {
    if (!pipelined_layout(v) || v.cols > kGemvCols || a.splits > 1 || v.rows > 0x7fffffff) {
      return false;
    }
    const int64_t wanted =
        kGemvWarpsPerSm * static_cast<int64_t>(a.sm_count > 0 ? a.sm_count : 132);
    const int per_row = gemv_warps_per_row(v, a);
    const bool starved = v.rows * v.batch * per_row < wanted / 4;
    const bool deep = v.k / per_row > 4 * 32 * Kernel::kVec * kGemvUnroll;
    return !(starved && deep);
  }

  // The streaming loop's warps per 16-row tile (kStream): a config's count (a.splits), else
  // gemm_skinny_plan.cuh's rule, which dispatch's model plans with too.
  static int stream_parts(const SkinnyView& v, const BooGemmArgs& a) {
    if (a.splits > 0) return a.splits;
    return stream_parts_for(v.rows, v.cols, v.k, v.batch, Stream::kChunk, a.sm_count);
  }

  // The bulk-copy loop (kStream, warps per row tile left to the runner): one column of S,
  // 16-bit inputs of one type, R and S contiguous in K and 16-byte aligned (`wide`, set by run),
  // rows of at least kBulkMinRowBytes whose S fits in shared memory, and at least
  // kBulkMinBlockBytes of R for each of its blocks (bulk_wave a batch entry).
  // dispatch::GemmSkinnyAlgorithm mirrors this rule (bulk_layout).
  static bool bulk(const SkinnyView& v, const BooGemmArgs& a) {
    if (!BOO_SKINNY_BULK || !kPipelinable || a.splits != 0 || v.cols != 1) return false;
    if (!v.r_wide || !v.s_wide || v.k % 8 != 0) return false;
    const int64_t row_bytes = 2 * v.k;
    if (row_bytes < kBulkMinRowBytes || row_bytes > kBulkMaxSBytes) return false;
    return v.rows * row_bytes >= bulk_wave(a.sm_count, v.batch) * kBulkMinBlockBytes;
  }

  static void plan(SkinnyView& v, const BooGemmArgs& a) {
    if (kStream || gemv(v, a)) {
      v.k_per_split = v.k;
      v.splits = 1;
      return;
    }
    const int64_t per = per_split(v, splits_for(v, a));
    v.k_per_split = per;
    v.splits = (v.k + per - 1) / per;
  }

  static int64_t workspace_bytes(const SkinnyView& v) {
    if (v.splits <= 1) return 0;
    return v.splits * slices(v) * kSkinnyRows * v.cols * 4;
  }

  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    return reject_verdict(reject(a), why, len);
  }

  static int64_t workspace(const BooGemmArgs& a) {
    if (reject(a) != nullptr) return -1;
    SkinnyView v = make_skinny_view<kSwapped>(a);
    plan(v, a);
    return workspace_bytes(v);
  }

  // kV elements at a time, contiguous and aligned to their size (Kernel::kVec: the other loops';
  // the streaming loop's fp8 vectors are 16 elements).
  template <class T, int64_t kV = Kernel::kVec>
  static bool wide(const void* base, int64_t ks, int64_t line_stride, int64_t batch_stride,
                   int64_t batch) {
    return sizeof(T) * kV <= 16 && ks == 1 && line_stride % kV == 0 &&
           (batch == 1 || batch_stride % kV == 0) &&
           reinterpret_cast<uintptr_t>(base) % (sizeof(T) * kV) == 0;
  }

  static int32_t run(const BooGemmArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    SkinnyView v = make_skinny_view<kSwapped>(a);
    plan(v, a);
    const int64_t need = workspace_bytes(v);
    if (need > ws_bytes || (need > 0 && ws == nullptr)) {
      write_why(why, len, "workspace too small");
      return BOO_ERROR;
    }
    v.partial = static_cast<float*>(ws);
    v.counters = a.semaphores;
    if (need > 0 && v.counters == nullptr && !a.dry_run) {
      write_why(why, len, "gemm.skinny: split K needs the semaphores (BooGemmArgs::semaphores)");
      return BOO_ERROR;
    }
    v.r_wide = wide<TR>(v.r, v.r_ks, v.r_rs, v.r_bs, v.batch);
    v.r_rows_fastest = v.r_ks != 1 && v.r_rs == 1;
    v.s_wide = wide<TS>(v.s, v.s_ks, v.s_ss, v.s_bs, v.batch);
    v.s_cols_fastest = v.s_ks != 1 && v.s_ss == 1;
    if (a.dry_run) return BOO_OK;
    const auto cuda_stream = static_cast<cudaStream_t>(stream);
    if constexpr (kStream) {
      static_assert(kMma, "the streaming loop needs 16-bit or fp8 inputs");
      if constexpr (Stream::kFp8) {
        v.r_wide = wide<TR, Stream::kVec>(v.r, v.r_ks, v.r_rs, v.r_bs, v.batch);
        v.s_wide = wide<TS, Stream::kVec>(v.s, v.s_ks, v.s_ss, v.s_bs, v.batch);
      }
      if constexpr (kPipelinable) {
        if (bulk(v, a)) {
          static const cudaError_t attr = cudaFuncSetAttribute(
              gemm_skinny_bulk_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
              static_cast<int>(kBulkMaxShared));
          if (attr != cudaSuccess) return cuda_result(attr, why, len);
          const BulkPlan p = bulk_plan(v.k);
          const int64_t wave = bulk_wave(a.sm_count, v.batch);
          const dim3 grid(static_cast<unsigned>(v.rows < wave ? v.rows : wave),
                          static_cast<unsigned>(v.batch));
          gemm_skinny_bulk_kernel<Kernel>
              <<<grid, kBulkThreads, p.shared, cuda_stream>>>(v, a, p.segments, p.seg);
          return cuda_result(cudaGetLastError(), why, len);
        }
      }
      const int parts = stream_parts(v, a);
      const int64_t rows_per_block = 16 * (kStreamWarps / parts);
      const dim3 blocks(static_cast<unsigned>((v.rows + rows_per_block - 1) / rows_per_block), 1,
                        static_cast<unsigned>(v.batch));
      const int tiles = static_cast<int>((v.cols + 7) / 8);
      auto go = [&](auto kernel) {
        kernel<<<blocks, kStreamThreads, 0, cuda_stream>>>(v, a, parts);
      };
      if (tiles == 1) {
        go(gemm_skinny_stream_kernel<Kernel, TR, TS, 1>);
      } else if (tiles == 2) {
        go(gemm_skinny_stream_kernel<Kernel, TR, TS, 2>);
      } else if (tiles == 3) {
        go(gemm_skinny_stream_kernel<Kernel, TR, TS, 3>);
      } else {
        go(gemm_skinny_stream_kernel<Kernel, TR, TS, 4>);
      }
      return cuda_result(cudaGetLastError(), why, len);
    } else {
      const dim3 grid(static_cast<unsigned>((v.rows + kSkinnyRows - 1) / kSkinnyRows),
                      static_cast<unsigned>(v.splits), static_cast<unsigned>(v.batch));
      if constexpr (kPipelinable) {
        if (gemv(v, a)) {
          const int per_row = gemv_warps_per_row(v, a);
          const dim3 rows(
              static_cast<unsigned>((v.rows + kGemvWarps / per_row - 1) / (kGemvWarps / per_row)),
              1, static_cast<unsigned>(v.batch));
          gemm_skinny_gemv_kernel<Kernel><<<rows, kGemvWarps * 32, 0, cuda_stream>>>(
              v, a, per_row, v.r_wide && v.s_wide ? 1 : 0);
        } else if (pipelined_layout(v) && v.r_wide && v.s_wide) {
          static const cudaError_t attr = cudaFuncSetAttribute(
              gemm_skinny_pipelined_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
              Kernel::kPipelinedShared);
          if (attr != cudaSuccess) return cuda_result(attr, why, len);
          gemm_skinny_pipelined_kernel<Kernel>
              <<<grid, kSkinnyThreads, Kernel::kPipelinedShared, cuda_stream>>>(v, a);
        } else {
          gemm_skinny_kernel<Kernel><<<grid, kSkinnyThreads, 0, cuda_stream>>>(v, a);
        }
      } else {
        gemm_skinny_kernel<Kernel><<<grid, kSkinnyThreads, 0, cuda_stream>>>(v, a);
      }
      return cuda_result(cudaGetLastError(), why, len);
    }
  }
};

}  // namespace boo_kernels
