// gemm.sm90's fp8 mainloop: CUTLASS's accurate fp8 mainloop (MainloopSm90TmaGmmaWarpSpecialized
// FP8, the one the collective builder picks for fp8 operands without fast accumulation) with its
// promotion overlapped.
//
// Hopper's fp8 warpgroup MMAs accumulate with fewer bits than fp32, so the accurate mainloop
// runs each k-tile's MMAs into a temporary set of accumulators and adds ("promotes") that set
// into the fp32 accumulators. CUTLASS's promotion waits for every MMA in flight first
// (fp8_accumulation.hpp: warpgroup_wait<0> in promote_core): each k-tile the warpgroup's MMA
// queue drains, and the tensor cores wait for the adds and the next k-tile's issue. Here two
// temporary sets alternate: k-tile i's MMAs go into one while k-tile i - 1's set, finished
// (warpgroup_wait<1>), is added into the accumulators. The MMA queue never empties inside a
// tile. Every k-tile is promoted (CUTLASS's default interval, 4 MMAs of k = 32, is one 128-deep
// k-tile; a shallower k-tile promotes more often, never less). The sums run in the same order
// as CUTLASS's: the same bits on the same k-tiles.
//
// Three sets of accumulators take 3x the tile's share a thread: the overlapped form is used
// where that is at most kFp8OverlapMaxAccumulators registers (cooperative tiles up to 128x128,
// pingpong tiles up to 64x128); larger tiles keep CUTLASS's mainloop (two sets). Everything but
// mma() is CUTLASS's (the loads, the pipeline, the shared storage, mma_tail's release of the last
// stage, which this mma leaves to it as CUTLASS's does). -DBOO_FP8_OVERLAPPED_PROMOTION=0 through
// BOO_NVCC_FLAGS keeps CUTLASS's mainloop everywhere (for measuring).
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/gemm/collective/collective_builder.hpp"

#ifndef BOO_FP8_OVERLAPPED_PROMOTION
#define BOO_FP8_OVERLAPPED_PROMOTION 1
#endif

namespace boo_kernels {

constexpr int kFp8OverlapMaxAccumulators = 64;

template <class Base>
struct Fp8OverlappedPromotion : Base {
  using typename Base::MainloopPipeline;
  using typename Base::Params;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using typename Base::TiledMma;
  static_assert(Base::K_PIPE_MMAS == 1, "mma_tail releases one stage, as this mma leaves it");

  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read,
                          FrgTensorC& accum, int k_tile_count, int thread_idx,
                          TensorStorage& shared_tensors, Params const& /*mainloop_params*/) {
    using namespace cute;
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});
    constexpr int kWarpGroups = size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
    const auto group_threads =
        make_layout(Int<kWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    const int group = __shfl_sync(0xffffffff, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    TiledMma tiled_mma;
    auto thread_mma = tiled_mma.get_slice(group_threads(group));
    Tensor tCsA = thread_mma.partition_A(sA);  // (MMA, MMA_M, MMA_K, PIPE)
    Tensor tCsB = thread_mma.partition_B(sB);  // (MMA, MMA_N, MMA_K, PIPE)
    Tensor tCrA = thread_mma.make_fragment_A(tCsA);
    Tensor tCrB = thread_mma.make_fragment_B(tCsB);
    CUTE_STATIC_ASSERT_V(size<1>(tCsA) == size<1>(accum));
    CUTE_STATIC_ASSERT_V(size<1>(tCsB) == size<2>(accum));
    static_assert(size(FrgTensorC{}) <= kFp8OverlapMaxAccumulators,
                  "three sets of accumulators must fit (larger tiles take CUTLASS's mainloop)");

    Tensor even = make_fragment_like(accum);
    Tensor odd = make_fragment_like(accum);
    PipelineState smem_pipe_release = smem_pipe_read;
    // Both sets get their (unused) values before any MMA is in flight, fenced there: left
    // undefined, nvcc set them from one zero register that ptxas shared with a register of the
    // first MMAs, then copied it while they ran, so ptxas waited for them (C7517, an injected
    // warpgroup.wait before the loop).
    clear(accum);
    clear(even);
    clear(odd);
    warpgroup_fence_operand(even);
    warpgroup_fence_operand(odd);
    if (k_tile_count <= 0) return;
    // The next k-tile's MMAs into `part` (zeroed by the first one's scale-out).
    const auto issue = [&](auto& part) {
      const auto token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, token);
      const int stage = smem_pipe_read.index();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(part);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), part);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(part);
      ++smem_pipe_read;
    };
    // A finished set into the accumulators.
    const auto promote = [&](auto& part) {
      warpgroup_fence_operand(part);
      warpgroup_fence_operand(accum);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) accum(i) += part(i);
      warpgroup_fence_operand(accum);
      warpgroup_fence_operand(part);
    };
    // One k-tile into `next` while the one before it (in `done`) is added up; its stage is free.
    const auto step = [&](auto& next, auto& done) {
      issue(next);
      warpgroup_wait<1>();
      promote(done);
      pipeline.consumer_release(smem_pipe_release);
      ++smem_pipe_release;
    };
    issue(even);
    int left = k_tile_count - 1;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; left >= 2; left -= 2) {
      step(odd, even);
      step(even, odd);
    }
    if (left == 1) {
      step(odd, even);
      warpgroup_wait<0>();
      promote(odd);
    } else {
      warpgroup_wait<0>();
      promote(even);
    }
  }
};

// The mainloop for a tile: overlapped where three sets of its accumulators fit (kAccumulators: a
// thread's share of the tile) and a k-tile is at most CUTLASS's promotion interval (4 MMAs of
// k = 32: 128 deep), else CUTLASS's (whose can_implement refuses deeper k-tiles).
template <class Base, int kAccumulators>
using Fp8Mainloop = cute::conditional_t<BOO_FP8_OVERLAPPED_PROMOTION != 0 &&
                                            kAccumulators <= kFp8OverlapMaxAccumulators &&
                                            cute::size<2>(typename Base::TileShape{}) <= 128,
                                        Fp8OverlappedPromotion<Base>, Base>;

}  // namespace boo_kernels
