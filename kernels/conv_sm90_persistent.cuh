// conv.sm90_implicit's persistent schedules: CUTLASS 4.2's implicit-GEMM conv collective (TMA
// im2col loads, GMMA) driven by a kernel of our own that keeps one CTA per SM and walks output
// tiles with CUTLASS's static persistent tile scheduler, a load warp running ahead into the
// next tiles. Two consumer warpgroups either share each tile, rows split between them
// (cooperative: tiles up to 256x128), or take alternate tiles in turn, one's epilogue running
// under the other's MMAs (pingpong: tiles up to 128x128 each). CUTLASS 4.2 ships only the
// non-persistent, one-consumer kernel for conv (its dispatch policy rejects the persistent
// schedules), which caps tiles at 128x128 and leaves the tensor cores idle during every
// epilogue.
//
// Forward and backward data only: their GEMM M mode (output pixels) is linearized by the
// collective, so a tile index maps to a coordinate the same way it does for a GEMM. Backward
// weight's N mode is (C, S, R, T), tiled per mode, and stays on the non-persistent kernel.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/conv/collective/collective_builder.hpp"
#include "cutlass/conv/detail.hpp"
#include "cutlass/conv/dispatch_policy.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/gemm/kernel/sm90_tile_scheduler.hpp"
#include "cutlass/kernel_hardware_info.hpp"
#include "cutlass/pipeline/pipeline.hpp"

namespace boo_kernels {

// The schedule tags of the collectives ConvPersistentMainloop builds. Only the kernel below
// reads them; the collective itself does not depend on its schedule.
struct ConvPersistentCooperative {};
struct ConvPersistentPingpong {};

// The CUTLASS conv collective for one of the schedules: a cooperative tile lays its MMA atoms
// out 2x1 over M, one per consumer warpgroup; a pingpong tile belongs to one warpgroup. The
// rest is what CUTLASS's sm90 conv builder derives for its own schedule (GMMA majors per
// direction, im2col TMA for the activation operand, swizzled shared memory, as many stages as
// fit beside the epilogue's CarveoutBytes).
template <class Schedule, cutlass::conv::Operator kOp, class Element, int kDims, class TileShape,
          class ClusterShape, int kCarveoutBytes>
struct ConvPersistentMainloop {
  static_assert(kOp != cutlass::conv::Operator::kWgrad, "backward weight is not persistent");
  using ElementMma =
      cute::conditional_t<cute::is_same_v<Element, float>, cutlass::tfloat32_t, Element>;
  static constexpr cute::GMMA::Major kMajorA = cute::GMMA::Major::K;
  static constexpr cute::GMMA::Major kMajorB =
      kOp == cutlass::conv::Operator::kFprop ? cute::GMMA::Major::K : cute::GMMA::Major::MN;
  using TiledMma = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<ElementMma, ElementMma, float, TileShape, kMajorA, kMajorB>(),
      cute::Layout<
          cute::Shape<cute::conditional_t<cute::is_same_v<Schedule, ConvPersistentCooperative>,
                                          cute::_2, cute::_1>,
                      cute::_1, cute::_1>>{}));
  using CopyA = decltype(cutlass::conv::collective::detail::sm90_cluster_shape_to_im2col_tma_atom(
      cute::shape<1>(ClusterShape{})));
  using CopyB = decltype(cutlass::gemm::collective::detail::sm90_cluster_shape_to_tma_atom(
      cute::shape<0>(ClusterShape{})));
  using AtomA = decltype(cutlass::gemm::collective::detail::ss_smem_selector<
                         kMajorA, ElementMma, decltype(cute::get<0>(TileShape{})),
                         decltype(cute::get<2>(TileShape{}))>());
  using AtomB = decltype(cutlass::gemm::collective::detail::ss_smem_selector<
                         kMajorB, ElementMma, decltype(cute::get<1>(TileShape{})),
                         decltype(cute::get<2>(TileShape{}))>());
  static constexpr int kStages = cutlass::conv::collective::detail::compute_stage_count_or_override<
      cutlass::gemm::collective::detail::sm90_smem_capacity_bytes, ElementMma, ElementMma,
      TileShape>(cutlass::conv::collective::StageCountAutoCarveout<kCarveoutBytes>{});
  using SmemLayoutA = decltype(cute::tile_to_shape(
      AtomA{},
      cute::make_shape(cute::shape<0>(TileShape{}), cute::shape<2>(TileShape{}),
                       cute::Int<kStages>{}),
      cute::Step<cute::_2, cute::_1, cute::_3>{}));
  using SmemLayoutB = decltype(cute::tile_to_shape(
      AtomB{},
      cute::make_shape(cute::shape<1>(TileShape{}), cute::shape<2>(TileShape{}),
                       cute::Int<kStages>{}),
      cute::Step<cute::_2, cute::_1, cute::_3>{}));
  using Policy =
      cutlass::conv::MainloopSm90TmaGmmaWarpSpecializedImplicitGemm<kOp, kStages, kDims,
                                                                    ClusterShape, Schedule>;
  using CollectiveOp = cutlass::conv::collective::CollectiveConv<
      Policy, TileShape, Element, Element, TiledMma,
      cutlass::conv::collective::detail::Sm90ImplicitGemmTileTraits<CopyA, SmemLayoutA>,
      cutlass::conv::collective::detail::Sm90ImplicitGemmTileTraits<CopyB, SmemLayoutB>>;
};

