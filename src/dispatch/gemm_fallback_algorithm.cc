// gemm.fallback: the always-correct SIMT GEMM; one config per problem class.
#include "boo/dispatch/gemm_algorithms.h"

namespace boo::dispatch {
namespace {

class GemmFallbackAlgorithm final : public GemmAlgorithm {
 public:
  std::string_view name() const override { return "gemm.fallback"; }

  core::Status supports(const ops::GemmProblem& p) const override { return p.validate(); }

  std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                              space::RuleSet) const override {
    Candidate c;
    c.algorithm = "gemm.fallback";
    c.config = std::string(codegen::kGemmFallbackPrefix) + space::gemm_class_of(p).name();
    // Roughly 20 TFLOP/s of fp32 FMA in a simple shared-memory tiling.
    c.predicted_us = p.flops() / 20e12 * 1e6 + d.launch_us;
    c.why = "always-correct SIMT kernel";
    return {c};
  }

  core::Expected<codegen::KernelSource> source(std::string_view config) const override {
    if (config.rfind(codegen::kGemmFallbackPrefix, 0) != 0) {
      return core::invalid_argument("not a gemm.fallback config: " + std::string(config));
    }
    BOO_ASSIGN_OR_RETURN(
        space::GemmClass cls,
        space::GemmClass::parse_name(config.substr(codegen::kGemmFallbackPrefix.size())));
    return codegen::gemm_fallback_source(cls);
  }

  LaunchOrder launch_order(std::string_view) const override { return {}; }
};

}  // namespace

std::unique_ptr<GemmAlgorithm> make_gemm_fallback() {
  return std::make_unique<GemmFallbackAlgorithm>();
}

}  // namespace boo::dispatch
