#include "codegen_configs.h"

#include <optional>

#include "boo/codegen/layernorm_codegen.h"

namespace boo::cli {
namespace {

using space::ConfigFields;
using space::ConvClass;
using space::GemmClass;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

}  // namespace

std::string name_of(const AnyConfig& config) {
  return std::visit(Overloaded{[](const GemmFallbackConfig& c) {
                                 return std::string(codegen::kGemmFallbackPrefix) + c.cls.name();
                               },
                               [](const ConvDirectConfig& c) {
                                 return std::string(c.algorithm->prefix) + c.cls.name();
                               },
                               [](const auto& c) { return c.name(); }},
                    config);
}

ConfigFields fields_of(const AnyConfig& config) {
  return std::visit(
      Overloaded{
          [](const GemmFallbackConfig& c) { return space::config_fields(kGemmFallback, c.cls); },
          [](const ConvDirectConfig& c) { return space::config_fields(c.algorithm->name, c.cls); },
          [](const auto& c) { return space::config_fields(c); }},
      config);
}

core::Expected<codegen::KernelSource> source_of(const AnyConfig& config) {
  return std::visit(
      Overloaded{[](const space::GemmSm90Config& c) { return codegen::gemm_sm90_source(c); },
                 [](const space::GemmSkinnyConfig& c) { return codegen::gemm_skinny_source(c); },
                 [](const GemmFallbackConfig& c) { return codegen::gemm_fallback_source(c.cls); },
                 [](const space::ConvSm90Config& c) { return codegen::conv_sm90_source(c); },
                 [](const ConvDirectConfig& c) { return c.algorithm->source(c.cls); },
                 [](const space::LayerNormRowwiseConfig& c) {
                   return codegen::layernorm_rowwise_source(c);
                 }},
      config);
}

std::string name_of(const ClassOf& cls) {
  return std::visit([](const auto& c) { return c.name(); }, cls);
}

core::Status check_class(std::string_view algorithm, const ClassOf& cls) {
  const bool gemm_class = std::holds_alternative<GemmClass>(cls);
  if (is_gemm(algorithm) != gemm_class) {
    return core::invalid_argument("--class " + in_quotes(name_of(cls)) + " is a " +
                                  (gemm_class ? "GEMM" : "convolution") + " class; " +
                                  std::string(algorithm) + " takes " +
                                  (gemm_class ? "convolution" : "GEMM") + " classes");
  }
  if (algorithm == kGemmSm90 || algorithm == kGemmSm90Unaligned) {
    // gemm.sm90_unaligned also takes tf32 classes that are not TN (it transposes them).
    return space::check_gemm_sm90_class(std::get<GemmClass>(cls), algorithm == kGemmSm90Unaligned);
  }
  if (algorithm == kGemmSkinny) return space::check_gemm_skinny_class(std::get<GemmClass>(cls));
  if (algorithm == kConvSm90) return space::check_conv_sm90_class(std::get<ConvClass>(cls));
  // The direct convolution kernels' rules live in their generators (no fp8; bias and
  // activation forward only; conv.pointwise and conv.grouped forward only).
  if (const ConvOwnAlgorithm* own = conv_own(algorithm)) {
    return own->source(std::get<ConvClass>(cls)).status();
  }
  return core::Status::ok();  // gemm.fallback takes every class
}

core::Status check_config(const AnyConfig& config) {
  return std::visit(
      Overloaded{
          [](const space::GemmSm90Config& c) { return space::check_gemm_sm90(c); },
          [](const space::GemmSkinnyConfig& c) { return space::check_gemm_skinny(c); },
          [](const GemmFallbackConfig&) { return core::Status::ok(); },
          [](const space::ConvSm90Config& c) { return space::check_conv_sm90(c); },
          [](const ConvDirectConfig& c) { return check_class(c.algorithm->name, c.cls); },
          [](const space::LayerNormRowwiseConfig& c) { return space::check_layernorm_rowwise(c); }},
      config);
}

core::Expected<AnyConfig> parse_config(const std::string& name) {
  auto starts = [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; };
  std::optional<AnyConfig> config;
  if (starts(space::kGemmSm90Prefix)) {  // also gemm.sm90_unaligned_
    BOO_ASSIGN_OR_RETURN(config, space::GemmSm90Config::parse_name(name));
  } else if (starts(space::kGemmSkinnyPrefix)) {
    BOO_ASSIGN_OR_RETURN(config, space::GemmSkinnyConfig::parse_name(name));
  } else if (starts(codegen::kGemmFallbackPrefix)) {
    auto cls = GemmClass::parse_name(name.substr(codegen::kGemmFallbackPrefix.size()));
    if (!cls) return cls.status().with_context("gemm.fallback config " + in_quotes(name) + ": ");
    config = GemmFallbackConfig{*cls};
  } else if (starts(space::kConvSm90Prefix)) {
    BOO_ASSIGN_OR_RETURN(config, space::ConvSm90Config::parse_name(name));
  } else if (starts(space::kLayerNormRowwisePrefix)) {
    BOO_ASSIGN_OR_RETURN(config, space::LayerNormRowwiseConfig::parse_name(name));
  } else {
    for (const ConvOwnAlgorithm& own : codegen::kConvOwnKernels) {
      if (!starts(own.prefix)) continue;
      auto cls = ConvClass::parse_name(name.substr(own.prefix.size()));
      if (!cls) {
        return cls.status().with_context(std::string(own.name) + " config " + in_quotes(name) +
                                         ": ");
      }
      config = ConvDirectConfig{*cls, &own};
    }
  }
  if (!config) {
    // Every prefix parse_config takes, from the tables it reads (so that none is left out).
    std::vector<std::string_view> prefixes = {
        space::kGemmSm90Prefix, space::kGemmSm90UnalignedPrefix, space::kGemmSkinnyPrefix,
        codegen::kGemmFallbackPrefix, space::kConvSm90Prefix};
    for (const ConvOwnAlgorithm& own : codegen::kConvOwnKernels) prefixes.push_back(own.prefix);
    prefixes.push_back(space::kLayerNormRowwisePrefix);
    std::string list;
    for (size_t i = 0; i < prefixes.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == prefixes.size() ? " or " : ", ") + std::string(prefixes[i]);
    }
    std::string hint;
    if (name == "conv.gemm_1x1") {
      hint =
          " (conv.gemm_1x1 is an algorithm: its kernels are gemm.sm90 and gemm.sm90_unaligned "
          "configs; `boo parse --candidates N COMMAND` names them)";
    }
    return core::invalid_argument(in_quotes(name) + " is not a config name: a config name starts " +
                                  "with " + list + hint);
  }
  if (core::Status s = check_config(*config); !s.is_ok()) {
    // Class-level rules do not repeat the name.
    return s.message().find(name) == std::string::npos ? s.with_context(name + ": ") : s;
  }
  return *config;
}