// The kernel: ConvUniversalAdapter's contract (the types, Arguments/Params, the static host
// functions and operator()) over a ConvPersistentMainloop collective and a CUTLASS sm90 TMA
// epilogue built for the same schedule (TmaWarpSpecializedCooperative for cooperative tiles,
// TmaWarpSpecialized for a pingpong warpgroup's).
template <class ProblemShape_, class Mainloop_, class Epilogue_>
class ConvPersistentKernel {
 public:
  using ProblemShape = ProblemShape_;
  using CollectiveMainloop = Mainloop_;
  using CollectiveEpilogue = Epilogue_;
  using TileShape = typename CollectiveMainloop::TileShape;
  using TiledMma = typename CollectiveMainloop::TiledMma;
  using ArchTag = typename CollectiveMainloop::ArchTag;
  using ElementA = typename CollectiveMainloop::ElementA;
  using ElementB = typename CollectiveMainloop::ElementB;
  using StrideA = typename CollectiveMainloop::StrideA;
  using StrideB = typename CollectiveMainloop::StrideB;
  using DispatchPolicy = typename CollectiveMainloop::DispatchPolicy;
  using ElementAccumulator = typename CollectiveMainloop::ElementAccumulator;
  using ClusterShape = typename DispatchPolicy::ClusterShape;
  using ElementC = typename CollectiveEpilogue::ElementC;
  using StrideC = typename CollectiveEpilogue::StrideC;
  using ElementD = typename CollectiveEpilogue::ElementD;
  using StrideD = typename CollectiveEpilogue::StrideD;
  using TileScheduler = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90;
  using TileSchedulerArguments = typename TileScheduler::Arguments;
  static constexpr bool kPingpong =
      cute::is_same_v<typename DispatchPolicy::Schedule, ConvPersistentPingpong>;
  static_assert(kPingpong ||
                cute::is_same_v<typename DispatchPolicy::Schedule, ConvPersistentCooperative>);

  // The threads that compute one tile: both consumer warpgroups (cooperative) or one.
  static constexpr uint32_t NumTileThreads = cute::size(TiledMma{});
  static_assert(NumTileThreads == (kPingpong ? 128 : 256), "two consumer warpgroups");
  static_assert(kPingpong || cute::size<0>(TileShape{}) >= 128,
                "each cooperative warpgroup takes 64+ rows");
  static constexpr uint32_t MaxThreadsPerBlock = 3 * cutlass::NumThreadsPerWarpGroup;
  static constexpr uint32_t MinBlocksPerMultiprocessor = 1;
  // The load warpgroup keeps few registers so that the consumers can hold their accumulators.
  static constexpr uint32_t kLoadRegisters = 40;
  static constexpr uint32_t kMmaRegisters = 232;

  // The mainloop's load warp signals the epilogue's load warp once its first tile is issued, so
  // that C (where an epilogue reads one) does not delay the first tile's operands.
  using LoadOrderBarrier = cutlass::OrderedSequenceBarrier<1, 2>;
  // Pingpong: the two consumer warpgroups take turns, first for the MMAs of a tile, then for
  // its epilogue (two stages per warpgroup).
  using MathOrderBarrier = cutlass::OrderedSequenceBarrier<2, 2>;

  struct SharedStorage {
    struct Pipelines : cute::aligned_struct<16, cute::_1> {
      alignas(16) typename CollectiveMainloop::PipelineStorage mainloop;
      alignas(16) typename CollectiveEpilogue::PipelineStorage epi_load;
      alignas(16) typename LoadOrderBarrier::SharedStorage load_order;
      alignas(16) typename MathOrderBarrier::SharedStorage math_order;
    } pipelines;
    struct Tensors : cute::aligned_struct<128, cute::_1> {
      typename CollectiveEpilogue::TensorStorage epilogue;
      typename CollectiveMainloop::TensorStorage mainloop;
    } tensors;
  };
  static constexpr int SharedStorageSize = sizeof(SharedStorage);

