// The configuration space of `gemm.skinny` (kernels/gemm_skinny.cuh): GEMMs whose N (or M) is at
// most 32. A config is a GemmClass, the narrow side (N, or M: then the kernel computes D^T) and
// the split count of K (a launch argument; "auto" sizes it to about four blocks per SM).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"
#include "boo/space/gemm_class.h"
#include "boo/space/rule_set.h"

namespace boo::space {

inline constexpr std::string_view kGemmSkinnyPrefix = "gemm.skinny_";
inline constexpr int64_t kSkinnyMaxNarrow = 32;

struct GemmSkinnyConfig {
  GemmClass cls;
  bool narrow_m = false;  // M <= 32 (D^T = op(B)^T op(A)^T); else N <= 32
  int splits = 0;         // 0: auto

  bool operator==(const GemmSkinnyConfig&) const = default;

  // "gemm.skinny_<class>_narrow-n_splitauto" ("_narrow-m", "_split8").
  std::string name() const;
  // Without the split count (a launch argument).
  std::string kernel_name() const;
  static core::Expected<GemmSkinnyConfig> parse_name(std::string_view text);
};

core::Status check_gemm_skinny_class(const GemmClass& c);
core::Status check_gemm_skinny(const GemmSkinnyConfig& c);
// Configs of a rule set for one class and narrow side.
std::vector<GemmSkinnyConfig> gemm_skinny_space(const GemmClass& cls, bool narrow_m, RuleSet rules);

}  // namespace boo::space
