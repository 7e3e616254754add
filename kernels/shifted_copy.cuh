// Copies between tensors whose pointers are aligned only to their element size: the padded
// operands of gemm.sm90_unaligned (kernels/gemm_padded.cuh) and the channels-last copies of
// conv views (kernels/conv_relayout.cuh). A warp takes 32 kPer of a column's 16-byte destination
// chunks (kPer = 4, or 1 for small copies); each lane loads the aligned 16-byte source chunk
// where its chunk's bytes start, takes the next one from its neighbour lane (a shuffle), and
// funnel-shifts the two into place (kernels/shifted_copy_math.cuh): every load and store is 16
// bytes wide whatever the two pointers' offsets, and every source chunk is loaded once. The few
// elements before and after the destination's chunks are copied one by one. The relayout's
// element-wise copies moved a packed view at about a sixth of the copy ceiling on an H100
// (bench/results/2026-11-28-conv-misaligned-h100.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "entry_points.cuh"
#include "shifted_copy_math.cuh"

// BOO_NVCC_FLAGS=-DBOO_SHIFTED_COPY=0 leaves the shifted copy unused: the element copies of
// before (for measuring: bench/results/2026-11-28-shifted-copy-h200.md).
#ifndef BOO_SHIFTED_COPY
#define BOO_SHIFTED_COPY 1
#endif

namespace boo_kernels {

// The unsigned word of an element's size (what the copies move).
template <int kBytes>
struct CopyWord;
template <>
struct CopyWord<1> {
  using type = uint8_t;
};
template <>
struct CopyWord<2> {
  using type = uint16_t;
};
template <>
struct CopyWord<4> {
  using type = uint32_t;
};

constexpr int kShiftThreads = 256;
// 16-byte chunks a lane takes per work item, all in flight: 4, or 1 where 4 would leave fewer
// than kShiftFewItems work items (a warp each) for the GPU. One chunk a lane measured no
// different on the copies it took (1001 x 1024 x 1024 misaligned: 0.99x against 0.97x the element
// copies at four) and did not make 1-2 KB columns faster (H200, 2026-11-28).
constexpr int kShiftChunksPerLane = 4;
constexpr int64_t kShiftFewItems = 1056;  // 132 SMs x 8 warps
constexpr int kShiftBlocksPerSm = 4;      // at most 64 registers: 56 used, no spills

// dst(r, c, b) = src(r, c, b) for a rows x cols x batch column-major matrix of E (either stride
// may be 0: a broadcast source). Work item = (batch, column, segment of 32 kPer chunks).
// Index: uint32_t where the work items fit (its divisions are several times cheaper). A first
// version (two loads a chunk, 64-bit divisions) took 88 registers, two blocks an SM: too few
// loads in flight, slower than element copies on long columns (H200, 2026-11-28).
template <class E, class Index, int kPer>
__global__ void __launch_bounds__(kShiftThreads, kShiftBlocksPerSm)
    shifted_copy_kernel(const E* __restrict__ src, int64_t ld_src, int64_t stride_src,
                        E* __restrict__ dst, int64_t ld_dst, int64_t stride_dst, int64_t rows,
                        Index cols, Index segs, Index items) {
  // A programmatic dependent (gemm.sm90_unaligned's GEMM after its copies) may launch once every
  // block has started: it waits for this grid's completion before its loads.
  cudaTriggerProgrammaticLaunchCompletion();
  // Launched as a programmatic dependent (gemm.sm90_unaligned's D copied out after the GEMM), it
  // waits here for the kernel before it to complete; otherwise the wait returns at once.
  cudaGridDependencySynchronize();
  constexpr int kWarps = kShiftThreads / 32;
  const int lane = threadIdx.x % 32;
  const Index step = static_cast<Index>(gridDim.x) * kWarps;
  for (Index item = static_cast<Index>(blockIdx.x) * kWarps + threadIdx.x / 32; item < items;
       item += step) {
    const Index column = segs == 1 ? item : item / segs;
    const int64_t seg = static_cast<int64_t>(item - column * segs);
    const Index bi = cols == 1 ? column : column / cols;
    const int64_t b = static_cast<int64_t>(bi), c = static_cast<int64_t>(column - bi * cols);
    const E* s = src + b * stride_src + c * ld_src;
    E* d = dst + b * stride_dst + c * ld_dst;
    const ShiftedSpan sp =
        shifted_span(reinterpret_cast<uint64_t>(d), reinterpret_cast<uint64_t>(s),
                     rows * static_cast<int64_t>(sizeof(E)));
    if (seg == 0) {
      const int64_t head = sp.head / static_cast<int64_t>(sizeof(E));
      const int64_t tail = sp.tail / static_cast<int64_t>(sizeof(E));
      for (int64_t r = lane; r < head; r += 32) d[r] = s[r];
      for (int64_t r = rows - tail + lane; r < rows; r += 32) d[r] = s[r];
    }
    // Both from the kernel's pointers (not from the integer addresses), so that the compiler
    // keeps them global: st.global rather than generic stores.
    const uint4* from = reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(s) -
                                                       (reinterpret_cast<uint64_t>(s) - sp.source));
    uint4* to = reinterpret_cast<uint4*>(reinterpret_cast<char*>(d) +
                                         (sp.first - reinterpret_cast<uint64_t>(d)));
    const int64_t i0 = seg * 32 * kPer + lane;
    // Lane l's chunks i0 + 32 j. Where lead is not 0 a chunk's bytes end in the next source
    // chunk: the next lane's (lane 31: lane 0's next one, or one more load after the last), so
    // that source chunk `chunks` (which holds the last chunk's end) is loaded too. One load per
    // source chunk, and only four chunks of registers a lane.
    const int64_t loaded = sp.chunks + (sp.lead != 0 ? 1 : 0);
    uint4 lo[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int64_t i = i0 + 32 * j;
      lo[j] = i < loaded ? __ldg(from + i) : make_uint4(0, 0, 0, 0);
    }
    // Lane 31: the source chunk after its last one (the next item's first).
    const int64_t after = i0 + 32 * (kPer - 1) + 1;
    const uint4 beyond =
        lane == 31 && after < loaded ? __ldg(from + after) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const uint4 next = lo[j + 1 < kPer ? j + 1 : j];  // (lane 0's)
      const uint32_t l[4] = {lo[j].x, lo[j].y, lo[j].z, lo[j].w};
      uint32_t h[4], wrap[4];
      const uint32_t n[4] = {next.x, next.y, next.z, next.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        h[k] = __shfl_down_sync(0xffffffffu, l[k], 1);
        wrap[k] = __shfl_sync(0xffffffffu, n[k], 0);
      }
      if (lane == 31) {
        // Lane 0's next chunk, except after the last j, where lane 31 loaded it itself.
        const bool own = j + 1 == kPer;
        h[0] = own ? beyond.x : wrap[0];
        h[1] = own ? beyond.y : wrap[1];
        h[2] = own ? beyond.z : wrap[2];
        h[3] = own ? beyond.w : wrap[3];
      }
      const int64_t i = i0 + 32 * j;
      if (i < sp.chunks) {
        uint32_t o[4];
        shifted_words(l, h, sp.lead, o);
        to[i] = make_uint4(o[0], o[1], o[2], o[3]);
      }
    }
  }
}

