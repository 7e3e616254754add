// What `boo codegen` knows of every algorithm's configs: one variant over the config types,
// with their names, fields, validity rules, sources, parsing and enumeration by rule set. Private
// to tools/boo (cmd_codegen.cc).
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "boo/codegen/conv_codegen.h"
#include "boo/codegen/gemm_codegen.h"
#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/space/config_fields.h"
#include "boo/space/layernorm_rowwise.h"
#include "boo/space/rule_set.h"

namespace boo::cli {

inline constexpr char kGemmSm90[] = "gemm.sm90";
inline constexpr char kGemmSm90Unaligned[] = "gemm.sm90_unaligned";
inline constexpr char kGemmSkinny[] = "gemm.skinny";
inline constexpr char kGemmFallback[] = "gemm.fallback";
inline constexpr char kConvSm90[] = "conv.sm90_implicit";
inline constexpr char kConvDepthwise[] = "conv.depthwise";
inline constexpr char kConvPointwise[] = "conv.pointwise";
inline constexpr char kConvGrouped[] = "conv.grouped";  // its direct kernel's configs
inline constexpr char kConvDirect[] = "conv.direct";
inline constexpr char kLayerNormRowwise[] = "layernorm.rowwise";
// The algorithms with kernel sources of their own, in listing order (conv.gemm_1x1 and the
// other convolution algorithms run these kernels).
inline const std::vector<std::string> kAlgorithms = {
    kGemmSm90,      kGemmSm90Unaligned, kGemmSkinny,  kGemmFallback, kConvSm90,
    kConvDepthwise, kConvPointwise,     kConvGrouped, kConvDirect,   kLayerNormRowwise};
// The element types of layer norm configs, in listing order (layernorm.rowwise takes no class:
// a dtype and a direction fix its kernels).
inline constexpr core::DType kLayerNormDTypes[] = {core::DType::kBF16, core::DType::kF16,
                                                   core::DType::kF32};

inline bool is_gemm(std::string_view algorithm) { return algorithm.rfind("gemm.", 0) == 0; }

// Quoted whole (core::quote cuts at 40 characters; config names run to about 120).
inline std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// gemm.fallback and the direct convolution kernels (conv.direct, conv.depthwise,
// conv.pointwise, conv.grouped's direct kernel) have one config per class: the class is the config,
// named prefix + class.
struct GemmFallbackConfig {
  space::GemmClass cls;
};
using ConvOwnAlgorithm = codegen::ConvOwnKernel;
// The entry of a direct convolution algorithm, or nullptr.
inline const ConvOwnAlgorithm* conv_own(std::string_view algorithm) {
  return codegen::conv_own_kernel(algorithm);
}
struct ConvDirectConfig {
  space::ConvClass cls;
  const ConvOwnAlgorithm* algorithm = conv_own(kConvDirect);
};
using AnyConfig =
    std::variant<space::GemmSm90Config, space::GemmSkinnyConfig, GemmFallbackConfig,
                 space::ConvSm90Config, ConvDirectConfig, space::LayerNormRowwiseConfig>;
using ClassOf = std::variant<space::GemmClass, space::ConvClass>;

std::string name_of(const AnyConfig& config);
std::string name_of(const ClassOf& cls);
space::ConfigFields fields_of(const AnyConfig& config);
core::Expected<codegen::KernelSource> source_of(const AnyConfig& config);
// Whether `algorithm` generates code for a class at all, or why not.
core::Status check_class(std::string_view algorithm, const ClassOf& cls);
// The validity rules of the config's algorithm (parse_name checks only the spelling).
core::Status check_config(const AnyConfig& config);
// A config name of any algorithm, read by its algorithm's parser and checked by its rules.
core::Expected<AnyConfig> parse_config(const std::string& name);
// Every config of `algorithm` for one class (of its family) in the rule set.
std::vector<AnyConfig> enumerate(std::string_view algorithm, const ClassOf& cls,
                                 space::RuleSet rules);

}  // namespace boo::cli
