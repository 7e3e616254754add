// gemm.skinny's bulk-copy loop (the streaming configs `_streamauto` take it where
// GemmSkinnyRunner::bulk says so): a single column of S, 16-bit inputs of one type, R's rows
// contiguous in K and 16-byte aligned, over enough bytes that every block streams many rows.
//
// Two blocks an SM, each given an equal run of rows (a persistent grid: no block turnover, no
// partial last wave). A block is kBulkConsumers consumer warps and one producer lane: the
// producer copies segments of R's rows (at most kBulkSegmentBytes each) with cp.async.bulk into
// one shared-memory slot per consumer warp, completing on that slot's `full` mbarrier; the
// consumer multiplies the segment by S's column (copied into shared memory once a block) and
// frees the slot on its `empty` mbarrier. Row i of the block goes to warp i % kBulkConsumers,
// all its segments in order, so every warp waits on its slot's phases in order and sums its rows
// in a fixed order (deterministic). The copy engine keeps up to kBulkConsumers segments a block
// in flight without registers, which the streaming loop (at most 8 vectors a lane in flight, a
// step at a time) does not reach on mid-size GEMVs: H200, 14336 x 1 x 4096 33.0 against 35.7 us,
// 16896 x 1 x 3584 33.8 against 40.3 (bench/results/2026-11-28-gemv-h200.md).
// BOO_SKINNY_BULK=0 leaves this loop out (for measuring).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "convert.cuh"
#include "entry_points.cuh"
#include "gemm_skinny_gemv.cuh"
#include "gemm_skinny_kernel.cuh"
#include "gemm_skinny_plan.cuh"
#include "tma.cuh"

#ifndef BOO_SKINNY_BULK
#define BOO_SKINNY_BULK 1
#endif
// The producer starts before S is in shared memory where S has at most this many bytes
// (BOO_SKINNY_BULK_EARLY; 0: never, for measuring). H200, 2026-11-28: 14336 x 1 x 4096 32.9
// against 33.9 us, 16896 x 1 x 3584 33.7 against 34.3, fp16 16411 x 1 x 4096 37.5 against 38.3;
// but 4096 x 1 x 14336 (28 KB of S, which every block reads at once) 35.3 against 34.3.
#ifndef BOO_SKINNY_BULK_EARLY
#define BOO_SKINNY_BULK_EARLY 16384
#endif

