// The configuration space of `conv.sm90_implicit` (DESIGN.md §3): CUTLASS 3 ConvUniversal
// implicit GEMMs on Hopper (TMA im2col + warpgroup MMA). CUTLASS 4.2 offers one kernel schedule
// for them (KernelImplicitTmaWarpSpecializedSm90: non-persistent, one consumer warpgroup; its
// cooperative and pingpong variants static_assert), so a config is the class plus a tile shape
// and a cluster shape.
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
inline constexpr std::string_view kSplitSuffix = "_split";

struct ConvSm90Config {
  ConvClass cls;
  int tile_m = 128;  // output pixels (fprop, dgrad) or K (wgrad) per CTA
  int tile_n = 128;  // K (fprop), C (dgrad, wgrad) per CTA
  int tile_k = 64;   // reduction elements per k-block
  int cluster_m = 1;
  int cluster_n = 1;
  // conv.padded_channels for strided forward problems with few channels: the input cut into
  // stride-sized blocks stacked along the channels (kernels/conv_space_to_depth.cuh). Not in
  // the spaces: the dispatcher sets it.
  bool space_to_depth = false;
  // conv.grouped: the grouped filter expanded into a block-diagonal dense one
  // (kernels/conv_grouped.cuh). Not in the spaces either.
  bool dense_groups = false;
  // conv.split_wgrad: backward weight split over the images into this many fp32 slices run side
  // by side (kernels/conv_split_wgrad.cuh); 0: not split. Not in the spaces either.
  int wgrad_splits = 0;

  bool operator==(const ConvSm90Config&) const = default;

  // "conv.sm90_implicit_<class>_t128x128x64_c1x1", "..._c1x1_s2d" with space-to-depth,
  // "..._c1x1_dense" with the dense group expansion, "..._c1x1_split8" split over 8 slices.
  std::string name() const;
  static core::Expected<ConvSm90Config> parse_name(std::string_view text);
};

// Whether conv.sm90_implicit generates code for the class at all (types, tf32 only forward,
// epilogue functors), or why not.
core::Status check_conv_sm90_class(const ConvClass& c);
// Why this config cannot be built (CUTLASS's constraints, registers, shared memory), or ok.
core::Status check_conv_sm90(const ConvSm90Config& c);
// Valid configs of a rule set for one class (empty when the class is unsupported).
std::vector<ConvSm90Config> conv_sm90_space(const ConvClass& cls, RuleSet rules);

}  // namespace boo::space