// Launches shifted_copy_kernel<E, Index, kPer> with `segs` items a column (Index: uint32_t
// where the items fit).
template <class E, int kPer>
cudaError_t launch_shifted_copy(const void* src, int64_t ld_src, int64_t stride_src, void* dst,
                                int64_t ld_dst, int64_t stride_dst, int64_t rows, int64_t cols,
                                int64_t batch, int64_t segs, cudaStream_t stream, bool dependent) {
  const int64_t items = segs * cols * batch;
  const int64_t blocks = (items + kShiftThreads / 32 - 1) / (kShiftThreads / 32);
  const unsigned grid =
      static_cast<unsigned>(blocks < (int64_t{1} << 20) ? blocks : int64_t{1} << 20);
  const E* s = static_cast<const E*>(src);
  E* d = static_cast<E*>(dst);
  if (items <= int64_t{0xffffffff} - static_cast<int64_t>(grid) * (kShiftThreads / 32)) {
    return launch_maybe_dependent(dependent, shifted_copy_kernel<E, uint32_t, kPer>, dim3(grid),
                                  dim3(kShiftThreads), stream, s, ld_src, stride_src, d, ld_dst,
                                  stride_dst, rows, static_cast<uint32_t>(cols),
                                  static_cast<uint32_t>(segs), static_cast<uint32_t>(items));
  } else {
    return launch_maybe_dependent(dependent, shifted_copy_kernel<E, uint64_t, kPer>, dim3(grid),
                                  dim3(kShiftThreads), stream, s, ld_src, stride_src, d, ld_dst,
                                  stride_dst, rows, static_cast<uint64_t>(cols),
                                  static_cast<uint64_t>(segs), static_cast<uint64_t>(items));
  }
}

// Copies a column-major rows x cols x batch matrix of E (shifted_copy_kernel). A matrix dense
// on both sides (no gaps between columns or batches) is one long column.
template <class E>
cudaError_t shifted_copy(const void* src, int64_t ld_src, int64_t stride_src, void* dst,
                         int64_t ld_dst, int64_t stride_dst, int64_t rows, int64_t cols,
                         int64_t batch, cudaStream_t stream, bool dependent = false) {
  if (rows < 1 || cols < 1 || batch < 1) return cudaSuccess;
  if (shifted_copy_dense(ld_src, stride_src, ld_dst, stride_dst, rows, cols, batch)) {
    rows *= cols * batch;
    cols = batch = 1;
  }
  const int64_t max_chunks = rows * static_cast<int64_t>(sizeof(E)) / 16;
  const int64_t wide = (max_chunks / (32 * kShiftChunksPerLane) + 1) * cols * batch;
  if (wide < kShiftFewItems) {
    return launch_shifted_copy<E, 1>(src, ld_src, stride_src, dst, ld_dst, stride_dst, rows, cols,
                                     batch, max_chunks / 32 + 1, stream, dependent);
  }
  return launch_shifted_copy<E, kShiftChunksPerLane>(
      src, ld_src, stride_src, dst, ld_dst, stride_dst, rows, cols, batch,
      max_chunks / (32 * kShiftChunksPerLane) + 1, stream, dependent);
}

}  // namespace boo_kernels