namespace boo_kernels {

constexpr int kBulkConsumers = 8;
constexpr int kBulkThreads = (kBulkConsumers + 1) * 32;
constexpr int64_t kBulkSegmentBytes = 8192;                 // at most this much of a row a copy
constexpr int64_t kBulkMaxSBytes = 40960;                   // S's column, in shared memory
constexpr int64_t kBulkMinRowBytes = 2048;                  // shorter rows: the streaming loop
constexpr int64_t kBulkMinBlockBytes = int64_t{256} << 10;  // R's bytes a block, at least

// kBulkBlocksPerSm and bulk_wave (blocks for each batch entry): gemm_skinny_plan.cuh.

constexpr int64_t bulk_round(int64_t bytes) { return (bytes + 127) / 128 * 128; }

// How a row of k 16-bit elements splits into copies: `segments` of `seg` elements (a multiple
// of 8: 16-byte copies), the last one shorter; and the shared memory a block needs.
struct BulkPlan {
  int64_t segments = 0;
  int64_t seg = 0;
  int64_t shared = 0;
};

inline BulkPlan bulk_plan(int64_t k) {
  BulkPlan p;
  const int64_t parts = (2 * k + kBulkSegmentBytes - 1) / kBulkSegmentBytes;
  p.seg = ((k + parts - 1) / parts + 7) / 8 * 8;
  p.segments = (k + p.seg - 1) / p.seg;
  p.shared = bulk_round(2 * k) + kBulkConsumers * bulk_round(2 * p.seg) + 16 * kBulkConsumers;
  return p;
}
constexpr int64_t kBulkMaxShared =
    bulk_round(kBulkMaxSBytes) + kBulkConsumers * kBulkSegmentBytes + 16 * kBulkConsumers;

// acc += the dot product of 8 elements of x and y, in SkinnyGemv::dot's order (the same sums),
// bf16 widened by a shift and a mask rather than a cvt each: 48 fewer instructions a kernel.
template <class MT>
__device__ __forceinline__ void bulk_dot(float& acc, uint4 x, uint4 y) {
  const uint32_t xv[4] = {x.x, x.y, x.z, x.w};
  const uint32_t yv[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 p = widen_pair<MT>(xv[i]);
    const float2 q = widen_pair<MT>(yv[i]);
    acc = fmaf(p.x, q.x, acc);
    acc = fmaf(p.y, q.y, acc);
  }
}

// Grid: (blocks, batch); kBulkThreads threads; plan.shared bytes of dynamic shared memory.
template <class Kernel>
__global__ void __launch_bounds__(kBulkThreads, kBulkBlocksPerSm)
    gemm_skinny_bulk_kernel(SkinnyView v, BooGemmArgs a, int64_t segments, int64_t seg) {
  using MT = typename Kernel::MT;
  static_assert(sizeof(MT) == 2, "the bulk-copy loop multiplies 16-bit types");
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int64_t b = blockIdx.y;
  const MT* R = static_cast<const MT*>(v.r) + b * v.r_bs;
  const uint4* S = reinterpret_cast<const uint4*>(static_cast<const MT*>(v.s) + b * v.s_bs);
  const int64_t row0 = v.rows * blockIdx.x / gridDim.x;
  const int64_t n = v.rows * (blockIdx.x + 1) / gridDim.x - row0;
  const int64_t slot_bytes = bulk_round(2 * seg);
  unsigned char* slots = bulk_smem + bulk_round(2 * v.k);
  const uint32_t slots_at = static_cast<uint32_t>(__cvta_generic_to_shared(slots));
  const uint32_t bars = slots_at + static_cast<uint32_t>(kBulkConsumers * slot_bytes);
  const auto full = [&](int w) { return bars + 8 * w; };
  const auto empty = [&](int w) { return bars + 8 * (kBulkConsumers + w); };
  if (threadIdx.x == 0) {
    for (int w = 0; w < kBulkConsumers; ++w) {
      mbarrier_init(full(w), 1);
      mbarrier_init(empty(w), 1);
    }
    mbarrier_init_fence();
  }
  uint4* x = reinterpret_cast<uint4*>(bulk_smem);
  if (2 * v.k <= BOO_SKINNY_BULK_EARLY) {
    // The first copies leave while the consumers fetch S (from HBM, in a cold L2).
    __syncthreads();
    if (warp < kBulkConsumers) {
      for (int64_t i = threadIdx.x; i < v.k / 8; i += kBulkConsumers * 32) x[i] = __ldg(S + i);
      asm volatile("bar.sync 1, %0;\n" ::"n"(kBulkConsumers * 32) : "memory");
    }
  } else {
    for (int64_t i = threadIdx.x; i < v.k / 8; i += kBulkThreads) x[i] = __ldg(S + i);
    __syncthreads();
  }

  if (warp == kBulkConsumers) {  // the producer
    if (lane == 0) {
      // Item c of a warp: segment c % segments of its row c / segments. Warps take turns a
      // segment at a time; a warp's slot is refilled once it has freed it.
      int64_t c = 0;
      for (int64_t r = 0; r * kBulkConsumers < n; ++r) {
        for (int64_t j = 0; j < segments; ++j, ++c) {
          const int64_t k0 = j * seg;
          const uint32_t bytes = static_cast<uint32_t>(2 * (k0 + seg < v.k ? seg : v.k - k0));
          for (int w = 0; w < kBulkConsumers && r * kBulkConsumers + w < n; ++w) {
            if (c > 0) mbarrier_wait(empty(w), static_cast<uint32_t>((c - 1) & 1));
            mbarrier_expect_bytes(full(w), bytes);
            bulk_copy(slots_at + static_cast<uint32_t>(w * slot_bytes),
                      R + (row0 + r * kBulkConsumers + w) * v.r_rs + k0, bytes, full(w));
          }
        }
      }
    }
    return;
  }

  const float alpha = SkinnyGemv<Kernel>::alpha_of(a);
  const uint4* slot = reinterpret_cast<const uint4*>(slots + warp * slot_bytes);
  int64_t c = 0;
  for (int64_t i = warp; i < n; i += kBulkConsumers) {
    float acc0 = 0.0f, acc1 = 0.0f;  // two chains, added in a fixed order
    for (int64_t j = 0; j < segments; ++j, ++c) {
      mbarrier_wait(full(warp), static_cast<uint32_t>(c & 1));
      const int64_t k0 = j * seg;
      const int vectors = static_cast<int>((k0 + seg < v.k ? seg : v.k - k0) / 8);
      const uint4* xs = x + k0 / 8;
#pragma unroll 2
      for (int e = lane; e < vectors; e += 64) {
        bulk_dot<MT>(acc0, slot[e], xs[e]);
        if (e + 32 < vectors) bulk_dot<MT>(acc1, slot[e + 32], xs[e + 32]);
      }
      __syncwarp();
      if (lane == 0) mbarrier_arrive(empty(warp));
    }
    float sum = acc0 + acc1;
#pragma unroll
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) {
      const int64_t r = row0 + i;
      Kernel::store(v, a, b, r, 0, Kernel::load_epilogue(v, a, alpha, b, r, 0), sum);
    }
  }
}

}  // namespace boo_kernels
