// The Tensor Memory Accelerator (sm_90) as boo's own kernels use it: a tiled tensor map made on
// the host (cuTensorMapEncodeTiled, reached through the runtime's driver entry point: JIT
// modules link no libcuda), a box copied into shared memory by one thread
// (cp.async.bulk.tensor, PTX ISA 9.7.9.25), and an mbarrier that counts the box's bytes and that
// the block waits on by phase parity; a box stored from shared memory; and plain contiguous
// bulk copies into shared memory (cp.async.bulk).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace boo_kernels {

// A tiled map of a 16-bit tensor of kRank (4 or 5) dimensions, dims[0] innermost and
// contiguous, strides[i] the bytes between steps of dims[i + 1]; boxes of box[] elements land
// 128-byte swizzled (16-byte vector v of each 128-byte row at v ^ (row % 8), rows from a
// 1024-byte boundary), or packed as they are with CU_TENSOR_MAP_SWIZZLE_NONE; elements outside
// the tensor read as zero. False where the driver has no encoder or refuses the map. The driver
// encodes maps that trap the copy with an illegal instruction on an H200: a box wider than the
// innermost extent (bench/results/2026-11-29-taps-nchw-h200.md, the TMA probe) and, it seems, a
// box whose innermost start coordinate is not on a 16-byte vector (2026-11-29-few-tma-h200.md).
// Keep box[0] <= dims[0] and start boxes on vectors (a 5D map whose dims[0] is one vector).
// `steps` (where given): every steps[i]-th element of dims[i] (i >= 1) lands, box[i] / steps[i] of
// them (the driver's elementStrides).
template <int kRank>
inline bool tma_map(CUtensorMap* map, const void* base, const uint64_t (&dims)[kRank],
                    const uint64_t (&strides)[kRank - 1], const uint32_t (&box)[kRank],
                    CUtensorMapSwizzle swizzle, const uint32_t* steps = nullptr) {
  using Encode =
      CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      return static_cast<Encode>(nullptr);
    }
    return reinterpret_cast<Encode>(fn);
  }();
  if (encode == nullptr) return false;
  cuuint64_t d[kRank], s[kRank - 1];
  cuuint32_t b[kRank], unit[kRank];
  for (int i = 0; i < kRank; ++i) {
    d[i] = dims[i];
    b[i] = box[i];
    unit[i] = steps != nullptr ? steps[i] : 1;
    if (i + 1 < kRank) s[i] = strides[i];
  }
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, kRank, const_cast<void*>(base), d, s, b, unit,
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}
inline bool tma_map_4d(CUtensorMap* map, const void* base, const uint64_t (&dims)[4],
                       const uint64_t (&strides)[3], const uint32_t (&box)[4],
                       CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B,
                       const uint32_t* steps = nullptr) {
  return tma_map<4>(map, base, dims, strides, box, swizzle, steps);
}

// The map of a packed channels-last 16-bit activation of n images of `extent` (D, H, W) points
// and `channels` channels, as 4D (C, W, H, n D), in boxes of box_channels channels x box_w
// points x box_rows rows x box_planes planes, 128-byte swizzled unless `swizzle` says otherwise
// (boo's wgmma convolution kernels: 64 channels of one plane; conv.grouped's TMA kernel);
// w_step > 1: every w_step-th point of a row, box_w of them (a phase of a strided row).
inline bool tma_map_channels_last(CUtensorMap* map, const void* base, int64_t n,
                                  const int64_t (&extent)[3], int64_t channels, int box_w,
                                  int box_rows, int box_planes = 1, int box_channels = 64,
                                  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B,
                                  int w_step = 1) {
  const uint64_t c = static_cast<uint64_t>(channels), w = static_cast<uint64_t>(extent[2]);
  const uint64_t h = static_cast<uint64_t>(extent[1]);
  const uint64_t dims[4] = {c, w, h, static_cast<uint64_t>(n * extent[0])};
  const uint64_t strides[3] = {2 * c, 2 * c * w, 2 * c * w * h};
  const uint32_t box[4] = {static_cast<uint32_t>(box_channels),
                           static_cast<uint32_t>(box_w * w_step), static_cast<uint32_t>(box_rows),
                           static_cast<uint32_t>(box_planes)};
  const uint32_t steps[4] = {1, static_cast<uint32_t>(w_step), 1, 1};
  return tma_map_4d(map, base, dims, strides, box, swizzle, steps);
}

__device__ __forceinline__ void mbarrier_init(uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes initialized mbarriers visible to the async proxy (the copies that complete on them).
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also expects `bytes` of copies to complete on the barrier's phase.
__device__ __forceinline__ void mbarrier_expect_bytes(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// One plain arrival (no bytes expected).
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Returns once the barrier's phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "boo_mbarrier_wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra boo_mbarrier_wait;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// Box (c0, c1, c2, c3) of `map` into shared memory at `smem`, completing on `bar`.
__device__ __forceinline__ void tma_load_4d(uint32_t smem, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
      "[%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(smem),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}
// Box (0, c1, c2, c3, c4) of a 5D `map` into shared memory at `smem`, completing on `bar`.
__device__ __forceinline__ void tma_load_5d(uint32_t smem, const CUtensorMap* map, uint32_t bar,
                                            int c1, int c2, int c3, int c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
      "[%1, {%2, %3, %4, %5, %6}], [%7];\n" ::"r"(smem),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(bar)
      : "memory");
}
// `bytes` (a multiple of 16) of contiguous global memory from the 16-byte aligned `src` into
// shared memory at `smem`, completing on `bar` (cp.async.bulk, no tensor map).
__device__ __forceinline__ void bulk_copy(uint32_t smem, const void* src, uint32_t bytes,
                                          uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(smem),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}

// Box (c0, c1, c2, c3) of `map` from shared memory at `smem` (written in the map's swizzled
// layout, made visible to the async proxy by fence_proxy_async_shared and a barrier); elements
// outside the tensor are not written. One bulk group a call (tma_store_commit).
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, uint32_t smem, int c0, int c1,
                                             int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n"
      "cp.async.bulk.commit_group;\n" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(smem), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
// `bytes` (a multiple of 16) of shared memory at `smem` (16-byte aligned, made visible to the
// async proxy by fence_proxy_async_shared) to contiguous global memory at the 16-byte aligned
// `dst` (cp.async.bulk, no tensor map). One bulk group a call.
__device__ __forceinline__ void bulk_store(void* dst, uint32_t smem, uint32_t bytes) {
  asm volatile(
      "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
      "cp.async.bulk.commit_group;\n" ::"l"(reinterpret_cast<uint64_t>(dst)),
      "r"(smem), "r"(bytes)
      : "memory");
}
// Returns once at most kPending of this thread's stores still read their shared memory.
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
// Returns once at most kPending of this thread's stores are still writing global memory.
template <int kPending>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace boo_kernels
