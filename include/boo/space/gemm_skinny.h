// The configuration space of `gemm.skinny` (kernels/gemm_skinny.cuh): GEMMs whose N (or M) is at
// most 32. A config is a GemmClass, the narrow side (N, or M: then the kernel computes D^T), the
// main loop (split: K split over blocks; stream: kernels/gemm_skinny_stream.cuh, R streamed
// into mma fragments, K shared by the warps of a block) and its count, a launch argument: K
// splits ("auto" sizes them to about four blocks per SM) or the stream's warps per row tile
// (1, 2, 4 or 8; "auto" as deep as K allows).
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
  int splits = 0;         // 0: auto; with `stream`, warps per row tile
  bool stream = false;    // the streaming main loop

  bool operator==(const GemmSkinnyConfig&) const = default;

  // "gemm.skinny_<class>_narrow-n_splitauto" ("_narrow-m", "_split8", "_streamauto",
  // "_stream4").
  std::string name() const;
  // Without the count (a launch argument): "..._narrow-n" or "..._narrow-n_stream".
  std::string kernel_name() const;
  static core::Expected<GemmSkinnyConfig> parse_name(std::string_view text);
};

core::Status check_gemm_skinny_class(const GemmClass& c);
core::Status check_gemm_skinny(const GemmSkinnyConfig& c);
// Configs of a rule set for one class and narrow side.
std::vector<GemmSkinnyConfig> gemm_skinny_space(const GemmClass& cls, bool narrow_m, RuleSet rules);

}  // namespace boo::space
