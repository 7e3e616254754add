// The configuration space of `conv.sm90_implicit` (DESIGN.md §3): CUTLASS 3 ConvUniversal
// implicit GEMMs on Hopper (TMA im2col + warpgroup MMA). CUTLASS 4.2 offers one kernel schedule
// for them (KernelImplicitTmaWarpSpecializedSm90: non-persistent, one consumer warpgroup; its
// cooperative and pingpong variants static_assert); boo adds a persistent cooperative kernel of
// its own over the same collective (kernels/conv_sm90_persistent.cuh) for forward and backward
// data. A config is the class, the schedule, a tile shape and a cluster shape.
//
// A ConvClass is what changes generated code: data type and math, direction, spatial
// dimensions, and the forward epilogue (bias, activation). Sizes, strides, padding and dilation
// are launch arguments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/ops/activation.h"
#include "boo/ops/conv_problem.h"
#include "boo/space/rule_set.h"

namespace boo::space {

struct ConvClass {
  core::DType dtype = core::DType::kBF16;
  core::MathMode math = core::MathMode::kF32;
  ops::ConvDirection direction = ops::ConvDirection::kForward;
  int spatial_dims = 2;
  bool bias = false;  // forward only
  ops::Activation activation = ops::Activation::kNone;

  bool operator==(const ConvClass&) const = default;

  // e.g. "bf16_f32acc_fprop_2d_bias.relu", "fp32_tf32_fprop_3d_nobias.none",
  // "fp16_f32acc_wgrad_1d_nobias.none" (activations spell '_' as '-').
  std::string name() const;
  static core::Expected<ConvClass> parse_name(std::string_view text);
};

ConvClass conv_class_of(const ops::ConvProblem& p);

inline constexpr std::string_view kConvSm90Prefix = "conv.sm90_implicit_";
inline constexpr std::string_view kSpaceToDepthSuffix = "_s2d";
inline constexpr std::string_view kDenseGroupsSuffix = "_dense";
inline constexpr std::string_view kDgradPhasesSuffix = "_phases";
inline constexpr std::string_view kSplitSuffix = "_split";
inline constexpr std::string_view kStagesSuffix = "_st";
inline constexpr std::string_view kCooperativeSuffix = "_coop";
inline constexpr std::string_view kPingpongSuffix = "_pingpong";

// The kernel: CUTLASS's own non-persistent one (kBasic), or boo's persistent kernel
// (kernels/conv_sm90_persistent.cuh) with two consumer warpgroups sharing each tile
// (kCooperative, tiles up to 256 x 128) or taking alternate tiles, one's epilogue under the
// other's MMAs (kPingpong, tiles up to 128 x 128).
enum class ConvSchedule { kBasic, kCooperative, kPingpong };

struct ConvSm90Config {
  ConvClass cls;
  int tile_m = 128;  // output pixels (fprop, dgrad) or K (wgrad) per CTA
  int tile_n = 128;  // K (fprop), C (dgrad, wgrad) per CTA
  int tile_k = 64;   // reduction elements per k-block
  int cluster_m = 1;
  int cluster_n = 1;
  // Mainloop pipeline stages; 0: as many as shared memory holds beside the epilogue (CUTLASS's
  // carveout, one CTA per SM). Fewer stages let two or more CTAs share an SM, so that one CTA's
  // prologue and epilogue overlap another's mainloop: CUTLASS 4.2's sm90 conv kernel is not
  // persistent, and this is the overlap a persistent kernel would give (`persistent` below).
  int stages = 0;
  // The persistent schedules (kernels/conv_sm90_persistent.cuh): one CTA per SM walks output
  // tiles. Forward and backward data; stages auto.
  ConvSchedule schedule = ConvSchedule::kBasic;
  bool persistent() const { return schedule != ConvSchedule::kBasic; }
  // conv.padded_channels for strided forward problems with few channels: the input cut into
  // stride-sized blocks stacked along the channels (kernels/conv_space_to_depth.cuh). Not in
  // the spaces: the dispatcher sets it.
  bool space_to_depth = false;
  // conv.grouped: the grouped filter expanded into a block-diagonal dense one
  // (kernels/conv_grouped.cuh). Not in the spaces either.
  bool dense_groups = false;
  // Backward data as forward convolutions of dy over dx's stride phases, the filter turned
  // around (kernels/conv_dgrad_phases.cuh): strided backward data, and tf32 backward data (whose
  // own CUTLASS kernel would read an MN-major operand). The class stays backward data; the
  // kernel is the class's forward one. Not in the spaces either.
  bool dgrad_phases = false;
  // conv.split_wgrad: backward weight split over the images into this many fp32 slices run side
  // by side (kernels/conv_split_wgrad.cuh); 0: not split. Not in the spaces either.
  int wgrad_splits = 0;

  bool operator==(const ConvSm90Config&) const = default;

  // "conv.sm90_implicit_<class>_t128x128x64_c1x1", "..._c1x1_st4" with 4 stages,
  // "..._c1x1_coop" / "..._c1x1_pingpong" on the persistent kernel's schedules,
  // "..._c1x1_s2d" with space-to-depth,
  // "..._c1x1_dense" with the dense group expansion, "..._c1x1_phases" as forward stride phases,
  // "..._c1x1_split8" split over 8 slices.
  std::string name() const;
  static core::Expected<ConvSm90Config> parse_name(std::string_view text);
};

// Whether conv.sm90_implicit generates code for the class at all (types, tf32 only forward,
// epilogue functors), or why not.
core::Status check_conv_sm90_class(const ConvClass& c);
// Why this config cannot be built (CUTLASS's constraints, registers, shared memory), or ok.
core::Status check_conv_sm90(const ConvSm90Config& c);
// The stage count that lets two CTAs of this config share an SM, or 0 (auto: one CTA per SM).
// Tiles of at most 128 x 64 accumulators keep the kernel near 90 registers per thread (256
// threads), so two CTAs fit by registers; 4 stages of them fit twice in shared memory. On the
// H100 this took the public 3x3 problems from 66 to 52 us (the epilogue and prologue of one CTA
// under the other's mainloop); 128 x 128 tiles (one CTA by registers) only lost stages
// (bench/results/2026-11-23-conv-stages-h100.md).
int conv_sm90_coresident_stages(const ConvSm90Config& c);

// Valid configs of a rule set for one class (empty when the class is unsupported), each with
// conv_sm90_coresident_stages' stage count.
std::vector<ConvSm90Config> conv_sm90_space(const ConvClass& cls, RuleSet rules);

}  // namespace boo::space
