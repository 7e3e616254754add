#include "boo/space/gemm_skinny.h"

#include "boo/core/strings.h"

namespace boo::space {

using core::DType;

std::string GemmSkinnyConfig::kernel_name() const {
  return std::string(kGemmSkinnyPrefix) + cls.name() + (narrow_m ? "_narrow-m" : "_narrow-n");
}

std::string GemmSkinnyConfig::name() const {
  return kernel_name() + (splits == 0 ? "_splitauto" : "_split" + std::to_string(splits));
}

core::Expected<GemmSkinnyConfig> GemmSkinnyConfig::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("gemm.skinny config " + core::quote(text) + ": " + why);
  };
  if (text.rfind(kGemmSkinnyPrefix, 0) != 0) return bad("must start with gemm.skinny_");
  const std::string_view rest = text.substr(kGemmSkinnyPrefix.size());
  const size_t split_at = rest.rfind("_split");
  const size_t side_at = rest.rfind("_narrow-");
  if (split_at == std::string_view::npos || side_at == std::string_view::npos ||
      side_at > split_at) {
    return bad("expected <class>_narrow-<n|m>_split<auto|N>");
  }
  GemmSkinnyConfig c;
  auto cls = GemmClass::parse_name(rest.substr(0, side_at));
  if (!cls) return bad(cls.status().message());
  c.cls = *cls;
  const std::string_view side = rest.substr(side_at + 8, split_at - side_at - 8);
  if (side != "n" && side != "m") return bad("the narrow side is n or m");
  c.narrow_m = side == "m";
  const std::string_view split = rest.substr(split_at + 6);
  if (split != "auto") {
    BOO_ASSIGN_OR_RETURN(int64_t s, core::parse_int("split count", split));
    c.splits = static_cast<int>(s);
  }
  BOO_RETURN_IF_ERROR(check_gemm_skinny(c).with_context(std::string(text) + ": "));
  if (c.name() != text) return bad("not in canonical form (expected " + c.name() + ")");
  return c;
}

core::Status check_gemm_skinny_class(const GemmClass& c) {
  const bool fp8 = core::is_fp8(c.a) && core::is_fp8(c.b);
  if (!fp8 && c.a != c.b) return core::unsupported("gemm.skinny: A and B must have one type");
  if (core::is_fp8(c.d)) return core::unsupported("gemm.skinny: fp8 outputs are not supported");
  return core::Status::ok();
}

core::Status check_gemm_skinny(const GemmSkinnyConfig& c) {
  BOO_RETURN_IF_ERROR(check_gemm_skinny_class(c.cls));
  if (c.splits < 0 || c.splits > 64) {
    return core::unsupported("gemm.skinny: splits must be auto (0) or 1 to 64");
  }
  return core::Status::ok();
}

std::vector<GemmSkinnyConfig> gemm_skinny_space(const GemmClass& cls, bool narrow_m,
                                                RuleSet rules) {
  std::vector<GemmSkinnyConfig> out;
  if (!check_gemm_skinny_class(cls).is_ok()) return out;
  std::vector<int> splits = {0};
  if (rules == RuleSet::kFull) splits = {0, 1, 2, 4, 8, 16, 32};
  for (int s : splits) out.push_back({cls, narrow_m, s});
  return out;
}

}  // namespace boo::space