std::vector<AnyConfig> enumerate(std::string_view algorithm, const ClassOf& cls,
                                 space::RuleSet rules) {
  std::vector<AnyConfig> out;
  if (!check_class(algorithm, cls).is_ok()) return out;
  if (algorithm == kGemmSm90 || algorithm == kGemmSm90Unaligned) {
    for (space::GemmSm90Config c : space::gemm_sm90_space(std::get<GemmClass>(cls), rules)) {
      c.unaligned = algorithm == kGemmSm90Unaligned;
      out.push_back(c);
    }
  } else if (algorithm == kGemmSkinny) {
    for (bool narrow_m : {false, true}) {
      for (const auto& c : space::gemm_skinny_space(std::get<GemmClass>(cls), narrow_m, rules)) {
        out.push_back(c);
      }
    }
  } else if (algorithm == kGemmFallback) {
    out.push_back(GemmFallbackConfig{std::get<GemmClass>(cls)});
  } else if (algorithm == kConvSm90) {
    for (const auto& c : space::conv_sm90_space(std::get<ConvClass>(cls), rules)) out.push_back(c);
  } else {
    out.push_back(ConvDirectConfig{std::get<ConvClass>(cls), conv_own(algorithm)});
  }
  return out;
}

}  // namespace boo::cli