  struct Arguments {
    cutlass::gemm::GemmUniversalMode mode{};
    ProblemShape problem_shape{};
    typename CollectiveMainloop::Arguments mainloop{};
    typename CollectiveEpilogue::Arguments epilogue{};
    cutlass::KernelHardwareInfo hw_info{};
    TileSchedulerArguments scheduler{};
  };

  // The GEMM view of the problem: (pixels, channels, (C or K, filter taps), 1).
  using ProblemShapeMNKL =
      decltype(CollectiveMainloop::get_problem_shape_MNKL(std::declval<ProblemShape>()));

  struct Params {
    ProblemShapeMNKL problem_shape{};
    typename CollectiveMainloop::Params mainloop{};
    typename CollectiveEpilogue::Params epilogue{};
    cutlass::KernelHardwareInfo hw_info{};
    typename TileScheduler::Params scheduler{};
  };

  static cutlass::KernelHardwareInfo hardware(const cutlass::KernelHardwareInfo& in) {
    cutlass::KernelHardwareInfo hw = in;
    if (hw.sm_count <= 0) {
      hw.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(hw.device_id);
    }
    return hw;
  }

  static Params to_underlying_arguments(const Arguments& args, void* workspace) {
    const auto mnkl = CollectiveMainloop::get_problem_shape_MNKL(args.problem_shape);
    const auto epilogue_shape =
        cutlass::conv::detail::get_transformed_problem_shape_MNKL(args.problem_shape);
    const cutlass::KernelHardwareInfo hw = hardware(args.hw_info);
    Params p;
    p.problem_shape = mnkl;
    p.mainloop =
        CollectiveMainloop::to_underlying_arguments(args.problem_shape, args.mainloop, workspace);
    p.epilogue =
        CollectiveEpilogue::to_underlying_arguments(epilogue_shape, args.epilogue, workspace);
    p.hw_info = hw;
    p.scheduler = TileScheduler::to_underlying_arguments(scheduler_shape(mnkl), TileShape{},
                                                         ClusterShape{}, hw, args.scheduler);
    return p;
  }

  static bool can_implement(const Arguments& args) {
    const auto epilogue_shape =
        cutlass::conv::detail::get_transformed_problem_shape_MNKL(args.problem_shape);
    const auto mnkl = CollectiveMainloop::get_problem_shape_MNKL(args.problem_shape);
    // The tiles are scheduled over M x N only: a batch mode (backward data's traversal
    // strides) would be dropped.
    return cute::size<3>(mnkl) == 1 &&
           CollectiveMainloop::can_implement(args.problem_shape, args.mainloop) &&
           CollectiveEpilogue::can_implement(epilogue_shape, args.epilogue) &&
           TileScheduler::can_implement(args.scheduler);
  }

  static size_t get_workspace_size(const Arguments&) { return 0; }
  static cutlass::Status initialize_workspace(const Arguments&, void* = nullptr,
                                              cudaStream_t = nullptr,
                                              cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }

  static dim3 get_grid_shape(const Params& params) {
    TileSchedulerArguments args{};
    args.max_swizzle_size = 1 << params.scheduler.log_swizzle_size_;
    args.raster_order = params.scheduler.raster_order_ == TileScheduler::RasterOrder::AlongN
                            ? TileScheduler::RasterOrderOptions::AlongN
                            : TileScheduler::RasterOrderOptions::AlongM;
    return TileScheduler::get_grid_shape(params.scheduler, scheduler_shape(params.problem_shape),
                                         TileShape{}, ClusterShape{}, params.hw_info, args);
  }
  static dim3 get_block_shape() { return dim3(MaxThreadsPerBlock, 1, 1); }

