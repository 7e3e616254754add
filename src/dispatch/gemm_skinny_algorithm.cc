// gemm.skinny: decode-shaped GEMMs (N or M at most 32), memory-bound by construction.
#include <algorithm>
#include <cstdio>

#include "boo/dispatch/gemm_algorithms.h"
#include "boo/space/gemm_skinny.h"

namespace boo::dispatch {
namespace {

using space::GemmSkinnyConfig;

bool narrow_m_side(const ops::GemmProblem& p) {
  return !(p.n <= space::kSkinnyMaxNarrow && (p.n <= p.m || p.m > space::kSkinnyMaxNarrow));
}

class GemmSkinnyAlgorithm final : public GemmAlgorithm {
 public:
  std::string_view name() const override { return "gemm.skinny"; }

  core::Status supports(const ops::GemmProblem& p) const override {
    if (p.n > space::kSkinnyMaxNarrow && p.m > space::kSkinnyMaxNarrow) {
      return core::unsupported("gemm.skinny: needs N <= 32 or M <= 32");
    }
    if (p.batch > 65535) return core::unsupported("gemm.skinny: batch above 65535");
    return space::check_gemm_skinny_class(space::gemm_class_of(p));
  }

  std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                              space::RuleSet rules) const override {
    std::vector<Candidate> out;
    const bool narrow_m = narrow_m_side(p);
    for (const GemmSkinnyConfig& c :
         space::gemm_skinny_space(space::gemm_class_of(p), narrow_m, rules)) {
      Candidate cand;
      cand.algorithm = "gemm.skinny";
      cand.config = c.name();
      // Memory-bound: each operand crosses HBM once at ~90% of the bandwidth (16-byte loads of
      // the large operand, many blocks in flight), plus the fp32 partials of the K splits and
      // the launch. fp32 inputs run a scalar FMA loop at about half of the fp32 rate.
      const int64_t rows = narrow_m ? p.n : p.m;
      const int64_t cols = narrow_m ? p.m : p.n;
      const int64_t blocks = (rows + 63) / 64 * p.batch;
      int64_t splits = c.splits > 0 ? c.splits
                                    : std::min<int64_t>(std::max<int64_t>(p.k / 256, 1),
                                                        (4 * d.sm_count + blocks - 1) / blocks);
      splits = std::max<int64_t>(splits, 1);
      const double partial_bytes = splits > 1 ? 2.0 * splits * rows * cols * p.batch * 4 : 0.0;
      const double memory_us =
          (static_cast<double>(p.min_bytes()) + partial_bytes) / (0.9 * d.bandwidth_gbs * 1e9) *
          1e6;
      const bool scalar = p.a_type == core::DType::kF32;
      const double compute_us =
          scalar ? p.flops() / (0.5 * d.tflops_tf32 / 7.4 * 1e12) * 1e6 : p.flops() / 200e12 * 1e6;
      cand.predicted_us = std::max(memory_us, compute_us) + d.launch_us;
      char why[160];
      std::snprintf(why, sizeof(why), "%lld row blocks x %lld K splits; memory %.1f us, compute %.1f us",
                    static_cast<long long>(blocks), static_cast<long long>(splits), memory_us,
                    compute_us);
      cand.why = why;
      out.push_back(std::move(cand));
    }
    std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
      return a.predicted_us < b.predicted_us;
    });
    return out;
  }

  core::Expected<codegen::KernelSource> source(std::string_view config) const override {
    BOO_ASSIGN_OR_RETURN(GemmSkinnyConfig c, GemmSkinnyConfig::parse_name(config));
    return codegen::gemm_skinny_source(c);
  }

  LaunchOrder launch_order(std::string_view config) const override {
    auto c = GemmSkinnyConfig::parse_name(config);
    LaunchOrder o;
    if (c.has_value()) o.splits = c->splits;
    return o;
  }
};

}  // namespace

std::unique_ptr<GemmAlgorithm> make_gemm_skinny() {
  return std::make_unique<GemmSkinnyAlgorithm>();
}

}  // namespace boo::dispatch
