// The configuration space of `gemm.sm90`: CUTLASS 3 TMA + warpgroup-MMA GEMMs (DESIGN.md §3).
// A config is a GemmClass plus tile shape, cluster shape, kernel schedule (cooperative: two
// consumer warpgroups share a tile; pingpong: they alternate tiles) and tile scheduler
// (persistent data-parallel, stream-K, split-K with a split count, parallel split-K). Split-K and
// stream-K share one compiled kernel (CUTLASS's stream-K scheduler); the split count is a launch
// argument. Parallel split-K ("psplitk<N>") runs a persistent kernel over N slices of K as a
// batch into an fp32 workspace, then a reduction adds the slices in a fixed order and applies
// the epilogue (kernels/gemm_split_parallel.cuh): CUTLASS's split-K reduces each tile's slices
// one after another, which serializes when slices far outnumber tiles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"
#include "boo/space/gemm_class.h"
#include "boo/space/rule_set.h"

namespace boo::space {

enum class GemmSchedule : uint8_t { kCooperative, kPingpong };
enum class GemmScheduler : uint8_t { kPersistent, kStreamK, kSplitK, kSplitKParallel };
// Order in which the scheduler hands out tiles: CUTLASS's heuristic, or rows along M / N.
enum class GemmRaster : uint8_t { kHeuristic, kAlongM, kAlongN };

struct GemmSm90Config {
  GemmClass cls;
  int tile_m = 128;
  int tile_n = 128;
  int tile_k = 64;
  int cluster_m = 1;
  int cluster_n = 1;
  GemmSchedule schedule = GemmSchedule::kCooperative;
  GemmScheduler scheduler = GemmScheduler::kPersistent;
  int splits = 1;   // split-K slices; 1 unless scheduler is kSplitK or kSplitKParallel
  int swizzle = 1;  // tiles per swizzled strip: 1, 2, 4, 8 (launch argument)
  GemmRaster raster = GemmRaster::kHeuristic;  // launch argument
  // gemm.sm90_unaligned: the same kernel behind padded copies of the operands TMA cannot
  // address (kernels/gemm_padded.cuh); names start with kGemmSm90UnalignedPrefix.
  bool unaligned = false;
  // The kernel computes D^T = op(B)^T op(A)^T (operands swapped, D written row-major): its tile
  // M runs along the problem's N. A narrow-M problem (M <= 32) then streams its large operand
  // as the narrow-N form does, in tall slabs, instead of 16-row ones. Persistent, 16-bit, no
  // bias (the bias would run along the tile's N), not unaligned.
  bool swap_ab = false;

  bool operator==(const GemmSm90Config&) const = default;

  // "gemm.sm90_<class>_t128x256x64_c2x1_coop_persistent_sw1.rh" ("_streamk", "_splitk4",
  // "_psplitk36"; "_persistent_swap_sw1.rh" with swapped operands;
  // "gemm.sm90_unaligned_<class>_..." for the padded variant;
  // swizzle 1/2/4/8, raster rh (heuristic), rm (along M), rn (along N)).
  std::string name() const;
  // The compiled object's identity: no launch arguments (split count, swizzle, raster), "_sk"
  // for both stream-K and split-K, "_psk" for parallel split-K, "_swap" with swapped operands.
  std::string kernel_name() const;
  static core::Expected<GemmSm90Config> parse_name(std::string_view text);
};

// Parallel split-K slices: 2 to kMaxParallelSplits. The default rule sets carry the count 2 as a
// stand-in; dispatch sets it per problem (parallel_splits).
inline constexpr int kMaxParallelSplits = 256;

// The most slices of K, at most `most`, that split K exactly into runs of a multiple of
// `k_align` elements (each slice's operands then start 16-byte aligned) no shorter than
// `min_k`; 0 where not even two do.
int parallel_splits(int64_t k, int64_t k_align, int64_t min_k, int64_t most);

inline constexpr std::string_view kGemmSm90Prefix = "gemm.sm90_";
inline constexpr std::string_view kGemmSm90UnalignedPrefix = "gemm.sm90_unaligned_";

// Why this config cannot be built (CUTLASS's static_asserts and can_implement, shared-memory
// capacity, register budget), or ok. Only valid configs reach the compiler.
core::Status check_gemm_sm90(const GemmSm90Config& c);
// Whether gemm.sm90 generates code for this class at all (types, transposes, epilogue).
// `transposed_copies`: the kernel runs behind gemm.sm90_unaligned's copies, which turn tf32
// operands that are not K-major around (gemm_sm90_transposes).
core::Status check_gemm_sm90_class(const GemmClass& c, bool transposed_copies = false);

// Whether gemm.sm90_unaligned's copies transpose this class's operands: tf32 warpgroup MMA reads
// K-major operands only, so an M-major A (transA N) or an N-major B (transB T) is copied into a
// K-major buffer and the kernel runs TN (kernels/transpose_copy.cuh).
bool gemm_sm90_transposes(const GemmClass& c);

// Valid configs of a rule set for one class (empty when the class is unsupported; a tf32 class
// that gemm.sm90_unaligned transposes has gemm.sm90_unaligned configs only).
std::vector<GemmSm90Config> gemm_sm90_space(const GemmClass& cls, RuleSet rules);

// Whether a gemm.sm90_unaligned config's object holds a second kernel that writes D in place,
// element by element (CUTLASS's epilogue without shared memory), run where D would otherwise go
// to a padded copy that is then copied out (the TMA epilogue runs where D is aligned): persistent
// kernels of a plain scaled product (no C, bias, activation or fp8 scales). H200, 2026-11-28
// (bench/results/2026-11-28-pad-launches-h200.md): 1.03-1.39x faster on six lines; with C read
// element by element as well it was 0.72x, so classes with C keep the copies. On an aligned D
// the in-place kernel was 1.04-1.13x slower than the TMA epilogue (2026-11-28-h200-lists.md).
bool gemm_sm90_direct_d(const GemmSm90Config& c);

// Shared memory of one mainloop stage, and the epilogue's reserve, in bytes (H100: 227 KiB
// per block). Used by the validity rules and the heuristic.
int gemm_sm90_stage_bytes(const GemmSm90Config& c);

// fp32 accumulators a consumer thread holds: the cooperative schedule's two warpgroups split the
// tile along M (256 threads), a pingpong warpgroup holds a whole tile (128 threads). (fp8
// mainloops hold two or three such sets: kernels/gemm_sm90_fp8.cuh.)
int gemm_sm90_accumulators(const GemmSm90Config& c);
inline constexpr int kSm90SharedMemoryBytes = 227 * 1024;
inline constexpr int kSm90EpilogueReserveBytes = 32 * 1024;

}  // namespace boo::space