  CUTLASS_DEVICE void operator()(const Params& params, char* smem_buf) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using namespace cute;
    enum class Role { kLoad = 0, kMma0 = 1, kMma1 = 2 };
    enum class LoadWarp { kMainloop = 0, kEpilogue = 2 };
    SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_buf);
    const int thread_idx = int(threadIdx.x);
    const int warp_in_group = cutlass::canonical_warp_idx_sync() % cutlass::NumWarpsPerWarpGroup;
    const int group_thread = thread_idx % cutlass::NumThreadsPerWarpGroup;
    // The thread's index among its tile's threads.
    const int mma_thread = thread_idx % NumTileThreads;
    const Role role = Role(cutlass::canonical_warp_group_idx());
    const bool loads = role == Role::kLoad;
    const bool mainloop_loader = loads && warp_in_group == int(LoadWarp::kMainloop);
    const bool epilogue_loader = loads && warp_in_group == int(LoadWarp::kEpilogue);
    const int lane = cutlass::canonical_lane_idx();
    const uint32_t rank_in_cluster = cute::block_rank_in_cluster();

    if (cutlass::canonical_warp_idx_sync() == 0 && cute::elect_one_sync()) {
      CollectiveMainloop::prefetch_tma_descriptors(params.mainloop);
      CollectiveEpilogue::prefetch_tma_descriptors(params.epilogue);
    }

    using MainloopPipeline = typename CollectiveMainloop::MainloopPipeline;
    typename MainloopPipeline::Params mp;
    if (mainloop_loader) mp.role = MainloopPipeline::ThreadCategory::Producer;
    if (!loads) mp.role = MainloopPipeline::ThreadCategory::Consumer;
    mp.is_leader = group_thread == 0;
    mp.num_consumers = NumTileThreads;
    mp.transaction_bytes = params.mainloop.tma_transaction_bytes;
    MainloopPipeline mainloop_pipeline(smem.pipelines.mainloop, mp, ClusterShape{});

    using EpiLoadPipeline = typename CollectiveEpilogue::LoadPipeline;
    typename EpiLoadPipeline::Params ep;
    if (epilogue_loader) ep.role = EpiLoadPipeline::ThreadCategory::Producer;
    if (!loads) ep.role = EpiLoadPipeline::ThreadCategory::Consumer;
    ep.dst_blockid = rank_in_cluster;
    ep.producer_arv_count = cutlass::NumThreadsPerWarp;
    ep.consumer_arv_count = NumTileThreads;
    if constexpr (CollectiveEpilogue::RequiresTransactionBytes) {
      ep.transaction_bytes = params.epilogue.tma_transaction_bytes;
    }
    EpiLoadPipeline epi_load_pipeline(smem.pipelines.epi_load, ep);

    using EpiStorePipeline = typename CollectiveEpilogue::StorePipeline;
    typename EpiStorePipeline::Params sp;
    sp.always_wait = true;
    EpiStorePipeline epi_store_pipeline(sp);

    typename LoadOrderBarrier::Params op;
    op.group_id = warp_in_group == int(LoadWarp::kMainloop) ? 0 : 1;
    op.group_size = cutlass::NumThreadsPerWarp;
    LoadOrderBarrier load_order(smem.pipelines.load_order, op);

    typename MathOrderBarrier::Params mo;
    mo.group_id = loads ? 0 : int(role) - int(Role::kMma0);
    mo.group_size = cutlass::NumThreadsPerWarpGroup;
    MathOrderBarrier math_order(smem.pipelines.math_order, mo);

    // Every CTA of a cluster must see the others' barriers initialized before any arrives.
    if constexpr (size(ClusterShape{}) > 1) {
      cute::cluster_arrive_relaxed();
      cute::cluster_wait();
    } else {
      __syncthreads();
    }

    const auto mnkl = append<4>(params.problem_shape, Int<1>{});
    const auto blk_shape = TileShape{};
    TiledMma tiled_mma;
    CollectiveMainloop mainloop;
    CollectiveEpilogue epilogue(params.epilogue, smem.tensors.epilogue);
    const auto load_inputs = mainloop.load_init(mnkl, params.mainloop);
    const auto gA = get<0>(load_inputs);  // (BLK_M, BLK_K, m, k)
    const auto gB = get<1>(load_inputs);  // (BLK_N, BLK_K, n, k)
    const int k_tiles = size<3>(gA);
    TileScheduler scheduler{params.scheduler};
    auto tile_coord = [&](const auto& work) {
      return make_coord(idx2crd(work.M_idx, shape<2>(gA)), idx2crd(work.N_idx, shape<2>(gB)), _,
                        Int<0>{});
    };

    if (loads) {
      cutlass::arch::warpgroup_reg_dealloc<kLoadRegisters>();
      auto work = scheduler.initial_work_tile_info(ClusterShape{});
      if (mainloop_loader) {
        auto state = cutlass::make_producer_start_state<MainloopPipeline>();
        bool first = true;
        while (work.is_valid()) {
          mainloop.load(params.mainloop, mainloop_pipeline, state, load_inputs, tile_coord(work),
                        make_coord_iterator(shape<3>(gA)), k_tiles, lane, rank_in_cluster,
                        smem.tensors.mainloop);
          state.advance(k_tiles);
          if (first) {
            load_order.arrive();
            first = false;
          }
          scheduler.advance_to_next_work();
          work = scheduler.get_current_work();
        }
        mainloop.load_tail(mainloop_pipeline, state);
      } else if (epilogue_loader && epilogue.is_producer_load_needed()) {
        auto state = cutlass::make_producer_start_state<EpiLoadPipeline>();
        if (work.is_valid()) load_order.wait();
        while (work.is_valid()) {
          state = epilogue.load(epi_load_pipeline, state, mnkl, blk_shape, tile_coord(work),
                                tiled_mma, lane, smem.tensors.epilogue);
          scheduler.advance_to_next_work();
          work = scheduler.get_current_work();
        }
        epilogue.load_tail(epi_load_pipeline, state);
      }
    } else if constexpr (kPingpong) {
      // Warpgroup 1 starts on the CTA's second tile, past warpgroup 0's stages and epilogue
      // subtiles; each then moves two tiles on.
      cutlass::arch::warpgroup_reg_alloc<kMmaRegisters>();
      typename CollectiveMainloop::PipelineState mma_state;
      typename CollectiveEpilogue::LoadPipelineState epi_load_state;
      auto epi_store_state = cutlass::make_producer_start_state<EpiStorePipeline>();
      const auto c_tiles = CollectiveEpilogue::get_load_pipe_increment(blk_shape);
      const auto d_tiles = CollectiveEpilogue::get_store_pipe_increment(blk_shape);
      if (role == Role::kMma1) {
        scheduler.advance_to_next_work();
        mma_state.advance(k_tiles);
        epi_load_state.advance(c_tiles);
        epi_store_state.advance(d_tiles);
      }
      auto work = scheduler.initial_work_tile_info(ClusterShape{});
      while (work.is_valid()) {
        auto accumulators = partition_fragment_C(tiled_mma, take<0, 2>(blk_shape));
        math_order.wait();
        mainloop.mma(mainloop_pipeline, mma_state, accumulators, k_tiles, mma_thread,
                     smem.tensors.mainloop, params.mainloop);
        math_order.arrive();
        mainloop.mma_tail(mainloop_pipeline, mma_state, k_tiles);
        mma_state.advance(2 * k_tiles);
        math_order.wait();
        auto [load_next, store_next] = epilogue.store(
            epi_load_pipeline, epi_load_state, epi_store_pipeline, epi_store_state, mnkl, blk_shape,
            tile_coord(work), accumulators, tiled_mma, mma_thread, smem.tensors.epilogue);
        auto [load_done, store_done] =
            epilogue.store_tail(epi_load_pipeline, load_next, epi_store_pipeline, store_next);
        epi_load_state = load_done;
        epi_store_state = store_done;
        epi_load_state.advance(c_tiles);
        epi_store_state.advance(d_tiles);
        math_order.arrive();
        scheduler.advance_to_next_work(2);
        work = scheduler.get_current_work();
      }
    } else {
      cutlass::arch::warpgroup_reg_alloc<kMmaRegisters>();
      auto work = scheduler.initial_work_tile_info(ClusterShape{});
      typename CollectiveMainloop::PipelineState mma_state;
      typename CollectiveEpilogue::LoadPipelineState epi_load_state;
      auto epi_store_state = cutlass::make_producer_start_state<EpiStorePipeline>();
      bool stored = false;
      while (work.is_valid()) {
        auto accumulators = partition_fragment_C(tiled_mma, take<0, 2>(blk_shape));
        mainloop.mma(mainloop_pipeline, mma_state, accumulators, k_tiles, mma_thread,
                     smem.tensors.mainloop, params.mainloop);
        mainloop.mma_tail(mainloop_pipeline, mma_state, k_tiles);
        mma_state.advance(k_tiles);
        auto [load_next, store_next] = epilogue.store(
            epi_load_pipeline, epi_load_state, epi_store_pipeline, epi_store_state, mnkl, blk_shape,
            tile_coord(work), accumulators, tiled_mma, mma_thread, smem.tensors.epilogue);
        epi_load_state = load_next;
        epi_store_state = store_next;
        stored = true;
        scheduler.advance_to_next_work();
        work = scheduler.get_current_work();
      }
      if (stored) {
        epilogue.store_tail(epi_load_pipeline, epi_load_state, epi_store_pipeline, epi_store_state);
      }
    }
#else
    // The JIT compiles for sm_90a only; any other target has no GMMA.
    __trap();
#endif
  }

 private:
  // The scheduler's view: M and N as tile counts' extents, no batch.
  template <class MNKL>
  static auto scheduler_shape(const MNKL& mnkl) {
    return cute::make_shape(int(cute::size<0>(mnkl)), int(cute::size<1>(mnkl)),
                            int(cute::size<2>(mnkl)), cute::Int<1>{});
  }
};

}  // namespace boo_kernels
