#include "boo/space/gemm_skinny.h"

#include "boo/core/strings.h"

namespace boo::space {

using core::DType;

std::string GemmSkinnyConfig::kernel_name() const {
  return std::string(kGemmSkinnyPrefix) + cls.name() + (narrow_m ? "_narrow-m" : "_narrow-n") +
         (stream ? "_stream" : "");
}

std::string GemmSkinnyConfig::name() const {
  const std::string count = splits == 0 ? "auto" : std::to_string(splits);
  return kernel_name() + (stream ? count : "_split" + count);
}

core::Expected<GemmSkinnyConfig> GemmSkinnyConfig::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("gemm.skinny config " + core::quote(text) + ": " + why);
  };
  if (text.rfind(kGemmSkinnyPrefix, 0) != 0) return bad("must start with gemm.skinny_");
  const std::string_view rest = text.substr(kGemmSkinnyPrefix.size());
  GemmSkinnyConfig c;
  size_t split_at = rest.rfind("_split");
  size_t count_at = split_at + 6;
  const size_t stream_at = rest.rfind("_stream");
  if (stream_at != std::string_view::npos &&
      (split_at == std::string_view::npos || stream_at > split_at)) {
    c.stream = true;
    split_at = stream_at;
    count_at = stream_at + 7;
  }
  const size_t side_at = rest.rfind("_narrow-");
  if (split_at == std::string_view::npos || side_at == std::string_view::npos ||
      side_at > split_at) {
    return bad("expected <class>_narrow-<n|m>_split<auto|N> or _stream<auto|N>");
  }
  auto cls = GemmClass::parse_name(rest.substr(0, side_at));
  if (!cls) return bad(cls.status().message());
  c.cls = *cls;
  const std::string_view side = rest.substr(side_at + 8, split_at - side_at - 8);
  if (side != "n" && side != "m") return bad("the narrow side is n or m");
  c.narrow_m = side == "m";
  const std::string_view split = rest.substr(count_at);
  if (split != "auto") {
    BOO_ASSIGN_OR_RETURN(int64_t s,
                         core::parse_int(c.stream ? "warps per row tile" : "split count", split));
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
  if (c.stream) {
    if (c.cls.a == DType::kF32) {
      return core::unsupported("gemm.skinny: the streaming loop needs 16-bit or fp8 inputs");
    }
    if (c.splits != 0 && c.splits != 1 && c.splits != 2 && c.splits != 4 && c.splits != 8) {
      return core::unsupported(
          "gemm.skinny: the streaming loop's warps per row tile must be auto (0), 1, 2, 4 or 8");
    }
    return core::Status::ok();
  }
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
  for (int s : splits) out.push_back({cls, narrow_m, s, false});
  if (cls.a == DType::kF32) return out;
  std::vector<int> parts = {0};
  if (rules == RuleSet::kFull) parts = {0, 1, 2, 4, 8};
  for (int s : parts) out.push_back({cls, narrow_m, s, true});
  return out;
}

}  // namespace boo::space
