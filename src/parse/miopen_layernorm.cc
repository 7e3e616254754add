#include "boo/parse/miopen_layernorm.h"

#include "boo/core/strings.h"
#include "boo/parse/flags.h"

namespace boo::parse {
namespace {

using core::Expected;
using core::invalid_argument;

constexpr std::string_view kOps[] = {"layernorm", "layernormfp32", "layernormfp16",
                                     "layernormbfp16"};

const std::vector<FlagSpec>& layernorm_flags() {
  // Defaults are MIOpen's layernorm_driver.hpp defaults.
  static const std::vector<FlagSpec> kFlags = with_run_flags({
      {"input", 'X', "100x3x32x32"},
      {"normalized_dim", 'o', "3"},
      {"eps", 'e', "0.00001"},
      {"mode", 'm', "0"},
      {"forw", 'F', "1"},
  });
  return kFlags;
}

Expected<std::vector<int64_t>> parse_shape(const std::string& flag, std::string_view text) {
  if (text.find(',') != std::string_view::npos) {
    return core::unsupported(flag + " " + core::quote(text) +
                             ": a layout or strides after ',' are not supported (packed "
                             "row-major tensors only)");
  }
  std::vector<int64_t> shape;
  for (std::string_view part : core::split(text, 'x')) {
    BOO_ASSIGN_OR_RETURN(int64_t d,
                         core::parse_int(flag + " (a dim of " + core::quote(text) + ")", part));
    shape.push_back(d);
  }
  return shape;
}

}  // namespace

std::span<const std::string_view> miopen_layernorm_ops() { return kOps; }

Expected<ParsedCommand> parse_miopen_layernorm(std::string_view op,
                                               std::span<const std::string> args) {
  ParsedCommand out;
  ops::LayerNormProblem p;
  if (op == "layernorm" || op == "layernormfp32") {
    p.dtype = core::DType::kF32;
  } else if (op == "layernormfp16") {
    p.dtype = core::DType::kF16;
  } else if (op == "layernormbfp16") {
    p.dtype = core::DType::kBF16;
  } else {
    return invalid_argument("unknown layer norm op " + core::quote(op));
  }
  BOO_ASSIGN_OR_RETURN(const FlagValues f, parse_flags(layernorm_flags(), args, &out.notes));
  BOO_ASSIGN_OR_RETURN(out.run, read_run_options(f));
  BOO_ASSIGN_OR_RETURN(p.shape, parse_shape(f.spelled("input"), f.get("input")));
  BOO_ASSIGN_OR_RETURN(const int64_t dim, f.get_int("normalized_dim"));
  if (dim < 0 || dim >= static_cast<int64_t>(p.shape.size())) {
    return invalid_argument(
        f.spelled("normalized_dim") + ": the first normalized dim must be in [0, " +
        std::to_string(p.shape.size() - 1) + "] for " + f.spelled("input") + " " +
        std::string(f.get("input")) + ", got " + std::to_string(dim) +
        (f.given("normalized_dim") ? "" : " (MIOpenDriver's default; pass -o)"));
  }
  p.normalized_dim = static_cast<int>(dim);
  BOO_ASSIGN_OR_RETURN(p.eps, f.get_double("eps"));
  BOO_ASSIGN_OR_RETURN(const int64_t mode, f.get_int("mode"));
  if (mode != 0 && mode != 1) {
    return invalid_argument(f.spelled("mode") +
                            ": expected 0 (no weight and bias) or 1 (weight and bias), got " +
                            std::to_string(mode));
  }
  p.affine = mode == 1;
  BOO_ASSIGN_OR_RETURN(const int64_t forw, f.get_int("forw"));
  if (forw < 1 || forw > 14 || (forw != 1 && (forw & 1))) {
    return invalid_argument(f.spelled("forw") +
                            ": expected 1 (forward) or a sum of 2 (dx), 4 (dweight), 8 (dbias), "
                            "e.g. 14 for the full backward, got " +
                            std::to_string(forw));
  }
  p.parts = static_cast<uint8_t>(forw);
  BOO_RETURN_IF_ERROR(f.respelled(p.validate()));
  out.problems.push_back(std::move(p));
  return out;
}

}  // namespace boo::parse
